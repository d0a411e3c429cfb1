"""Paired comparison of OCR systems over documents, from per-document sufficient statistics.

Every system is scored on the same references, so a comparison is paired: each bootstrap resample
draws documents (with replacement) once and scores every system on those same documents, and the
randomization test swaps two systems' statistics document by document. Nothing is re-aligned:
the inputs are, per system and document, the numerator (edits for CER, severity mass for semCER)
and, per document, the reference units (the same for every system).

Both aggregations are ratios of weighted sums over documents, ``Σ_d w_d a_d / Σ_d w_d b_d``, with
``w_d`` the number of times document ``d`` is drawn:

* ``corpus``: ``a_d`` = numerator, ``b_d`` = reference units (Σ num / Σ den);
* ``document_mean``: ``a_d`` = num / den, ``b_d`` = 1, for the documents with reference units;
  a document without units has ``a_d = b_d = 0`` (left out of the mean, as in
  ``semcer.metrics.aggregate``; its insertions still count in the corpus sums).

A resample whose denominator is 0 (no units drawn, or no document with units) has no value and is
left out of the interval; ``n_defined`` says how many remained. System 0 is the baseline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from semcer.statistics.bootstrap import (
    Estimate,
    bca_estimate,
    check_resampling,
    chunk_rows,
    guarded,
    percentile_estimate,
    resample_count_chunks,
)
from semcer.statistics.multiple import holm

Aggregation = Literal["corpus", "document_mean"]
Method = Literal["percentile", "bca"]
AGGREGATIONS: tuple[str, ...] = ("corpus", "document_mean")
METHODS: tuple[str, ...] = ("percentile", "bca")
#: Relative tolerance of ``|Δ_perm| >= |Δ_obs|``: a permutation that reproduces the observed
#: difference up to float rounding counts as at least as extreme.
_TIE_RTOL = 1e-9


@dataclass(frozen=True, slots=True)
class PairedInterval:
    """System ``system`` against the baseline (system 0) on the same resampled documents.

    ``value`` and ``baseline`` are each system's aggregate with its own interval, ``difference``
    is ``value - baseline`` with the interval of the paired differences. ``n_defined`` counts the
    resamples where the difference is defined (the others are left out).
    """

    system: int
    aggregation: str
    value: Estimate
    baseline: Estimate
    difference: Estimate
    n_documents: int
    n_defined: int
    method: str
    n_resamples: int
    seed: int
    confidence: float


def system_values(num: ArrayLike, den: ArrayLike, aggregation: Aggregation) -> np.ndarray:
    """Each system's corpus or document-mean value, shape (S,); NaN where undefined."""
    a, b = ratio_terms(num, den, aggregation)
    return _ratio(a.sum(axis=0), b.sum())


def ratio_terms(num: ArrayLike, den: ArrayLike, aggregation: Aggregation) -> tuple[np.ndarray, np.ndarray]:
    """The per-document terms of the aggregate as a ratio of sums: ``a`` (D, S) and ``b`` (D,).

    Checks the inputs: ``num`` (S, D) finite (a semCER whose judge failed is undefined: drop
    or rejudge that document first), ``den`` (D,) finite and >= 0, a known aggregation.
    """
    n = np.asarray(num, dtype=float)
    d = np.asarray(den, dtype=float)
    if n.ndim != 2 or d.ndim != 1 or n.shape[1] != d.shape[0]:
        raise ValueError(f"num must be (systems, documents) and den (documents,), got {n.shape} and {d.shape}")
    if n.shape[0] < 1:
        raise ValueError("num has no system")
    if not (np.isfinite(n).all() and np.isfinite(d).all()):
        raise ValueError("num and den must be finite (an undefined semCER, from a failed judge, cannot be compared)")
    if (d < 0).any():
        raise ValueError("den (reference units) must be >= 0")
    if aggregation == "corpus":
        return n.T.copy(), d
    if aggregation == "document_mean":
        has = d > 0
        rates = np.divide(n, d, out=np.zeros_like(n), where=has[None, :])
        return rates.T.copy(), has.astype(float)
    raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {aggregation!r}")


def _ratio(top: np.ndarray, bottom: np.ndarray | float) -> np.ndarray:
    """``top / bottom`` broadcast, NaN where ``bottom`` is 0."""
    bottom = np.asarray(bottom, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.nan)


