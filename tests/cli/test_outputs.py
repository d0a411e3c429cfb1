"""Every output path of a command is checked before any work (issue 11, item 7).

Defect: `-o` into a missing or read-only folder or onto a folder, `--edits x.tsv`, `--edits
x.parquet` without pyarrow and `--edits REFS` were found only after the whole run (with a
traceback), and a bad `--edits` lost the score, which was written after the edits.

The inputs of these runs are named pipes that nobody writes: a command that reads (let alone
scores) anything before checking its outputs blocks on them and the test times out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import EXAMPLES, jsonl, write

from semcer.cli import main
from semcer.errors import SemcerError

REFS = EXAMPLES / "references.jsonl"
CLEAN = EXAMPLES / "tess_clean.jsonl"
DEV = Path(__file__).resolve().parents[2] / "data" / "severity" / "dev.jsonl"

# A child interpreter in which pyarrow cannot be imported (as without semcer[parquet]).
NO_PYARROW = textwrap.dedent("""
    import sys, importlib.abc
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "pyarrow":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None
    sys.meta_path.insert(0, Block())
    from semcer.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def _read_only_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create files in (root ignores modes: use /proc/sys there)."""
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        return ro
    if os.path.isdir("/proc/sys") and not os.access("/proc/sys", os.W_OK):
        return Path("/proc/sys")
    pytest.skip("running as root without a read-only folder to write into")


@pytest.fixture
def fifos(tmp_path):
    """Two named pipes that are never written: reading either blocks forever."""
    paths = []
    for name in ("refs.jsonl", "hyps.jsonl"):
        p = tmp_path / "in" / name
        p.parent.mkdir(exist_ok=True)
        os.mkfifo(p)
        paths.append(p)
    return paths


CASES = {
    # name: (arguments after the subcommand, with {refs} {hyps} {tmp} {ro} {dev}; words in the message)
    "cer -o missing folder": ("cer {refs} {hyps} -o {tmp}/nope/out.json", "does not exist"),
    "cer -o a folder": ("cer {refs} {hyps} -o {tmp}", "is a directory"),
    "cer -o read-only folder": ("cer {refs} {hyps} --json -o {ro}/out.json", "cannot write"),
    "score --edits unknown extension": ("score {refs} {hyps} --edits {tmp}/e.tsv", ".jsonl, .csv or .parquet"),
    "score --edits no extension": ("score {refs} {hyps} --edits {tmp}/edits", ".jsonl, .csv or .parquet"),
    "score --edits missing folder": ("score {refs} {hyps} --edits {tmp}/nope/e.jsonl", "does not exist"),
    "score --edits a folder": ("score {refs} {hyps} --edits {tmp}", "is a directory"),
    "score --edits into read-only folder": ("score {refs} {hyps} --edits {ro}/e.csv", "cannot write"),
    "score -o and --edits the same file": ("score {refs} {hyps} -o {tmp}/x.jsonl --edits {tmp}/x.jsonl", "same file"),
    "score --store missing folder": ("score {refs} {hyps} --store {tmp}/nope/s.sqlite", "does not exist"),
    "score --store same as -o": ("score {refs} {hyps} --store {tmp}/s.sqlite -o {tmp}/s.sqlite", "same file"),
    "score --store a folder": ("score {refs} {hyps} --store {tmp}", "is a directory"),
    "judge --store missing folder": ("judge {refs} {hyps} --judge rubric --store {tmp}/nope/s.sqlite", "does not exist"),
    "judge -o missing folder": ("judge {refs} {hyps} --judge rubric --store {tmp}/s.sqlite -o {tmp}/nope/x",
                                "does not exist"),
    "judge-eval -o missing folder": ("judge-eval {refs} --judge rubric -o {tmp}/nope/eval.json", "does not exist"),
    "judge-eval --store a folder": ("judge-eval {refs} --judge rubric --store {tmp}", "is a directory"),
}


def _cli(args: list[str], script: str | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", script, *args] if script else [sys.executable, "-m", "semcer", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _args(template: str, refs, hyps, tmp_path) -> list[str]:
    ro = _read_only_folder(tmp_path) if "{ro}" in template else ""
    return template.format(refs=refs, hyps=hyps, tmp=tmp_path, ro=ro).split()


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_output_fails_before_reading_anything(tmp_path, fifos, case):
    template, words = CASES[case]
    start = time.monotonic()
    p = _cli(_args(template, *fifos, tmp_path))  # a TimeoutExpired here: the inputs were read first
    elapsed = time.monotonic() - start
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr[-2000:]
    assert words in p.stderr, p.stderr
    assert elapsed < 15, elapsed  # interpreter start and imports only
    assert not [f for f in tmp_path.iterdir() if f.name not in ("in", "ro")]  # nothing written


def test_parquet_edits_without_pyarrow_fails_before_reading(tmp_path, fifos):
    p = _cli(["score", str(fifos[0]), str(fifos[1]), "--edits", str(tmp_path / "e.parquet")], script=NO_PYARROW)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert 'semcer[parquet]' in p.stderr and len(p.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("template, which", [
    ("score {refs} {hyps} --edits {refs}", "REFS"),
    ("score {refs} {hyps} -o {hyps}", "HYPS"),
    ("cer {refs} {hyps} --json -o {refs}", "REFS"),
    ("cer {refs} {hyps} --json -o {link}", "REFS"),  # another name of the same file
    ("score {refs} {hyps} --store {hyps}", "HYPS"),
    ("judge {refs} {hyps} --judge rubric --store {refs}", "REFS"),
])
def test_an_output_is_never_an_input(tmp_path, template, which):
    refs = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": "abc"}))
    hyps = write(tmp_path / "h.jsonl", jsonl({"id": "a", "text": "abd"}))
    link = tmp_path / "link.jsonl"
    link.symlink_to(refs)
    before = refs.read_bytes(), hyps.read_bytes()
    p = _cli(template.format(refs=refs, hyps=hyps, link=link).split())
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert which in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert (refs.read_bytes(), hyps.read_bytes()) == before


def test_judge_eval_output_is_not_its_labels(tmp_path):
    labels = write(tmp_path / "l.jsonl", DEV.read_text(encoding="utf-8").splitlines()[0] + "\n")
    before = labels.read_bytes()
    p = _cli(["judge-eval", str(labels), "--judge", "rubric", "-o", str(labels)])
    assert p.returncode == 2 and "LABELS" in p.stderr and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert labels.read_bytes() == before


def test_an_output_page_inside_an_input_directory_is_refused(tmp_path):
    write(tmp_path / "refs" / "p1.txt", "abc\n")
    write(tmp_path / "hyps" / "p1.txt", "abd\n")
    p = _cli(["cer", str(tmp_path / "refs"), str(tmp_path / "hyps"), "-o", str(tmp_path / "hyps" / "result.txt")])
    assert p.returncode == 2 and "HYPS" in p.stderr and "Traceback" not in p.stderr, p.stderr[-2000:]
    ok = _cli(["cer", str(tmp_path / "refs"), str(tmp_path / "hyps"), "-o", str(tmp_path / "hyps" / "result.json")])
    assert ok.returncode == 0, ok.stderr  # not a page: it is not read back


def test_the_score_is_written_before_the_edits(tmp_path, monkeypatch, capsys):
    out, edits = tmp_path / "score.json", tmp_path / "edits.jsonl"

    def disk_full(path, judged, **options):
        raise SemcerError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr("semcer.scale.ranking.write_edit_rows", disk_full)  # the streamed edit list
    rc = main(["score", str(REFS), str(CLEAN), "--json", "-o", str(out), "--edits", str(edits), "-q"])
    assert rc == 2 and "No space left" in capsys.readouterr().err
    assert json.loads(out.read_text(encoding="utf-8"))["corpus"]["lines"] == 240  # the score survived
    assert not edits.exists()


def test_a_write_error_is_one_line(tmp_path, monkeypatch, capsys):
    # the folder is checked up front; if the disk fails later, the error is still one line
    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    rc = main(["cer", str(REFS), str(CLEAN), "--json", "-o", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "r.json" in err and "No space left on device" in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # no temporary file left behind


def test_a_folder_where_no_file_can_be_created_is_found_before_any_work(tmp_path, fifos, monkeypatch, capsys):
    # os.access says yes to root everywhere (sysfs, some network and ACL file systems): the check
    # creates a file there, as the atomic writer will; here the file system refuses it.
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert main(["score", str(fifos[0]), str(fifos[1]), "--json", "-o", str(tmp_path / "r.json")]) == 2  # the
    # fifos block a read: nothing was read
    assert capsys.readouterr().err == (f"semcer: error: --output {tmp_path / 'r.json'}: cannot write into {tmp_path} "
                                       "(no permission)\n")


@pytest.mark.parametrize("flag, head", [("-o", b"SQLite format 3\x00"), ("--html", b"SQLite format 3\x00"),
                                        ("-o", b"PAR1")])
def test_a_result_never_replaces_a_store_a_study_or_a_parquet_file(tmp_path, fifos, flag, head):
    target = write(tmp_path / "judged.sqlite", head + b"\x00" * 100)
    p = _cli(["score", str(fifos[0]), str(fifos[1]), flag, str(target)])
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr[-2000:]
    assert "would destroy it" in p.stderr
    assert target.read_bytes() == head + b"\x00" * 100
