"""Inference for a gradient-boosted forest exported to flat numpy arrays (no training library needed).

The forest is trained with LightGBM (``tools/train_compact.py``) and compiled from its JSON dump
into five arrays: for every node its feature, threshold, left and right child (an index into the
same arrays) and, for a leaf, its value. All trees are walked at once, level by level, for a
whole batch, so inference costs one vectorised step per tree level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Forest:
    """A multiclass forest: ``roots[t]`` is tree t's root; tree t adds to class ``t % n_classes``."""

    feature: np.ndarray  # int32, -1 at leaves
    threshold: np.ndarray  # float64; go left when x <= threshold
    left: np.ndarray  # int32
    right: np.ndarray  # int32
    value: np.ndarray  # float64, leaf values
    roots: np.ndarray  # int32
    n_classes: int
    depth: int

    @classmethod
    def from_lightgbm_dump(cls, dump: dict[str, Any]) -> Forest:
        feature: list[int] = []
        threshold: list[float] = []
        left: list[int] = []
        right: list[int] = []
        value: list[float] = []
        roots: list[int] = []
        max_depth = 0

        def add(node: dict[str, Any], depth: int) -> int:
            nonlocal max_depth
            k = len(feature)
            feature.append(-1)
            threshold.append(0.0)
            left.append(k)
            right.append(k)
            value.append(0.0)
            if "leaf_value" in node:
                value[k] = float(node["leaf_value"])
                max_depth = max(max_depth, depth)
                return k
            if node.get("decision_type", "<=") != "<=":
                raise ValueError("only numerical '<=' splits are supported")
            feature[k] = int(node["split_feature"])
            threshold[k] = float(node["threshold"])
            left[k] = add(node["left_child"], depth + 1)
            right[k] = add(node["right_child"], depth + 1)
            return k

        for tree in dump["tree_info"]:
            roots.append(add(tree["tree_structure"], 0))
        return cls(
            np.asarray(feature, np.int32), np.asarray(threshold, np.float64), np.asarray(left, np.int32),
            np.asarray(right, np.int32), np.asarray(value, np.float64), np.asarray(roots, np.int32),
            int(dump["num_class"]), max_depth,
        )

    def save(self, path: str) -> None:
        np.savez_compressed(path, feature=self.feature, threshold=self.threshold, left=self.left,
                            right=self.right, value=self.value, roots=self.roots,
                            meta=np.asarray([self.n_classes, self.depth], np.int64))

    @classmethod
    def load(cls, path: Any) -> Forest:
        with np.load(path) as z:
            n_classes, depth = (int(x) for x in z["meta"])
            return cls(z["feature"], z["threshold"], z["left"], z["right"], z["value"], z["roots"], n_classes, depth)

    def raw_scores(self, X: np.ndarray) -> np.ndarray:
        """Summed leaf values per class, shape (n, n_classes)."""
        X = np.asarray(X, np.float64)
        n = X.shape[0]
        idx = np.broadcast_to(self.roots, (n, self.roots.size)).copy()
        rows = np.arange(n)[:, None]
        for _ in range(self.depth):
            f = self.feature[idx]
            internal = f >= 0
            if not internal.any():
                break
            go_left = X[rows, np.where(internal, f, 0)] <= self.threshold[idx]
            idx = np.where(internal, np.where(go_left, self.left[idx], self.right[idx]), idx)
        leaf = self.value[idx]  # (n, n_trees)
        return leaf.reshape(n, -1, self.n_classes).sum(axis=1)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        z = self.raw_scores(X)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)
