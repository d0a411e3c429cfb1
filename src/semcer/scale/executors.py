"""Where chunks are prepared and offline judges run: in this process, or in worker processes.

An executor prepares chunks in order (:meth:`prepared`) and, for a deterministic offline judge that
has a spec, judges a list of distinct new edits in parallel (:meth:`judge_offline`; None means the
parent judges them itself). The parent alone writes the store and aggregates, so every executor
gives the same result; only the wall time differs.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from semcer.alignment.context import EditContext
from semcer.judges.base import JudgeBase
from semcer.judges.distribution import Judgement
from semcer.scale.chunks import ChunkTask, Prepared, judge_part, prepare_chunk

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


class InlineExecutor:
    """Everything in this process, one chunk after another."""

    workers = 1

    def prepared(self, tasks: Iterator[ChunkTask]) -> Iterator[Prepared]:
        return map(prepare_chunk, tasks)

    def judge_offline(self, contexts: Sequence[EditContext]) -> list[Judgement] | None:
        return None

    def remote_judge(self, judge: JudgeBase) -> JudgeBase:
        return judge

    def close(self) -> None:
        return None


class PoolExecutor:
    """Worker processes (forkserver): chunks prepared ahead of the parent, at most two per worker in
    flight; a deterministic judge with a spec rebuilt in each worker and fed equal parts."""

    def __init__(self, workers: int, spec_json: str | None, identity: str) -> None:
        self.workers = workers
        self._spec, self._identity = spec_json, identity
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        self._pool = multiprocessing.get_context(method).Pool(workers)

    def prepared(self, tasks: Iterator[ChunkTask]) -> Iterator[Prepared]:
        window: deque[Any] = deque()
        for task in tasks:
            window.append(self._pool.apply_async(prepare_chunk, (task,)))
            if len(window) >= 2 * self.workers:
                yield window.popleft().get()
        while window:
            yield window.popleft().get()

    def judge_offline(self, contexts: Sequence[EditContext]) -> list[Judgement] | None:
        if self._spec is None:
            return None
        pieces = split(contexts, min(self.workers, max(1, len(contexts) // MIN_PARALLEL_EDITS)))
        parts = [self._pool.apply_async(judge_part, (self._spec, self._identity, list(part))) for part in pieces]
        return [j for part in parts for j in part.get()]

    def remote_judge(self, judge: JudgeBase) -> JudgeBase:
        return judge

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()
