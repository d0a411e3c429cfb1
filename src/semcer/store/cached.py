"""Judging through the store: each distinct edit is judged at most once, ever."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from semcer.alignment.context import EditContext
from semcer.errors import JudgeError
from semcer.judges.base import Judge
from semcer.judges.distribution import Judgement
from semcer.store.sqlite import JudgedEditStore


@dataclass
class CacheStats:
    """What one :func:`judge_cached` call did: ``total`` edits asked, ``unique`` distinct edits,
    ``hits`` found in the store, ``judged`` sent to the judge, ``failures`` the judge failed on."""

    total: int
    unique: int
    hits: int
    judged: int
    failures: int


def judge_cached(
    judge: Judge,
    contexts: Sequence[EditContext],
    store: JudgedEditStore | None,
    *,
    batch_size: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Judgement], CacheStats]:
    """Judge ``contexts`` through the store: each distinct edit at most once, ever.

    Identical edits within the call are judged once; edits already in the store are not judged;
    the rest go to ``judge.judge()`` in batches of ``batch_size``, each batch stored as soon as it
    is judged, so a killed run loses at most the batch in flight. Failures are returned but not
    stored. ``progress(done, total)`` counts distinct edits sent to the judge, after each batch.
    Returns the judgements in input order.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    identity = judge.identity
    keys = [JudgedEditStore.key(identity, ctx) for ctx in contexts]
    first: dict[str, EditContext] = {}
    for key, ctx in zip(keys, contexts):
        first.setdefault(key, ctx)
    results = store.get_many(list(first)) if store is not None else {}
    hits = len(results)
    misses = [key for key in first if key not in results]
    failures = 0
    for start in range(0, len(misses), batch_size):
        batch = misses[start : start + batch_size]
        judged = judge.judge([first[key] for key in batch])
        if len(judged) != len(batch):
            raise JudgeError(f"judge {identity!r} returned {len(judged)} judgements for {len(batch)} edits")
        results.update(zip(batch, judged))
        failures += sum(1 for j in judged if j.p is None)
        if store is not None:
            store.put_many([(key, identity, first[key], j) for key, j in zip(batch, judged)])
        if progress is not None:
            progress(start + len(batch), len(misses))
    stats = CacheStats(total=len(contexts), unique=len(first), hits=hits, judged=len(misses), failures=failures)
    return [results[key] for key in keys], stats
