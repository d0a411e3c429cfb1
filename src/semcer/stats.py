"""Per-line sufficient statistics and the scores computed from their sums.

Each line contributes (S, D, I, units, severity mass); corpus CER, document-mean CER and their
semCER counterparts are functions of sums of these rows, so merging partial results, bootstrap
resampling and paired tests never re-align text. Integer counts sum exactly; severity masses are
summed with ``math.fsum``, which is exact and independent of order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True, slots=True)
class LineStats:
    """Sufficient statistics of one line. ``severity`` is None when no judge was run or it failed."""

    substitutions: int
    deletions: int
    insertions: int
    units: int
    severity: float | None = None

    @property
    def edits(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def cer(self) -> float | None:
        """Edits per reference unit; None (undefined) for an empty reference."""
        return self.edits / self.units if self.units else None

    @property
    def semcer(self) -> float | None:
        if self.severity is None or not self.units:
            return None
        return self.severity / self.units


@dataclass(frozen=True, slots=True)
class Totals:
    """Summed statistics of a group of lines (a document or the corpus)."""

    substitutions: int
    deletions: int
    insertions: int
    units: int
    lines: int
    severity: float | None

    @property
    def edits(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def cer(self) -> float | None:
        return self.edits / self.units if self.units else None

    @property
    def semcer(self) -> float | None:
        if self.severity is None or not self.units:
            return None
        return self.severity / self.units


def total(rows: Iterable[LineStats]) -> Totals:
    """Sum of line statistics; severity is None as soon as one line has none."""
    s = d = i = n = lines = 0
    sev: list[float] = []
    judged = True
    for r in rows:
        s += r.substitutions
        d += r.deletions
        i += r.insertions
        n += r.units
        lines += 1
        if r.severity is None:
            judged = False
        elif judged:
            sev.append(r.severity)
    return Totals(s, d, i, n, lines, math.fsum(sev) if judged and lines else None)


def mean_defined(values: Iterable[float | None]) -> tuple[float | None, int]:
    """Mean of the defined values and how many there were (None if none)."""
    vals = [v for v in values if v is not None]
    return (math.fsum(vals) / len(vals) if vals else None), len(vals)
