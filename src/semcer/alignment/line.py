"""What the aligner gives for one line: its counts (the sufficient statistics every score is built
from), its edits and its alignment.

``LineStats`` holds (S, D, I, units, severity): the aligner fills the counts, a judging pass fills
the severity mass later. CER is edits per reference unit, undefined (``None``) without reference
units; semCER is severity per reference unit, undefined without units or without a severity. These
two rules are written here once and read by every sum of lines (:mod:`semcer.metrics.rows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from semcer.alignment.edits import Edit


class Rates:
    """CER and semCER of anything with the five sufficient statistics (a line, a document, the
    corpus): the one place these two rules are written."""

    __slots__ = ()
    substitutions: int
    deletions: int
    insertions: int
    units: int
    severity: float | None

    @property
    def edits(self) -> int:
        """S + D + I."""
        return self.substitutions + self.deletions + self.insertions

    @property
    def cer(self) -> float | None:
        """Edits per reference unit; None (undefined) when there are no reference units."""
        return self.edits / self.units if self.units else None

    @property
    def semcer(self) -> float | None:
        """Severity per reference unit; None when undefined (no units, no judge, or a failed edit)."""
        if self.severity is None or not self.units:
            return None
        return self.severity / self.units


class _LineStats(NamedTuple):
    substitutions: int
    deletions: int
    insertions: int
    units: int
    severity: float | None
_LineStats.__new__.__defaults__ = (None,)


class LineStats(_LineStats, Rates):
    """Sufficient statistics of one line: (S, D, I, units, severity). ``severity`` is None when no
    judge was run or it failed on one of the line's edits."""

    __slots__ = ()


class Alignment(NamedTuple):
    """The alignment of one reference with one output, after the policy."""

    ref: str
    hyp: str
    ref_units: Sequence[str]
    hyp_units: Sequence[str]
    edits: tuple[Edit, ...]
    stats: LineStats
    offsets: bool  # whether ref_span/hyp_span of the edits are available

    @property
    def cer(self) -> float | None:
        return self.stats.cer


class LineResult(NamedTuple):
    """One scored line: its statistics and, when asked for, its edits and alignment."""

    id: str
    doc: str
    lang: str | None
    stats: LineStats
    edits: tuple[Edit, ...] | None = None
    alignment: Alignment | None = None


_new = tuple.__new__  # a NamedTuple from a tuple in field order, without the keyword-capable __new__


def without_alignment(row: LineResult) -> LineResult:
    """``row._replace(alignment=None)``, at a fraction of its cost (chunks drop millions of them)."""
    return _new(LineResult, (row[0], row[1], row[2], row[3], row[4], None))


def with_severity(row: LineResult, severity: float | None) -> LineResult:
    """``row`` with its statistics' severity set (``row._replace(stats=row.stats._replace(severity=...))``)."""
    s = row[3]
    stats = _new(type(s), (s[0], s[1], s[2], s[3], severity))
    return _new(LineResult, (row[0], row[1], row[2], stats, row[4], row[5]))
