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


def level_percent(confidence: float) -> str:
    """An interval level as headers, footers and messages print it: 0.95 -> ``95%``, 0.999 ->
    ``99.9%`` (enough digits that two levels never print alike)."""
    return f"{100 * float(confidence):.10g}%"


def level_field(confidence: float) -> str:
    """An interval level as a signature field holds it: the shortest text that reads back as the
    same float (``0.95``), so that two levels never sign alike."""
    return repr(float(confidence))


#: The most resamples, and the most permutations, of one run: each keeps a value per statistic in
#: memory, and more would only take longer (a count beyond it hangs, or overflows numpy).
MAX_RESAMPLES = 1_000_000
_REL_TOL = 1e-9  # 1 - confidence carries a rounding error relative to its size


def min_resamples(confidence: float) -> int:
    """The fewest resamples of a ``confidence`` interval: enough for each tail to hold one
    (``2 / (1 - confidence)``: 40 at 95 %); with fewer the bounds are single resamples."""
    return math.ceil(2.0 / (1.0 - confidence) * (1.0 - _REL_TOL))


def min_permutations(confidence: float) -> int:
    """The fewest permutations whose p-value, at least ``1 / (1 + n)``, can reach the significance
    level ``1 - confidence`` (19 at 95 %): with fewer no difference could ever be significant. The
    smallest ``n`` for which ``1 / (1 + n) <= 1 - confidence`` holds as the significance marks
    compute it, in floating point."""
    alpha = 1.0 - confidence
    n = max(1, math.ceil((1.0 / alpha - 1.0) * (1.0 - _REL_TOL)))
    while 1.0 / (1.0 + n) > alpha:
        n += 1
    return n


#: The highest levels the cap allows: for intervals (``min_resamples <= MAX_RESAMPLES``) and for
#: p-values (``min_permutations <= MAX_RESAMPLES``), as messages print them.
MAX_INTERVAL_CONFIDENCE = 1.0 - 2.0 / MAX_RESAMPLES
MAX_TEST_CONFIDENCE = 1.0 - 1.0 / (1.0 + MAX_RESAMPLES)


def check_resampling(confidence: float, n_boot: int | None = None, n_permutations: int | None = None, *,
                     error: type[Exception] = ValueError, names: tuple[str, str] = ("n_boot", "n_permutations"),
                     flags: tuple[str, str] | None = ("--n-boot", "--n-permutations"),
                     no_intervals: bool = True) -> None:
    """The one rule for the options of resampled numbers (compare, analyze, meta-eval, judge-eval).

    ``confidence`` strictly between 0 and 1 (:func:`check_confidence`); ``n_boot`` (when given) from
    :func:`min_resamples` to :data:`MAX_RESAMPLES`, or 0 where ``no_intervals`` (0: no intervals);
    ``n_permutations`` (when given) from :func:`min_permutations` to :data:`MAX_RESAMPLES`. A level
    too high for the cap is named as such. ``names`` and ``flags`` name the two counts in messages
    (API argument, command-line option; ``flags`` None: no command line).
    """
    check_confidence(confidence, error, " (command line: --confidence)" if flags else "")
    if n_boot is not None and not (no_intervals and n_boot == 0):
        _check_count(n_boot, min_resamples(confidence), MAX_INTERVAL_CONFIDENCE, confidence, error,
                     names[0], flags[0] if flags else "", "0 (no intervals) or " if no_intervals else "",
                     f"so that each tail of a {level_percent(confidence)} interval holds one resample")
    if n_permutations is not None:
        _check_count(n_permutations, min_permutations(confidence), MAX_TEST_CONFIDENCE, confidence, error,
                     names[1], flags[1] if flags else "", "",
                     f"so that the smallest p-value, 1 / (1 + {names[1]}), can reach 1 - confidence = "
                     f"{1.0 - confidence:.6g}")


def _check_count(n: int, least: int, top: float, confidence: float, error: type[Exception], name: str, flag: str,
                 zero: str, why: str) -> None:
    where = f" (command line: {flag})" if flag else ""
    if least > MAX_RESAMPLES:
        raise error(f"confidence {confidence} is too high for the cap on {name} ({MAX_RESAMPLES:,}): {least:,} are "
                    f"needed ({why}); the highest confidence the cap allows is {top:g}"
                    + (" (command line: --confidence)" if flag else ""))
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not least <= n <= MAX_RESAMPLES:
        raise error(f"{name} must be {zero}from {least} ({why}) to {MAX_RESAMPLES:,}{where}, got {n}")


def resampling_fields(confidence: float, n_boot: int, n_permutations: int, seed: int,
                      method: str = "percentile") -> dict[str, str]:
    """The signature fields of numbers with intervals and p-values (compare, analyze): the interval
    method and level, the bootstrap count, the permutation count, the seed
    (``cmp:percentile-0.95|boot:1000|ar:10000|seed:0``)."""
    return {"cmp": f"{method}-{level_field(confidence)}", "boot": str(n_boot), "ar": str(n_permutations),
            "seed": str(seed)}


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
