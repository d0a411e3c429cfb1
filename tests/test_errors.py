"""User-supplied values quoted in error messages stay bounded (semcer.errors.quoted)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from semcer.errors import InputError, quoted
from semcer.io.collections import read_collection


def test_quoted_keeps_short_values_and_cuts_long_ones_noting_their_length():
    assert quoted("r1") == "'r1'"
    assert quoted("x" * 80) == "'" + "x" * 80 + "'"  # at the limit: whole
    assert quoted("ab" * 1_500_000) == "'" + "ab" * 40 + "'… (3,000,000 characters)"
    assert quoted("abcdef", limit=3) == "'abc'… (6 characters)"
    assert quoted(12) == "12" and quoted(None) == "None"
    assert quoted(list(range(100)), limit=10) == "[0, 1, 2, … (390 characters)"


def test_a_duplicate_3_mb_id_is_quoted_short(tmp_path):
    path = tmp_path / "refs.jsonl"
    row = json.dumps({"id": "a" * 3_000_000, "text": "x"}) + "\n"
    path.write_text(row * 2, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_collection(path)
    msg = str(info.value)
    assert msg == f"{path}:2: duplicate id '{'a' * 80}'… (3,000,000 characters) (first at {path}:1)"


def test_an_unmatched_3_mb_id_makes_a_short_one_line_error(tmp_path):
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    refs.write_text(json.dumps({"id": "a" * 3_000_000, "text": "x"}) + "\n" + json.dumps({"id": "b", "text": "y"}) + "\n",
                    encoding="utf-8")
    hyps.write_text(json.dumps({"id": "b", "text": "y"}) + "\n", encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "semcer", "cer", str(refs), str(hyps)], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert f"1 reference id(s) have no output ('{'a' * 80}'… (3,000,000 characters))" in p.stderr
    assert len(p.stderr) < 1_000  # was 3,000,224 bytes
