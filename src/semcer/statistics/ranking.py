"""Top of the list (paper Figure 3) and clear-pair agreement: does a score put the edits readers rate
most damaging first?

Sort the items by the score, most severe first, and check them in that order: the curve is the
share of all reader-rated damage (the sum of the items' mean reader ratings) caught after checking
the first fraction ``f`` of the items. The readers' own order is the ceiling, a random order the
diagonal (``f`` itself).

Conventions, exactly:

* Ties in the score are broken at random, and the curve is its expectation: each item of a block of
  tied scores is charged the block's mean damage at each of the block's positions (so a constant
  score gives the diagonal, and the result does not depend on the input order).
* The list is a continuum: each item occupies ``1/n`` of the axis, and checking a fraction ``f``
  catches ``cum(f n)``, the cumulative damage interpolated linearly between whole items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from semcer.statistics.bootstrap import (
    Estimate,
    percentile_estimate,
    resample_count_chunks,
    resample_index_chunks,
)
from semcer.statistics.judge_eval import CLEAR_GAP, clear_pair_matrices

#: Figure 3's axis: the first half of the list.
DEFAULT_FRACTIONS: tuple[float, ...] = tuple(float(f) for f in np.linspace(0.0, 0.5, 51))


@dataclass(frozen=True, slots=True)
class TopOfList:
    """The top-of-list curve of a score, its ceiling (the readers' order) and the diagonal.

    ``caught[i]`` and ``ceiling[i]`` are shares of the total damage at ``fractions[i]``; NaN when
    the items carry no damage at all. ``at(f)`` and ``ceiling_at(f)`` evaluate any fraction.
    """

    fractions: tuple[float, ...]
    caught: tuple[float, ...]
    ceiling: tuple[float, ...]
    n_items: int
    total_damage: float
    cumulative: tuple[float, ...]  # damage caught after 0, 1, ..., n whole items (score order)
    cumulative_ceiling: tuple[float, ...]

    @property
    def random(self) -> tuple[float, ...]:
        """The diagonal: a random order catches the share ``f`` in expectation."""
        return self.fractions

    def at(self, fraction: float) -> float:
        """Share of the damage caught after checking ``fraction`` of the items in score order."""
        return _interp(self.cumulative, fraction, self.total_damage)

    def ceiling_at(self, fraction: float) -> float:
        """The same in the readers' own order (the best any score can do)."""
        return _interp(self.cumulative_ceiling, fraction, self.total_damage)


def _interp(cum: Sequence[float], fraction: float, total: float) -> float:
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be in [0, 1], got {fraction}")
    if not total > 0:
        return math.nan
    n = len(cum) - 1
    return float(np.interp(fraction * n, np.arange(n + 1), cum)) / total


def _check(score: Any, damage: Any) -> tuple[np.ndarray, np.ndarray]:
    s, d = np.asarray(score, dtype=float), np.asarray(damage, dtype=float)
    if s.shape != d.shape or s.ndim != 1:
        raise ValueError(f"score and damage must be sequences of equal length, got {s.shape} and {d.shape}")
    if not (np.isfinite(s).all() and np.isfinite(d).all()) or (d < 0).any():
        raise ValueError("scores must be finite and damage finite and >= 0")
    return s, d


def cumulative_rows(score: np.ndarray, damage: np.ndarray) -> np.ndarray:
    """Damage caught after 0..n items in descending score order, ties averaged; rows (B, n) ->
    (B, n + 1)."""
    b, n = score.shape
    order = np.argsort(-score, axis=1, kind="stable")
    ss = np.take_along_axis(score, order, axis=1)
    dd = np.take_along_axis(damage, order, axis=1)
    starts = np.ones((b, n), dtype=bool)
    starts[:, 1:] = ss[:, 1:] != ss[:, :-1]
    block = np.cumsum(starts.ravel()) - 1  # one id per tie block, across rows
    mean = np.bincount(block, weights=dd.ravel()) / np.bincount(block)
    out = np.zeros((b, n + 1))
    np.cumsum(mean[block].reshape(b, n), axis=1, out=out[:, 1:])
    return out


def top_of_list(score: Sequence[float] | Any, damage: Sequence[float] | Any,
                fractions: Sequence[float] | Any = DEFAULT_FRACTIONS) -> TopOfList:
    """The top-of-list curve of ``score`` against reader ``damage`` (mean rating per item, >= 0) at
    ``fractions`` of the list, with the readers' order as ceiling (see the module's conventions)."""
    s, d = _check(score, damage)
    cum = cumulative_rows(s[None, :], d[None, :])[0]
    ceil = np.concatenate([[0.0], np.cumsum(np.sort(d)[::-1])])
    total = float(d.sum())
    fr = tuple(float(f) for f in fractions)
    cum_t, ceil_t = tuple(float(v) for v in cum), tuple(float(v) for v in ceil)
    return TopOfList(
        fractions=fr,
        caught=tuple(_interp(cum_t, f, total) for f in fr),
        ceiling=tuple(_interp(ceil_t, f, total) for f in fr),
        n_items=len(s), total_damage=total, cumulative=cum_t, cumulative_ceiling=ceil_t)


def _caught_rows(score: np.ndarray, damage: np.ndarray, fraction: float) -> np.ndarray:
    """Share caught at ``fraction`` for each row (B, n); NaN where a row has no damage."""
    cum = cumulative_rows(score, damage)
    n = score.shape[1]
    k = fraction * n
    lo = math.floor(k)
    hi = min(lo + 1, n)
    part = cum[:, lo] + (k - lo) * (cum[:, hi] - cum[:, lo])
    total = cum[:, -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, part / np.where(total > 0, total, 1.0), np.nan)


def top_of_list_interval(score: Sequence[float] | Any, damage: Sequence[float] | Any, fraction: float = 0.10, *,
                         n_boot: int = 1000, seed: int = 0, confidence: float = 0.95) -> Estimate:
    """Share of the damage caught at ``fraction`` with its percentile bootstrap interval over items."""
    s, d = _check(score, damage)
    value = top_of_list(s, d, (fraction,)).caught[0]
    boot = [_caught_rows(s[i], d[i], fraction) for i in resample_index_chunks(np.random.default_rng(seed), len(s), n_boot)]
    return percentile_estimate(value, np.concatenate(boot) if boot else None, confidence)


def top_of_list_difference(score: Sequence[float] | Any, baseline: Sequence[float] | Any, damage: Sequence[float] | Any,
                           fraction: float = 0.10, *, n_boot: int = 1000, seed: int = 0,
                           confidence: float = 0.95) -> Estimate:
    """Share caught at ``fraction`` by ``score`` minus by ``baseline`` (same items), with a paired
    percentile bootstrap interval (both scores on the same resampled items)."""
    s, d = _check(score, damage)
    base, _ = _check(baseline, damage)
    value = top_of_list(s, d, (fraction,)).caught[0] - top_of_list(base, d, (fraction,)).caught[0]
    boot = [_caught_rows(s[i], d[i], fraction) - _caught_rows(base[i], d[i], fraction)
            for i in resample_index_chunks(np.random.default_rng(seed), len(s), n_boot)]
    return percentile_estimate(value, np.concatenate(boot) if boot else None, confidence)


@dataclass(frozen=True, slots=True)
class ClearPairs:
    """Share of clear pairs the score orders like the readers, their number and the gap."""

    share: Estimate
    n_pairs: int
    gap: float


def clear_pair_agreement(score: Sequence[float] | Any, damage: Sequence[float] | Any, gap: float = CLEAR_GAP, *,
                         n_boot: int = 1000, seed: int = 0, confidence: float = 0.95) -> ClearPairs:
    """Share of item pairs whose reader means differ by at least ``gap`` that the score orders the
    same way (strictly: a tie in the score is a miss), with a percentile bootstrap over items.

    The pairs are those of ``semcer.statistics.judge_eval.clear_pair_matrices`` (a float
    tolerance of 1e-9 on the gap); a resample counts each pair of drawn items by multiplicity.
    """
    s, d = _check(score, damage)
    conc, pairs = clear_pair_matrices(s, d, gap)
    n_pairs = int(pairs.sum())
    value = float(conc.sum() / n_pairs) if n_pairs else math.nan
    boot = []
    for w in resample_count_chunks(np.random.default_rng(seed), len(s), n_boot if n_pairs else 0):
        wt = w.T
        good = np.einsum("ib,ib->b", wt, conc @ wt)
        total = np.einsum("ib,ib->b", wt, pairs @ wt)
        boot.append(np.where(total > 0, good / np.where(total > 0, total, 1.0), np.nan))
    return ClearPairs(percentile_estimate(value, np.concatenate(boot) if boot else None, confidence), n_pairs, gap)
