"""Bootstrap: resampling counts (in memory-bounded blocks), percentile and BCa intervals, always as
asymmetric bounds ``[lo, hi]`` (never a ±)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class Estimate:
    """A statistic with its percentile bootstrap interval ``[lo, hi]`` (NaN when undefined).

    ``n_boot`` resamples were drawn and the statistic was defined on ``n_usable`` of them (both 0
    when none was drawn); they are bookkeeping, left out of equality.
    """

    value: float
    lo: float
    hi: float
    n_boot: int = field(default=0, compare=False)
    n_usable: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.lo:.3f}, {self.hi:.3f}]"


#: Fewest items (documents, pairs, transcriptions) given an interval (compare, meta-eval). A resample of n items holds about
#: 0.63 n distinct ones: of 2 items, half the resamples repeat one item (Spearman undefined) and the
#: rest give -1 or +1 only, so the percentile interval collapses onto the few values the statistic
#: can take ([-1.00, -1.00]) and claims a certainty the panel does not have. From 5 items on a
#: resample keeps 3 or more distinct items 9 times in 10, enough for ranks to vary.
MIN_INTERVAL_ITEMS = 5
#: Least share of the resamples that must define the statistic for an interval: below it the
#: usable resamples are a biased remnant (those that happened to keep variation).
MIN_USABLE_SHARE = 0.5


def check_confidence(confidence: float, error: type[Exception] = ValueError, where: str = "") -> None:
    """The one rule for an interval level: strictly between 0 and 1 (a 0 % or 100 % interval is no
    interval; NaN is refused too). ``error``: what is raised (a caller's own error class); ``where``:
    said after the name, e.g. ``" (command line: --confidence)"``."""
    if not 0.0 < confidence < 1.0:
        raise error(f"confidence must be strictly between 0 and 1{where}, got {confidence}")


def resample_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` items appears in each resample of ``idx`` (shape (n_boot, n)), as floats."""
    b = idx.shape[0]
    flat = (idx + (np.arange(b) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


def guarded(e: Estimate, n: int) -> Estimate:
    """``e`` without its interval where the interval means nothing: resampling fewer than
    :data:`MIN_INTERVAL_ITEMS` items (``n``: documents, pairs, ...), or the statistic defined on under
    :data:`MIN_USABLE_SHARE` of the resamples (the counts are kept, so that a report can say which)."""
    if math.isnan(e.lo) or (n >= MIN_INTERVAL_ITEMS and e.n_usable >= MIN_USABLE_SHARE * e.n_boot):
        return e
    return Estimate(e.value, math.nan, math.nan, e.n_boot, e.n_usable)


def percentile_estimate(value: float, boot: Any, confidence: float) -> Estimate:
    """``value`` with the ``confidence`` percentile interval of the bootstrap values ``boot``
    (undefined resamples, NaN, are left out; no interval without any)."""
    if boot is None or math.isnan(value):
        return Estimate(value, math.nan, math.nan)
    boot = np.asarray(boot, dtype=float)
    drawn = len(boot)
    boot = boot[~np.isnan(boot)]
    if not len(boot):
        return Estimate(value, math.nan, math.nan, drawn, 0)
    alpha = (1.0 - confidence) / 2
    lo, hi = np.quantile(boot, [alpha, 1.0 - alpha])
    return Estimate(value, float(lo), float(hi), drawn, len(boot))


#: Bootstrap count matrices are built this many entries at a time (about 32 MB of floats), so that
#: 10,000 resamples of 10,000 documents never hold the whole (B, D) matrix in memory.
CHUNK_ENTRIES = 1 << 22


def chunk_rows(n: int) -> int:
    """How many resamples of ``n`` items make one block of about ``CHUNK_ENTRIES`` entries."""
    return max(1, CHUNK_ENTRIES // max(n, 1))


def resample_index_chunks(rng: np.random.Generator, n: int, n_boot: int) -> Iterator[np.ndarray]:
    """Yield the item indices of ``n_boot`` resamples of ``n`` items (``n`` draws with replacement
    each), ``chunk_rows(n)`` rows at a time.

    The draws are ``rng.integers(0, n)`` row after row, so the resamples are those of one
    ``rng.integers(0, n, size=(n_boot, n))`` call whatever the block size.
    """
    rows = chunk_rows(n)
    for start in range(0, n_boot, rows):
        yield rng.integers(0, n, size=(min(rows, n_boot - start), n))


def resample_count_chunks(rng: np.random.Generator, n: int, n_boot: int) -> Iterator[np.ndarray]:
    """The multinomial count matrices of the resamples of ``resample_index_chunks`` (each row: how
    often each item was drawn), for statistics that are weighted sums over items."""
    for idx in resample_index_chunks(rng, n, n_boot):
        yield resample_counts(idx, n)


def bca_estimate(value: float, boot: Any, jackknife: Any, confidence: float) -> Estimate:
    """``value`` with the bias-corrected and accelerated (BCa) interval of the bootstrap values.

    Efron & Tibshirani (1993), 14.3: the bias ``z0`` from the share of resamples below ``value``
    (ties count half, as in scipy), the acceleration from the jackknife values (leave-one-out
    statistics; undefined ones, NaN, are left out, and with fewer than two the acceleration is 0).
    Undefined resamples are left out; NaN bounds when no resample is defined or every resample
    lies on one side of ``value`` (the bias correction is then infinite).
    """
    from scipy.special import ndtr, ndtri  # 0.2 s to import: only when an interval is computed

    boot = np.asarray(boot, dtype=float)
    boot = boot[~np.isnan(boot)]
    if math.isnan(value) or not len(boot):
        return Estimate(value, math.nan, math.nan)
    share = (np.count_nonzero(boot < value) + np.count_nonzero(boot <= value)) / (2 * len(boot))
    z0 = float(ndtri(share))
    if not math.isfinite(z0):
        return Estimate(value, math.nan, math.nan)
    jack = np.asarray(jackknife, dtype=float)
    jack = jack[~np.isnan(jack)]
    d = jack.mean() - jack if len(jack) > 1 else np.zeros(1)
    s2 = float(np.sum(d * d))
    accel = float(np.sum(d**3)) / (6.0 * s2**1.5) if s2 > 0 else 0.0
    z = ndtri(np.array([(1.0 - confidence) / 2, (1.0 + confidence) / 2]))
    levels = ndtr(z0 + (z0 + z) / (1.0 - accel * (z0 + z)))
    lo, hi = np.quantile(boot, levels)
    return Estimate(value, float(lo), float(hi))
