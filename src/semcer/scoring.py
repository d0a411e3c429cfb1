"""semCER: charge every grapheme edit a judge's severity and sum it per line.

A line with no edits costs nothing and calls no judge. Judged edits go through the judged-edit
store when one is given, so a rerun or a resumed run never pays twice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .align import Edit
from .context import edit_contexts
from .judges.base import EditContext, Judgement


@dataclass(frozen=True, slots=True)
class JudgedEdit:
    """One edit with the context its judge saw and the judge's answer."""

    line_id: str
    doc: str
    lang: str
    edit: Edit
    context: EditContext
    judgement: Judgement

    @property
    def severity(self) -> float | None:
        return self.judgement.severity


def judge_lines(rows: list, judge: Any, *, store: Any = None, progress: bool = False):
    """Judge every edit of ``rows`` (LineResult with alignments); return rows with severities."""
    from .store import JudgedEditStore, judge_cached

    contexts: list[EditContext] = []
    spans: list[tuple[int, int]] = []
    for r in rows:
        start = len(contexts)
        if r.edits:
            al = r.alignment
            contexts.extend(edit_contexts(r.edits, al.ref_units, al.hyp_units, lang=r.lang, line_id=r.id, doc=r.doc))
        spans.append((start, len(contexts)))

    own_store = None
    if store is not None and not isinstance(store, JudgedEditStore):
        store = own_store = JudgedEditStore(store)
    bar = _bar(len(contexts), progress)
    try:
        judgements, cache = judge_cached(judge, contexts, store, progress=bar,
                                         batch_size=getattr(judge, "preferred_batch_size", 256))
    finally:
        if own_store is not None:
            own_store.close()
        if bar is not None:
            bar.close()

    out_rows = []
    judged: list[JudgedEdit] = []
    for r, (a, b) in zip(rows, spans):
        line_j = judgements[a:b]
        sev = [j.severity for j in line_j]
        severity = None if any(s is None for s in sev) else math.fsum(sev)  # type: ignore[arg-type]
        out_rows.append(r._replace(stats=r.stats._replace(severity=severity)))
        for e, c, j in zip(r.edits or (), contexts[a:b], line_j):
            judged.append(JudgedEdit(r.id, r.doc, c.lang, e, c, j))
    summary: dict[str, Any] = {
        "edits": cache.total,
        "unique_edits": cache.unique,
        "cache_hits": cache.hits,
        "judged": cache.judged,
        "failures": cache.failures,
    }
    stats = getattr(judge, "stats", None)  # LLM judges count requests and tokens
    if stats is not None and hasattr(stats, "requests"):
        summary["requests"] = stats.requests
        summary["retries"] = getattr(stats, "retries", None)
    return out_rows, judged, summary


class _Bar:
    def __init__(self, total: int) -> None:
        from tqdm import tqdm

        self._bar = tqdm(total=total, desc="judging", unit="edit", leave=False, mininterval=0.2)
        self._done = 0

    def __call__(self, done: int, total: int) -> None:
        if self._bar.total != total:  # the store reports distinct edits still to judge
            self._bar.total = total
            self._bar.refresh()
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        self._bar.close()


def _bar(total: int, enabled: bool) -> _Bar | None:
    return _Bar(total) if enabled and total >= 1000 else None
