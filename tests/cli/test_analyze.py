"""`semcer analyze` end to end on the bundled example: fast, the JSON is the API's result, the tables,
and every mistake one line with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import EXAMPLES

from semcer.api.analysis import analyze
from semcer.io.json import dumps

REFS, CLEAN, NOISY = (str(EXAMPLES / f) for f in ("references.jsonl", "tess_clean.jsonl", "tess_noisy.jsonl"))


def _semcer(*args):
    return subprocess.run([sys.executable, "-m", "semcer", *map(str, args)], capture_output=True, text=True)


def test_the_example_runs_in_a_few_seconds_and_prints_the_tables():
    start = time.perf_counter()
    p = _semcer("analyze", REFS, CLEAN, NOISY)
    elapsed = time.perf_counter() - start
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == ""
    assert elapsed < 15, elapsed  # about 3 s here, interpreter start included
    out = p.stdout
    for words in ("grapheme load", "mark-only", "content sub.", "severity per edit by language and edit class",
                  "letter errors that form another real word", "no word test: zh-CN",  # the example's zh_CN in its one spelling
                  f"equal-count contrasts against {CLEAN}", "signature: unit:grapheme"):
        assert words in out, words


def test_json_is_the_api_result(tmp_path):
    out = tmp_path / "a.json"
    p = _semcer("analyze", REFS, CLEAN, NOISY, "--names", "clean,noisy", "--n-boot", "100", "--seed", "9", "--json",
                "-o", out)
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text(encoding="utf-8"))
    api = analyze(REFS, [CLEAN, NOISY], names=["clean", "noisy"], n_boot=100, seed=9)
    assert d == json.loads(dumps(api.to_dict()))
    assert d["systems"] == ["clean", "noisy"] and d["baseline"] == "clean"
    row = d["grapheme_load"][0]
    assert {"lang", "system", "mark_only", "content_substitution", "per_edit", "mark_edits", "edits"} <= set(row)
    assert {"lang", "system", "observed", "chance", "interval", "letter_errors"} <= set(d["real_word"][0])
    assert {"lang", "system", "baseline", "edits", "difference", "interval", "p_value_holm", "lines"} <= set(
        d["equal_count"][0])


def test_names_are_escaped():
    p = _semcer("analyze", REFS, NOISY, "--names", "bad\x1b]0;title\x07", "--n-boot", "0")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\x07" not in p.stdout and "bad\\x1b]0;title\\x07" in p.stdout


@pytest.mark.parametrize("args, words", [
    ([REFS, CLEAN, NOISY, "--names", "a"], "2 distinct names are needed"),
    ([REFS, CLEAN, "--max-edits", "-1"], "--max-edits must be at least 0"),
    ([REFS, "missing.jsonl"], "missing.jsonl: no such file"),
    ([REFS, CLEAN, "--judge", "nonsense"], "unknown judge 'nonsense'"),
    ([REFS], "the following arguments are required"),
])
def test_mistakes_are_one_line_with_exit_status_2(args, words):
    p = _semcer("analyze", *args)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("semcer: error:") and words in lines[0], p.stderr


def test_lang_is_honoured_as_by_score(tmp_path):
    refs = tmp_path / "r1.jsonl"
    hyps = tmp_path / "h1.jsonl"
    refs.write_text('{"id":"1","text":"abc"}\n')
    hyps.write_text('{"id":"1","text":"abd"}\n')
    without = _semcer("analyze", refs, hyps, "--n-boot", "0", "--json")
    assert without.returncode == 0, without.stderr
    assert [r["lang"] for r in json.loads(without.stdout)["grapheme_load"]] == ["und"]  # else this test could not fail
    p = _semcer("analyze", refs, hyps, "--lang", "en", "--n-boot", "0", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    score = _semcer("score", refs, hyps, "--lang", "en", "--json")
    severity = json.loads(score.stdout)["corpus"]["severity"]  # the one edit's
    (row,) = d["grapheme_load"]
    assert row["lang"] == "en" and row["edits"] == 1 and row["per_edit"] == pytest.approx(severity)
    assert [r["lang"] for r in d["by_class"]] == ["en"]


def test_one_file_twice_is_named_as_such(tmp_path):
    p = _semcer("analyze", REFS, CLEAN, CLEAN, "--n-boot", "0")
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and f"systems 1 and 2 are the same file ({CLEAN})" in lines[0], p.stderr


def test_unmatched_empty_is_noted(tmp_path):
    short = tmp_path / "short.jsonl"
    lines = Path(NOISY).read_text(encoding="utf-8").splitlines(keepends=True)
    short.write_text("".join(lines[:-3]), encoding="utf-8")
    p = _semcer("analyze", REFS, short, "--unmatched", "empty", "--n-boot", "0", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["notes"] == [
        f"{short}: 3 reference(s) without an output scored against an empty output (--unmatched empty)"]
