"""A chunk's last step, once each of its edits has a judgement: the rows' severity masses, the chunk's
candidates for the top list, its edit-list file and its part of the report.

It runs where the chunk's edit contexts are: in the parent (one process, Ray), or in the worker that
prepared the chunk and still holds them (:mod:`semcer.scale.held`), so that contexts never travel
back to the parent. Either way it is this one function, so the result is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from semcer.alignment.table import LineTable
from semcer.judges.distribution import Judgement
from semcer.metrics.spans import judged_spans
from semcer.scale.chunks import Prepared
from semcer.scale.ranking import EditSpill, TopList, edit_rank, span_rank
from semcer.scale.report_fold import ChunkDigest, ReportAsk, chunk_digest
from semcer.store.judging import with_judgements


@dataclass(frozen=True)
class FinishAsk:
    """What a run keeps of each chunk: the ``top`` most severe edits (``by_edit``) or spans, the
    chunk's edit-list file in folder ``spill`` (None: no edit list), the report's part (``report``)."""

    top: int = 0
    by_edit: bool = False
    spill: str | None = None
    report: ReportAsk | None = None

    @property
    def keeps_edits(self) -> bool:
        return bool(self.top or self.spill or self.report)


@dataclass(frozen=True)
class Finished:
    """A finished chunk: its rows (with their severity mass, without edits), its top-list candidates
    and its report digest (None when no report was asked for)."""

    rows: LineTable
    candidates: tuple[Any, ...]
    digest: ChunkDigest | None


def finish_chunk(prep: Prepared, every: Sequence[Judgement], severities: Sequence[float | None], ask: FinishAsk,
                 attach: Callable[[list[Any]], list[Any]] | None = None) -> Finished:
    """Finish ``prep`` (with its contexts) given the judgement and severity of each of its edits, in
    order; ``attach`` adds what the parent knows of the judged edits (page-file provenance) first."""
    rows, judged = with_judgements(prep.rows, prep.contexts, prep.spans, every, keep=ask.keeps_edits,
                                   severities=severities)
    if attach is not None and judged:
        judged = attach(judged)
    if ask.spill is not None:
        EditSpill(ask.spill).write(prep.index, judged)
    candidates: list[Any] = []
    if ask.top:
        top = TopList(ask.top, edit_rank if ask.by_edit else span_rank)
        top.offer(judged if ask.by_edit else judged_spans(judged))
        candidates = top.items()
    return Finished(LineTable(rows),
                    tuple(candidates), None if ask.report is None else chunk_digest(judged, ask.report))
