"""Chunks held by the worker process that prepared them, so that their edit contexts never travel.

With a deterministic offline judge, each chunk goes to one worker for its whole life
(:class:`HeldPoolExecutor`): the worker prepares it and keeps it (:func:`prepare_held` hands the
parent only the distinct store keys it has no judgement for, the skipped ids and what is measured
beside CER); judges the edits the parent names as new, by position, and writes them to the store
(:func:`judge_held`); and, once the parent has sent the judgements of the other keys it asked for
(judged by earlier chunks), finishes it (:func:`finish_held`,
:func:`semcer.scale.finishing.finish_chunk`) and forgets it. A worker keeps the judgements it has
judged or been sent (bounded), so the repeats of an edit it has seen cost the parent nothing. The
parent decides which edits are new exactly as with one process, so no edit is judged twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from semcer.errors import JudgeError
from semcer.judges.distribution import Judgement
from semcer.scale.chunks import ChunkTask, Prepared, judge_ready, prepare_chunk
from semcer.scale.executors import Pending, close_workers, in_order, start_workers
from semcer.scale.finishing import FinishAsk, Finished, finish_chunk
from semcer.scale.workers import Call, Worker
from semcer.store.sqlite import ReadyRows

_HELD: dict[int, Prepared] = {}  # chunk index -> the prepared chunk, contexts included (in a worker)
_ASKED: dict[int, dict[str, int]] = {}  # chunk index -> the keys asked of the parent -> first position
_LOCAL: dict[int, dict[str, Judgement]] = {}  # chunk index -> judgements this worker already had for it
_JUDGED: dict[int, dict[str, Judgement]] = {}  # chunk index -> what this worker judged for it
#: The judgements this worker has judged or been sent, so that a later chunk's repeats of them need
#: nothing from the parent. Bounded: past ``KNOWN_LIMIT`` the oldest are forgotten down to half of
#: it (the parent then sends those judgements again when a chunk has them).
_KNOWN: dict[str, Judgement] = {}
KNOWN_LIMIT = 1 << 18


@dataclass(frozen=True)
class HeldChunk:
    """What the parent gets of a prepared held chunk: ``keys``, the distinct store keys of the edits
    this worker has no judgement for (in the order of their first occurrence), and ``edits``, how
    many edits the chunk has in all; the rest as in :class:`~semcer.scale.chunks.Prepared`."""

    index: int
    skipped: tuple[str, ...]
    keys: tuple[str, ...]
    edits: int
    words: Any = None
    pages: Any = None


def prepare_held(task: ChunkTask) -> HeldChunk:
    """Prepare ``task`` and keep it here; the parent gets the keys this worker cannot fill itself."""
    prep = prepare_chunk(task)
    _HELD[task.index] = prep
    asked: dict[str, int] = {}
    local: dict[str, Judgement] = {}
    for pos, key in enumerate(prep.keys):
        if key in asked or key in local:
            continue
        j = _KNOWN.get(key)
        if j is None:
            asked[key] = pos
        else:
            local[key] = j
    _ASKED[task.index], _LOCAL[task.index] = asked, local
    return HeldChunk(prep.index, prep.skipped, tuple(asked), len(prep.keys), prep.words, prep.pages)


def judge_held(index: int, positions: Sequence[int], spec_json: str, identity: str,
               store_path: str | None, stored: bool) -> tuple[list[Judgement], ReadyRows | None, int]:
    """Judge the held chunk's edits at ``positions`` of the keys it asked for (distinct, new) as
    :func:`judge_ready` does."""
    prep, first = _held(index), _ASKED[index]
    asked = list(first)
    keys = [asked[p] for p in positions]
    out = judge_ready(spec_json, identity, [prep.contexts[first[k]] for k in keys], keys, store_path, stored)
    _JUDGED[index] = dict(zip(keys, out[0]))
    return out


def finish_held(index: int, known: Sequence[Judgement], ask: FinishAsk) -> Finished:
    """Finish the held chunk with ``known`` (the judgements of the keys it asked for that earlier
    chunks judged, in the order it asked for them), what this worker judged for it and what it
    already had; then forget the chunk (not the judgements)."""
    prep = _held(index)
    mine = _JUDGED.pop(index, {})
    others = [k for k in _ASKED.pop(index) if k not in mine]
    if len(others) != len(known):
        raise JudgeError(f"chunk {index}: {len(known)} judgements sent for {len(others)} edits judged elsewhere")
    sent = dict(zip(others, known))
    judgements = _LOCAL.pop(index)
    judgements.update(sent)
    judgements.update(mine)
    _remember(mine, sent)
    del _HELD[index]
    every = [judgements[k] for k in prep.keys]
    return finish_chunk(prep, every, [j.severity for j in every], ask)


def _remember(*parts: dict[str, Judgement]) -> None:
    for part in parts:
        _KNOWN.update(part)
    if len(_KNOWN) > KNOWN_LIMIT:
        for key in list(islice(_KNOWN, len(_KNOWN) - KNOWN_LIMIT // 2)):
            del _KNOWN[key]


def _held(index: int) -> Prepared:
    try:
        return _HELD[index]
    except KeyError:
        raise JudgeError(f"chunk {index} is not held by this worker") from None


class HeldPoolExecutor:
    """``workers`` worker processes (:func:`~semcer.scale.executors.start_workers`): chunk ``i``
    lives in worker ``i % workers``; ``workers + 1`` chunks are being prepared ahead of the parent (a worker
    holds few chunks at a time: two per worker ahead cost 70 MB over the tree at 200,000 lines and
    gained nothing)."""

    held = True

    def __init__(self, workers: int, spec_json: str, identity: str, store_path: str | None,
                 stored: bool = True) -> None:
        self.workers = workers
        self._spec, self._identity, self._store, self._stored = spec_json, identity, store_path, stored
        self._workers = start_workers(workers)

    def _worker(self, index: int) -> Worker:
        return self._workers[index % self.workers]

    def prepared(self, tasks: Iterator[ChunkTask]) -> Iterator[HeldChunk]:
        return in_order((self._worker(t.index).submit(prepare_held, t) for t in tasks), self.workers + 1)

    def judge(self, index: int, positions: Sequence[int]) -> Pending:
        part = self._worker(index).submit(judge_held, index, list(positions), self._spec, self._identity,
                                          self._store, self._stored)
        return Pending(lambda: [part.get()])

    def finish(self, index: int, known: Sequence[Judgement], ask: FinishAsk) -> Call:
        """A call whose ``get()`` is the chunk's :class:`Finished` (``known``: see :func:`finish_held`)."""
        return self._worker(index).submit(finish_held, index, list(known), ask)

    def close(self) -> None:
        close_workers(self._workers)
