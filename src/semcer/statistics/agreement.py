"""Reader reliability (paper Table 5): Krippendorff's alpha with ordinal weighting, Shrout & Fleiss
ICC(2,k), and the paper's rule of computing both over readers who rated at least half of the items.

Orientation: ``krippendorff_alpha_ordinal`` and ``reader_reliability`` take ratings as
(raters, items), the ``krippendorff`` package's ``reliability_data``; ``icc2k`` takes
(items, raters), Shrout & Fleiss's table (targets in rows, judges in columns). Missing ratings
are NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The paper's rule: reliability over readers who rated at least this share of a pool's items.
MIN_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Reliability:
    """Alpha and ICC(2,k) over the kept raters, with what each was computed on.

    ``raters`` are the indices (rows of the input) of the kept raters; ``n_items`` the items
    with at least two of their ratings (those alpha pairs); ``n_items_complete`` the items rated
    by every kept rater (those ICC uses).
    """

    alpha: float
    icc2k: float
    raters: tuple[int, ...]
    n_items: int
    n_items_complete: int
    min_share: float


def _matrix(ratings: Any) -> np.ndarray:
    r = np.asarray(ratings, dtype=float)
    if r.ndim != 2:
        raise ValueError(f"ratings must be a 2-D array, got shape {r.shape}")
    if np.isinf(r).any():
        raise ValueError("ratings must be finite (NaN marks a missing rating)")
    return r


def coincidences(ratings: Any) -> tuple[np.ndarray, np.ndarray]:
    """Krippendorff's coincidence matrix ``o`` (V, V) of a (raters, items) array and its values (V,).

    ``o[c, k] = Σ_u n_uc (n_uk - [c == k]) / (m_u - 1)`` over the items ``u`` with ``m_u >= 2``
    ratings, ``n_uc`` the number of ratings ``c`` of item ``u``: every ordered pair of ratings of
    one item counts ``1 / (m_u - 1)``.
    """
    r = _matrix(ratings)
    seen = ~np.isnan(r)
    values, codes = np.unique(r[seen], return_inverse=True)
    items = np.nonzero(seen)[1]
    v = len(values)
    n_uc = np.bincount(items * v + codes, minlength=r.shape[1] * v).reshape(r.shape[1], v).astype(float)
    m = n_uc.sum(axis=1)
    keep = m >= 2
    n_uc, m = n_uc[keep], m[keep]
    weighted = n_uc / (m - 1)[:, None]
    return weighted.T @ n_uc - np.diag(weighted.sum(axis=0)), values


def krippendorff_alpha_ordinal(ratings: Any) -> float:
    """Krippendorff's alpha with the ordinal metric of a (raters, items) array, NaN for missing.

    ``α = 1 - D_o / D_e`` over the coincidence matrix (Krippendorff 2004, 2011); the ordinal
    distance of values ``c <= k`` is ``(Σ_{g=c..k} n_g - (n_c + n_k) / 2)²``, ``n_g`` the
    coincidence marginals, i.e. the squared difference of the values' mid-ranks. The values are
    those observed (their order matters, not their spacing). NaN when undefined: no item with two
    ratings, or a single value observed (no expected disagreement).
    """
    o, _ = coincidences(ratings)
    n_c = o.sum(axis=0)
    n = float(n_c.sum())
    if len(n_c) < 2 or n <= 1:
        return math.nan
    mid = np.cumsum(n_c) - n_c / 2.0
    delta2 = (mid[:, None] - mid[None, :]) ** 2
    observed = float((o * delta2).sum()) / n
    expected = float((np.outer(n_c, n_c) * delta2).sum()) / (n * (n - 1.0))
    return 1.0 - observed / expected if expected > 0 else math.nan


def icc2k(ratings: Any) -> float:
    """Shrout & Fleiss (1979) ICC(2,k) of an (items, raters) array: two-way random effects,
    absolute agreement, reliability of the mean of the k raters.

    ``(BMS - EMS) / (BMS + (JMS - EMS) / n)`` from the two-way ANOVA without replication (targets
    BMS, judges JMS, residual EMS; n items). Missing ratings: items with any NaN are left out
    (listwise, as pingouin's ``nan_policy="omit"``), since the ANOVA needs a complete table. NaN
    with fewer than two complete items or two raters, or a zero denominator.
    """
    x = _matrix(ratings)
    x = x[~np.isnan(x).any(axis=1)]
    n, k = x.shape
    if n < 2 or k < 2:
        return math.nan
    grand = x.mean()
    ss_rows = k * float(((x.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((x.mean(axis=0) - grand) ** 2).sum())
    ss_err = float(((x - grand) ** 2).sum()) - ss_rows - ss_cols
    bms, jms, ems = ss_rows / (n - 1), ss_cols / (k - 1), ss_err / ((n - 1) * (k - 1))
    denom = bms + (jms - ems) / n
    return (bms - ems) / denom if denom != 0 else math.nan


def raters_covering(ratings: Any, min_share: float = MIN_SHARE) -> np.ndarray:
    """Indices of the raters (rows of a (raters, items) array) who rated at least ``min_share``
    of the items (the paper's rule with ``min_share = 0.5``)."""
    r = _matrix(ratings)
    if not 0.0 <= min_share <= 1.0:
        raise ValueError(f"min_share must be in [0, 1], got {min_share}")
    if r.shape[1] == 0:
        return np.zeros(0, dtype=int)
    share = (~np.isnan(r)).sum(axis=1) / r.shape[1]
    return np.flatnonzero(share >= min_share - 1e-12)


def reader_reliability(ratings: Any, *, min_share: float = MIN_SHARE) -> Reliability:
    """Alpha (ordinal) and ICC(2,k) of a (raters, items) array over the raters who rated at least
    ``min_share`` of the items; ICC on the items every kept rater rated."""
    r = _matrix(ratings)
    kept = raters_covering(r, min_share)
    sub = r[kept]
    counts = (~np.isnan(sub)).sum(axis=0)
    return Reliability(
        alpha=krippendorff_alpha_ordinal(sub),
        icc2k=icc2k(sub.T),
        raters=tuple(int(i) for i in kept),
        n_items=int((counts >= 2).sum()),
        n_items_complete=int((counts == len(kept)).sum()) if len(kept) else 0,
        min_share=min_share,
    )
