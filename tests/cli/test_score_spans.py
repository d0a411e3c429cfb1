"""`semcer score` lists the most severe error spans (a deleted word is one row), or single edits with
--by-edit, with the legend of the five levels."""

from __future__ import annotations

import json
import re
import subprocess
import sys


def _run(tmp_path, *extra):
    r, h = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    r.write_text(json.dumps({"id": "1", "lang": "de", "text": "Nicht verbunden, bitte 12 Euro"}) + "\n")
    h.write_text(json.dumps({"id": "1", "lang": "de", "text": "verbunden, bitte 17 Euro"}) + "\n")
    p = subprocess.run([sys.executable, "-m", "semcer", "score", str(r), str(h), "--judge", "rubric", *extra],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_a_deleted_word_is_one_span(tmp_path):
    out = _run(tmp_path)
    rows = [line for line in out.splitlines() if re.match(r"\s*\d+\. severity", line)]
    assert len(rows) == 2  # "Nicht " (6 deletions) and 2 -> 7
    assert "'Nicht ' deleted" in out and "(6 edits" in out and "'2' → '7'" in out
    assert "levels: 0 cosmetic" in out


def test_by_edit_lists_every_edit(tmp_path):
    out = _run(tmp_path, "--by-edit")
    rows = [line for line in out.splitlines() if re.match(r"\s*\d+\. severity", line)]
    assert len(rows) == 7
