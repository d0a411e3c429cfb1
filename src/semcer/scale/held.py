"""Chunks held by the worker process that prepared them, so that their edit contexts never travel.

With a deterministic offline judge, each chunk goes to one worker for its whole life
(:class:`HeldPoolExecutor`): the worker prepares it and keeps it (:func:`prepare_held` hands the
parent only the store keys, the skipped ids and what is measured beside CER); judges the edits the
parent names as new, by position, and writes them to the store (:func:`judge_held`); and, once the
parent has sent the judgements of the chunk's other edits (judged by earlier chunks), finishes it
(:func:`finish_held`, :func:`semcer.scale.finishing.finish_chunk`) and forgets it. The parent decides
which edits are new exactly as with one process, so no edit is judged twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from semcer.errors import JudgeError
from semcer.judges.distribution import Judgement
from semcer.scale.chunks import ChunkTask, Prepared, judge_ready, prepare_chunk
from semcer.scale.executors import Pending, in_order, start_pool
from semcer.scale.finishing import FinishAsk, Finished, finish_chunk
from semcer.store.sqlite import ReadyRows

_HELD: dict[int, Prepared] = {}  # chunk index -> the prepared chunk, contexts included (in a worker)
_JUDGED: dict[int, dict[str, Judgement]] = {}  # chunk index -> what this worker judged for it


def prepare_held(task: ChunkTask) -> Prepared:
    """Prepare ``task`` and keep it here; the parent gets it without its rows, contexts and spans."""
    prep = prepare_chunk(task)
    _HELD[task.index] = prep
    return replace(prep, rows=(), contexts=(), spans=())


def judge_held(index: int, positions: Sequence[int], spec_json: str, identity: str,
               store_path: str | None, stored: bool) -> tuple[list[Judgement], ReadyRows | None, int]:
    """Judge the held chunk's edits at ``positions`` (distinct, new) as :func:`judge_ready` does."""
    prep = _held(index)
    keys = [prep.keys[p] for p in positions]
    out = judge_ready(spec_json, identity, [prep.contexts[p] for p in positions], keys, store_path, stored)
    _JUDGED[index] = dict(zip(keys, out[0]))
    return out


def finish_held(index: int, known: Sequence[Judgement], ask: FinishAsk) -> Finished:
    """Finish the held chunk with ``known`` (the judgements of its distinct edits that earlier chunks
    judged, in the order of their first occurrence: the keys stay here) and what this worker judged
    for it; then forget it."""
    prep = _held(index)
    mine = _JUDGED.pop(index, {})
    others = [k for k in dict.fromkeys(prep.keys) if k not in mine]
    if len(others) != len(known):
        raise JudgeError(f"chunk {index}: {len(known)} judgements sent for {len(others)} edits judged elsewhere")
    judgements = dict(zip(others, known))
    judgements.update(mine)
    severity = {k: j.severity for k, j in judgements.items()}
    del _HELD[index]
    return finish_chunk(prep, [judgements[k] for k in prep.keys], [severity[k] for k in prep.keys], ask)


def _held(index: int) -> Prepared:
    try:
        return _HELD[index]
    except KeyError:
        raise JudgeError(f"chunk {index} is not held by this worker") from None


class HeldPoolExecutor:
    """``workers`` worker processes (forkserver), each with its own queue: chunk ``i`` lives in
    worker ``i % workers``; ``workers + 1`` chunks are being prepared ahead of the parent (a worker
    holds few chunks at a time: two per worker ahead cost 70 MB over the tree at 200,000 lines and
    gained nothing)."""

    held = True

    def __init__(self, workers: int, spec_json: str, identity: str, store_path: str | None,
                 stored: bool = True) -> None:
        self.workers = workers
        self._spec, self._identity, self._store, self._stored = spec_json, identity, store_path, stored
        self._pools = [start_pool(1) for _ in range(workers)]

    def _pool(self, index: int) -> Any:
        return self._pools[index % self.workers]

    def prepared(self, tasks: Iterator[ChunkTask]) -> Iterator[Prepared]:
        return in_order((self._pool(t.index).apply_async(prepare_held, (t,)) for t in tasks), self.workers + 1)

    def judge(self, index: int, positions: Sequence[int]) -> Pending:
        part = self._pool(index).apply_async(judge_held, (index, list(positions), self._spec, self._identity,
                                                          self._store, self._stored))
        return Pending(lambda: [part.get()])

    def finish(self, index: int, known: Sequence[Judgement], ask: FinishAsk) -> Any:
        """An async result whose ``get()`` is the chunk's :class:`Finished` (``known``: see :func:`finish_held`)."""
        return self._pool(index).apply_async(finish_held, (index, list(known), ask))

    def close(self) -> None:
        for pool in self._pools:
            pool.terminate()
        for pool in self._pools:
            pool.join()
