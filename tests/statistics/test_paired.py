"""Paired bootstrap and approximate randomization over documents, checked against a plain loop over
resamples on the same draws, against scipy.stats.bootstrap, and against exact enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import bootstrap as scipy_bootstrap

from semcer.statistics import bootstrap as bootstrap_module
from semcer.statistics.bootstrap import bca_estimate
from semcer.statistics.paired import (
    approximate_randomization,
    jackknife_values,
    paired_bootstrap,
    ratio_terms,
    system_values,
)

AGGS = ("corpus", "document_mean")


def naive_value(num_row, den, agg):
    """One system's aggregate, written out: the definition, not the ratio-of-sums form."""
    num_row, den = np.asarray(num_row, float), np.asarray(den, float)
    if agg == "corpus":
        return num_row.sum() / den.sum() if den.sum() > 0 else math.nan
    keep = den > 0
    return float(np.mean(num_row[keep] / den[keep])) if keep.any() else math.nan


def corpus(rng, systems, docs, zero_docs=0):
    den = rng.integers(1, 60, size=docs).astype(float)
    den[:zero_docs] = 0.0  # documents without reference units (their insertions still count)
    num = rng.poisson(lam=0.1 * np.maximum(den, 2)[None, :] * rng.uniform(0.5, 1.5, (systems, 1)))
    return num.astype(float), den


def test_values_by_hand():
    num = [[1, 2, 3], [0, 4, 3]]
    den = [4, 0, 6]  # the middle document has no units: 2 and 4 insertions
    assert system_values(num, den, "corpus") == pytest.approx([6 / 10, 7 / 10])
    assert system_values(num, den, "document_mean") == pytest.approx([(1 / 4 + 3 / 6) / 2, (0 + 3 / 6) / 2])
    assert np.isnan(system_values([[1, 2]], [0, 0], "corpus")).all()
    assert np.isnan(system_values([[1, 2]], [0, 0], "document_mean")).all()


@pytest.mark.parametrize("agg", AGGS)
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_equals_a_loop_over_the_same_resamples(agg, method, monkeypatch):
    monkeypatch.setattr(bootstrap_module, "CHUNK_ENTRIES", 97)  # many small blocks
    rng = np.random.default_rng(4)
    num, den = corpus(rng, 3, 40, zero_docs=3)
    b, seed = 400, 17
    got = paired_bootstrap(num, den, agg, n_resamples=b, seed=seed, method=method)
    idx = np.random.default_rng(seed).integers(0, len(den), size=(b, len(den)))  # one call, all rows
    boot = np.array([[naive_value(num[s, i], den[i], agg) for s in range(3)] for i in idx])
    jack = np.array([[naive_value(np.delete(num[s], d), np.delete(den, d), agg) for s in range(3)]
                     for d in range(len(den))])
    assert jackknife_values(*ratio_terms(num, den, agg)) == pytest.approx(jack)
    for res in got:
        s = res.system
        diff = boot[:, s] - boot[:, 0]
        want_value = naive_value(num[s], den, agg) - naive_value(num[0], den, agg)
        assert res.difference.value == pytest.approx(want_value)
        assert res.value.value == pytest.approx(naive_value(num[s], den, agg))
        assert res.baseline.value == pytest.approx(naive_value(num[0], den, agg))
        if method == "percentile":
            lo, hi = np.quantile(diff, [0.025, 0.975])
        else:
            e = bca_estimate(want_value, diff, jack[:, s] - jack[:, 0], 0.95)
            lo, hi = e.lo, e.hi
        assert (res.difference.lo, res.difference.hi) == pytest.approx((lo, hi), abs=1e-12)
        assert (res.method, res.n_resamples, res.seed, res.confidence, res.aggregation) == (method, b, seed, 0.95, agg)
        assert res.n_defined == b and res.n_documents == len(den)


def test_bca_formula_matches_scipy():
    """The BCa bounds from given resamples and jackknife values, against scipy's own formula."""
    from scipy.stats import _resampling

    rng = np.random.default_rng(2)
    x = rng.gamma(1.5, size=30)
    boot = np.array([x[i].mean() for i in rng.integers(0, 30, size=(2000, 30))])
    jack = np.array([np.delete(x, i).mean() for i in range(30)])
    try:
        a1, a2, _ = _resampling._bca_interval((x,), np.mean, -1, 0.025, boot[None, :], None, np)
    except TypeError:  # a scipy whose private signature differs
        pytest.skip("scipy's private _bca_interval has another signature")
    e = bca_estimate(float(x.mean()), boot, jack, 0.95)
    lo, hi = np.quantile(boot, [float(np.squeeze(a1)), float(np.squeeze(a2))])
    assert (e.lo, e.hi) == pytest.approx((lo, hi), abs=1e-12)


