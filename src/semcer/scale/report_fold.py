"""What a streamed run keeps for the HTML report and the plots, instead of every judged edit.

The report (:mod:`semcer.api.report`) shows the severity histogram, the most severe error spans,
the most severe lines in full, and, with reader ratings, the top-of-list curve. A streamed run keeps
exactly what those need, a chunk at a time (:func:`chunk_digest`, folded by :class:`ReportFold`):
the histogram's counts, the failed edits, the chunk's own most severe spans (the corpus's most
severe ``n`` are among the chunks' ones; ties in corpus order, as a one-pass sort keeps them), the
number of spans, and the severities of the rated edits only. The lines the report shows in full are
chosen at the end from the lines' statistics, then read again from the inputs and aligned again
(:class:`StreamedLines`; the alignment is deterministic), their edits' judgements taken from the
run's distinct judged edits by store key. So the report of a streamed run is the one-pass report,
with memory bounded by the report's limits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from semcer.alignment.context import edit_contexts
from semcer.alignment.engine import Pair, align_one
from semcer.api.report import SEVERITY_BINS, EditDigest, element_id, line_segments, severity_bins
from semcer.io.edits import edit_id
from semcer.io.formats.provenance import Provenance
from semcer.judges.distribution import Judgement
from semcer.metrics.spans import JudgedSpan, judged_spans
from semcer.scale.ranking import TopList, span_rank
from semcer.store.judging import JudgedEdit
from semcer.store.sqlite import JudgedEditStore
from semcer.text.policy import TextPolicy
from semcer.text.units import Unit


@dataclass(frozen=True)
class ReportAsk:
    """What the report will show: ``spans`` error spans, and the curve of the ``rated`` edit ids."""

    spans: int
    rated: frozenset[str] = frozenset()

    def fingerprint(self) -> str:
        ids = hashlib.sha256("\n".join(sorted(self.rated)).encode("utf-8")).hexdigest()[:16]
        return f"report={self.spans}:{ids}"


@dataclass(frozen=True)
class ChunkDigest:
    """One chunk's part of an :class:`~semcer.api.report.EditDigest` (kept in its completion marker)."""

    bins: tuple[int, ...]
    failed: int
    spans: tuple[JudgedSpan, ...]
    span_count: int
    rated: tuple[tuple[str, float], ...]


def chunk_digest(judged: Sequence[JudgedEdit], ask: ReportAsk) -> ChunkDigest:
    """The report's part of a chunk's judged edits (in corpus order)."""
    sev = [j.severity for j in judged]
    ok = [s for s in sev if s is not None]
    spans = list(judged_spans(judged))
    top = TopList(ask.spans, span_rank)
    top.offer(spans)
    rated: list[tuple[str, float]] = []
    if ask.rated:
        for j, s in zip(judged, sev):
            if s is not None:
                eid = edit_id(j.line_id, j.edit.op, j.edit.ref_pos, j.edit.hyp_pos)
                if eid in ask.rated:
                    rated.append((eid, s))
    return ChunkDigest(tuple(severity_bins(ok)), len(sev) - len(ok), tuple(top.items()), len(spans), tuple(rated))


class ReportFold:
    """The parent's sums of the chunks' digests, in chunk order."""

    def __init__(self, ask: ReportAsk) -> None:
        self.bins = [0] * SEVERITY_BINS
        self.failed = self.span_total = 0
        self.top = TopList(ask.spans, span_rank)
        self.rated: dict[str, float] = {}

    def fold(self, d: ChunkDigest) -> None:
        self.bins = [a + b for a, b in zip(self.bins, d.bins)]
        self.failed += d.failed
        self.span_total += d.span_count
        self.top.offer(d.spans)
        self.rated.update(d.rated)

    def digest(self, line_view: Any) -> EditDigest:
        return EditDigest(tuple(self.bins), self.failed, tuple(self.top.items()), self.span_total, self.rated, line_view)


class StreamedLines:
    """The report's line view of a streamed run: the lines chosen are read again from the inputs
    (one pass), aligned again, and their edits' judgements looked up by store key."""

    available = True

    def __init__(self, pairs: Any, rows: Sequence[Any], *, unit: Unit, policy: TextPolicy, window: int,
                 identity: str, judgements: dict[str, Judgement], provenance: Provenance | None = None,
                 skipped: int = 0) -> None:
        self.pairs, self.rows, self.unit, self.policy, self.skipped = pairs, rows, unit, policy, skipped
        self.window, self.identity, self.judgements = window, identity, judgements
        self.provenance = provenance
        self.segments: dict[str, list[Any] | None] = {}
        self.ids: dict[int, str] = {}  # row -> id of the rows prepared

    def prepare(self, ks: Iterable[int]) -> None:
        ks = sorted(ks)  # in line order: rows kept in blocks on disk are read a block at a time
        rows = list(map(self.rows.__getitem__, ks))
        self.ids.update(zip(ks, (r.id for r in rows)))
        want = {row.id: row for row in rows}
        for pair in _pairs_of(self.pairs, ks, self.skipped):
            row = want.get(pair.id)
            if row is not None:
                self.segments[pair.id] = self._segments(pair, row)

    def _segments(self, pair: Pair, row: Any) -> list[Any] | None:
        al = align_one(pair.ref, pair.hyp, self.unit, self.policy, edits=True, offsets=False)
        contexts = edit_contexts(al.edits, al.ref_units, al.hyp_units, lang=row.lang, line_id=row.id, doc=row.doc,
                                 window=self.window, ref=al.ref, hyp=al.hyp)
        found = [self.judgements.get(JudgedEditStore.key(self.identity, c)) for c in contexts]
        if any(j is None for j in found):
            return None  # not the edits that were judged (cannot happen with the same inputs)
        elements = self.provenance.elements(row.id, al.edits, self.unit, self.policy) if self.provenance is not None \
            else [(None, None)] * len(al.edits)
        marks = [(j.severity, j.mode, j.edit_class, element_id(r), element_id(h))
                 for j, (r, h) in zip(found, elements) if j is not None]
        return line_segments(al.ref_units, al.edits, marks or [(None, None, "", None, None)] * len(al.edits))

    def __call__(self, k: int) -> list[Any] | None:
        line_id = self.ids.get(k)
        return self.segments.get(self.rows[k].id if line_id is None else line_id)


#: Up to this many skipped lines, the report reads only the lines it shows (and the skipped count
#: after each); with more, it reads the whole input again.
_NEAR_SKIPPED = 64


def _pairs_of(pairs: Any, rows: Sequence[int], skipped: int) -> Iterable[Pair]:
    """The pairs of a run's input that may be rows ``rows`` (row ``k`` is line ``k`` to ``k + skipped``
    when ``skipped`` lines had an empty reference): read near them from a source that can (a
    :class:`semcer.scale.reading.JsonlSource`), else every pair."""
    if hasattr(pairs, "pairs_near") and skipped <= _NEAR_SKIPPED:
        yield from pairs.pairs_near(rows, skipped)
    elif hasattr(pairs, "chunks"):
        for raw in pairs.chunks(5_000):
            yield from raw.pairs()
    else:
        yield from pairs
