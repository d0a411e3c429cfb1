"""One JSONL reader for every input: collections, labelled edits and judged edits accept and refuse
the same files.

Defect (issue 10): a labels file with a BOM, or with U+2028 inside a string, was accepted by
`semcer cer` and rejected by `judge-eval` / `distill` (each had its own reader).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from semcer.errors import InputError
from semcer.io.collections import read_collection
from semcer.io.jsonl import read_objects, records
from semcer.io.judged import load_judged_edits
from semcer.io.labels import load_labelled

DEV = Path(__file__).resolve().parents[2] / "data" / "severity" / "dev.jsonl"


def _labels_with(tmp_path: Path, bom: bool, separator: bool) -> Path:
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines()[:5]]
    if separator:  # U+2028 LINE SEPARATOR inside a string, written raw (JSON allows it)
        rows[2]["system"] = "ocr\u2028engine"
    text = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    path = tmp_path / "labels.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


@pytest.mark.parametrize("bom,separator", [(True, False), (False, True), (True, True)])
def test_labels_with_bom_or_line_separator_are_read_by_every_reader(tmp_path, bom, separator):
    path = _labels_with(tmp_path, bom, separator)
    contexts, labels = load_labelled(path)
    assert len(contexts) == len(labels) == 5
    assert len(load_judged_edits(path)) == 5  # the student's reader
    if separator:
        assert labels[2].system == "ocr\u2028engine"


@pytest.mark.parametrize("bom,separator", [(True, False), (False, True)])
def test_judge_eval_cli_reads_them(tmp_path, bom, separator):
    path = _labels_with(tmp_path, bom, separator)
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", str(path), "--judge", "rubric", "--n-boot", "40",
                        "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["n"] == 5


def test_collection_reads_a_bom_and_a_line_separator(tmp_path):
    path = tmp_path / "refs.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + '{"id": "1", "text": "a\u2028b"}\n'.encode())
    coll = read_collection(path)
    assert [i.text for i in coll.items] == ["a\u2028b"]


@pytest.mark.parametrize("line,message", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"id": "1", "text": "x", "n": ' + "9" * 4301 + "}", "unreadable JSON value"),
    ('{"id": "1", "text": "\\u0000"}', "NUL character"),
    ('{"id": "1", "text": "\\ud800"}', "lone surrogate"),
    ('{"id": 1, "text": ', "malformed JSON"),
])
def test_hostile_lines_are_one_clear_error(line, message):
    with pytest.raises(InputError, match=message):
        list(records(line + "\n", "f.jsonl"))


def test_blank_lines_only_at_the_end(tmp_path):
    assert [w for w, _ in records('{"a": 1}\n\n\n', "f")] == ["f:1"]
    with pytest.raises(InputError, match="f:2: blank line"):
        list(records('{"a": 1}\n\n{"a": 2}\n', "f"))


def test_objects_only(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(InputError, match=r"x.jsonl:2: expected a labelled edit \(a JSON object\), got an array"):
        read_objects(path, "a labelled edit (a JSON object)")
