"""Multiple comparisons: Holm–Bonferroni step-down adjusted p-values (the paper's Holm correction)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def holm(pvalues: Sequence[float] | np.ndarray) -> list[float]:
    """Holm (1979) adjusted p-values, in the input order.

    Sorted ascending, the i-th smallest of m p-values becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))``:
    monotone in the raw p-values and capped at 1; reject at level α where the adjusted value is
    <= α. NaN p-values (an undefined test) are left out of the family (``m`` counts the others)
    and stay NaN. Ties keep their input order, which changes no adjusted value.
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"holm needs a flat sequence of p-values, got shape {p.shape}")
    ok = ~np.isnan(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    out = np.full(p.shape, np.nan)
    idx = np.flatnonzero(ok)
    order = idx[np.argsort(p[idx], kind="stable")]
    m = len(order)
    scaled = (m - np.arange(m)) * p[order]
    out[order] = np.minimum(1.0, np.maximum.accumulate(scaled)) if m else scaled
    return [float(x) for x in out]
