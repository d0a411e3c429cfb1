"""Percentile bootstrap: resampling counts and asymmetric intervals ``[lo, hi]`` (never a ±)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class Estimate:
    """A statistic with its percentile bootstrap interval ``[lo, hi]`` (NaN when undefined)."""

    value: float
    lo: float
    hi: float

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.lo:.3f}, {self.hi:.3f}]"


def resample_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` items appears in each resample of ``idx`` (shape (n_boot, n)), as floats."""
    b = idx.shape[0]
    flat = (idx + (np.arange(b) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


def percentile_estimate(value: float, boot: Any, confidence: float) -> Estimate:
    """``value`` with the ``confidence`` percentile interval of the bootstrap values ``boot``
    (undefined resamples, NaN, are left out; no interval without any)."""
    if boot is None or math.isnan(value):
        return Estimate(value, math.nan, math.nan)
    boot = np.asarray(boot, dtype=float)
    boot = boot[~np.isnan(boot)]
    if not len(boot):
        return Estimate(value, math.nan, math.nan)
    alpha = (1.0 - confidence) / 2
    lo, hi = np.quantile(boot, [alpha, 1.0 - alpha])
    return Estimate(value, float(lo), float(hi))
