"""Rank correlation: Spearman's rho with average ranks for ties, one row or many at once; the
within-band (partial) rank correlation; bootstrap intervals over items."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from semcer.statistics.bootstrap import Estimate, percentile_estimate, resample_index_chunks


def rankdata(a: Any, axis: int | None = None) -> np.ndarray:
    """scipy's average ranks, scipy imported on first use (0.7 s: not for ``semcer score``)."""
    from scipy.stats import rankdata as scipy_rankdata

    return np.asarray(scipy_rankdata(a, axis=axis))


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


def partial_spearman_within_rows(x: Any, y: Any, band: Any) -> np.ndarray:
    """Row-wise within-band rank correlation of (rows, n) arrays; ``band`` holds integer band codes
    (rows, n) or (n,). See :func:`partial_spearman_within`; NaN where undefined."""
    rx = 2.0 * rankdata(np.asarray(x, dtype=float), axis=1)  # twice an average rank: an integer
    ry = 2.0 * rankdata(np.asarray(y, dtype=float), axis=1)
    codes = np.broadcast_to(np.asarray(band, dtype=np.int64), rx.shape)
    k = int(codes.max(initial=-1)) + 1
    flat = (codes + (np.arange(rx.shape[0]) * k)[:, None]).ravel()
    size = np.bincount(flat, minlength=rx.shape[0] * k).astype(float)
    dev = []
    for r in (rx, ry):
        # size * rank - band sum: exact integers, so "no variation within any band" is an exact 0
        sums = np.bincount(flat, weights=r.ravel(), minlength=size.size)
        dev.append((size[flat] * r.ravel() - sums[flat]).reshape(r.shape))
    defined = (dev[0] != 0).any(axis=1) & (dev[1] != 0).any(axis=1)
    per_item = size[flat].reshape(rx.shape)
    dx, dy = dev[0] / per_item, dev[1] / per_item  # each rank minus its band's mean rank (times 2)
    num = (dx * dy).sum(axis=1)
    den = np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    return np.where(defined, num / np.where(defined, den, 1.0), np.nan)


def band_codes(band: Sequence[Any] | Any) -> np.ndarray:
    """Integer codes 0..K-1 of the band labels (any sortable labels: a CER band, an edit class)."""
    return np.unique(np.asarray(band), return_inverse=True)[1].reshape(-1)


def _paired_1d(x: Any, y: Any, band: Any = None) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or (band is not None and len(band) != len(x)):
        raise ValueError(f"need sequences of equal length, got {x.shape}, {y.shape}"
                         + ("" if band is None else f" and {len(band)} bands"))
    return x, y


def partial_spearman_within(x: Sequence[float] | Any, y: Sequence[float] | Any, band: Sequence[Any] | Any) -> float | None:
    """The paper's "partial correlation within band": the rank association of ``x`` and ``y`` that
    remains once the band (a CER band, the edit class, the judge's mode) is held fixed.

    Definition: rank ``x`` and ``y`` over all items (average ranks for ties), subtract from each
    rank the mean rank of its band, and take the Pearson correlation of the two residuals. This is
    the Spearman partial correlation with the band's indicator variables as covariates (the
    residuals of an OLS fit of the ranks on the dummies are exactly these deviations). None when
    undefined (fewer than two items, or no variation left within the bands).
    """
    x, y = _paired_1d(x, y, band)
    if len(x) < 2:
        return None
    rho = float(partial_spearman_within_rows(x[None, :], y[None, :], band_codes(band))[0])
    return None if math.isnan(rho) else rho


def _bootstrap_rows(stat: Any, arrays: tuple[np.ndarray, ...], n_boot: int, seed: int) -> np.ndarray:
    """``stat`` of each of ``n_boot`` item resamples of ``arrays`` (``default_rng(seed)``), in blocks."""
    out = []
    for idx in resample_index_chunks(np.random.default_rng(seed), len(arrays[0]), n_boot):
        out.append(stat(*(a[idx] for a in arrays)))
    return np.concatenate(out) if out else np.zeros(0)


