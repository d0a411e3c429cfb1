"""Helpers shared by the test folders (importable from every folder: pytest's ``pythonpath`` is
``tests``). Fixtures live in ``conftest.py``; plain functions and paths live here."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = ROOT / "data" / "severity"
SRC = ROOT / "src"


def read_jsonl(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def one_edit_context(lang: str, ref: str, hyp: str):
    """The one grapheme edit between ``ref`` and ``hyp`` (they differ in one place only), built by
    hand rather than by semcer's aligner, so judge tests do not depend on its tie-breaking."""
    from semcer.alignment.context import MARK_CLOSE, MARK_OPEN, EditContext
    from semcer.text.units import graphemes

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
        from semcer.judges.distribution import Judgement

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