@pytest.mark.parametrize("agg", AGGS)
@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_intervals_agree_with_scipy_bootstrap(agg, method):
    """scipy.stats.bootstrap, paired over documents, draws its own resamples: bounds agree to
    Monte Carlo precision (a few percent of the interval's width at 20,000 resamples)."""
    rng = np.random.default_rng(9)
    num, den = corpus(rng, 2, 150, zero_docs=2)

    def stat(n0, n1, d, axis=-1):
        if agg == "corpus":
            return (n1.sum(axis) - n0.sum(axis)) / d.sum(axis)
        has = d > 0
        r1 = np.where(has, n1 / np.where(has, d, 1), 0)
        r0 = np.where(has, n0 / np.where(has, d, 1), 0)
        return (r1 - r0).sum(axis) / has.sum(axis)

    ref = scipy_bootstrap((num[0], num[1], den), stat, paired=True, vectorized=True, n_resamples=20_000,
                          method=method, random_state=np.random.default_rng(1)).confidence_interval
    (got,) = paired_bootstrap(num, den, agg, n_resamples=20_000, seed=3, method=method.lower())
    width = ref.high - ref.low
    assert got.difference.lo == pytest.approx(ref.low, abs=0.05 * width)
    assert got.difference.hi == pytest.approx(ref.high, abs=0.05 * width)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(2, 4), st.sampled_from(AGGS), st.integers(0, 2**32 - 1))
def test_swapping_systems_mirrors_the_comparison(docs, systems, agg, seed):
    rng = np.random.default_rng(seed)
    num, den = corpus(rng, systems, docs, zero_docs=int(rng.integers(0, docs)))
    fwd = paired_bootstrap(num, den, agg, n_resamples=200, seed=seed)
    back = paired_bootstrap(num[::-1], den, agg, n_resamples=200, seed=seed)
    assert len(fwd) == systems - 1
    f, b = fwd[-1].difference, back[-1].difference  # the last system against the first, and back
    assert f.value == pytest.approx(-b.value, abs=1e-12)
    if docs < 5:  # too few documents to resample: no interval either way
        assert all(math.isnan(x) for x in (f.lo, f.hi, b.lo, b.hi))
    else:
        assert (f.lo, f.hi) == pytest.approx((-b.hi, -b.lo), abs=1e-12)
    assert f.value == pytest.approx(fwd[-1].value.value - fwd[-1].baseline.value, abs=1e-12)
    p = approximate_randomization(num, den, agg, n_permutations=300, seed=seed)
    q = approximate_randomization(num[::-1], den, agg, n_permutations=300, seed=seed)
    assert p[-1] == q[-1] and all(1 / 301 <= x <= 1 for x in p)


@pytest.mark.parametrize("agg", AGGS)
def test_randomization_converges_to_exact_enumeration(agg):
    rng = np.random.default_rng(5)
    num, den = corpus(rng, 2, 9, zero_docs=1)
    observed = abs(naive_value(num[1], den, agg) - naive_value(num[0], den, agg))
    extreme = 0
    for swap in itertools.product([False, True], repeat=len(den)):
        s = np.array(swap)
        a, b = np.where(s, num[1], num[0]), np.where(s, num[0], num[1])
        extreme += abs(naive_value(b, den, agg) - naive_value(a, den, agg)) >= observed - 1e-12
    exact = extreme / 2 ** len(den)
    n = 40_000
    (p,) = approximate_randomization(num, den, agg, n_permutations=n, seed=1)
    assert p == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / n) + 1e-4)


@pytest.mark.parametrize("agg", AGGS)
def test_randomization_equals_swapping_systems_on_the_same_draws(agg):
    rng = np.random.default_rng(6)
    num, den = corpus(rng, 3, 25, zero_docs=2)
    n, seed = 500, 8
    got = approximate_randomization(num, den, agg, n_permutations=n, seed=seed)
    flips = np.random.default_rng(seed).integers(0, 2, size=(n, len(den)), dtype=np.int8).astype(bool)
    for s in (1, 2):
        observed = abs(naive_value(num[s], den, agg) - naive_value(num[0], den, agg))
        count = 0
        for f in flips:
            base, cand = np.where(f, num[s], num[0]), np.where(f, num[0], num[s])
            count += abs(naive_value(cand, den, agg) - naive_value(base, den, agg)) >= observed - 1e-12
        assert got[s - 1] == pytest.approx((1 + count) / (1 + n))


def test_identical_systems_give_p_one_and_a_zero_interval():
    num = np.array([[3.0, 1, 4, 1, 5], [3, 1, 4, 1, 5]])
    den = np.array([10.0, 20, 30, 40, 50])
    for agg in AGGS:
        (res,) = paired_bootstrap(num, den, agg, n_resamples=300)
        assert (res.difference.value, res.difference.lo, res.difference.hi) == (0.0, 0.0, 0.0)
        assert approximate_randomization(num, den, agg, n_permutations=99) == [1.0]