def spearman_interval(x: Sequence[float] | Any, y: Sequence[float] | Any, *, n_boot: int = 1000, seed: int = 0,
                      confidence: float = 0.95) -> Estimate:
    """Spearman's rho with its percentile bootstrap interval over items (NaN where undefined)."""
    x, y = _paired_1d(x, y)
    rho = spearman(x, y)
    if rho is None or n_boot < 1:
        return Estimate(math.nan if rho is None else rho, math.nan, math.nan)
    return percentile_estimate(rho, _bootstrap_rows(spearman_rows, (x, y), n_boot, seed), confidence)


def spearman_difference(x: Sequence[float] | Any, baseline: Sequence[float] | Any, y: Sequence[float] | Any, *,
                        n_boot: int = 1000, seed: int = 0, confidence: float = 0.95) -> Estimate:
    """Spearman's rho of ``x`` with ``y`` minus that of ``baseline`` with ``y`` (the same items), with a
    paired percentile bootstrap interval: both correlations on each resample of the items."""
    x, y = _paired_1d(x, y)
    base, _ = _paired_1d(baseline, y)
    rho, rho_base = spearman(x, y), spearman(base, y)
    if rho is None or rho_base is None or n_boot < 1:
        return Estimate(math.nan if rho is None or rho_base is None else rho - rho_base, math.nan, math.nan)
    boot = _bootstrap_rows(spearman_rows, (x, y), n_boot, seed) - _bootstrap_rows(spearman_rows, (base, y), n_boot, seed)
    return percentile_estimate(rho - rho_base, boot, confidence)


def spearman_difference_pvalue(x: Sequence[float] | Any, baseline: Sequence[float] | Any, y: Sequence[float] | Any, *,
                               n_permutations: int = 10_000, seed: int = 0) -> float:
    """Two-sided p-value of :func:`spearman_difference` by paired permutation: each item's two ranks
    (each score turned into its average ranks first, so that scores on different scales, a CER and a
    semCER, are exchangeable) swapped with probability 1/2;
    ``(1 + #{|d*| >= |d|}) / (1 + n_permutations)``. NaN where the difference is undefined."""
    x, y = _paired_1d(x, y)
    base, _ = _paired_1d(baseline, y)
    rho, rho_base = spearman(x, y), spearman(base, y)
    if rho is None or rho_base is None or n_permutations < 1:
        return math.nan
    x, base = rankdata(x), rankdata(base)
    observed = abs(rho - rho_base) - 1e-12 * max(1.0, abs(rho - rho_base))  # ties in floating point count
    rng = np.random.default_rng(seed)
    hits = 0
    rows = max(1, min(n_permutations, (1 << 21) // max(1, len(x))))
    for start in range(0, n_permutations, rows):
        swap = rng.random((min(rows, n_permutations - start), len(x))) < 0.5
        yy = np.broadcast_to(y, swap.shape)
        d = spearman_rows(np.where(swap, base, x), yy) - spearman_rows(np.where(swap, x, base), yy)
        hits += int(np.count_nonzero(np.abs(d) >= observed))
    return (1 + hits) / (1 + n_permutations)


def partial_spearman_within_interval(x: Sequence[float] | Any, y: Sequence[float] | Any, band: Sequence[Any] | Any, *,
                                     n_boot: int = 1000, seed: int = 0, confidence: float = 0.95) -> Estimate:
    """:func:`partial_spearman_within` with its percentile bootstrap interval over items (ranks
    and band means recomputed in each resample; NaN where undefined)."""
    x, y = _paired_1d(x, y, band)
    rho = partial_spearman_within(x, y, band)
    if rho is None or n_boot < 1:
        return Estimate(math.nan if rho is None else rho, math.nan, math.nan)
    boot = _bootstrap_rows(partial_spearman_within_rows, (x, y, band_codes(band)), n_boot, seed)
    return percentile_estimate(rho, boot, confidence)
