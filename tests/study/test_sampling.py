"""Sampling of a study: allocation over strata, the stratified draw, per-reader schedules."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.study.sampling import Slot, allocate, schedule, stratified
from semcer.study.sources import severity_band


def test_allocate_by_hand():
    # sizes 10, 3, 1 and n = 8: level q = 3 gives 3 + 3 + 1 = 7 <= 8, q = 4 gives 8 + ... = 4+3+1 = 8
    assert allocate({"a": 10, "b": 3, "c": 1}, 8) == {"a": 4, "b": 3, "c": 1}
    # n = 6: q = 2 gives 2 + 2 + 1 = 5, one left goes to the largest open stratum (a)
    assert allocate({"a": 10, "b": 3, "c": 1}, 6) == {"a": 3, "b": 2, "c": 1}
    # ties among the open strata go by key
    assert allocate({"x": 5, "y": 5}, 3) == {"x": 2, "y": 1}
    assert allocate({"a": 2, "b": 1}, 10) == {"a": 2, "b": 1}
    assert allocate({"a": 4}, 0) == {"a": 0}


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=3), st.integers(0, 40), min_size=1, max_size=8), st.integers(0, 200))
def test_allocate_properties(sizes, n):
    out = allocate(sizes, n)
    assert sum(out.values()) == min(n, sum(sizes.values()))
    assert all(0 <= out[k] <= sizes[k] for k in sizes)
    # as even as the strata allow: a stratum below its size never has 2+ fewer than any other
    for k in sizes:
        if out[k] < sizes[k]:
            assert all(out[j] <= out[k] + 1 for j in sizes)


def test_stratified_counts_and_seed():
    items = [("vi", i) for i in range(20)] + [("en", i) for i in range(5)] + [("zh", i) for i in range(2)]
    drawn = stratified(items, lambda it: it[0], 12, seed=7)
    assert Counter(lang for lang, _ in drawn) == {"vi": 5, "en": 5, "zh": 2}
    assert len(set(drawn)) == 12
    assert drawn == stratified(items, lambda it: it[0], 12, seed=7)
    assert drawn != stratified(items, lambda it: it[0], 12, seed=8)


def test_schedule_repeats_and_shuffles():
    items = [f"i{k}" for k in range(30)]
    a = schedule(items, "ana", seed=3, repeats=4)
    assert a == schedule(items, "ana", seed=3, repeats=4)  # deterministic by seed and name
    b = schedule(items, "ben", seed=3, repeats=4)
    assert [s.item for s in a if s.rep == 0] != [s.item for s in b if s.rep == 0]
    for sched in (a, b):
        assert len(sched) == 34
        assert sorted(s.item for s in sched if s.rep == 0) == sorted(items)
        repeated = [s.item for s in sched if s.rep == 1]
        assert len(set(repeated)) == 4
        for item in repeated:
            assert sched.index(Slot(item, 0)) < sched.index(Slot(item, 1))
    assert schedule(items, "ana", seed=4, repeats=4) != a


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=40, unique=True), st.data())
def test_schedule_properties(items, data):
    repeats = data.draw(st.integers(0, len(items)))
    seed = data.draw(st.integers(0, 2**32 - 1))
    sched = schedule(items, "r", seed, repeats)
    assert sorted(s.item for s in sched if s.rep == 0) == sorted(items)
    again = [s.item for s in sched if s.rep == 1]
    assert len(again) == len(set(again)) == repeats
    assert all(sched.index(Slot(i, 0)) < sched.index(Slot(i, 1)) for i in again)


def test_severity_band():
    assert [severity_band(x) for x in (0.0, 0.12, 0.13, 0.5, 0.87, 0.88, 1.0)] == ["L0", "L0", "L1", "L2", "L3", "L4", "L4"]
    assert severity_band(None) == "unjudged"
