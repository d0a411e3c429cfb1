"""The judging pass: every grapheme edit of a corpus charged a severity, through the store.

A line with no edits costs nothing and calls no judge. Judged edits go through the judged-edit
store when one is given, so a rerun or a resumed run never pays twice. :func:`judge_rows` is what
scoring uses (rows in, rows with their severity mass out); :func:`judge_into_store` is the
pre-judging pass of ``semcer judge`` (contexts in, a run summary out).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from semcer.alignment.context import DEFAULT_CONTEXT_WINDOW, EditContext, edit_contexts
from semcer.alignment.edits import Edit
from semcer.alignment.line import LineResult, with_severity
from semcer.judges.base import JudgeBase, JudgeStats
from semcer.judges.distribution import Judgement
from semcer.store.cached import CacheStats, judge_cached
from semcer.store.sqlite import JudgedEditStore

#: ``progress(done, total)``: distinct edits sent to the judge so far, after each batch.
Progress = Callable[[int, int], None]


class Element(Protocol):
    """The page element (region or line) one side of an edit falls in: a
    :class:`semcer.io.formats.Segment` (or, for an element without text, a ``Skipped``)."""

    @property
    def id(self) -> str | None: ...

    @property
    def bbox(self) -> tuple[float, float, float, float] | None: ...


@dataclass(frozen=True, slots=True)
class JudgedEdit:
    """One edit with the context its judge saw and the judge's answer, and, for an item read from a
    page file, the element each side of the edit falls in (:mod:`semcer.io.formats.provenance`;
    None otherwise, or where that side stands in no element)."""

    line_id: str
    doc: str
    lang: str
    edit: Edit
    context: EditContext
    judgement: Judgement
    ref_element: Element | None = None
    hyp_element: Element | None = None

    @property
    def severity(self) -> float | None:
        return self.judgement.severity


@dataclass(frozen=True)
class JudgeRun:
    """What one judging pass did: ``edits`` asked, ``unique_edits`` distinct, ``cache_hits`` found in
    the store, ``sent`` to the judge, of which ``judged`` got a distribution and ``failures`` did not
    (never charged 0), with the most common ``failure_reasons`` (reason, distinct edits); stored rows
    found ``corrupt`` (judged again and replaced), ``stale`` one-hot fallbacks asked again, and rows of
    a deterministic judge ``overwritten`` by the recomputation; for judges that count them,
    ``requests`` sent and ``retries``."""

    identity: str
    edits: int
    unique_edits: int
    cache_hits: int
    judged: int
    failures: int
    requests: int | None = None
    retries: int | None = None
    sent: int = 0
    corrupt: int = 0
    stale: int = 0
    overwritten: int = 0
    failure_reasons: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"identity": self.identity, "edits": self.edits, "unique_edits": self.unique_edits,
                               "cache_hits": self.cache_hits, "judged": self.judged, "failures": self.failures,
                               "sent": self.sent}
        if self.failure_reasons:
            out["failure_reasons"] = dict(self.failure_reasons)
        for name in ("corrupt", "stale", "overwritten"):  # store anomalies, shown when they happened
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.requests is not None:
            out["requests"] = self.requests
            out["retries"] = self.retries
        return out


def line_contexts(rows: Sequence[LineResult], window: int = DEFAULT_CONTEXT_WINDOW
                  ) -> tuple[list[EditContext], list[tuple[int, int]]]:
    """The judge context of every edit of ``rows`` (which carry their alignments), each seeing at
    most ``window`` units on each side, and each row's ``(start, end)`` range in that list."""
    contexts: list[EditContext] = []
    spans: list[tuple[int, int]] = []
    for r in rows:
        start = len(contexts)
        if r.edits:
            al = r.alignment
            assert al is not None, "rows to judge must keep their alignments (edits=True)"
            contexts.extend(edit_contexts(r.edits, al.ref_units, al.hyp_units, lang=r.lang, line_id=r.id, doc=r.doc,
                                          window=window, ref=al.ref, hyp=al.hyp))
        spans.append((start, len(contexts)))
    return contexts, spans


def judge_rows(
    rows: Sequence[LineResult], judge: JudgeBase, store: JudgedEditStore | None = None, *,
    progress: Progress | None = None,
) -> tuple[list[LineResult], list[JudgedEdit], JudgeRun]:
    """Judge every edit of ``rows``; return the rows with their severity mass (None for a line with
    a failed edit), the judged edits in corpus order and what the pass did."""
    contexts, spans = line_contexts(rows, judge.context_window)
    judgements, cache = judge_cached(judge, contexts, store, progress=progress, batch_size=judge.preferred_batch_size,
                                     deterministic=judge.deterministic)
    out_rows, judged = with_judgements(rows, contexts, spans, judgements)
    failed = _distinct_failed(contexts, judgements) if cache.failures else ()
    return out_rows, judged, judge_run(judge, cache, failed=failed)


