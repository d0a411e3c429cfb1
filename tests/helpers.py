"""Helpers shared by the test folders (importable from every folder: pytest's ``pythonpath`` is
``tests``). Fixtures live in ``conftest.py``; plain functions and paths live here."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN, EditContext
from semcer.judges.base import FixedJudge
from semcer.judges.distribution import Judgement
from semcer.store.cached import judge_cached
from semcer.store.sqlite import STORED, JudgedEditStore
from semcer.text.units import graphemes

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = ROOT / "data" / "severity"
SRC = ROOT / "src"


def write(path: Path, content: str | bytes) -> Path:
    """Write exact bytes (no newline translation), creating parent directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def read_error(path, **kwargs) -> str:
    """The one-line message of the InputError that reading ``path`` as a collection raises."""
    import pytest

    from semcer.errors import InputError
    from semcer.io.collections import read_collection

    with pytest.raises(InputError) as info:
        read_collection(path, **kwargs)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def read_jsonl(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def one_edit_context(lang: str, ref: str, hyp: str):
    """The one grapheme edit between ``ref`` and ``hyp`` (they differ in one place only), built by
    hand rather than by semcer's aligner, so judge tests do not depend on its tie-breaking."""
    r, h = graphemes(ref), graphemes(hyp)
    i = 0
    while i < min(len(r), len(h)) and r[i] == h[i]:
        i += 1
    if len(r) == len(h):
        op, ru, hu = "S", r[i], h[i]
    elif len(r) == len(h) + 1:
        op, ru, hu = "D", r[i], ""
    elif len(h) == len(r) + 1:
        op, ru, hu = "I", "", h[i]
    else:  # pragma: no cover - a test-writing mistake
        raise AssertionError("lines differ by more than one unit")
    assert r[i + (op != "I") :] == h[i + (op != "D") :], "lines differ in more than one place"
    mr = "".join(r[:i]) + MARK_OPEN + ru + MARK_CLOSE + "".join(r[i + (op != "I") :])
    mh = "".join(h[:i]) + MARK_OPEN + hu + MARK_CLOSE + "".join(h[i + (op != "D") :])
    return EditContext(lang, op, ru, hu, i, i, ref, hyp, mr, mh)


# Characters around which NFC's quick check answers "maybe" or reorders, and their partners (the
# scan, the segmenter and the line engine are all tested on strings drawn from them).
TRICKY = (
    "\u09c7\u09be\u09d7\u0995"  # Bengali: ে + া composes to ো; ৗ; a consonant
    "\u0bc6\u0bc7\u0bbe\u0bd7\u0b95"  # Tamil: ெ + ா composes to ொ
    "\u1100\u1161\u11a8\uac00\uac01"  # Hangul L, V, T, LV, LVT
    "\u094d\u093c\u0915\u0929"  # Devanagari virama (ccc 9), nukta (ccc 7), consonants
    "\u0e48\u0e38\u0e01"  # Thai tone mark (ccc 107), vowel sign u (ccc 103), consonant
    "\u0301\u0323\u0302\u0316ae\u00e9\u1ea1\u00d9\u1ec7"  # Latin marks (ccc 230, 220) and bases
    "\u0344\u0958\u2126\u212b"  # not NFC on their own
    "\u200d\u0903\u0600\U0001f1e6\U0001f600\r\n "
)


class TableJudge:
    """Charges by a table keyed on the output unit and counts the edits it is asked about."""

    def __init__(self, table, identity="counting-1"):
        self.table, self.identity, self.calls = table, identity, []

    def judge(self, contexts):
        self.calls.extend(contexts)
        out = []
        for c in contexts:
            p = self.table.get(c.hyp_unit or c.ref_unit)
            out.append(Judgement(None, failure="no answer") if p is None else Judgement(tuple(p)))
        return out


def distribution_with_rating(severity):
    """A five-level distribution with the given expected rating (one-hot when it is a level)."""
    p = [0.0] * 5
    k = int(severity * 4)
    frac = severity * 4 - k
    p[k] = 1 - frac
    if frac:
        p[k + 1] = frac
    return tuple(p)


# ---- judged edits for the store tests ----------------------------------------------------------

# (lang, reference line, output line): real text in several scripts.
LINES = [
    ("vi", "Hà Nội mùa thu", "Hà Nội mùa thư"),
    ("de", "Schiebeanzahl muss 0 oder 16 sein", "Schiebeanzahl muss 0 oder 11 sein"),
    ("zh", "请输入有效的日期", "请输入有效的日明"),
    ("hi", "फ़ाइल खोलने में त्रुटि", "फ़ाइल खोलने मे त्रुटि"),
    ("th", "ไม่สามารถเปิดไฟล์ได้", "ไม่สามารถปิดไฟล์ได้"),
    ("fr", "Impossible d’ouvrir « rapport.pdf »", "Impossible d'ouvrir « rapport.pdf »"),
    ("en", "Amount due: 1,250.00 EUR", "Amount due: 1,750.00 EUR"),
]


def _mark(text: str, pos: int, unit: str, length: int) -> str:
    return f"{text[:pos]}{MARK_OPEN}{unit}{MARK_CLOSE}{text[pos + length:]}"


def make_ctx(i: int, *, line_id: str = "", doc: str = "", lang: str | None = None) -> EditContext:
    """The i-th distinct edit: a substitution, deletion or insertion in one of LINES (code-point positions)."""
    base_lang, ref, hyp = LINES[i % len(LINES)]
    op = "SDI"[(i // len(LINES)) % 3]
    pos = (i // (3 * len(LINES))) % min(len(ref), len(hyp))
    variant = i // (3 * len(LINES) * min(len(ref), len(hyp)))
    ref = ref + " " * variant  # keeps every i distinct
    if op == "S":
        r_unit, h_unit = ref[pos], hyp[pos]
        marked_ref, marked_hyp = _mark(ref, pos, r_unit, 1), _mark(hyp, pos, h_unit, 1)
    elif op == "D":
        r_unit, h_unit = ref[pos], ""
        marked_ref, marked_hyp = _mark(ref, pos, r_unit, 1), _mark(hyp, pos, "", 0)
    else:
        r_unit, h_unit = "", hyp[pos]
        marked_ref, marked_hyp = _mark(ref, pos, "", 0), _mark(hyp, pos, h_unit, 1)
    return EditContext(lang or base_lang, op, r_unit, h_unit, pos, pos, ref, hyp, marked_ref, marked_hyp, line_id, doc)


def p_of(ctx: EditContext) -> tuple[float, ...]:
    """A deterministic, non-trivial distribution per edit (awkward floats on purpose)."""
    h = hashlib.sha256(ctx.content_key().encode()).digest()
    raw = [b + 1 for b in h[:5]]
    total = sum(raw)
    p = [x / total for x in raw]
    p[4] = 1.0 - sum(p[:4])
    return tuple(p)


class RecordingJudge:
    """Records every edit it is asked to judge; fails on edits whose content key is in ``fail``."""

    identity = "counting:v1"

    def __init__(self, fail: set[str] | frozenset[str] = frozenset()) -> None:
        self.calls: list[list[EditContext]] = []
        self.fail = fail

    def judge(self, contexts):
        self.calls.append(list(contexts))
        return [
            Judgement(None, failure="timeout") if c.content_key() in self.fail else Judgement(p_of(c), "letter", ("t",))
            for c in contexts
        ]

    @property
    def judged(self) -> list[str]:
        return [c.content_key() for batch in self.calls for c in batch]


#: Where the five probabilities stand in a stored row (:func:`dump`).
P_STORED = slice(STORED.index("p0"), STORED.index("p4") + 1)


def dump(path: Path) -> list[tuple]:
    """Every row of a store's table of judged edits as stored (:data:`semcer.store.sqlite.STORED`), in key order."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT * FROM judged_edits ORDER BY key").fetchall()


def fill_store(path: Path) -> Path:
    """A store of 190 judged edits: 150 by RecordingJudge, 40 by a FixedJudge named "thirds"."""
    with JudgedEditStore(path) as store:
        judge_cached(RecordingJudge(), [make_ctx(i) for i in range(150)], store, batch_size=64)
        judge_cached(FixedJudge(p=(1 / 3, 1 / 3, 1 / 3, 0.0, 0.0), name="thirds"), [make_ctx(i) for i in range(40)], store)
    return path


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` (a file or a folder) not writable by this process, even as root (immutable then, with
    ``chattr +i``; the test is skipped where that cannot be done)."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)]).returncode != 0:
            pytest.skip("running as root without chattr +i: cannot make a file read-only")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)


# ---- a real Tesseract page ------------------------------------------------------------------

TESSERACT = shutil.which("tesseract")
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
#: What the test page prints: two paragraphs of two lines.
BLOCKS = [["Façade of the old café", "Twelve boxers chase Victor"], ["Invoice 4471 due 14/04/2026", "Total 1,250.00 EUR"]]


def _has_english() -> bool:
    if TESSERACT is None:
        return False
    out = subprocess.run([TESSERACT, "--list-langs"], capture_output=True, text=True, timeout=60)
    return "eng" in out.stdout.split()


needs_tesseract = pytest.mark.skipif(not _has_english() or not FONT.exists(),
                                     reason="tesseract with the English model, or the DejaVu font, is not installed "
                                     "(Debian: apt-get install tesseract-ocr tesseract-ocr-eng fonts-dejavu-core)")


def tesseract_page(folder: Path) -> Path:
    """``folder`` with page.png (:data:`BLOCKS` drawn with Pillow in DejaVu Sans) and Tesseract's
    page.hocr and page.xml (ALTO) of it."""
    pytest.importorskip("PIL", reason="Pillow draws the test image (pip install Pillow)")
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(FONT), 40)
    img = Image.new("L", (1300, 560), 255)
    draw = ImageDraw.Draw(img)
    for b, lines in enumerate(BLOCKS):
        for i, line in enumerate(lines):
            draw.text((60, 60 + 260 * b + 70 * i), line, fill=0, font=font)
    img.save(folder / "page.png")
    subprocess.run([str(TESSERACT), str(folder / "page.png"), str(folder / "page"), "-l", "eng", "hocr", "alto"],
                   check=True, capture_output=True, timeout=300)
    return folder


# ---- another process holding an SQLite file's lock ------------------------------------------

#: Holds an exclusive lock on argv[1] for argv[2] seconds (until standard input ends when negative);
#: prints "held" once it has it and the time.time() at which it let go.
_HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
seconds = float(sys.argv[2])
if seconds < 0:
    sys.stdin.read()
else:
    time.sleep(seconds)
conn.execute("COMMIT")
print(time.time(), flush=True)
"""


@contextlib.contextmanager
def locked(path: Path, seconds: float) -> Iterator[subprocess.Popen]:
    """A second process holding ``path``'s lock for ``seconds`` (negative: until the block ends);
    yields the process (:func:`released_at` gives the time it let go)."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path), str(seconds)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        if proc.poll() is None and seconds < 0:
            proc.communicate(timeout=30)  # closes its standard input: it commits and ends
        proc.wait(timeout=30)


def released_at(proc: subprocess.Popen) -> float:
    """The time.time() at which a :func:`locked` process let go of the lock."""
    out, _ = proc.communicate(timeout=30)
    return float(out.strip())


def store_lost_at(request: int, store: Path, other: Path, how: str, answer: Any) -> tuple[Any, dict[str, int]]:
    """A loopback judge server's backend answering as ``answer`` does, that deletes ``store`` (``how``
    "deleted") or puts a copy of the store ``other`` in its place ("replaced") when request
    ``request`` arrives, and the counts it keeps: ``requests``, and ``kept_before`` (the rows the
    store held just then)."""
    seen = {"requests": 0}

    def backend(body: dict) -> Any:
        seen["requests"] += 1
        if seen["requests"] == request:
            with contextlib.closing(sqlite3.connect(store)) as conn:
                seen["kept_before"] = conn.execute("SELECT count(*) FROM judged_edits").fetchone()[0]
            if how == "deleted":
                store.unlink()
            else:
                incoming = store.with_name("incoming.sqlite")
                shutil.copyfile(other, incoming)
                incoming.replace(store)
        return answer(body)

    return backend, seen


def store_lost_warnings(store: Path, batch: int, lost: int) -> list[str]:
    """The two warnings of a run whose store was deleted or replaced after its first batch of
    ``batch`` edits was committed, ``lost`` judged edits in all not kept (the text a user reads)."""
    return [
        f"semcer: warning: {store} was deleted, moved or replaced by another file during the run: the {batch} "
        "judged edit(s) this run wrote since are not in it (nor are earlier ones, unless the file now there has "
        "them), and it writes no more there; the scores are not affected, and a later run judges the missing "
        "edits again",
        f"semcer: warning: {store}: in all {lost} judged edit(s) this run wrote after the store was deleted, moved "
        "or replaced are not in it",
    ]
