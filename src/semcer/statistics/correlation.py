"""Rank correlation: Spearman's rho with average ranks for ties, one row or many at once."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import rankdata


def spearman_rows(x: Any, y: Any) -> np.ndarray:
    """Row-wise Spearman correlation of two (rows, n) arrays: Pearson on average ranks.

    NaN for a row where either side is constant (the correlation is undefined there).
    """
    rx = rankdata(np.asarray(x, dtype=float), axis=1)
    ry = rankdata(np.asarray(y, dtype=float), axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    num = (rx * ry).sum(axis=1)
    den = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def spearman(x: Sequence[float] | Any, y: Sequence[float] | Any) -> float | None:
    """Spearman's rho of two equal-length sequences; None when it is undefined (fewer than two
    values, or one side constant)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"spearman needs two sequences of equal length, got {x.shape} and {y.shape}")
    if len(x) < 2:
        return None
    rho = float(spearman_rows(x[None, :], y[None, :])[0])
    return None if math.isnan(rho) else rho