def with_judgements(rows: Sequence[LineResult], contexts: Sequence[EditContext], spans: Sequence[tuple[int, int]],
                    judgements: Sequence[Judgement], *, keep: bool = True,
                    severities: Sequence[float | None] | None = None) -> tuple[list[LineResult], list[JudgedEdit]]:
    """``rows`` with their severity mass (the exact sum of their edits' severities; None for a line
    with a failed edit) and, with ``keep``, their judged edits in corpus order (``contexts`` and
    ``spans`` as :func:`line_contexts` gives them, ``judgements`` one per context; ``severities``,
    when given, their severities, computed once per distinct edit by the caller)."""
    out_rows = []
    judged: list[JudgedEdit] = []
    if severities is None:
        severities = [j.severity for j in judgements]
    for r, (a, b) in zip(rows, spans):
        line_j = judgements[a:b]
        sev = severities[a:b]
        severity = None if any(s is None for s in sev) else math.fsum(sev)  # type: ignore[arg-type]
        out_rows.append(with_severity(r, severity))
        if keep:
            for e, c, j in zip(r.edits or (), contexts[a:b], line_j):
                judged.append(JudgedEdit(r.id, r.doc, c.lang, e, c, j))
    return out_rows, judged


def judge_run(judge: JudgeBase, cache: CacheStats, stats: JudgeStats | None = None, *,
              failed: Iterable[Judgement] = ()) -> JudgeRun:
    """The :class:`JudgeRun` of a judging pass whose store counters are ``cache`` (request counters
    from ``stats``, default the judge's own); ``failed``: one judgement per distinct edit (or just
    the failed ones), whose failures give the most common reasons."""
    stats = judge.stats if stats is None else stats
    return JudgeRun(judge.identity, cache.total, cache.unique, cache.hits, cache.judged - cache.failures,
                    cache.failures, None if stats is None else stats.requests,
                    None if stats is None else stats.retries, sent=cache.judged, corrupt=cache.corrupt,
                    stale=cache.stale, overwritten=cache.overwritten, failure_reasons=failure_reasons(failed))


def failure_reasons(judgements: Iterable[Judgement], most: int = 5) -> tuple[tuple[str, int], ...]:
    """The ``most`` commonest reasons among the failed ``judgements`` (one per distinct edit), with
    how many edits each."""
    return tuple(Counter(j.failure or "no reason given" for j in judgements if j.p is None).most_common(most))


def _distinct_failed(contexts: Sequence[EditContext], judgements: Sequence[Judgement]) -> list[Judgement]:
    """The failed judgements, one per distinct edit (an edit that occurs twice failed once)."""
    failed = {c.content_key(): j for c, j in zip(contexts, judgements) if j.p is None}
    return list(failed.values())


def judge_into_store(judge: JudgeBase, contexts: Sequence[EditContext], store: JudgedEditStore, *,
                     progress: Progress | None = None, batch_size: int | None = None) -> tuple[list[Judgement], dict]:
    """Judge ``contexts`` through ``store`` (cache hits are not sent); returns judgements and a summary
    (:func:`run_summary`)."""
    started = time.monotonic()
    judgements, cache = judge_cached(judge, contexts, store, batch_size=batch_size or judge.preferred_batch_size,
                                     progress=progress, deterministic=judge.deterministic)
    unique = list({JudgedEditStore.key(judge.identity, c): j for c, j in zip(contexts, judgements)}.values())
    summary = run_summary(judge, unique, total=len(contexts), hits=cache.hits, sent=cache.judged,
                          seconds=time.monotonic() - started)
    return judgements, summary


def run_summary(judge: JudgeBase, unique_judgements: Sequence[Judgement], *, total: int, hits: int, sent: int,
                seconds: float) -> dict:
    """Requests, tokens, cache hits, failures and label-mass statistics of one run, as a dict.

    ``unique_judgements`` holds one judgement per distinct edit (failures and one-hot readings are
    counted once however often the edit occurs); ``total`` counts every edit, ``sent`` the distinct
    edits sent to the judge. Of those, ``judged`` got a distribution and ``failures`` did not (the
    store never holds a failure, so every failure was sent now): ``sent == judged + failures``.
    ``edits_per_second`` is the rate of judged edits, failures not counted.
    """
    from semcer.judges.llm import ONE_HOT_FLAG, MassSummary

    failed = [j for j in unique_judgements if j.p is None]
    judged = max(0, sent - len(failed))
    summary: dict[str, Any] = {
        "judge": judge.identity,
        "edits": total,
        "unique_edits": len(unique_judgements),
        "cache_hits": hits,
        "sent": sent,
        "judged": judged,
        "failures": len(failed),
        "failure_reasons": dict(failure_reasons(failed)),
        "one_hot": sum(1 for j in unique_judgements if ONE_HOT_FLAG in j.flags),
        "seconds": round(seconds, 3),
        "edits_per_second": round(judged / seconds, 1) if seconds > 0 and judged else None,
        "label_mass": MassSummary.of(unique_judgements).as_dict(),
    }
    stats = judge.stats
    if stats is not None:
        summary["requests"] = stats.requests
        summary["retries"] = stats.retries
        summary["prompt_tokens"] = stats.prompt_tokens if stats.tokens_reported else None
        summary["completion_tokens"] = stats.completion_tokens if stats.tokens_reported else None
    return summary
