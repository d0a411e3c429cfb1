"""The within-band (partial) rank correlation by hand, against pingouin's Spearman partial correlation
and statsmodels OLS residuals on band dummies; bootstrap intervals against a loop on the same draws."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pingouin
import pytest
import statsmodels.api as sm
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr, rankdata, spearmanr

from semcer.statistics.correlation import (
    band_codes,
    partial_spearman_within,
    partial_spearman_within_interval,
    spearman,
    spearman_interval,
)


def test_by_hand():
    # Ranks are the values. Band means of the x-ranks 2 and 5, of the y-ranks 2 and 5;
    # deviations x: -1 0 1 -1 0 1, y: -1 1 0 -1 1 0; Σ dx dy = 2, Σ dx² = Σ dy² = 4: r = 0.5.
    x, y, band = [1, 2, 3, 4, 5, 6], [1, 3, 2, 4, 6, 5], ["lo", "lo", "lo", "hi", "hi", "hi"]
    assert partial_spearman_within(x, y, band) == pytest.approx(0.5)
    # Association across bands but none left within them: pool 0.6, within -1.
    x, y, band = [1, 2, 3, 4], [2, 1, 4, 3], [0, 0, 1, 1]
    assert spearman(x, y) == pytest.approx(0.6)
    assert partial_spearman_within(x, y, band) == pytest.approx(-1.0)
    # Ties take average ranks over all items. x ranks 1.5 1.5 3 4 (the 0.1s tie), y ranks 1 2 3 4; bands {0,1} {2,3}:
    # dx = 0 0 -0.5 0.5, dy = -0.5 0.5 -0.5 0.5 -> Σ dx dy = 0.5, Σ dx² = 0.5, Σ dy² = 1: r = 1/√2.
    assert partial_spearman_within([0.1, 0.1, 0.2, 0.3], [1, 2, 3, 4], [0, 0, 1, 1]) == pytest.approx(1 / math.sqrt(2))
    # one band: the plain Spearman correlation
    x, y = [3, 1, 2, 5], [1, 2, 3, 4]
    assert partial_spearman_within(x, y, ["a"] * 4) == pytest.approx(spearmanr(x, y)[0])


def test_undefined():
    assert partial_spearman_within([1.0], [2.0], [0]) is None
    assert partial_spearman_within([1, 2, 3], [3, 1, 2], [0, 1, 2]) is None  # every band a single item
    assert partial_spearman_within([1, 1, 2, 2], [1, 2, 3, 4], [0, 0, 1, 1]) is None  # x constant within bands
    with pytest.raises(ValueError):
        partial_spearman_within([1, 2], [1, 2], [0])
    assert math.isnan(partial_spearman_within_interval([1, 2, 3], [3, 1, 2], [0, 1, 2], n_boot=10).value)


def _ols_residual_corr(x, y, band):
    """Pearson of the OLS residuals of the all-item ranks on an intercept and band dummies."""
    dummies = pd.get_dummies(pd.Series(band), drop_first=True, dtype=float).to_numpy()
    design = sm.add_constant(dummies, has_constant="add")
    rx = sm.OLS(rankdata(x), design).fit().resid
    ry = sm.OLS(rankdata(y), design).fit().resid
    return pearsonr(rx, ry)[0]


_grid = st.sampled_from([0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 0.75, 1.0])


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_grid, st.floats(0, 1), st.integers(0, 3)), min_size=8, max_size=60))
def test_agrees_with_statsmodels_residuals_and_pingouin(rows):
    x = [a for a, _, _ in rows]
    y = [b for _, b, _ in rows]
    band = [c for _, _, c in rows]
    got = partial_spearman_within(x, y, band)
    assume(got is not None and len(set(band)) >= 2)
    assert got == pytest.approx(_ols_residual_corr(x, y, band), abs=1e-9)
    # pingouin inverts the covariance matrix of x, y and the dummies: singular when the partial
    # correlation is +-1, where its sign is then arbitrary; compare it elsewhere
    assume(abs(got) < 1 - 1e-9)
    codes = band_codes(band)
    covar = [f"b{k}" for k in range(1, codes.max() + 1)]
    df = pd.DataFrame({"x": x, "y": y} | {c: (codes == k + 1).astype(float) for k, c in enumerate(covar)})
    want = pingouin.partial_corr(df, x="x", y="y", covar=covar, method="spearman")["r"].iloc[0]
    assert got == pytest.approx(want, abs=1e-6)


def test_intervals_equal_a_loop_over_the_same_resamples():
    rng = np.random.default_rng(1)
    n = 80
    band = rng.integers(0, 4, n)
    y = rng.random(n) + 0.5 * band
    x = y + rng.normal(0, 0.4, n)
    idx = np.random.default_rng(7).integers(0, n, size=(500, n))
    ref = []
    for i in idx:
        r = _ols_residual_corr(x[i], y[i], band[i]) if len(set(band[i])) > 1 else pearsonr(rankdata(x[i]), rankdata(y[i]))[0]
        ref.append(r)
    e = partial_spearman_within_interval(x, y, band, n_boot=500, seed=7)
    assert e.value == pytest.approx(partial_spearman_within(x, y, band))
    assert (e.lo, e.hi) == pytest.approx(tuple(np.quantile(ref, [0.025, 0.975])), abs=1e-9)
    ref = [spearmanr(x[i], y[i])[0] for i in idx]
    s = spearman_interval(x, y, n_boot=500, seed=7)
    assert s.value == pytest.approx(spearmanr(x, y)[0])
    assert (s.lo, s.hi) == pytest.approx(tuple(np.quantile(ref, [0.025, 0.975])), abs=1e-9)
    assert math.isnan(spearman_interval([1, 1, 1], [1, 2, 3]).value)
