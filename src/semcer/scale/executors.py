"""Where chunks are prepared and offline judges run: in this process, or in worker processes.

An executor prepares chunks in order (:meth:`prepared`) and, for a deterministic offline judge that
has a spec, starts judging a list of distinct new edits in parallel (:meth:`submit_offline`: a
handle whose ``get()`` gives the judgements in order; None means the parent judges them itself), so
that one chunk lands while the workers judge the next. The parent alone decides which edits are new
and aggregates; the store is written by the workers (rows they checked and packed, for edits the
parent named) or by the parent, so every executor gives the same result; only the wall time
differs. :mod:`semcer.scale.held` keeps each chunk in one worker instead (the deterministic judges).
"""

from __future__ import annotations

import gc
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from semcer.alignment.context import EditContext
from semcer.judges.base import JudgeBase
from semcer.judges.distribution import Judgement
from semcer.scale.chunks import ChunkTask, Prepared, judge_ready, prepare_chunk
from semcer.scale.workers import Worker
from semcer.store.sqlite import ReadyRows

#: Distinct edits per worker below which a judging step is not split further (a round trip costs more).
MIN_PARALLEL_EDITS = 1000


def all_cores() -> int:
    """The cores this process may run on (its affinity mask, as ``os.process_cpu_count`` gives on 3.13)."""
    count = getattr(os, "process_cpu_count", None)
    if count is not None:
        return max(1, count() or 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def start_workers(workers: int) -> list[Worker]:
    """``workers`` worker processes (:class:`semcer.scale.workers.Worker`: a call whose worker dies
    raises, and Ctrl-C reaches this process only) whose garbage collector is in the caller's state:
    paused when the caller paused it (:func:`semcer.scale.gc.collector_paused`, as the command line
    does), since a worker builds the same millions of small acyclic objects."""
    collect = gc.isenabled()
    started: list[Worker] = []
    try:
        for _ in range(workers):
            started.append(Worker(collect))
    except BaseException:
        close_workers(started)
        raise
    return started


def close_workers(workers: Sequence[Worker]) -> None:
    """End ``workers`` (each told to stop when idle, killed when still busy)."""
    for worker in workers:
        worker.close()


def in_order(started: Iterator[Any], ahead: int) -> Iterator[Any]:
    """The results of async calls as ``started`` starts them, in order, with at most ``ahead`` in flight."""
    window: deque[Any] = deque()
    for call in started:
        window.append(call)
        if len(window) >= ahead:
            yield window.popleft().get()
    while window:
        yield window.popleft().get()


def split(items: Sequence[Any], parts: int) -> list[Sequence[Any]]:
    """``items`` cut into at most ``parts`` consecutive pieces of near-equal size, in order."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for k in range(parts):
        stop = start + size + (1 if k < extra else 0)
        out.append(items[start:stop])
        start = stop
    return out


class Pending:
    """Judgements being computed elsewhere: ``get()`` waits for them (in input order) and for the
    same edits made ready for the store, and raises what a worker raised."""

    def __init__(self, parts: Callable[[], list[tuple[list[Judgement], ReadyRows | None, int]]]) -> None:
        self._parts = parts

    def get(self) -> tuple[list[Judgement], ReadyRows | None, int]:
        """The judgements, the rows ready for the parent to write (None when the workers wrote them)
        and how many stored rows the workers overwrote."""
        parts = self._parts()
        judged = [j for part in parts for j in part[0]]
        if any(part[1] is None for part in parts):
            return judged, None, sum(part[2] for part in parts)
        ready = [part[1] for part in parts if part[1] is not None]
        return judged, ReadyRows(tuple(v for r in ready for v in r.values), tuple(p for r in ready for p in r.pairs)), 0


def pieces(contexts: Sequence[EditContext], keys: Sequence[str], workers: int) -> list[tuple[list[EditContext], list[str]]]:
    """Distinct edits and their keys cut into near-equal consecutive parts, one per worker (fewer
    when a part would be under :data:`MIN_PARALLEL_EDITS`)."""
    parts = min(workers, max(1, len(contexts) // MIN_PARALLEL_EDITS))
    return [(list(c), list(k)) for c, k in zip(split(contexts, parts), split(keys, parts))]


class InlineExecutor:
    """Everything in this process, one chunk after another."""

    workers = 1

    def prepared(self, tasks: Iterator[ChunkTask]) -> Iterator[Prepared]:
        return map(prepare_chunk, tasks)

    def submit_offline(self, contexts: Sequence[EditContext], keys: Sequence[str]) -> Pending | None:
        return None

    def remote_judge(self, judge: JudgeBase) -> JudgeBase:
        return judge

    def close(self) -> None:
        return None


class PoolExecutor:
    """Worker processes (:func:`start_workers`): chunks prepared ahead of the parent, in turn by
    each worker, at most two per worker in flight; a deterministic judge with a spec rebuilt in each
    worker and fed equal parts, each part written by its worker to the store at ``store_path``
    (None: returned for the parent to write; not ``stored``: the run has no store)."""

    def __init__(self, workers: int, spec_json: str | None, identity: str, store_path: str | None = None,
                 stored: bool = True) -> None:
        self.workers = workers
        self._spec, self._identity, self._store, self._stored = spec_json, identity, store_path, stored
        self._workers = start_workers(workers)

    def prepared(self, tasks: Iterator[ChunkTask]) -> Iterator[Prepared]:
        ws = self._workers
        return in_order((ws[t.index % len(ws)].submit(prepare_chunk, t) for t in tasks), 2 * self.workers)

    def submit_offline(self, contexts: Sequence[EditContext], keys: Sequence[str]) -> Pending | None:
        if self._spec is None:
            return None
        parts = [self._workers[n].submit(judge_ready, self._spec, self._identity, c, k, self._store, self._stored)
                 for n, (c, k) in enumerate(pieces(contexts, keys, self.workers))]
        return Pending(lambda: [part.get() for part in parts])

    def remote_judge(self, judge: JudgeBase) -> JudgeBase:
        return judge

    def close(self) -> None:
        close_workers(self._workers)
