"""The one rule for resampling options (semcer.statistics.bootstrap.check_resampling), shared by
compare, analyze, meta-eval and judge-eval: the fewest resamples (each tail of the interval holds
one), the fewest permutations (the smallest p-value can reach 1 - confidence), the cap, a level too
high for the cap; how levels print and sign; judge-eval's bootstrap drawn in blocks."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from scipy import stats

from semcer.errors import SemcerError
from semcer.statistics import bootstrap
from semcer.statistics.bootstrap import (
    MAX_INTERVAL_CONFIDENCE,
    MAX_RESAMPLES,
    MAX_TEST_CONFIDENCE,
    check_resampling,
    level_field,
    level_percent,
    min_permutations,
    min_resamples,
    resampling_fields,
)
from semcer.statistics.judge_eval import evaluate_judge
from semcer.statistics.paired import sign_flip_pvalues


@pytest.mark.parametrize(("confidence", "least"), [(0.5, 4), (0.9, 20), (0.95, 40), (0.99, 200), (0.999, 2000)])
def test_the_fewest_resamples_put_one_in_each_tail(confidence, least):
    # 2 / (1 - confidence), by hand: each tail holds (1 - confidence) / 2 of the resamples, one of them
    assert min_resamples(confidence) == least
    check_resampling(confidence, least, no_intervals=False)
    with pytest.raises(ValueError, match=rf"^n_boot must be from {least} \(so that each tail of a "):
        check_resampling(confidence, least - 1, no_intervals=False)


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_the_fewest_permutations_let_p_reach_the_level(confidence):
    """With n permutations the smallest p-value is 1 / (1 + n) (every permutation less extreme):
    at the minimum an overwhelming difference is significant (p <= 1 - confidence, as the marks
    test it), with one permutation fewer it never can be."""
    n = min_permutations(confidence)
    v = np.full((30, 1), 5.0)  # 30 lines all one way: a flip reaches |Σ| only when none or all flip (2 / 2^30)
    p = float(sign_flip_pvalues(v, n, np.random.default_rng(0))[0])
    assert p == 1.0 / (1.0 + n) and p <= 1.0 - confidence
    assert 1.0 / n > 1.0 - confidence  # n - 1 permutations: the smallest p-value is 1 / n, above the level
    check_resampling(confidence, n_permutations=n)
    with pytest.raises(ValueError, match=rf"^n_permutations must be from {n} \(so that the smallest p-value"):
        check_resampling(confidence, n_permutations=n - 1)


def test_the_permutation_minimum_by_hand():
    assert (min_permutations(0.5), min_permutations(0.95), min_permutations(0.99)) == (1, 19, 99)


def test_no_intervals_is_zero_resamples_where_allowed():
    check_resampling(0.95, 0, 19)
    with pytest.raises(ValueError, match=r"^n_boot must be 0 \(no intervals\) or from 40 .* got -1$"):
        check_resampling(0.95, -1)
    with pytest.raises(ValueError, match=r"^n_resamples must be from 40 .* got 0$"):
        check_resampling(0.95, 0, names=("n_resamples", "n_permutations"), no_intervals=False)


@pytest.mark.parametrize("count", [MAX_RESAMPLES + 1, 10**20])
def test_the_cap_is_the_same_for_resamples_and_permutations(count):
    msg = rf"to 1,000,000 \(command line: --n-{{}}\), got {count}$"
    with pytest.raises(SemcerError, match="^n_boot must be .*" + msg.format("boot")):
        check_resampling(0.95, count, error=SemcerError)
    with pytest.raises(SemcerError, match="^n_permutations must be .*" + msg.format("permutations")):
        check_resampling(0.95, 0, count, error=SemcerError)
    check_resampling(0.95, MAX_RESAMPLES, MAX_RESAMPLES)


@pytest.mark.parametrize("count", [40.0, True, "40"])
def test_a_count_is_a_whole_number(count):
    with pytest.raises(ValueError, match=r"^n_boot must be"):
        check_resampling(0.95, count)  # type: ignore[arg-type]


def test_a_level_too_high_for_the_cap_says_so_and_names_the_highest():
    # 2 / (1 - 0.999999) = 2,000,000 resamples: over the cap; 2 / (1 - 0.999998) = 1,000,000 fits
    with pytest.raises(SemcerError, match=r"^confidence 0\.999999 is too high for the cap on n_resamples "
                       r"\(1,000,000\): 2,000,000 are needed .*; the highest confidence the cap allows is "
                       r"0\.999998 \(command line: --confidence\)$"):
        check_resampling(0.999999, 1000, error=SemcerError, names=("n_resamples", "n_permutations"),
                         flags=("--n-resamples", ""), no_intervals=False)
    assert f"{MAX_INTERVAL_CONFIDENCE:g}" == "0.999998"
    check_resampling(float(f"{MAX_INTERVAL_CONFIDENCE:g}"), MAX_RESAMPLES)  # the level named is accepted
    # about 1 / (1 - 0.9999999) = 10^7 permutations (10,000,000 in floating point, where 1 - 0.9999999
    # falls just below 1e-7): over the cap, even without intervals
    with pytest.raises(ValueError, match=r"^confidence 0\.9999999 is too high for the cap on n_permutations "
                       r"\(1,000,000\): 10,000,000 are needed .*; the highest confidence the cap allows is 0\.999999$"):
        check_resampling(0.9999999, 0, 10_000, flags=None)
    check_resampling(float(f"{MAX_TEST_CONFIDENCE:g}"), 0, MAX_RESAMPLES)


@pytest.mark.parametrize(("confidence", "shown"), [(0.95, "95%"), (0.5, "50%"), (0.999, "99.9%"), (0.57, "57%"),
                                                   (0.9999991, "99.99991%")])
def test_levels_print_as_percentages(confidence, shown):
    assert level_percent(confidence) == shown


def test_levels_sign_so_that_two_levels_never_sign_alike():
    assert level_field(0.95) == "0.95" and level_field(np.float64(0.9)) == "0.9"
    assert level_field(0.9999991) != level_field(0.999999)  # ":g" wrote both as 0.999999
    assert resampling_fields(0.5, 1000, 200, 3, "bca") == {"cmp": "bca-0.5", "boot": "1000", "ar": "200", "seed": "3"}


def test_judge_eval_draws_its_resamples_in_blocks(monkeypatch):
    """Blocks of 3 resamples give the resamples (and intervals) of one draw; the interval is the
    percentile interval of scipy's Spearman and numpy's MAE over those resamples, row by row."""
    rng = np.random.default_rng(7)
    y = rng.uniform(size=60)
    x = y + rng.normal(scale=0.3, size=60)
    whole = evaluate_judge(list(x), list(y), n_boot=50, seed=4).overall
    monkeypatch.setattr(bootstrap, "CHUNK_ENTRIES", 3 * 60)
    assert bootstrap.chunk_rows(60) == 3
    blocks = evaluate_judge(list(x), list(y), n_boot=50, seed=4).overall
    for name in ("spearman", "clear_pairs", "mae"):  # the same resamples (sums in another order: approx)
        a, b = getattr(blocks, name), getattr(whole, name)
        assert (a.value, a.lo, a.hi, a.n_usable) == pytest.approx((b.value, b.lo, b.hi, b.n_usable), rel=1e-12)
    idx = np.random.default_rng([4, zlib.crc32(b"\x00all")]).integers(0, 60, size=(50, 60))
    rho = [stats.spearmanr(x[i], y[i]).statistic for i in idx]
    mae = [np.mean(np.abs(x[i] - y[i])) for i in idx]
    assert (whole.spearman.lo, whole.spearman.hi) == pytest.approx(tuple(np.quantile(rho, [0.025, 0.975])))
    assert (whole.mae.lo, whole.mae.hi) == pytest.approx(tuple(np.quantile(mae, [0.025, 0.975])))
    assert not math.isnan(whole.clear_pairs.lo) and whole.clear_pairs.lo <= whole.clear_pairs.value


def test_judge_eval_states_its_level():
    report = evaluate_judge([0.1, 0.5, 0.9, 0.3, 0.7], [0.0, 0.5, 1.0, 0.25, 0.75], n_boot=40, confidence=0.8)
    d = report.to_dict("j", "labels.jsonl")
    assert d["confidence"] == 0.8 and "|boot:40|seed:0|conf:0.8|" in d["signature"]
