"""One chunk of a corpus, prepared for judging: what a worker (a process, a Ray task) does to it.

A chunk is a run of consecutive pairs. Preparing it aligns its lines and builds the judge context
and store key of every edit (:func:`prepare_chunk`); judging the distinct new edits of a chunk is a
separate step (:func:`judge_part`), so that the parent can leave out edits an earlier chunk already
judged before anything is dispatched (:func:`judge_ready` also checks, packs and, in a local worker,
writes the judged edits to the store, so that the parent does not). These functions are pure: the same chunk gives the same result
in any process, which is what makes a run with many workers equal to a run with one.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from semcer.alignment.context import EditContext
from semcer.alignment.engine import Pair, align_lines
from semcer.alignment.line import LineResult, without_alignment
from semcer.caches import cache
from semcer.errors import JudgeError
from semcer.judges.base import JudgeBase, JudgeSpec
from semcer.judges.distribution import Judgement
from semcer.metrics.fca import LineAssignment, line_assignment_cer
from semcer.metrics.wer import LineWords, line_words
from semcer.store.judging import line_contexts
from semcer.store.sqlite import JudgedEditStore, ReadyRows, ready_rows
from semcer.text.policy import TextPolicy
from semcer.text.units import Unit

#: Lines per chunk by default: about half a second of work for the default judge; a chunk in flight
#: (alignments, contexts, judged edits) takes some 10 kB a line, so a few tens of MB. (5,000 took
#: 110 s and 1.61 GB over the process tree for a million lines with 2 workers; 2,500 takes 97 s and
#: 1.46 GB: `python bench/scale.py --lines 1000000 --runs 2`.)
DEFAULT_CHUNK_LINES = 2_500


@dataclass(frozen=True)
class Beside:
    """What is measured beside CER in the same pass over each chunk: WER and the bag-of-words error
    with ``tokenizer`` (None: not asked), and the line-assignment page score."""

    tokenizer: str | None = None
    page_score: bool = False


#: Nothing beside CER (the default).
CER_ONLY = Beside()


@dataclass(frozen=True)
class ChunkTask:
    """What a worker needs to prepare one chunk: its pairs and the run's settings."""

    index: int
    pairs: Any  # list[Pair], or a semcer.scale.reading.RawPairs (parsed by prepare_chunk)
    unit: Unit
    policy: TextPolicy
    empty_ref: str
    window: int
    identity: str  # the judge's identity: part of every store key
    beside: Beside = CER_ONLY


@dataclass(frozen=True)
class Prepared:
    """A prepared chunk: its rows (with their edits, without alignments), the ids skipped for an
    empty reference, every edit's judge context, each row's range in them, and each context's key."""

    index: int
    rows: tuple[LineResult, ...]
    skipped: tuple[str, ...]
    contexts: tuple[EditContext, ...]
    spans: tuple[tuple[int, int], ...]
    keys: tuple[str, ...]
    words: tuple[tuple[str, str, LineWords], ...] | None = None  # (id, doc, words) of every pair, for WER
    pages: tuple[tuple[str, LineAssignment], ...] | None = None  # (id, page score) of every pair


def chunk_tasks(pairs: Any, size: int, *, unit: Unit, policy: TextPolicy, empty_ref: str, window: int,
                identity: str, beside: Beside = CER_ONLY) -> Iterator[ChunkTask]:
    """The corpus cut into chunks of ``size`` consecutive pairs, in order: ``pairs`` is a sequence,
    or a source that reads its pairs a chunk at a time (``chunks(size)``,
    :class:`semcer.scale.reading.JsonlSource`)."""
    if hasattr(pairs, "chunks"):
        parts: Iterator[Any] = pairs.chunks(size)
    else:
        parts = (list(pairs[start:start + size]) for start in range(0, len(pairs), size))
    for index, part in enumerate(parts):
        yield ChunkTask(index, part, unit, policy, empty_ref, window, identity, beside)


