"""Pair-level preferences (paper Table 8, Figure 7): which of two outputs of one reference do readers
find more damaged, and does a score agree?

Each pair has two outputs ``a`` and ``b``; each rater answers ``"a"``, ``"b"`` or ``"equal"``
(``None``: did not rate it). By default an answer names the output the rater found *worse* (more
damaged); a study that asked for the better one passes ``chose="better"``.

* Strict majority: ``a`` when more raters of the pair chose ``a`` than ``b``, ``b`` when more chose
  ``b``, otherwise none (``"equal"`` answers count for neither side). ``absolute=True`` asks
  instead for more than half of the pair's raters.
* A scorer (a pair of scores, higher = more damaged: CER, semCER) agrees on a pair when it charges
  the majority's more damaged output strictly more; a tie is a miss. Pairs without a majority are
  left out.
* Near-miss pairs: the two scores disagree on which output is worse (one charges ``a`` strictly
  more, the other ``b``); a tie in either is no disagreement.

Intervals are percentile bootstraps over pairs; a margin (difference of two scorers' agreements on
the same pairs) has a paired bootstrap interval and a paired sign-flip permutation p-value, and
several margins are Holm-corrected together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from semcer.statistics.bootstrap import Estimate, percentile_estimate, resample_count_chunks
from semcer.statistics.multiple import holm
from semcer.statistics.paired import sign_flip_pvalues

Scorer = tuple[Sequence[float] | Any, Sequence[float] | Any]  # (scores of the a outputs, scores of the b outputs)
_CODES = {"a": 0, "b": 1, "equal": 2, None: -1}


@dataclass(frozen=True, slots=True)
class Margin:
    """Agreement of scorer 1 minus scorer 2 with the readers' majority, on the same pairs.

    ``p_value`` is the paired permutation p-value of the difference; ``p_holm`` the Holm-adjusted
    one within the family of margins it was computed with (equal to ``p_value`` when alone).
    """

    difference: Estimate
    agreement1: Estimate
    agreement2: Estimate
    p_value: float
    p_holm: float
    n_pairs: int
    n_boot: int
    n_permutations: int
    seed: int
    confidence: float


def choice_codes(choices: Sequence[Sequence[str | None]], chose: Literal["worse", "better"] = "worse") -> np.ndarray:
    """The answers as a (pairs, raters) integer array: 0 = ``a`` worse, 1 = ``b`` worse, 2 = equal,
    -1 = not rated (rows padded to the longest)."""
    if chose not in ("worse", "better"):
        raise ValueError(f"chose must be 'worse' or 'better', got {chose!r}")
    width = max((len(row) for row in choices), default=0)
    out = np.full((len(choices), width), -1, dtype=np.int64)
    for i, row in enumerate(choices):
        for j, c in enumerate(row):
            if c not in _CODES:
                raise ValueError(f"pair {i}, rater {j}: answer must be 'a', 'b', 'equal' or None, got {c!r}")
            out[i, j] = _CODES[c]
    if chose == "better":
        out = np.where(out == 0, 1, np.where(out == 1, 0, out))
    return out


def _majority_of_counts(n_a: np.ndarray, n_b: np.ndarray, n_raters: np.ndarray, absolute: bool) -> np.ndarray:
    """0 (``a`` worse), 1 (``b`` worse) or -1 (no majority) per pair."""
    if absolute:
        return np.where(2 * n_a > n_raters, 0, np.where(2 * n_b > n_raters, 1, -1))
    return np.where(n_a > n_b, 0, np.where(n_b > n_a, 1, -1))


def strict_majority(choices: Sequence[Sequence[str | None]], *, chose: Literal["worse", "better"] = "worse",
                    absolute: bool = False) -> list[str | None]:
    """The majority's more damaged output of each pair, ``"a"``, ``"b"`` or None (no majority)."""
    codes = choice_codes(choices, chose)
    maj = _majority_of_counts((codes == 0).sum(axis=1), (codes == 1).sum(axis=1), (codes >= 0).sum(axis=1), absolute)
    return [None if m < 0 else "ab"[m] for m in maj]


def _majority_codes(majority: Sequence[str | None]) -> np.ndarray:
    codes = np.array([_CODES.get(m, 2) if m is not None else -1 for m in majority], dtype=np.int64)
    if (codes == 2).any():
        raise ValueError("majority entries must be 'a', 'b' or None")
    return codes


def hits(scores_a: Sequence[float] | Any, scores_b: Sequence[float] | Any, majority: Sequence[str | None]) -> np.ndarray:
    """1.0 where the scorer charges the majority's more damaged output strictly more, else 0.0, for
    the pairs with a majority (in order; the others are left out)."""
    sa, sb = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    maj = _majority_codes(majority)
    if not (sa.shape == sb.shape == maj.shape) or sa.ndim != 1:
        raise ValueError(f"scores and majority must have one entry per pair, got {sa.shape}, {sb.shape}, {maj.shape}")
    keep = maj >= 0
    hit = np.where(maj == 0, sa > sb, sb > sa)
    return hit[keep].astype(float)


