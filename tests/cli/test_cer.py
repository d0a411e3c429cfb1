"""`semcer cer` end to end, as a user runs it (subprocess for errors: no traceback may leak)."""

import json
import subprocess
import sys

import pytest
from helpers import EXAMPLES

REFS = str(EXAMPLES / "references.jsonl")
NOISY = str(EXAMPLES / "tess_noisy.jsonl")


def run(*args, check=True):
    p = subprocess.run([sys.executable, "-m", "semcer.cli", *args], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def test_table_on_bundled_example():
    out = run("cer", REFS, NOISY).stdout
    assert "corpus" in out and "9.20 %" in out and "10.99 %" in out  # examples/README.md figures
    assert "signature: unit:grapheme|policy:nfc#" in out


def test_json_shape(tmp_path):
    dest = tmp_path / "r.json"
    run("cer", REFS, NOISY, "--json", "--output", str(dest), "--unit", "codepoint", "--policy", "raw")
    d = json.loads(dest.read_text())
    assert set(d["corpus"]) >= {"cer", "edits", "substitutions", "deletions", "insertions", "units", "lines", "documents"}
    assert d["corpus"]["edits"] == 818 and d["corpus"]["units"] == 8890 and d["corpus"]["documents"] == 20
    assert set(d["document_mean"]) >= {"cer", "documents"}
    assert {"doc", "cer", "edits", "units", "lines"} <= set(d["documents"][0])
    assert d["signature_fields"]["unit"] == "codepoint" and d["signature"].startswith("unit:codepoint")


def test_plain_text_files_keep_blank_lines(tmp_path):
    (tmp_path / "r.txt").write_text("abc\n\nxyz\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("abd\nq\nxyz\n", encoding="utf-8")
    p = run("cer", str(tmp_path / "r.txt"), str(tmp_path / "h.txt"), check=False)
    assert p.returncode == 2 and "line '2'" in p.stderr and "Traceback" not in p.stderr
    d = json.loads(run("cer", str(tmp_path / "r.txt"), str(tmp_path / "h.txt"), "--empty-ref", "insertions", "--json").stdout)
    assert d["corpus"]["edits"] == 2 and d["corpus"]["units"] == 6 and d["corpus"]["lines"] == 3


@pytest.mark.parametrize(
    "content,needle",
    [
        (b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', "duplicate"),
        (b'{"id": "a", "text": "\xff"}\n', "UTF-8"),
        (b'{"id": "a", "text": "x\x00"}\n', "NUL"),
        (b'{"id": "a", "text": \n', ":1:"),
    ],
)
def test_user_mistakes_are_one_clear_line(tmp_path, content, needle):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    p = run("cer", REFS, str(bad), check=False)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert needle in p.stderr and "bad.jsonl" in p.stderr


def test_unmatched_ids_error_then_drop(tmp_path):
    h = tmp_path / "h.jsonl"
    h.write_text('{"id": "ex-en-00-00", "text": "(only XML based languages)"}\n', encoding="utf-8")
    p = run("cer", REFS, str(h), check=False)
    assert p.returncode == 2 and "--unmatched drop" in p.stderr
    d = json.loads(run("cer", REFS, str(h), "--unmatched", "drop", "--json").stdout)
    assert d["corpus"]["lines"] == 1 and d["corpus"]["cer"] == 0.0 and d["unmatched"]["dropped_refs"] == 239


def test_output_not_written_on_error(tmp_path):
    dest = tmp_path / "out.json"
    dest.write_text("previous")
    p = run("cer", REFS, str(tmp_path / "missing.jsonl"), "--json", "-o", str(dest), check=False)
    assert p.returncode == 2 and dest.read_text() == "previous"
    assert not [f for f in tmp_path.iterdir() if f.name.startswith(".out.json")]


def test_help_reads_like_a_manual():
    out = run("cer", "--help").stdout
    for word in ("--unit", "--policy", "--empty-ref", "--json", "--output", "examples:"):
        assert word in out