def bootstrap_values(a: np.ndarray, b: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Every system's aggregate on each of ``n_resamples`` document resamples, shape (B, S).

    All systems share each resample's document counts (paired); counts come in blocks
    (``resample_count_chunks``) and are applied by one matrix product per block.
    """
    terms = np.column_stack([a, b])  # (D, S + 1)
    out = np.empty((n_resamples, a.shape[1]))
    start = 0
    for counts in resample_count_chunks(rng, a.shape[0], n_resamples):
        sums = counts @ terms
        out[start:start + len(sums)] = _ratio(sums[:, :-1], sums[:, -1:])
        start += len(sums)
    return out


def jackknife_values(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Every system's aggregate with each document left out in turn, shape (D, S); NaN where
    undefined (closed form: the totals minus one document's terms)."""
    return _ratio(a.sum(axis=0)[None, :] - a, (b.sum() - b)[:, None])


def paired_bootstrap(
    num: ArrayLike,
    den: ArrayLike,
    aggregation: Aggregation,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    method: Method = "percentile",
) -> list[PairedInterval]:
    """Each system s >= 1 against system 0: both values and their difference, with intervals
    from the same ``n_resamples`` document resamples (``numpy.random.default_rng(seed)``).

    ``method`` ``percentile`` (asymmetric percentile bounds) or ``bca`` (bias-corrected and
    accelerated, the acceleration from a jackknife over documents). An empty list when there is
    only one system (nothing to compare).
    """
    _check_options(n_resamples, confidence, method)
    a, b = ratio_terms(num, den, aggregation)
    if a.shape[1] < 2:
        return []
    values = _ratio(a.sum(axis=0), b.sum())
    boot = bootstrap_values(a, b, n_resamples, np.random.default_rng(seed))
    jack = jackknife_values(a, b) if method == "bca" else None

    def estimate(s: int, minus_baseline: bool = False) -> Estimate:
        def of(x: np.ndarray) -> np.ndarray:
            return x[..., s] - x[..., 0] if minus_baseline else x[..., s]

        value = float(of(values))
        if jack is None:
            return guarded(percentile_estimate(value, of(boot), confidence), a.shape[0])
        return guarded(bca_estimate(value, of(boot), of(jack), confidence), a.shape[0])

    base = estimate(0)
    return [
        PairedInterval(
            system=s, aggregation=aggregation, value=estimate(s), baseline=base,
            difference=estimate(s, minus_baseline=True), n_documents=a.shape[0],
            n_defined=int(np.count_nonzero(~np.isnan(boot[:, s] - boot[:, 0]))),
            method=method, n_resamples=n_resamples, seed=seed, confidence=confidence)
        for s in range(1, a.shape[1])
    ]


def _check_count(n: int, what: str) -> None:
    if n < 1:
        raise ValueError(f"the number of {what} must be >= 1, got {n}")


def _check_options(n: int, confidence: float, method: str) -> None:
    check_resampling(confidence, n, names=("n_resamples", "n_permutations"), flags=None, no_intervals=False)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def sign_flip_pvalues(v: np.ndarray, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """Two-sided paired randomization p-values of ``Σ_d v[d, j]`` for each column ``j``.

    Each permutation flips the sign of every document's term with probability 1/2 (one draw per
    document, shared by all columns); p = (1 + #{|Σ ± v| >= |Σ v|}) / (1 + n_permutations).
    """
    observed = np.abs(v.sum(axis=0))
    tol = _TIE_RTOL * np.abs(v).sum(axis=0)
    hits = np.zeros(v.shape[1], dtype=np.int64)
    rows = chunk_rows(v.shape[0])
    for start in range(0, n_permutations, rows):
        b = min(rows, n_permutations - start)
        flips = rng.integers(0, 2, size=(b, v.shape[0]), dtype=np.int8).astype(float)
        perm = v.sum(axis=0)[None, :] - 2.0 * (flips @ v)
        hits += np.count_nonzero(np.abs(perm) >= observed - tol, axis=0)
    return (1.0 + hits) / (1.0 + n_permutations)


def approximate_randomization(
    num: ArrayLike,
    den: ArrayLike,
    aggregation: Aggregation,
    *,
    n_permutations: int = 10_000,
    seed: int = 0,
) -> list[float]:
    """Paired approximate-randomization p-value of each system s >= 1 against system 0.

    Per document, the two systems' statistics are swapped with probability 1/2; the test is
    two-sided, p = (1 + #{|Δ_perm| >= |Δ_obs|}) / (1 + n_permutations). Swapping leaves the
    denominator unchanged (references are shared), so only the numerator's sign per document
    flips. NaN where the aggregate is undefined; an empty list for a single system.
    """
    _check_count(n_permutations, "permutations")
    a, b = ratio_terms(num, den, aggregation)
    if a.shape[1] < 2:
        return []
    v = a[:, 1:] - a[:, :1]  # (D, S - 1): per-document numerator of the difference
    p = sign_flip_pvalues(v, n_permutations, np.random.default_rng(seed))
    return [math.nan if b.sum() <= 0 else float(x) for x in p]


@dataclass(frozen=True, slots=True)
class SystemComparison:
    """One system against the baseline: the paired interval, the randomization p-value, and that
    p-value Holm-adjusted over all the systems compared with the baseline."""

    interval: PairedInterval
    p_value: float
    p_holm: float
    n_permutations: int


def compare_systems(
    num: ArrayLike,
    den: ArrayLike,
    aggregation: Aggregation,
    *,
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    method: Method = "percentile",
) -> list[SystemComparison]:
    """:func:`paired_bootstrap` and :func:`approximate_randomization` of every system against
    system 0 (both seeded with ``seed``), with Holm's correction over the S - 1 comparisons."""
    intervals = paired_bootstrap(num, den, aggregation, n_resamples=n_resamples, seed=seed,
                                 confidence=confidence, method=method)
    p = approximate_randomization(num, den, aggregation, n_permutations=n_permutations, seed=seed)
    return [SystemComparison(i, raw, adj, n_permutations) for i, raw, adj in zip(intervals, p, holm(p))]
