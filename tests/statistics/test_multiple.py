"""Holm's step-down adjustment against statsmodels and by hand."""

from __future__ import annotations

import gc
import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from semcer.statistics.multiple import holm

_p = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.02, 0.05, 0.5, 1.0]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_p, min_size=1, max_size=30))
def test_matches_statsmodels(p):
    # multipletests runs gc.collect() on every call (85 ms in a full test process): skip that here
    with mock.patch.object(gc, "collect", lambda *args: 0):
        want = multipletests(p, method="holm")[1]
    got = holm(p)
    assert got == pytest.approx(list(want), abs=1e-12)
    # monotone in the raw p-values, never below them, capped at 1
    order = np.argsort(p, kind="stable")
    assert (np.diff(np.array(got)[order]) >= -1e-15).all()
    assert all(g >= x - 1e-15 and g <= 1.0 for g, x in zip(got, p))


def test_by_hand():
    # m = 4: sorted 0.01, 0.02, 0.03, 0.5 times 4, 3, 2, 1 -> 0.04, 0.06, 0.06, 0.5 (running maximum)
    assert holm([0.03, 0.5, 0.01, 0.02]) == pytest.approx([0.06, 0.5, 0.04, 0.06])
    assert holm([0.4, 0.6]) == pytest.approx([0.8, 0.8])
    assert holm([0.9, 0.8]) == [1.0, 1.0]
    assert holm([]) == []


def test_undefined_pvalues_are_left_out_of_the_family():
    got = holm([0.01, math.nan, 0.04])
    assert got[0] == pytest.approx(0.02) and math.isnan(got[1]) and got[2] == pytest.approx(0.04)
    with pytest.raises(ValueError):
        holm([1.5])
