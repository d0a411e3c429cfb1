"""The bootstrap and permutation options of `semcer judge-eval`, `semcer meta-eval` and `semcer
analyze` follow compare's rule (semcer.statistics.bootstrap.check_resampling): at least
2 / (1 - confidence) resamples (0: no intervals, as each documents), at least enough permutations for
the smallest p-value to reach 1 - confidence, at most 1,000,000 of either, refused in one line before
any work; their headers show the actual level; analyze signs how it resampled, as compare does."""

from __future__ import annotations

import json

import pytest
from helpers import DATA, EXAMPLES, ROOT, write

from semcer.cli import main

REFS, CLEAN, NOISY = (str(EXAMPLES / f) for f in ("references.jsonl", "tess_clean.jsonl", "tess_noisy.jsonl"))
READERS = ROOT / "tests" / "fixtures" / "readers"
RATED = ["--ratings", str(READERS / "ratings.csv"), "--items", str(READERS / "items.jsonl"),
         "--score-column", "severity"]
HUGE = "99999999999999999999"


def _run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def labels(tmp_path_factory):
    """The first 60 labelled edits of data/severity/dev.jsonl."""
    lines = (DATA / "dev.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[:60]
    return write(tmp_path_factory.mktemp("labels") / "dev60.jsonl", "".join(lines))


def _commands(missing):
    """Each command with an input that does not exist: a refusal must come before it is read."""
    return {"judge-eval": [missing], "meta-eval": ["--ratings", missing], "analyze": [missing, missing]}


@pytest.mark.parametrize("value", ["1", "2", "39", "1000001", HUGE, "-1"])
@pytest.mark.parametrize("command", ["judge-eval", "meta-eval", "analyze"])
def test_too_few_or_too_many_resamples_are_refused_before_any_work(capsys, tmp_path, command, value):
    args = _commands(tmp_path / "missing.jsonl")[command]
    code, out, err = _run(capsys, command, *args, "--n-boot", value)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err == ("semcer: error: n_boot must be 0 (no intervals) or from 40 (so that each tail of a 95% interval "
                   f"holds one resample) to 1,000,000 (command line: --n-boot), got {value}\n")


@pytest.mark.parametrize("value", ["1", "18", "1000001", HUGE])
@pytest.mark.parametrize("command", ["meta-eval", "analyze"])
def test_too_few_or_too_many_permutations_are_refused(capsys, tmp_path, command, value):
    args = _commands(tmp_path / "missing.jsonl")[command]
    code, out, err = _run(capsys, command, *args, "--n-boot", "0", "--n-permutations", value)
    assert code == 2 and out == ""
    # 19 at 95%: the smallest p-value 1 / (1 + 19) = 0.05 reaches the level, 1 / 19 does not
    assert err.startswith("semcer: error: n_permutations must be from 19 (so that the smallest p-value, "
                          "1 / (1 + n_permutations), can reach 1 - confidence = 0.05) to 1,000,000 (command line: "
                          f"--n-permutations), got {value}\n"), err


@pytest.mark.parametrize(("confidence", "least"), [("0.9", 20), ("0.99", 200)])
def test_the_minimum_follows_the_level(capsys, tmp_path, confidence, least):
    missing = tmp_path / "missing.jsonl"
    for command, args in (("meta-eval", ["--ratings", missing]), ("analyze", [missing, missing])):
        code, _, err = _run(capsys, command, *args, "--confidence", confidence, "--n-boot", least - 1)
        assert code == 2 and f"n_boot must be 0 (no intervals) or from {least} " in err, err


def test_a_level_too_high_for_the_cap_names_the_highest(capsys, tmp_path):
    code, out, err = _run(capsys, "compare", REFS, CLEAN, NOISY, "--no-judge", "--n-resamples", "1000",
                          "--confidence", "0.999999")
    assert code == 2 and out == ""
    assert err.startswith("semcer: error: confidence 0.999999 is too high for the cap on n_resamples (1,000,000): "
                          "2,000,000 are needed (so that each tail of a 99.9999% interval holds one resample); "
                          "the highest confidence the cap allows is 0.999998 (command line: --confidence)"), err
    code, _, err = _run(capsys, "meta-eval", "--ratings", tmp_path / "missing.jsonl", "--confidence", "0.999999")
    assert code == 2 and "too high for the cap on n_boot (1,000,000)" in err and "allows is 0.999998" in err


def test_meta_eval_headers_show_the_level(capsys):
    code, out, err = _run(capsys, "meta-eval", *RATED, "--confidence", "0.5", "--n-boot", "40",
                          "--n-permutations", "25", "--seed", "3")
    assert code == 0, err
    assert "Spearman [50% CI]" in out and "top 10% [50% CI]" in out and "95%" not in out
    assert "40 bootstrap resamples, 50% intervals, 25 permutations, seed 3" in out
    assert "|boot:40|seed:3|conf:0.5|perm:25|" in out.splitlines()[-1]


def test_meta_eval_without_intervals_is_documented_and_allowed(capsys):
    code, out, err = _run(capsys, "meta-eval", *RATED, "--n-boot", "0")
    assert code == 0, err
    assert "no bootstrap intervals (--n-boot 0), 10000 permutations, seed 0" in out


def test_judge_eval_headers_show_the_level(capsys, labels):
    code, out, err = _run(capsys, "judge-eval", labels, "--n-boot", "40", "--seed", "2")
    assert code == 0, err
    head = out.splitlines()[0]
    assert "(60 edits; 40 bootstrap resamples, 95% intervals, seed 2;" in head
    assert "| Spearman [95% CI] | clear pairs [95% CI] |" in out
    assert "|boot:40|seed:2|conf:0.95|" in out.splitlines()[-1]


def _analysis(capsys, *more) -> dict:
    code, out, err = _run(capsys, "analyze", REFS, CLEAN, NOISY, "-q", "--json", *more)
    assert code == 0, err
    return json.loads(out)


def test_analyze_signs_how_it_resampled(capsys):
    base = _analysis(capsys, "--n-boot", "40", "--n-permutations", "19")
    fields = base["signature_fields"]
    assert (fields["cmp"], fields["boot"], fields["ar"], fields["seed"]) == ("percentile-0.95", "40", "19", "0")
    assert "|maxedits:5|cmp:percentile-0.95|boot:40|ar:19|seed:0|" in base["signature"]  # 5: the default
    variants = [("--n-boot", "40", "--n-permutations", "19", "--max-edits", "3"),
                ("--n-boot", "40", "--n-permutations", "19", "--confidence", "0.9"),
                ("--n-boot", "40", "--n-permutations", "19", "--seed", "1"),
                ("--n-boot", "41", "--n-permutations", "19"), ("--n-boot", "40", "--n-permutations", "20")]
    signatures = {base["signature"], *(_analysis(capsys, *v)["signature"] for v in variants)}
    assert len(signatures) == 6  # every setting that changes a number changes the signature
    assert _analysis(capsys, "--n-boot", "40", "--n-permutations", "19")["signature"] == base["signature"]


def test_analyze_headers_show_the_level(capsys):
    code, out, err = _run(capsys, "analyze", REFS, CLEAN, NOISY, "-q", "--confidence", "0.9", "--n-boot", "40",
                          "--n-permutations", "19", "--min-letter-errors", "1")
    assert code == 0, err
    table_heads = [line for line in out.splitlines() if line.startswith("lang  ") and "CI]" in line]
    assert len(table_heads) == 2 and all("[90% CI]" in line for line in table_heads), table_heads
    assert "95%" not in out and "40 bootstrap resamples, 90% intervals, 19 permutations, seed 0" in out
    assert "|cmp:percentile-0.9|boot:40|ar:19|seed:0|" in out.splitlines()[-1]