def _boot_means(columns: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Means of the (n, K) ``columns`` over ``n_boot`` resamples of the n rows, shape (n_boot, K)."""
    n = columns.shape[0]
    if n == 0 or n_boot < 1:
        return np.zeros((0, columns.shape[1]))
    return np.concatenate([w @ columns / n for w in resample_count_chunks(np.random.default_rng(seed), n, n_boot)])


def agreement(scores_a: Sequence[float] | Any, scores_b: Sequence[float] | Any, majority: Sequence[str | None], *,
              n_boot: int = 1000, seed: int = 0, confidence: float = 0.95) -> Estimate:
    """Share of the pairs with a majority on which the scorer agrees with it, with a percentile
    bootstrap interval over those pairs (NaN when no pair has a majority)."""
    h = hits(scores_a, scores_b, majority)
    value = float(h.mean()) if len(h) else math.nan
    return percentile_estimate(value, _boot_means(h[:, None], n_boot, seed)[:, 0], confidence)


def margin(scorer1: Scorer, scorer2: Scorer, majority: Sequence[str | None], *, n_boot: int = 1000,
           n_permutations: int = 10_000, seed: int = 0, confidence: float = 0.95) -> Margin:
    """Agreement of ``scorer1`` minus ``scorer2`` on the same pairs: a paired bootstrap interval
    (both scorers on the same resampled pairs) and a paired permutation p-value (per pair, the
    two scorers' hits swapped with probability 1/2; two-sided, (1 + #extreme) / (1 + N))."""
    h1, h2 = hits(*scorer1, majority), hits(*scorer2, majority)
    cols = np.column_stack([h1, h2, h1 - h2])
    n = len(h1)
    values = cols.mean(axis=0) if n else np.full(3, math.nan)
    boot = _boot_means(cols, n_boot, seed)
    est = [percentile_estimate(float(values[k]), boot[:, k] if len(boot) else None, confidence) for k in range(3)]
    p = float(sign_flip_pvalues(cols[:, 2:], n_permutations, np.random.default_rng(seed))[0]) if n else math.nan
    return Margin(difference=est[2], agreement1=est[0], agreement2=est[1], p_value=p, p_holm=p, n_pairs=n,
                  n_boot=n_boot, n_permutations=n_permutations, seed=seed, confidence=confidence)


def margins(comparisons: Mapping[str, tuple[Scorer, Scorer]], majority: Sequence[str | None], *, n_boot: int = 1000,
            n_permutations: int = 10_000, seed: int = 0, confidence: float = 0.95) -> dict[str, Margin]:
    """:func:`margin` of each named comparison, with ``p_holm`` Holm-adjusted across all of them
    (each comparison uses the same seed, so the same resampled pairs)."""
    out = {name: margin(s1, s2, majority, n_boot=n_boot, n_permutations=n_permutations, seed=seed,
                        confidence=confidence) for name, (s1, s2) in comparisons.items()}
    adjusted = holm([m.p_value for m in out.values()])
    return {name: replace(m, p_holm=p) for (name, m), p in zip(out.items(), adjusted)}


def near_miss(first: Scorer, second: Scorer, *others: Scorer) -> np.ndarray:
    """Boolean mask of the pairs where ``first`` disagrees with ``second`` (and with every one of
    ``others``) on which output is worse: one charges ``a`` strictly more, the other ``b``.

    ``near_miss((sem_a, sem_b), (cer_a, cer_b))`` selects the near-miss pairs; adding the other
    CER conventions selects those that are normalization-proof (the disagreement survives all).
    """
    def side(s: Scorer) -> np.ndarray:
        a, b = np.asarray(s[0], dtype=float), np.asarray(s[1], dtype=float)
        if a.shape != b.shape or a.ndim != 1:
            raise ValueError(f"a scorer needs one score per pair for a and for b, got {a.shape} and {b.shape}")
        return np.sign(a - b)

    ref = side(first)
    mask = ref != 0
    for other in (second, *others):
        o = side(other)
        if o.shape != ref.shape:
            raise ValueError(f"scorers disagree on the number of pairs: {ref.shape} and {o.shape}")
        mask &= o == -ref
    return mask


def reader_agreement(choices: Sequence[Sequence[str | None]], *, chose: Literal["worse", "better"] = "worse",
                     absolute: bool = False, n_boot: int = 1000, seed: int = 0, confidence: float = 0.95) -> Estimate:
    """A single reader's agreement with the strict majority of the other readers (Table 8's last
    row): over every (pair, rater) where the rater answered and the others have a majority, the
    share where the rater's answer is that majority (``"equal"`` is a miss, as a scorer's tie is).
    The bootstrap resamples pairs (with all their raters)."""
    codes = choice_codes(choices, chose)
    n_a, n_b, n_r = ((codes == 0).sum(axis=1, keepdims=True), (codes == 1).sum(axis=1, keepdims=True),
                     (codes >= 0).sum(axis=1, keepdims=True))
    rated = codes >= 0
    others = _majority_of_counts(n_a - (codes == 0), n_b - (codes == 1), n_r - 1, absolute)
    counted = rated & (others >= 0)
    per_pair = np.column_stack([(counted & (codes == others)).sum(axis=1), counted.sum(axis=1)]).astype(float)
    total = per_pair[:, 1].sum()
    value = float(per_pair[:, 0].sum() / total) if total else math.nan
    boot = _boot_means(per_pair, n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(boot[:, 1] > 0, boot[:, 0] / np.where(boot[:, 1] > 0, boot[:, 1], 1.0), np.nan)
    return percentile_estimate(value, ratio if total else None, confidence)
