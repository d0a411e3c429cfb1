"""Reader reliability: Krippendorff's ordinal alpha against the krippendorff package and published and
hand-worked values; ICC(2,k) against pingouin and Shrout & Fleiss's worked example; the
half-of-the-items rater rule by hand."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pingouin
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from semcer.statistics.agreement import (
    icc2k,
    krippendorff_alpha_ordinal,
    raters_covering,
    reader_reliability,
)

N = math.nan

# Shrout & Fleiss (1979), Table 2: six targets rated by four judges; they report ICC(2,4) = 0.62.
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the example with missing data:
# four observers, twelve units; he reports alpha = 0.815 with the ordinal metric.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


def test_alpha_hand_worked():
    """Two raters, three items: (0, 0), (0, 1), (1, 2).

    Coincidences (each item's two ordered pairs count 1/(2-1) = 1): o00 = 2, o01 = o10 = 1,
    o12 = o21 = 1; marginals n0 = 3, n1 = 2, n2 = 1, n = 6. Ordinal distances
    δ(c, k) = Σ_{g=c..k} n_g - (n_c + n_k)/2: δ01 = 5 - 2.5 = 2.5, δ12 = 3 - 1.5 = 1.5, δ02 = 6 - 2 = 4.
    D_o = (2·6.25 + 2·2.25) / 6 = 17/6; D_e = 2(3·2·6.25 + 2·1·2.25 + 3·1·16) / (6·5) = 6.
    α = 1 - (17/6)/6 = 19/36.
    """
    assert krippendorff_alpha_ordinal([[0, 0, 1], [0, 1, 2]]) == pytest.approx(19 / 36)
    # only the order of the values matters for the ordinal metric
    assert krippendorff_alpha_ordinal([[0, 0, 0.3], [0, 0.3, 7]]) == pytest.approx(19 / 36)


def test_alpha_published_example():
    assert round(krippendorff_alpha_ordinal(KRIPPENDORFF_2011), 3) == 0.815


_rating = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, N, N])


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # the package's 0/0 where alpha is undefined
@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6).flatmap(lambda r: st.lists(st.lists(_rating, min_size=r, max_size=r), min_size=2, max_size=25)))
def test_alpha_matches_the_krippendorff_package(items):
    data = np.array(items, dtype=float).T  # (raters, items)
    seen = ~np.isnan(data)
    assume(len(np.unique(data[seen])) >= 2 and (seen.sum(axis=0) >= 2).any())
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    got = krippendorff_alpha_ordinal(data)
    assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, abs=1e-9)


def test_alpha_undefined():
    assert math.isnan(krippendorff_alpha_ordinal([[1, 1], [1, 1]]))  # one value: no expected disagreement
    assert math.isnan(krippendorff_alpha_ordinal([[1, N], [N, 2]]))  # no item rated twice
    assert math.isnan(krippendorff_alpha_ordinal(np.zeros((3, 0))))
    with pytest.raises(ValueError):
        krippendorff_alpha_ordinal([1, 2, 3])


def test_icc2k_shrout_fleiss_example():
    assert round(icc2k(SHROUT_FLEISS), 2) == 0.62


def _pingouin_icc2k(x):
    df = pd.DataFrame([(i, j, x[i, j]) for i in range(x.shape[0]) for j in range(x.shape[1])], columns=["t", "r", "y"])
    table = pingouin.intraclass_corr(df, targets="t", raters="r", ratings="y")
    row = table[table["Type"].isin(["ICC2k", "ICC(A,k)"])]  # the name changed across pingouin versions
    return float(row["ICC"].iloc[0])


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=25, deadline=None)
@given(st.integers(3, 12), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_icc2k_matches_pingouin(n, k, seed):  # pingouin needs at least 5 ratings, and is slow
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, size=(n, 1)) / 4 + rng.normal(0, 0.2, size=(n, k)) + rng.normal(0, 0.1, size=(1, k))
    assert icc2k(x) == pytest.approx(_pingouin_icc2k(x), abs=1e-9)


def test_icc2k_missing_and_undefined():
    x = SHROUT_FLEISS.copy()
    x[1, 2] = N  # the second target loses a rating: left out, like pingouin's nan_policy="omit"
    assert icc2k(x) == pytest.approx(icc2k(np.delete(SHROUT_FLEISS, 1, axis=0)))
    assert math.isnan(icc2k(np.ones((4, 3))))  # no variance at all
    assert math.isnan(icc2k([[1.0, 2.0]]))  # one item
    assert math.isnan(icc2k([[1.0], [2.0]]))  # one rater


def test_raters_covering_the_half_rule():
    r = np.array([
        [1, 2, 3, 4],   # all four items
        [1, N, 3, N],   # exactly half: kept
        [N, N, N, 4],   # a quarter: dropped
        [N, N, N, N],   # none
    ], float)
    assert list(raters_covering(r)) == [0, 1]
    assert list(raters_covering(r, 0.25)) == [0, 1, 2]
    assert list(raters_covering(r, 1.0)) == [0]
    with pytest.raises(ValueError):
        raters_covering(r, 1.5)


def test_reader_reliability_keeps_raters_then_items():
    r = np.array([
        [0, 1, 2, 3, 4, 2],
        [0, 1, 3, 3, 4, N],
        [1, 1, 2, 4, N, 2],
        [N, N, N, N, N, 0],   # rated one item of six: left out of both
    ], float)
    rel = reader_reliability(r)
    assert rel.raters == (0, 1, 2) and rel.min_share == 0.5
    assert rel.n_items == 6 and rel.n_items_complete == 4
    assert rel.alpha == pytest.approx(krippendorff.alpha(reliability_data=r[:3], level_of_measurement="ordinal"))
    assert rel.icc2k == pytest.approx(icc2k(r[:3, :4].T))