def task_fingerprint(task: ChunkTask) -> str:
    """sha256 of everything a chunk's result depends on (its pairs and the run's settings): a
    completion marker is reused only by a chunk with the same fingerprint."""
    h = hashlib.sha256()
    h.update(pickle.dumps((task.index, task.unit, task.policy.name, task.policy.steps, task.empty_ref, task.window,
                           task.identity, task.beside), protocol=5))
    for p in task.pairs:
        h.update(pickle.dumps(tuple(p), protocol=5))
    return h.hexdigest()


def prepare_chunk(task: ChunkTask) -> Prepared:
    """Align a chunk's lines and build its edits' contexts and store keys."""
    pairs = task.pairs.pairs() if hasattr(task.pairs, "pairs") else task.pairs  # a RawPairs chunk is parsed here
    rows, skipped = align_lines(pairs, task.unit, task.policy, task.empty_ref, edits=True, offsets=False)
    contexts, spans = line_contexts(rows, task.window)
    keys = tuple(JudgedEditStore.key(task.identity, c) for c in contexts)
    words, pages = _beside(pairs, task)
    return Prepared(task.index, tuple(map(without_alignment, rows)), tuple(skipped), tuple(contexts),
                    tuple(spans), keys, words, pages)


def _beside(pairs: Sequence[Pair], task: ChunkTask) -> tuple[Any, Any]:
    """The chunk's WER words and page scores, as the task asks (every pair, skipped ones too, as
    :func:`semcer.api.evaluation.word_errors` and :func:`~semcer.api.evaluation.page_scores` take them)."""
    b, pol = task.beside, task.policy
    words = None if b.tokenizer is None else tuple(
        (p.id, p.doc, line_words(p.ref, p.hyp, b.tokenizer, pol, p.lang)) for p in pairs)
    pages = None if not b.page_score else tuple(
        (p.id, line_assignment_cer(p.ref, p.hyp, unit=task.unit, policy=pol)) for p in pairs)
    return words, pages


@cache(maxsize=4)
def judge_from_spec(spec_json: str, identity: str) -> JudgeBase:
    """The judge a spec names, built once per process; it must have the parent's identity (a worker
    whose lexicons or model differ would otherwise judge differently under the same name)."""
    judge = JudgeSpec.from_json(spec_json).build()
    if judge.identity != identity:
        raise JudgeError(f"a worker rebuilt judge {judge.identity!r} from its spec, not {identity!r}")
    return judge


def judge_part(spec_json: str, identity: str, contexts: Sequence[EditContext]) -> list[Judgement]:
    """Judge ``contexts`` (distinct edits) with the judge rebuilt from its spec in this process."""
    judge = judge_from_spec(spec_json, identity)
    out = judge.judge(list(contexts))
    if len(out) != len(contexts):
        raise JudgeError(f"judge {identity!r} returned {len(out)} judgements for {len(contexts)} edits")
    return out


def judge_ready(spec_json: str, identity: str, contexts: Sequence[EditContext], keys: Sequence[str],
                store_path: str | None = None, stored: bool = True) -> tuple[list[Judgement], ReadyRows | None, int]:
    """:func:`judge_part`, and the judged edits checked and packed for the store here (``keys``: the
    contexts' store keys): written to the store at ``store_path`` by this process (the rows
    overwritten counted; the parent chose these edits as new, so no two processes write one key),
    else returned ready for the parent to write; neither when the run has no store (not ``stored``)."""
    judged = judge_part(spec_json, identity, contexts)
    if not stored:
        return judged, None, 0
    ready = ready_rows([(k, identity, c, j) for k, c, j in zip(keys, contexts, judged)])
    if store_path is None:
        return judged, ready, 0
    return judged, None, worker_store(store_path).overwrite_many(ready)[1]


@cache(maxsize=2)
def worker_store(path: str) -> JudgedEditStore:
    """The run's store as a worker writes it (opened once per process; SQLite's WAL mode lets
    several processes write one store, each transaction waiting for the others)."""
    return JudgedEditStore(path)
