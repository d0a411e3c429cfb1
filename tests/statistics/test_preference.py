"""Pair-level preferences by hand: majorities, agreement, margins with Holm, near misses, readers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from semcer.statistics.multiple import holm
from semcer.statistics.preference import (
    agreement,
    hits,
    margin,
    margins,
    near_miss,
    reader_agreement,
    strict_majority,
)

CHOICES = [
    ["a", "a", "b"],            # a: two against one
    ["b", "equal", "equal"],    # b: one against none (equal answers count for neither side)
    ["a", "b", "equal"],        # no majority
    ["equal", "equal", None],   # no majority (None: the third rater did not rate it)
    ["b", "b", "a", "b"],       # b
]
SEM = ([0.9, 0.1, 0.3, 0.2, 0.5], [0.2, 0.4, 0.3, 0.2, 0.5])  # hits on pairs 0, 1; pair 4 tied: a miss
CER = ([0.1, 0.2, 0.0, 0.0, 0.1], [0.3, 0.1, 0.0, 0.0, 0.2])  # misses 0, 1; hits 4


def test_strict_majority():
    assert strict_majority(CHOICES) == ["a", "b", None, None, "b"]
    # the study asked for the better output: the majority's worse output is the other one
    assert strict_majority(CHOICES, chose="better") == ["b", "a", None, None, "a"]
    # more than half of the pair's raters: pair 1 (one of three) no longer has one
    assert strict_majority(CHOICES, absolute=True) == ["a", None, None, None, "b"]
    with pytest.raises(ValueError):
        strict_majority([["a", "worse"]])


def test_agreement_and_margin_by_hand():
    maj = strict_majority(CHOICES)
    assert list(hits(*SEM, maj)) == [1.0, 1.0, 0.0]
    assert list(hits(*CER, maj)) == [0.0, 0.0, 1.0]
    assert agreement(*SEM, maj, n_boot=0).value == pytest.approx(2 / 3)
    m = margin(SEM, CER, maj, n_boot=200, n_permutations=999)
    assert (m.agreement1.value, m.agreement2.value) == pytest.approx((2 / 3, 1 / 3))
    assert m.difference.value == pytest.approx(1 / 3) and m.n_pairs == 3
    # per-pair differences +1, +1, -1: every sign flip leaves |sum| >= 1, so p = 1 exactly
    assert m.p_value == 1.0 and m.p_holm == 1.0
    assert math.isnan(agreement(*SEM, [None] * 5).value)


def test_agreement_interval_equals_a_loop_over_the_same_resamples():
    rng = np.random.default_rng(3)
    n = 150
    maj = list(rng.choice(["a", "b", None], size=n))
    a, b = rng.random(n), rng.random(n)
    a[:10] = b[:10]  # ties: misses
    h = hits(a, b, maj)
    e = agreement(a, b, maj, n_boot=500, seed=4)
    idx = np.random.default_rng(4).integers(0, len(h), size=(500, len(h)))
    assert e.value == pytest.approx(h.mean())
    assert (e.lo, e.hi) == pytest.approx(tuple(np.quantile(h[idx].mean(axis=1), [0.025, 0.975])), abs=1e-12)


def test_margin_permutation_p_value_converges_to_exact_enumeration():
    maj = ["a", "a", "a", "a", "b"]
    s1 = ([1, 1, 1, 0, 0], [0, 0, 0, 0, 1])  # hits 1 1 1 0 1
    s2 = ([0, 0, 0, 0, 0], [1, 1, 1, 1, 1])  # hits 0 0 0 0 1
    d = [1, 1, 1, 0, 0]
    exact = np.mean([abs(np.dot(s, d)) >= 3 for s in itertools.product([-1, 1], repeat=5)])  # 2 of 8 patterns
    assert exact == 0.25
    m = margin(s1, s2, maj, n_boot=100, n_permutations=20_000, seed=2)
    assert m.p_value == pytest.approx(exact, abs=4 * math.sqrt(0.25 * 0.75 / 20_000))
    assert m.difference.value == pytest.approx(3 / 5)


def test_margins_are_holm_corrected_together():
    maj = strict_majority(CHOICES)
    rng = np.random.default_rng(0)
    other = (rng.random(5), rng.random(5))
    out = margins({"sem-cer": (SEM, CER), "sem-other": (SEM, other)}, maj, n_boot=100, n_permutations=500)
    assert list(out) == ["sem-cer", "sem-other"]
    raw = [m.p_value for m in out.values()]
    assert [m.p_holm for m in out.values()] == pytest.approx(holm(raw))
    assert out["sem-cer"].difference == margin(SEM, CER, maj, n_boot=100, n_permutations=500).difference


def test_near_miss_by_hand():
    sem = ([0.9, 0.1, 0.5, 0.3], [0.2, 0.4, 0.5, 0.1])   # a, b, tie, a
    cer = ([0.1, 0.5, 0.2, 0.4], [0.3, 0.2, 0.1, 0.4])   # b, a, a, tie
    assert list(near_miss(sem, cer)) == [True, True, False, False]
    norm = ([0.1, 0.1, 0.0, 0.0], [0.2, 0.3, 0.0, 0.0])  # b, b: agrees with semCER on pair 1
    assert list(near_miss(sem, cer, norm)) == [True, False, False, False]
    with pytest.raises(ValueError):
        near_miss(sem, ([0.1], [0.2]))


def test_reader_agreement_by_hand():
    # pair 0: raters 0 and 1 face a split of the others (no majority: not counted); rater 2 said b
    #   against the others' a: a miss. pair 1: raters 0 and 1 match the others' b; rater 2's
    #   "equal" against b is a miss. 2 of 4.
    e = reader_agreement([["a", "a", "b"], ["b", "b", "equal"]], n_boot=100)
    assert e.value == pytest.approx(0.5)
    assert 0.0 <= e.lo <= e.hi <= 1.0
    assert reader_agreement([["a", "b"]]).value == 0.0  # each disagrees with the other
    assert math.isnan(reader_agreement([["a"], ["equal", "equal"]]).value)  # no "others" majority anywhere
