"""meta-eval on readers' ratings of whole transcriptions (the paper's Table 7), against independent
computations: jiwer's CER, scipy's Spearman, the krippendorff package, statsmodels' Holm, and an
exact enumeration of the paired permutation test."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import jiwer
import krippendorff
import numpy as np
import pytest
from scipy.stats import rankdata, spearmanr
from statsmodels.stats.multitest import multipletests

from semcer.api.meta import meta_eval
from semcer.errors import InputError
from semcer.io.ratings import read_transcriptions
from semcer.statistics.correlation import spearman_difference_pvalue

# (ref, out, levels of r1, r2, r3, r4): ASCII without outer spaces, so the raw policy's grapheme CER is jiwer.cer
ROWS = [
    ("Total 120 EUR", "Total 128 EUR", 4, 4, 3, None),
    ("Pay now", "Pay n0w", 1, 1, 2, None),
    ("The cat sat", "The cat sat.", 0, 0, 0, 0),
    ("Invoice 4471", "Invoice 447", 4, 3, 4, None),
    ("hello world", "hello, world", 0, 1, 0, None),
    ("Call 555 0199", "Call 555 0I99", 2, 3, 2, None),
    ("Meet at noon", "Meet at moon", 3, 3, 4, 3),
    ("North side", "north side", 0, 0, 1, None),
    ("Dose 5 mg", "Dose 50 mg", 4, 4, 4, None),
    ("Room 12B", "Room 128", 3, 2, 3, None),
    ("See page 3", "See paqe 3", 1, 1, 1, None),
    ("Not allowed", "allowed", 4, 4, 3, None),
]
RATERS = ("r1", "r2", "r3", "r4")


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "readers" / "transcriptions.jsonl"


@pytest.fixture(scope="module")
def path():
    """The shipped fixture (the README's example), which holds exactly ROWS."""
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["ref"], r["out"], *(r["levels"][k] for k in RATERS)) for r in rows] == [
        (f"t{k}", *row) for k, row in enumerate(ROWS)]
    return FIXTURE


@pytest.fixture(scope="module")
def d(path):
    return meta_eval(transcriptions=path, judges=["rubric"], n_boot=200, n_permutations=2000, seed=1).to_dict()


def _mean():
    return np.array([np.mean(row[2:5]) / 4 for row in ROWS])


def test_panel_and_reliability(d):
    t = d["transcriptions"]
    r = t["reliability"]
    assert r["raters"] == ["r1", "r2", "r3"] and r["raters_dropped"] == ["r4"]  # r4 rated 2 of 12 < half
    matrix = np.array([[row[2 + i] for row in ROWS] for i in range(3)], dtype=float)
    assert r["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal"),
                                       abs=1e-9)
    assert t["items"] == {"rated": 12, "scored": 12, "failed": 0, "undefined": 0}


def test_spearman_of_each_score_with_the_panel_mean(d):
    s = d["transcriptions"]["scorers"]
    assert list(s) == ["cer:raw", "cer:no-space", "cer:alnum", "cer:normalized", "cer:casefold", "semcer:rubric"]
    raw = [jiwer.cer(ref, out) for ref, out, *_ in ROWS]
    assert s["cer:raw"]["spearman"]["value"] == pytest.approx(spearmanr(raw, _mean()).statistic, abs=1e-12)
    # normalized: case folded and punctuation and spaces removed (by hand)
    norm = [jiwer.cer(_fold(ref), _fold(out)) for ref, out, *_ in ROWS]
    assert s["cer:normalized"]["spearman"]["value"] == pytest.approx(spearmanr(norm, _mean()).statistic, abs=1e-12)
    for sc in s.values():
        lo, hi = sc["spearman"]["interval"]
        assert lo <= sc["spearman"]["value"] <= hi
    assert s["semcer:rubric"]["kind"] == "semcer" and "difference_from_semcer" not in s["semcer:rubric"]


def _fold(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def test_differences_from_semcer_holm_corrected(d):
    t = d["transcriptions"]
    s = t["scorers"]
    assert t["against"] == "semcer:rubric"
    conv = [k for k in s if k.startswith("cer:")]
    for k in conv:
        diff = s[k]["difference_from_semcer"]
        assert diff["difference"] == pytest.approx(s["semcer:rubric"]["spearman"]["value"] - s[k]["spearman"]["value"],
                                                   abs=1e-12)
        lo, hi = diff["interval"]
        assert lo <= diff["difference"] <= hi
    p = [s[k]["p_value"] for k in conv]
    assert [s[k]["p_value_holm"] for k in conv] == pytest.approx(list(multipletests(p, method="holm")[1]), abs=1e-12)
    assert all(s[k]["significant"] == (s[k]["p_value_holm"] <= 0.05) for k in conv)


def test_paired_permutation_p_value_against_exact_enumeration():
    rng = np.random.default_rng(3)
    y = rng.normal(size=8)
    x = y + rng.normal(scale=0.5, size=8)
    b = rng.normal(size=8)

    def diff(u, v):
        return spearmanr(u, y).statistic - spearmanr(v, y).statistic

    observed = abs(diff(x, b))
    rx, rb = rankdata(x), rankdata(1000 * b)  # the ranks are swapped, whatever each score's scale
    extreme = 0
    for swap in itertools.product((False, True), repeat=8):
        m = np.array(swap)
        extreme += abs(diff(np.where(m, rb, rx), np.where(m, rx, rb))) >= observed - 1e-12
    exact = extreme / 2**8
    p = spearman_difference_pvalue(x, 1000 * b, y, n_permutations=20_000, seed=5)
    assert p == pytest.approx(exact, abs=0.015)
    assert math.isnan(spearman_difference_pvalue(np.ones(8), b, y))


def test_bad_transcriptions_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    for row, message in (({"id": "t", "ref": "a", "out": "b", "levels": {"r": 5}}, "a level is an integer 0-4"),
                         ({"id": "t", "ref": "a", "levels": {"r": 1}}, "'out' is missing"),
                         ({"id": "t", "ref": "a", "out": "b"}, "'levels' is missing"),
                         ({"id": "t", "ref": "a", "out": "b", "levels": {"r": 1.5}}, "a level is an integer")):
        bad.write_text(json.dumps(row) + "\n", encoding="utf-8")
        with pytest.raises(InputError, match=message):
            read_transcriptions(bad)
    bad.write_text('{"id": "t", "ref": "a", "out": "b", "levels": {}}\n' * 2, encoding="utf-8")
    with pytest.raises(InputError, match="duplicate transcription 't'"):
        read_transcriptions(bad)


def test_cli_table_and_json(path, tmp_path):
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "semcer", "meta-eval", "--transcriptions", str(path), "--judge", "rubric",
                        "--n-boot", "100", "--n-permutations", "500"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "rated transcriptions: panel r1, r2, r3" in p.stdout
    assert "semcer:rubric minus it" in p.stdout
    row = next(line for line in p.stdout.splitlines() if line.startswith("cer:normalized"))
    assert row.count("[") == 2  # its Spearman and its difference from semCER, each with an interval
