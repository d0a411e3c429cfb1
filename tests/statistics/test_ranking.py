"""Top-of-list curves and clear-pair agreement, by hand and against brute force (every tie order)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.statistics.ranking import (
    clear_pair_agreement,
    top_of_list,
    top_of_list_difference,
    top_of_list_interval,
)


def test_by_hand():
    # Score order: item 0 (damage 1.0), then items 2 and 3 tied at 0.5 (damage 0.5 and 0.25: each
    # position charged their mean 0.375), then item 1 (damage 0). Cumulative 0, 1, 1.375, 1.75, 1.75
    # of a total 1.75. Readers' order: 1.0, 0.5, 0.25, 0 -> 0, 1, 1.5, 1.75, 1.75.
    t = top_of_list([0.9, 0.1, 0.5, 0.5], [1.0, 0.0, 0.5, 0.25], fractions=[0, 0.25, 0.375, 0.5, 1])
    assert t.cumulative == pytest.approx((0, 1, 1.375, 1.75, 1.75))
    assert t.caught == pytest.approx((0, 1 / 1.75, (1 + 1.375) / 2 / 1.75, 1.375 / 1.75, 1))
    assert t.ceiling == pytest.approx((0, 1 / 1.75, 1.25 / 1.75, 1.5 / 1.75, 1))
    assert t.random == (0, 0.25, 0.375, 0.5, 1)
    assert t.at(0.5) == pytest.approx(1.375 / 1.75) and t.ceiling_at(0.5) == pytest.approx(1.5 / 1.75)
    assert t.at(0.10) == pytest.approx(0.4 / 1.75)  # 0.4 of the first item
    assert (t.n_items, t.total_damage) == (4, 1.75)


def test_constant_score_is_the_diagonal_and_no_damage_is_undefined():
    t = top_of_list([0.3] * 5, [1, 0, 0, 0.5, 0.25])
    assert t.caught == pytest.approx(t.fractions)
    assert math.isnan(top_of_list([1, 2], [0, 0]).at(0.5))
    with pytest.raises(ValueError):
        top_of_list([1, 2], [0.5])
    with pytest.raises(ValueError):
        top_of_list([1, 2], [0.5, -1])
    with pytest.raises(ValueError):
        top_of_list([1, 2], [0.5, 1]).at(1.5)


_level = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_level, _level), min_size=1, max_size=6))
def test_ties_are_the_average_over_every_tie_order(rows):
    score = np.array([a for a, _ in rows])
    damage = np.array([b for _, b in rows])
    n = len(rows)
    curves = []
    for perm in itertools.permutations(range(n)):  # every order consistent with the score
        p = np.array(perm)
        if (np.diff(score[p]) <= 0).all():
            curves.append(np.concatenate([[0], np.cumsum(damage[p])]))
    want = np.mean(curves, axis=0)
    t = top_of_list(score, damage, fractions=[k / n for k in range(n + 1)])
    assert t.cumulative == pytest.approx(tuple(want), abs=1e-12)
    if damage.sum() > 0:
        assert all(c <= e + 1e-12 for c, e in zip(t.caught, t.ceiling))  # never above the readers' order
        assert t.at(1.0) == pytest.approx(1.0)
    shuffled = np.random.default_rng(n).permutation(n)
    assert top_of_list(score[shuffled], damage[shuffled]).caught == pytest.approx(top_of_list(score, damage).caught, nan_ok=True)


def test_intervals_over_items():
    rng = np.random.default_rng(0)
    damage = rng.integers(0, 5, 200) / 4
    score = damage + rng.normal(0, 0.3, 200)
    e = top_of_list_interval(score, damage, 0.10, n_boot=200, seed=1)
    assert e.value == pytest.approx(top_of_list(score, damage).at(0.10))
    assert e.lo < e.value < e.hi
    idx = np.random.default_rng(1).integers(0, 200, size=(200, 200))
    ref = [top_of_list(score[i], damage[i]).at(0.10) for i in idx]
    assert (e.lo, e.hi) == pytest.approx(tuple(np.quantile(ref, [0.025, 0.975])), abs=1e-12)
    noisy = rng.random(200)  # no information: about the diagonal
    d = top_of_list_difference(score, noisy, damage, 0.10, n_boot=200, seed=1)
    assert d.value == pytest.approx(top_of_list(score, damage).at(0.1) - top_of_list(noisy, damage).at(0.1))
    ref = [top_of_list(score[i], damage[i]).at(0.10) - top_of_list(noisy[i], damage[i]).at(0.10) for i in idx]
    assert (d.lo, d.hi) == pytest.approx(tuple(np.quantile(ref, [0.025, 0.975])), abs=1e-12)
    assert d.lo > 0  # the informative score leads the uninformative one


def test_clear_pairs_by_hand():
    # reader means 0, 0.25, 1.0; gap 0.5: pairs (1.0 > 0) and (1.0 > 0.25). The score orders the first
    # correctly and ties the second (a miss): 1/2.
    c = clear_pair_agreement([0.1, 0.6, 0.6], [0.0, 0.25, 1.0], gap=0.5, n_boot=200)
    assert (c.share.value, c.n_pairs, c.gap) == (0.5, 2, 0.5)
    assert 0.0 <= c.share.lo <= c.share.hi <= 1.0
    c = clear_pair_agreement([0.1, 0.6, 0.7], [0.0, 0.25, 1.0], gap=0.25, n_boot=0)
    assert (c.share.value, c.n_pairs) == (1.0, 3) and math.isnan(c.share.lo)
    c = clear_pair_agreement([0.1, 0.2], [0.0, 0.1], gap=0.5, n_boot=50)
    assert c.n_pairs == 0 and math.isnan(c.share.value)
