"""The five-level severity distribution: levels, ratings, expected rating, mode, and the one check
every distribution passes wherever it comes from (a judge, the store, a Parquet file, a label file).

Level k of the rubric has rating k/4 (paper, Table 1). A judge's answer for one edit is a
distribution over the five levels; its **severity** is the expected rating and its **mode** the most
likely level (the lowest wins a tie).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Number of rubric levels; level k has rating k/4 (paper, Table 1).
LEVELS = 5
RATINGS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)

#: Flag of a judgement read from an answer's text alone (no probabilities): a one-hot distribution,
#: which is not the paper's method; such judgements are used but never stored.
ONE_HOT_FLAG = "one-hot"

#: How far from 1 the five probabilities may sum (rounding in a file or a server's answer).
SUM_TOLERANCE = 1e-6

#: How far a ``severity`` written beside ``p`` may be from Σ p_k·k/4: files round it (data/severity/
#: writes four decimals, so it is within 5e-5 of the exact value).
SEVERITY_TOLERANCE = 1e-4

Distribution = tuple[float, float, float, float, float]


def expected_rating(p: Sequence[float]) -> float:
    """Σ p_k · k/4, summed from level 0 up (the order fixes the last bit of the float)."""
    return sum(pk * rk for pk, rk in zip(p, RATINGS))


def mode_of(p: Sequence[float]) -> int:
    """The most likely level; of equally likely levels the lowest."""
    return max(range(LEVELS), key=lambda k: (p[k], -k))


def check_derived(p: Sequence[float], severity: float | None, mode: int | None) -> None:
    """ValueError saying why when a ``severity`` or ``mode`` written beside ``p`` is not the one ``p``
    gives (:func:`expected_rating` within :data:`SEVERITY_TOLERANCE`; :func:`mode_of`); None: not written.

    Both are derived columns: one that disagrees with its ``p`` is a mistake in the file, and
    results must not silently depend on which of the two a reader happens to use. Every reader of
    such columns (label files, store imports) refuses a disagreement with this one rule.
    """
    if severity is not None:
        want = expected_rating(p)
        if not abs(severity - want) <= SEVERITY_TOLERANCE:  # NaN too
            raise ValueError(f"severity {severity!r} disagrees with p, whose expected rating (Σ p_k·k/4) is "
                             f"{want:.6g} (allowed difference {SEVERITY_TOLERANCE:g}); correct it or leave it out")
    if mode is not None and mode != mode_of(p):
        raise ValueError(f"mode {mode!r} disagrees with p, whose most likely level is {mode_of(p)} (of equally likely "
                         "levels the lowest); correct it or leave it out")


def check_distribution(p: Any) -> Distribution:
    """``p`` as five floats, unchanged; ValueError saying why when it is not a five-level distribution
    (five finite numbers in [0, 1] summing to 1 within :data:`SUM_TOLERANCE`)."""
    if type(p) is tuple and len(p) == LEVELS:  # the usual case, a judge's own tuple: a few comparisons
        a, b, c, d, e = p
        if (type(a) is float and type(b) is float and type(c) is float and type(d) is float and type(e) is float
                and 0.0 <= a <= 1.0 and 0.0 <= b <= 1.0 and 0.0 <= c <= 1.0 and 0.0 <= d <= 1.0 and 0.0 <= e <= 1.0
                and abs(a + b + c + d + e - 1.0) <= SUM_TOLERANCE - 1e-12):
            return p
    if p is None:
        raise ValueError("p is missing")
    if isinstance(p, (str, bytes)):
        raise ValueError(f"p is not a list of numbers: {p!r}")
    try:
        values = tuple(float(x) for x in p)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"p is not a list of numbers: {p!r}") from None
    if any(isinstance(x, bool) for x in p):
        raise ValueError(f"p is not a list of numbers: {p!r}")
    if len(values) != LEVELS:
        raise ValueError(f"p has {len(values)} values, expected {LEVELS}")
    if not all(math.isfinite(x) for x in values):
        raise ValueError(f"p has a value that is not a finite number: {', '.join(map(str, values))}")
    if min(values) < 0.0 or max(values) > 1.0:
        raise ValueError(f"p has a value outside [0, 1]: {', '.join(map(str, values))}")
    total = math.fsum(values)
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"p sums to {total!r}, expected 1 (within {SUM_TOLERANCE:g})")
    return values  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Judgement:
    """A judge's answer for one edit.

    ``p`` is a distribution over the five levels (sums to 1), or ``None`` when the judge failed on
    this edit (``failure`` says why); a failed edit is reported and never charged as 0.
    ``edit_class`` is the judge's class of the edit when it computes one; ``flags`` are notes such as
    ``"no-lexicon"`` or ``"one-hot"`` (no probabilities available).
    """

    p: Distribution | None
    edit_class: str = ""
    flags: tuple[str, ...] = ()
    failure: str = ""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # rebuilt from its fields (twice as fast to pickle as a dataclass's state: chunks send many)
        return (Judgement, (self.p, self.edit_class, self.flags, self.failure))

    @property
    def severity(self) -> float | None:
        """Expected rating, Σ p_k · k/4 (None for a failed edit)."""
        return None if self.p is None else expected_rating(self.p)

    @property
    def mode(self) -> int | None:
        """Most likely level (the lowest level wins a tie; None for a failed edit)."""
        return None if self.p is None else mode_of(self.p)
