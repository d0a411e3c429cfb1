"""Breakdowns of an evaluation: its lines grouped by language or by document, each group summed and
scored exactly like the corpus (the same :func:`semcer.metrics.aggregate.aggregate` rule, so a
group's document mean is a mean over the documents inside it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from semcer.alignment.line import LineResult
from semcer.metrics.aggregate import Aggregation, aggregate
from semcer.text.script import lang_group

BREAKDOWNS: tuple[str, ...] = ("lang", "doc")


@dataclass(frozen=True)
class Group:
    """One group of lines (a language or a document) and its aggregation."""

    key: str
    lines: int
    aggregation: Aggregation


def breakdown(lines: Sequence[LineResult], by: str, *, judged: bool) -> list[Group]:
    """The lines grouped by ``by`` ("lang": the item's language tag in its one spelling,
    :func:`semcer.text.script.lang_group`, so ``EN``, ``en_US`` and ``en-us`` are ``en`` and
    ``en-US``; "und" when none was given; "doc"), in order of first appearance, each aggregated
    like the corpus."""
    if by not in BREAKDOWNS:
        raise ValueError(f"unknown breakdown {by!r}; choose one of {', '.join(BREAKDOWNS)}")
    groups: dict[str, list[LineResult]] = {}
    for line in lines:
        key = lang_group(line.lang) if by == "lang" else line.doc
        groups.setdefault(key, []).append(line)
    return [Group(key, len(rows), aggregate([r.stats for r in rows], [r.doc for r in rows], judged=judged))
            for key, rows in groups.items()]