def test_edge_cases():
    num, den = np.array([[1.0, 2.0]]), np.array([5.0, 5.0])
    assert paired_bootstrap(num, den, "corpus") == [] and approximate_randomization(num, den, "corpus") == []
    # one document: every resample is that document, so there is no interval (both methods), only the value
    for method in ("percentile", "bca"):
        (res,) = paired_bootstrap([[2.0], [3.0]], [10.0], "document_mean", n_resamples=50, method=method)
        assert res.difference.value == pytest.approx(0.1) and math.isnan(res.difference.lo)
        assert math.isnan(res.difference.hi)
    # no reference units at all: nothing is defined
    (res,) = paired_bootstrap([[1.0, 2.0], [0.0, 1.0]], [0.0, 0.0], "corpus", n_resamples=50)
    assert math.isnan(res.difference.value) and math.isnan(res.difference.lo) and res.n_defined == 0
    assert math.isnan(approximate_randomization([[1.0, 2.0], [0.0, 1.0]], [0.0, 0.0], "corpus")[0])
    # one document with units among many without: resamples that miss it are left out
    den = np.array([10.0] + [0.0] * 9)
    (res,) = paired_bootstrap(np.ones((2, 10)), den, "document_mean", n_resamples=2000)
    assert 0 < res.n_defined < 2000
    assert abs(res.n_defined / 2000 - (1 - 0.9**10)) < 0.05


def test_reproducible_and_seeded():
    rng = np.random.default_rng(0)
    num, den = corpus(rng, 3, 30)
    a = paired_bootstrap(num, den, "corpus", n_resamples=500, seed=4)
    assert a == paired_bootstrap(num, den, "corpus", n_resamples=500, seed=4)
    assert a != paired_bootstrap(num, den, "corpus", n_resamples=500, seed=5)


@pytest.mark.parametrize(
    ("num", "den", "kwargs"),
    [
        ([1.0, 2.0], [1.0, 1.0], {}),                       # num not 2-D
        ([[1.0, 2.0]], [1.0], {}),                          # shapes disagree
        ([[1.0, math.nan]], [1.0, 1.0], {}),                # an undefined semCER
        ([[1.0, 2.0]], [1.0, -1.0], {}),                    # negative units
        ([[1.0, 2.0]], [1.0, 1.0], {"aggregation": "median"}),
        ([[1.0, 2.0]], [1.0, 1.0], {"n_resamples": 0}),
        ([[1.0, 2.0]], [1.0, 1.0], {"confidence": 1.0}),
        ([[1.0, 2.0]], [1.0, 1.0], {"method": "bc"}),
    ],
)
def test_bad_inputs_are_errors(num, den, kwargs):
    agg = kwargs.pop("aggregation", "corpus")
    with pytest.raises(ValueError):
        paired_bootstrap(num, den, agg, **kwargs)


def test_compare_systems_adds_holm_over_the_systems():
    from semcer.statistics.multiple import holm
    from semcer.statistics.paired import compare_systems

    rng = np.random.default_rng(12)
    num, den = corpus(rng, 4, 30)
    out = compare_systems(num, den, "document_mean", n_resamples=300, n_permutations=300, seed=2)
    raw = approximate_randomization(num, den, "document_mean", n_permutations=300, seed=2)
    assert [c.interval for c in out] == paired_bootstrap(num, den, "document_mean", n_resamples=300, seed=2)
    assert [c.p_value for c in out] == raw and [c.p_holm for c in out] == holm(raw)
    assert compare_systems(num[:1], den, "corpus") == []


@pytest.mark.parametrize("docs", [1, 2, 4])
def test_too_few_documents_give_no_interval(docs):
    # one document: every resample is that document, so an interval would collapse onto the point
    # difference and read as certain; from 5 documents on there is one again
    rng = np.random.default_rng(0)
    num, den = corpus(rng, 2, docs)
    (few,) = paired_bootstrap(num, den, "corpus", n_resamples=200, seed=1)
    assert math.isnan(few.difference.lo) and math.isnan(few.difference.hi) and not math.isnan(few.difference.value)
    (enough,) = paired_bootstrap(*corpus(rng, 2, 5), "corpus", n_resamples=200, seed=1)
    assert enough.difference.lo <= enough.difference.hi


@pytest.mark.parametrize(("confidence", "least"), [(0.95, 40), (0.9, 20), (0.99, 200)])
def test_an_interval_needs_a_resample_in_each_tail(confidence, least):
    num, den = corpus(np.random.default_rng(0), 2, 8)
    with pytest.raises(ValueError, match=f"^n_resamples must be from {least} "):
        paired_bootstrap(num, den, "corpus", n_resamples=least - 1, confidence=confidence)
    assert paired_bootstrap(num, den, "corpus", n_resamples=least, confidence=confidence)
