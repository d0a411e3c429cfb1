"""Per-line sufficient statistics and the scores computed from their sums.

Each line contributes (S, D, I, units, severity mass); corpus CER, document-mean CER and their
semCER counterparts are functions of sums of these rows, so merging partial results, bootstrap
resampling and paired tests never re-align text. Integer counts sum exactly; severity masses are
summed with ``math.fsum``, which is exact and independent of order.
"""

from __future__ import annotations

import math
from typing import Iterable, NamedTuple


def _edits(self) -> int:
    """S + D + I."""
    return self.substitutions + self.deletions + self.insertions


def _cer(self) -> float | None:
    """Edits per reference unit; None (undefined) when there are no reference units."""
    return _edits(self) / self.units if self.units else None


def _semcer(self) -> float | None:
    """Severity per reference unit; None when undefined (no units, no judge, or a failed edit)."""
    if self.severity is None or not self.units:
        return None
    return self.severity / self.units


class LineStats(NamedTuple):
    """Sufficient statistics of one line. ``severity`` is None when no judge was run or it failed."""

    substitutions: int
    deletions: int
    insertions: int
    units: int
    severity: float | None = None

    edits = property(_edits)
    cer = property(_cer)
    semcer = property(_semcer)


class Totals(NamedTuple):
    """Summed statistics of a group of lines (a document or the corpus)."""

    substitutions: int
    deletions: int
    insertions: int
    units: int
    lines: int
    severity: float | None

    edits = property(_edits)
    cer = property(_cer)
    semcer = property(_semcer)


def total(rows: Iterable[LineStats]) -> Totals:
    """Sum of line statistics; severity is None as soon as one line has none."""
    rows = rows if isinstance(rows, list) else list(rows)
    if len(rows) == 1:
        r = rows[0]
        return Totals(r[0], r[1], r[2], r[3], 1, None if r[4] is None else math.fsum((r[4],)))
    if not rows:
        return Totals(0, 0, 0, 0, 0, None)
    s, d, i, u, sev = zip(*rows)
    return Totals(sum(s), sum(d), sum(i), sum(u), len(rows), None if None in sev else math.fsum(sev))


def mean_defined(values: Iterable[float | None]) -> tuple[float | None, int]:
    """Mean of the defined values and how many there were (None if none)."""
    vals = [v for v in values if v is not None]
    return (math.fsum(vals) / len(vals) if vals else None), len(vals)
