"""`semcer meta-eval` end to end: the fixtures of tests/fixtures/readers/, an edit list written by
`semcer score --edits` rated by edit_id, the tables, and every mistake one line with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from helpers import EXAMPLES, ROOT, jsonl, write

from semcer.api.meta import meta_eval
from semcer.io.json import dumps

READERS = ROOT / "tests" / "fixtures" / "readers"
ARGS = ["--ratings", str(READERS / "ratings.csv"), "--items", str(READERS / "items.jsonl"),
        "--pairs", str(READERS / "pairs.jsonl"), "--judge", "rubric", "--score-column", "severity",
        "--n-boot", "50", "--n-permutations", "200", "--seed", "4"]


def _semcer(*args, **kw):
    return subprocess.run([sys.executable, "-m", "semcer", *map(str, args)], capture_output=True, text=True, **kw)


def test_json_is_the_api_result(tmp_path):
    out = tmp_path / "meta.json"
    p = _semcer("meta-eval", *ARGS, "--json", "-o", out)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == ""
    d = json.loads(out.read_text(encoding="utf-8"))
    api = meta_eval(ratings=READERS / "ratings.csv", items=READERS / "items.jsonl", pairs=READERS / "pairs.jsonl",
                    judges=["rubric"], score_columns=["severity"], n_boot=50, n_permutations=200, seed=4)
    assert d == json.loads(dumps(api.to_dict()))
    assert d["reliability"]["raters"] == ["r1", "r2", "r3"]
    assert set(d["scorers"]) == {"rubric", "rubric:mode", "column:severity"}
    assert {"value", "interval"} <= set(d["scorers"]["rubric"]["spearman"])
    assert isinstance(d["scorers"]["rubric"]["top_of_list_10"], float)
    assert [p["pool"] for p in d["pairs"]["pools"]] == ["all", "near_miss", "normalization_proof", "near_miss_not_proof"]
    assert set(d["pairs"]["scorers"]) == {"cer:raw", "cer:no-space", "cer:alnum", "cer:normalized", "cer:casefold",
                                          "semcer:rubric"}


def test_tables_and_legend():
    p = _semcer("meta-eval", *ARGS, "--band", "edit_class", "--band", "mode", "--by-lang")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "rated edits: panel r1, r2, r3" in out and "dropped: r4" in out
    assert "within edit_class" in out and "within mode" in out and "column:severity" in out
    assert "normalization-proof (rubric)" in out and "margins:" in out
    assert "== language de ==" in out
    *_, levels, _, signature = out.rstrip().splitlines()
    assert levels.startswith("levels: 0 cosmetic · 1 non-word")
    assert signature.startswith("signature: eval:meta|judges:rubric=rubric-") and "|columns:severity|" in signature
    assert "|bands:edit_class,mode|" in signature and "|boot:50|seed:4|" in signature and "|perm:200|" in signature


def test_default_judge_is_compact_and_help_documents_the_formats():
    p = _semcer("meta-eval", "--pairs", READERS / "pairs.jsonl", "--n-boot", "0", "--n-permutations", "19", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert list(d["judges"]) == ["compact"] and d["reliability"] is None and d["scorers"] == {}
    h = _semcer("meta-eval", "--help")
    assert h.returncode == 0
    for words in ('"choices": {"r1": "a"', "edit_id", "--min-rater-share", "level  the rubric level 0-4"):
        assert words in h.stdout, words


def test_an_edit_list_rated_by_edit_id(tmp_path):
    """score --edits writes the items; ratings keyed by edit_id (seeded rule: the judged level plus noise
    from (-1, 0, 1), default_rng(3), three raters, the 40 most severe edits); the judge run again on
    the edit list must give exactly the severities of the list."""
    edits = tmp_path / "edits.csv"
    p = _semcer("score", EXAMPLES / "references.jsonl", EXAMPLES / "tess_noisy.jsonl", "--edits", edits, "--top", "0")
    assert p.returncode == 0, p.stderr
    import csv

    with open(edits, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))[:40]
    rng = np.random.default_rng(3)
    ratings = [{"item": r["edit_id"].removeprefix("'"), "rater": q, "level": int(np.clip(int(r["mode"]) + e, 0, 4))}
               for q in ("a", "b", "c") for r, e in zip(rows, rng.integers(-1, 2, size=len(rows)))]
    rfile = write(tmp_path / "ratings.jsonl", jsonl(*ratings))
    p = _semcer("meta-eval", "--ratings", rfile, "--items", edits, "--judge", "compact", "--score-column", "severity",
                "--n-boot", "0", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["items"]["rated"] == 40 and d["items"]["unrated"] == 818 - 40
    s = d["scorers"]
    assert s["compact"]["spearman"]["value"] == pytest.approx(s["column:severity"]["spearman"]["value"], abs=1e-12)
    assert s["compact"]["top_of_list_10"] == pytest.approx(s["column:severity"]["top_of_list_10"], abs=1e-12)


def test_input_text_is_escaped_in_the_tables(tmp_path):
    items = READERS / "items.jsonl"
    first = json.loads(items.read_text(encoding="utf-8").splitlines()[0])["id"]
    second = json.loads(items.read_text(encoding="utf-8").splitlines()[1])["id"]
    rows = [{"item": i, "rater": q, "level": lv} for q, levels in (("\x1b[2Jevil", (1, 3)), ("ok", (0, 4)))
            for i, lv in zip((first, second), levels)]
    p = _semcer("meta-eval", "--ratings", write(tmp_path / "r.jsonl", jsonl(*rows)), "--items", items,
                "--score-column", "severity", "--n-boot", "0")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\\x1b[2Jevil" in p.stdout


@pytest.mark.parametrize("args, words", [
    ([], "nothing to meta-evaluate"),
    (["--ratings", "missing.jsonl"], "missing.jsonl: no such file"),
    (["--items", str(READERS / "items.jsonl")], "the ratings are missing"),
    (["--ratings", str(READERS / "ratings.csv"), "--min-rater-share", "2"], "--min-rater-share"),
    (["--pairs", str(READERS / "pairs.jsonl"), "--judge", "rubric", "--judge", "rubric"], "each judge once"),
    (["--pairs", str(READERS / "pairs.jsonl"), "--judge", "nonsense"], "unknown judge 'nonsense'"),
    (["--ratings", str(READERS / "ratings.csv"), "--n-boot", "-1"], "n_boot must be 0 (no intervals) or from 40"),
    (["--ratings", str(READERS / "ratings.csv"), "--items", str(READERS / "items.jsonl"), "--score-column", "nope"],
     "has no 'nope' value"),
    (["--pairs", str(READERS / "pairs.jsonl"), "--chose", "neither"], "invalid choice"),
    (["--ratings", str(READERS / "ratings.csv"), "-o", str(READERS / "ratings.csv")], "would destroy the input"),
])
def test_mistakes_are_one_line_with_exit_status_2(args, words):
    p = _semcer("meta-eval", *args)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("semcer: error:") and words in lines[0], p.stderr
