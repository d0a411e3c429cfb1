"""Sums of per-line sufficient statistics, exact and mergeable.

Each line contributes (S, D, I, units, severity mass) (:class:`semcer.alignment.line.LineStats`);
corpus CER, document-mean CER and their semCER counterparts are functions of sums of these rows, so
merging partial results, bootstrap resampling and paired tests never re-align text. Integer counts
sum exactly. Severity masses are summed exactly too: a :class:`Totals` keeps the exact sum of its
lines' severities (an :class:`ExactSum`), so totals merged from shards, in any order, equal the
one-pass totals bit for bit; the float it reports is that exact sum correctly rounded, which is what
``math.fsum`` over the lines gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from semcer.alignment.line import LineStats, Rates

_SCALE = 1074  # every finite double is an integer multiple of 2**-1074


@dataclass(frozen=True, slots=True)
class ExactSum:
    """An exact sum of floats, held as an integer count of 2**-1074 (every finite double is one).

    Adding is integer addition, so any grouping and order of the same values gives the same sum;
    :attr:`value` rounds it to the nearest double (Python's int/int division is correctly rounded).
    """

    scaled: int = 0

    @classmethod
    def of(cls, values: Iterable[float]) -> ExactSum:
        total = 0
        for x in values:
            n, d = float(x).as_integer_ratio()  # d is a power of two, at most 2**1074
            total += n << (_SCALE - d.bit_length() + 1)
        return cls(total)

    def __add__(self, other: ExactSum) -> ExactSum:
        return ExactSum(self.scaled + other.scaled)

    @property
    def value(self) -> float:
        return self.scaled / (1 << _SCALE)


class _Totals(NamedTuple):
    substitutions: int
    deletions: int
    insertions: int
    units: int
    lines: int
    severity: float | None
    exact: ExactSum | None
_Totals.__new__.__defaults__ = (None,)


class Totals(_Totals, Rates):
    """Summed statistics of a group of lines (a document or the corpus).

    ``severity`` is None as soon as one line has none (no judge, or a judge failed on one of its
    edits). ``exact`` is the same sum held exactly, for merging; it may be None for a group of one
    line, whose severity is exact as it stands.
    """

    __slots__ = ()


def _exact(t: Totals) -> ExactSum | None:
    if t.severity is None:
        return None
    return t.exact if t.exact is not None else ExactSum.of((t.severity,))


def total(rows: Sequence[LineStats] | Iterable[LineStats]) -> Totals:
    """Sum of line statistics; severity is None as soon as one line has none."""
    rows = rows if isinstance(rows, list) else list(rows)
    if len(rows) == 1:
        r = rows[0]
        return Totals(r[0], r[1], r[2], r[3], 1, r[4], None)
    if not rows:
        return Totals(0, 0, 0, 0, 0, None, None)
    s, d, i, u, sev = zip(*rows)
    if None in sev:
        return Totals(sum(s), sum(d), sum(i), sum(u), len(rows), None, None)
    exact = ExactSum.of(sev)
    return Totals(sum(s), sum(d), sum(i), sum(u), len(rows), exact.value, exact)


def merge(parts: Iterable[Totals]) -> Totals:
    """The totals of the union of disjoint groups: equal to :func:`total` over all their lines, bit
    for bit, in any order and grouping."""
    parts = list(parts)
    if not parts:
        return Totals(0, 0, 0, 0, 0, None, None)
    if len(parts) == 1:
        return parts[0]
    exacts = [_exact(p) for p in parts if p.lines]
    exact: ExactSum | None = None
    if exacts and None not in exacts:
        exact = ExactSum(sum(e.scaled for e in exacts if e is not None))
    return Totals(sum(p.substitutions for p in parts), sum(p.deletions for p in parts),
                  sum(p.insertions for p in parts), sum(p.units for p in parts), sum(p.lines for p in parts),
                  None if exact is None else exact.value, exact)
