"""Judging through the store: each distinct edit is judged at most once, ever."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from semcer.alignment.context import EditContext
from semcer.errors import JudgeError
from semcer.judges.base import Judge
from semcer.judges.distribution import Judgement, check_distribution
from semcer.store.keys import is_deterministic
from semcer.store.sqlite import Found, JudgedEditStore, ReadyRows

#: A deterministic judge's rows written per store transaction (at least one batch): its answers are
#: recomputed, never read back, so a killed run loses only work, and a few large transactions write
#: the store's key index once instead of once per batch (random keys touch most of its pages).
DETERMINISTIC_WRITE_ROWS = 16_384


@dataclass
class CacheStats:
    """What one :func:`judge_cached` call did: ``total`` edits asked, ``unique`` distinct edits,
    ``hits`` found in the store, ``judged`` sent to the judge, ``failures`` the judge failed on.

    ``corrupt``: stored rows that failed the read-back check (:func:`semcer.store.sqlite.check_row`);
    never used, judged again, and replaced by the new judgement. ``stale``: stored one-hot fallbacks
    (LLM answers without probabilities, stored by an older semcer); not reused, asked again.
    ``overwritten``: for a deterministic judge (never read from the store), stored rows that
    differed from the recomputation (forged, damaged, another build) and were overwritten.
    """

    total: int
    unique: int
    hits: int
    judged: int
    failures: int
    corrupt: int = 0
    stale: int = 0
    overwritten: int = 0


def _check_answers(identity: str, judged: Sequence[Judgement]) -> None:
    """Every distribution a judge returns passes the one check (a judge of the user's own included)."""
    for j in judged:
        if j.p is not None:
            try:
                check_distribution(j.p)
            except ValueError as exc:
                raise JudgeError(f"judge {identity!r} returned an invalid judgement: {exc}") from None


class _StoreWriter:
    """The store writes of one :func:`judge_cached` call: each batch as it is judged, or, for a
    deterministic judge, in groups of at least :data:`DETERMINISTIC_WRITE_ROWS` rows (overwriting)."""

    def __init__(self, store: JudgedEditStore, deterministic: bool, redo: set[str]) -> None:
        self.store, self.deterministic, self.redo = store, deterministic, redo
        self.pending: list[tuple[str, str, EditContext, Judgement]] = []
        self.overwritten = 0

    def add(self, rows: list[tuple[str, str, EditContext, Judgement]]) -> None:
        if not self.deterministic:
            self.store.put_many(rows, replace=self.redo.intersection(r[0] for r in rows))
            return
        self.pending.extend(rows)
        if len(self.pending) >= DETERMINISTIC_WRITE_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.overwritten += self.store.overwrite_many(self.pending)[1]
            self.pending = []


def judge_cached(
    judge: Judge,
    contexts: Sequence[EditContext],
    store: JudgedEditStore | None,
    *,
    batch_size: int = 256,
    progress: Callable[[int, int], None] | None = None,
    deterministic: bool | None = None,
    keys: Sequence[str] | None = None,
) -> tuple[list[Judgement], CacheStats]:
    """Judge ``contexts`` through the store: each distinct edit at most once, ever.

    Identical edits within the call are judged once; edits already in the store are not judged;
    the rest go to ``judge.judge()`` in batches of ``batch_size``, each batch stored as soon as it
    is judged, so a killed run loses at most the batch in flight. Failures and one-hot fallbacks
    are returned but not stored. Stored rows that fail the read-back check are never used: they
    count as misses and their new judgement replaces them. ``progress(done, total)`` counts
    distinct edits sent to the judge, after each batch. Returns the judgements in input order.

    ``deterministic`` (default: decided from the identity, :func:`semcer.store.keys.is_deterministic`)
    marks a judge whose answers are recomputed, never read back: every distinct edit is judged, and
    the store is written (for exports and training) with the recomputed values winning over
    whatever it held, so a forged row in the store can never change a score; its rows are written
    in transactions of :data:`DETERMINISTIC_WRITE_ROWS`. ``keys``: the contexts' store keys when
    the caller has them (:meth:`JudgedEditStore.key` of each context).
    """
    identity, deterministic, keys = _setup(judge, contexts, batch_size, deterministic, keys)
    first: dict[str, EditContext] = {}
    for key, ctx in zip(keys, contexts):
        first.setdefault(key, ctx)
    found = store.get_many(list(first)) if store is not None and not deterministic else Found()
    results: dict[str, Judgement] = dict(found)
    redo = {*found.corrupt, *found.one_hot}
    hits = len(results)
    misses = [key for key in first if key not in results]
    writer = None if store is None else _StoreWriter(store, deterministic, redo)
    failures = _judge_misses(judge, identity, misses, first, results, batch_size, writer, progress)
    if writer is not None:
        writer.flush()
    stats = CacheStats(total=len(contexts), unique=len(first), hits=hits, judged=len(misses), failures=failures,
                       corrupt=len(found.corrupt), stale=len(found.one_hot),
                       overwritten=0 if writer is None else writer.overwritten)
    return [results[key] for key in keys], stats


def _setup(judge: Judge, contexts: Sequence[EditContext], batch_size: int, deterministic: bool | None,
           keys: Sequence[str] | None) -> tuple[str, bool, Sequence[str]]:
    """:func:`judge_cached`'s arguments checked and settled: the judge's identity, whether it is
    deterministic, and the contexts' store keys."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    identity = judge.identity
    if deterministic is None:
        deterministic = is_deterministic(identity)
    if keys is None:
        keys = [JudgedEditStore.key(identity, ctx) for ctx in contexts]
    elif len(keys) != len(contexts):
        raise ValueError(f"{len(keys)} keys for {len(contexts)} edits")
    return identity, deterministic, keys


def _judge_misses(judge: Judge, identity: str, misses: list[str], first: dict[str, EditContext],
                  results: dict[str, Judgement], batch_size: int, writer: _StoreWriter | None,
                  progress: Callable[[int, int], None] | None) -> int:
    """Send the edits ``misses`` to the judge in batches, each checked, added to ``results`` and
    handed to ``writer`` as it is judged; the number of failures."""
    failures = 0
    if progress is not None and misses:
        progress(0, len(misses))  # the bar appears before the first batch (which may load lexicons or a model)
    for start in range(0, len(misses), batch_size):
        batch = misses[start : start + batch_size]
        judged = judge.judge([first[key] for key in batch])
        if len(judged) != len(batch):
            raise JudgeError(f"judge {identity!r} returned {len(judged)} judgements for {len(batch)} edits")
        _check_answers(identity, judged)
        results.update(zip(batch, judged))
        failures += sum(1 for j in judged if j.p is None)
        if writer is not None:
            writer.add([(key, identity, first[key], j) for key, j in zip(batch, judged)])
        if progress is not None:
            progress(start + len(batch), len(misses))
    return failures


def store_judged(identity: str, keys: Sequence[str], contexts: Sequence[EditContext] | None,
                 judged: Sequence[Judgement], store: JudgedEditStore | None, ready: ReadyRows | None = None,
                 overwritten: int = 0) -> CacheStats:
    """Check and store what a deterministic judge answered elsewhere (workers, from its spec) for
    distinct edits (``keys``, ``contexts``), as :func:`judge_cached` stores its own answers (every
    edit judged, the recomputed values winning over the store's), in one transaction; ``ready``:
    the same rows already checked and packed (:func:`semcer.store.sqlite.ready_rows`; ``contexts`` may
then be None). ``store``
    None with ``overwritten``: the workers wrote the rows themselves and overwrote that many."""
    if len(keys) != len(judged) or (contexts is not None and len(contexts) != len(keys)):
        raise JudgeError(f"judge {identity!r} returned {len(judged)} judgements for {len(keys)} edits")
    _check_answers(identity, judged)
    if store is not None:
        if ready is None and contexts is None:
            raise ValueError("store_judged needs the contexts or the ready rows to write the store")
        rows = ready if ready is not None else [(k, identity, c, j) for k, c, j in zip(keys, contexts or (), judged)]
        overwritten = store.overwrite_many(rows)[1]
    return CacheStats(total=len(keys), unique=len(keys), hits=0, judged=len(keys),
                      failures=sum(1 for j in judged if j.p is None), overwritten=overwritten)
