"""The compact scorer's feature matrix: every column present and finite, for every dev edit."""

import numpy as np
import pytest
from helpers import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.io.labels import load_labelled
from semcer.judges.compact.features import _ONE_HOT, FEATURE_NAMES, _group_indices, featurize


@pytest.fixture(scope="module")
def dev():
    return load_labelled(DATA / "dev.jsonl")


def test_features_have_no_missing_values(dev):
    X, classes = featurize(dev[0])
    assert X.shape == (len(dev[0]), len(FEATURE_NAMES)) and np.isfinite(X).all()
    assert len(classes) == len(dev[0])


@given(st.lists(st.sampled_from(["letter", "Latin", "de", "S", "none", "lower", "?", "zz", "", "start", "end"]),
                min_size=len(_ONE_HOT), max_size=len(_ONE_HOT)))
@settings(max_examples=200, deadline=None)
def test_group_indices_are_each_values_place_in_its_vocabulary(values):
    """One byte per group: the value's index in the group's vocabulary, or the "?" column past its end."""
    expected = bytes(vocab.index(v) if v in vocab else len(vocab) for v, (_, vocab) in zip(values, _ONE_HOT))
    assert _group_indices(tuple(values)) == expected
