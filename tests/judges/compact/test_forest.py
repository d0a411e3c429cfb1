"""Forest inference (numpy, and the table form) against LightGBM's own predictions."""

from __future__ import annotations

import numpy as np
import pytest

from semcer.judges.compact.forest import Forest
from semcer.judges.compact.table import TableForest


def _one_hot_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """Numeric columns (with repeated values, so that some equal a threshold) and two one-hot groups."""
    rng = np.random.default_rng(seed)
    numeric = np.column_stack([
        rng.normal(size=n), rng.integers(-1, 4, size=n).astype(float), rng.random(n).round(1),
    ])
    codes = np.column_stack([3 + rng.integers(0, 4, size=n), 7 + rng.integers(0, 3, size=n)])
    X = np.zeros((n, 10))
    X[:, :3] = numeric
    X[np.arange(n)[:, None], codes] = 1.0
    groups = [-1, -1, -1, 0, 0, 0, 0, 1, 1, 1]
    return X, numeric, codes, groups


@pytest.mark.parametrize("max_depth", [3, 6])
def test_numpy_forest_equals_lightgbm(max_depth):
    lgb = pytest.importorskip("lightgbm")
    X, numeric, codes, groups = _one_hot_data(600, seed=max_depth)
    score = X[:, 0] + X[:, 1] * X[:, 4] - 2 * X[:, 8] + 0.5 * X[:, 2]
    y = np.digitize(score, np.quantile(score, [0.2, 0.4, 0.6, 0.8]))
    params = {"objective": "multiclass", "num_class": 5, "num_leaves": 8 if max_depth == 3 else 31,
              "max_depth": max_depth, "learning_rate": 0.3, "min_data_in_leaf": 3, "verbose": -1,
              "num_threads": 1, "deterministic": True, "seed": 0}
    booster = lgb.train(params, lgb.Dataset(X, y), num_boost_round=15)
    expected = booster.predict(X)
    forest = Forest.from_lightgbm_dump(booster.dump_model())
    assert np.abs(forest.predict_proba(X) - expected).max() < 1e-12
    if max_depth <= 3:
        fast = TableForest(forest, groups)
        raw = booster.predict(X, raw_score=True)
        assert np.abs(fast.raw_scores(X) - raw).max() < 1e-12
        assert np.abs(fast.raw_scores_parts(numeric, codes) - raw).max() < 1e-12
    else:
        with pytest.raises(ValueError, match="depth"):
            TableForest(forest)
