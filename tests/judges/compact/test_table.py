"""The table form of a depth-3 forest: one-hot groups read as codes, conditions that always or never hold."""

import numpy as np

from semcer.judges.compact.forest import Forest
from semcer.judges.compact.table import TableForest


def test_table_forest_one_hot_conditions_that_always_or_never_hold():
    """On a 0/1 column, a threshold of 1 or more always holds and one below 0 never does."""
    # Column 0 numeric, columns 1 and 2 the one-hot group 0. Tree 0: x2 <= 1.5 (always), then
    # x1 <= -0.5 (never); tree 1: x0 <= 0.3, then x1 <= 0.5 (x1 not set).
    feature = np.array([2, 1, -1, -1, -1, 0, 1, -1, -1, -1], np.int32)
    threshold = np.array([1.5, -0.5, 0, 0, 0, 0.3, 0.5, 0, 0, 0])
    left = np.array([1, 3, 2, 3, 4, 6, 7, 7, 8, 9], np.int32)
    right = np.array([2, 4, 2, 3, 4, 9, 8, 7, 8, 9], np.int32)
    value = np.array([0, 0, 3.0, 1.0, 2.0, 0, 0, 0.25, -0.75, 0.5])
    forest = Forest(feature, threshold, left, right, value, np.array([0, 5], np.int32), 1, 2)
    rng = np.random.default_rng(0)
    numeric = rng.random((50, 1))
    codes = 1 + rng.integers(0, 2, size=(50, 1))
    X = np.zeros((50, 3))
    X[:, 0] = numeric[:, 0]
    X[np.arange(50), codes[:, 0]] = 1.0
    fast = TableForest(forest, [-1, 0, 0])
    expected = forest.raw_scores(X)
    assert np.array_equal(fast.raw_scores_parts(numeric, codes), expected)
    assert np.array_equal(fast.raw_scores(X), expected)
    assert set(expected[:, 0]) == {2.25, 1.25, 2.5}
