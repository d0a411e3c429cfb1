"""Spearman's rho against scipy; undefined (None, or NaN rows) where one side is constant."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from semcer.statistics.correlation import spearman, spearman_rows

# Severities on the rubric's grid and between it, so that ties occur.
_sev = st.sampled_from([0.0, 0.0125, 0.25, 0.2875, 0.4875, 0.5, 0.75, 0.9875, 1.0])


@pytest.mark.filterwarnings("ignore:An input array is constant")
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_sev, st.floats(0, 1)), min_size=2, max_size=40))
def test_spearman_matches_scipy(pairs):
    x = [a for a, _ in pairs]
    y = [b for _, b in pairs]
    want = spearmanr(x, y).statistic
    got = spearman(x, y)
    if math.isnan(want):
        assert got is None
    else:
        assert got == pytest.approx(want, abs=1e-9)
    (row,) = spearman_rows(np.array([x]), np.array([y]))
    assert (math.isnan(row) and got is None) or row == pytest.approx(got, abs=1e-12)


def test_undefined_cases():
    assert spearman([0.5], [0.1]) is None  # fewer than two values
    assert spearman([0.5, 0.5, 0.5], [0.1, 0.2, 0.3]) is None  # a constant side
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        spearman([1, 2], [1, 2, 3])
    rows = spearman_rows(np.array([[1, 2, 3], [1, 1, 1]]), np.array([[1, 2, 3], [1, 2, 3]]))
    assert rows[0] == pytest.approx(1.0) and math.isnan(rows[1])


def test_spearman_difference_is_paired_and_matches_scipy_point_values():
    from semcer.statistics.correlation import spearman_difference

    rng = np.random.default_rng(7)
    y = rng.normal(size=300)
    good = y + rng.normal(scale=0.3, size=300)
    noise = rng.normal(size=300)
    d = spearman_difference(good, noise, y, n_boot=300, seed=2)
    assert d.value == pytest.approx(spearmanr(good, y).statistic - spearmanr(noise, y).statistic, abs=1e-12)
    assert 0 < d.lo <= d.value <= d.hi  # good leads noise significantly
    same = spearman_difference(good, good, y, n_boot=300, seed=2)
    assert (same.value, same.lo, same.hi) == (0.0, 0.0, 0.0)  # paired: every resample's difference is 0
    close = spearman_difference(good, good + rng.normal(scale=0.01, size=300), y, n_boot=300, seed=2)
    assert close.lo < 0 < close.hi or close.value == 0  # a negligible difference is not significant
    undefined = spearman_difference(np.ones(10), noise[:10], y[:10], n_boot=50)
    assert math.isnan(undefined.value) and math.isnan(undefined.lo)
