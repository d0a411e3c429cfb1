"""The compact scorer's feature matrix: every column present and finite, for every dev edit."""

import numpy as np
import pytest
from helpers import DATA

from semcer.io.labels import load_labelled
from semcer.judges.compact.features import FEATURE_NAMES, featurize


@pytest.fixture(scope="module")
def dev():
    return load_labelled(DATA / "dev.jsonl")


def test_features_have_no_missing_values(dev):
    X, classes = featurize(dev[0])
    assert X.shape == (len(dev[0]), len(FEATURE_NAMES)) and np.isfinite(X).all()
    assert len(classes) == len(dev[0])
