"""What the aligner gives for one line: its counts (the sufficient statistics every score is built
from), its edits and its alignment.

``LineStats`` holds (S, D, I, units, severity): the aligner fills the counts, a judging pass fills
the severity mass later. CER is edits per reference unit, undefined (``None``) without reference
units; semCER is severity per reference unit, undefined without units or without a severity. These
two rules are written here once and read by every sum of lines (:mod:`semcer.metrics.rows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from semcer.alignment.edits import Edit


def count_edits(stats: Any) -> int:
    """S + D + I."""
    return stats.substitutions + stats.deletions + stats.insertions


def cer_of(stats: Any) -> float | None:
    """Edits per reference unit; None (undefined) when there are no reference units."""
    return count_edits(stats) / stats.units if stats.units else None


def semcer_of(stats: Any) -> float | None:
    """Severity per reference unit; None when undefined (no units, no judge, or a failed edit)."""
    if stats.severity is None or not stats.units:
        return None
    return stats.severity / stats.units


class LineStats(NamedTuple):
    """Sufficient statistics of one line. ``severity`` is None when no judge was run or it failed."""

    substitutions: int
    deletions: int
    insertions: int
    units: int
    severity: float | None = None

    @property
    def edits(self) -> int:
        return count_edits(self)

    @property
    def cer(self) -> float | None:
        return cer_of(self)

    @property
    def semcer(self) -> float | None:
        return semcer_of(self)


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
