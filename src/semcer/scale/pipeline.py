"""``semcer score`` streamed: the corpus in chunks, over any executor, with the result of one pass.

The pairs are cut into chunks of consecutive lines (:mod:`semcer.scale.chunks`). An executor
(this process, worker processes, a Ray cluster) prepares each chunk: aligns it and builds its edits'
contexts and store keys. The parent takes the prepared chunks in order, leaves out the edits an
earlier chunk already judged (by store key, before anything is dispatched), has the distinct new
ones judged through the store (which only it writes), and folds the chunk in: its lines'
statistics (edits and alignments dropped; a compact table, in blocks on disk beyond the last,
:mod:`semcer.scale.lines`), its documents' sums, its candidates for the top list, its ranked edits
spilled to a file. So memory holds one window of chunks, a block of lines, one sum per document and
one judgement per distinct edit, not every edit or line of the corpus; and every number is what
:func:`semcer.api.evaluation.evaluate` gives in one pass (integer counts and exact severity sums do
not depend on the grouping; the same distinct edits are judged, once).

With a work folder, each finished chunk leaves a completion marker (:mod:`semcer.scale.markers`):
a run killed at any point and started again loads the finished chunks and goes on, and the store
holds what the unfinished chunk had judged, so nothing is judged twice and nothing counted twice.
"""

from __future__ import annotations

import contextlib
import tempfile
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from semcer.alignment.context import EditContext
from semcer.alignment.engine import Pair, check_empty_ref, empty_reference_error, first_empty_reference
from semcer.alignment.table import as_table
from semcer.api.evaluation import PageScores, opened_judge, opened_store
from semcer.api.report import EditDigest
from semcer.errors import InputError, SemcerError
from semcer.io.formats.provenance import Provenance
from semcer.judges.base import JudgeBase, check_judged_unit
from semcer.judges.distribution import Judgement
from semcer.metrics.aggregate import DocumentFold
from semcer.metrics.fca import LineAssignment, page_score_signature
from semcer.metrics.results import Evaluation, Unmatched
from semcer.metrics.signature import Signature
from semcer.metrics.wer import WerResult, WerTally, check_word_references
from semcer.reports.progress import JudgeBar, judge_bar, line_bar
from semcer.scale.chunks import CER_ONLY, DEFAULT_CHUNK_LINES, Beside, ChunkTask, Prepared, chunk_tasks, task_fingerprint
from semcer.scale.executors import InlineExecutor, Pending, PoolExecutor
from semcer.scale.finishing import FinishAsk, Finished, finish_chunk
from semcer.scale.held import HeldChunk, HeldPoolExecutor
from semcer.scale.judge_counts import added, no_stats, streamed_judge_run
from semcer.scale.lines import SpilledLines
from semcer.scale.markers import ChunkOutcome, Markers
from semcer.scale.ranking import EditSpill, TopList, edit_rank, span_rank
from semcer.scale.reading import JsonlSource
from semcer.scale.report_fold import ReportAsk, ReportFold, StreamedLines
from semcer.store.cached import CacheStats, judge_cached, store_judged
from semcer.store.sqlite import JudgedEditStore
from semcer.text.policy import TextPolicy, get_policy
from semcer.text.units import Unit, check_unit

ENGINES = ("local", "ray")


@dataclass(frozen=True)
class StreamSettings:
    """How a streamed run is cut and where it runs: ``chunk_lines`` lines per chunk, ``workers``
    processes (or Ray judge actors, each with ``ray_gpus`` GPUs), ``engine`` local or ray (at
    ``ray_address``); the ``top`` most severe
    edits (``by_edit``) or error spans kept; every edit written to ``edits``; completion markers in
    ``work_dir``."""

    chunk_lines: int = DEFAULT_CHUNK_LINES
    workers: int = 1
    engine: str = "local"
    ray_address: str | None = None
    ray_gpus: float = 0.0
    top: int = 0
    by_edit: bool = False
    edits: str | None = None
    work_dir: str | None = None
    report: ReportAsk | None = None  # what the HTML report and plots need (semcer.scale.report_fold)


@dataclass(frozen=True)
class Streamed:
    """A streamed run: the evaluation (its ``judged`` left out), the top list (edits or spans, most
    severe first), the number of edits written to the edit list (None without one), and WER and
    the page scores when they were asked for (:class:`semcer.scale.chunks.Beside`)."""

    evaluation: Evaluation
    top: tuple[Any, ...]
    edits_written: int | None
    wer: WerResult | None = None
    pages: PageScores | None = None
    digest: EditDigest | None = None  # for the report, when settings.report asked for it
    resumed: tuple[int, int] = (0, 0)  # chunks taken from the work folder's markers, of all chunks


def score_stream(pairs: Sequence[Pair] | JsonlSource, *, unit: Unit = "grapheme", policy: str | TextPolicy | None = None,
                 empty_ref: str = "error", judge: Any, store: Any = None, unmatched: Unmatched | None = None,
                 settings: StreamSettings = StreamSettings(), progress: bool = False,
                 before_edits: Callable[[Streamed], None] | None = None, beside: Beside = CER_ONLY,
                 provenance: Provenance | None = None, reading: Sequence[tuple[str, str]] = ()) -> Streamed:
    """Score ``pairs`` (a sequence, or a :class:`semcer.scale.reading.JsonlSource`) with ``judge`` in
    chunks (see the module documentation); ``beside`` asks for WER and the page scores in the same
    pass, equal to :func:`semcer.api.evaluation.word_errors` and ``page_scores`` over the same pairs;
    with ``provenance`` (pairs read from page files) every judged edit names its elements, as
    :func:`semcer.api.evaluation.evaluate` gives them. ``unmatched`` (the ids left unmatched and the
    policy they were paired under) and ``reading`` (:attr:`semcer.io.pairing.Paired.reading`) go
    into the signature, as ``evaluate`` puts them.

    ``before_edits(result)`` is called with the result before the edit list is written (so that a
    caller can emit the score first: a failing edit list cannot lose it)."""
    check_unit(unit)
    check_judged_unit(unit)
    check_empty_ref(empty_ref)
    if settings.engine not in ENGINES:
        raise SemcerError(f"unknown engine {settings.engine!r}; choose one of: {', '.join(ENGINES)}")
    if settings.chunk_lines < 1 or settings.workers < 1:
        raise SemcerError("chunk lines and workers must be at least 1")
    if not pairs:
        raise InputError("nothing to score: no lines")
    pol = get_policy(policy)
    if empty_ref == "error":
        _check_references(pairs, pol)
        if beside.tokenizer is not None:  # a line --wer cannot score stops the run before any judging
            check_word_references(((p.id, p.ref, p.hyp, p.lang) for p in _all_pairs(pairs)), beside.tokenizer,
                                  pol)
    unmatched = unmatched or Unmatched()
    with opened_judge(judge) as j, opened_store(store) as st, contextlib.ExitStack() as stack:
        folder = settings.work_dir or stack.enter_context(tempfile.TemporaryDirectory(prefix="semcer-stream-"))
        run = _Run(j, st, settings, folder, progress, len(pairs), stack)
        run.beside = _Beside(beside, pol, unit, unmatched.policy, reading, empty_ref=empty_ref)
        run.provenance = provenance
        tasks = chunk_tasks(pairs, settings.chunk_lines, unit=unit, policy=pol, empty_ref=empty_ref,
                            window=j.context_window, identity=j.identity, beside=beside)
        n_chunks = -(-len(pairs) // settings.chunk_lines)
        run.execute(tasks, n_chunks)
        sig = Signature.build(unit, pol, empty_ref, j.identity, unmatched=unmatched.policy, reading=reading)
        result = run.result(sig, unmatched)
        if run.report is not None:
            view = StreamedLines(pairs, run.rows, unit=unit, policy=pol, window=j.context_window, identity=j.identity,
                                 judgements=run.seen, provenance=provenance, skipped=len(run.skipped))
            result = replace(result, digest=run.report.digest(view))
        if before_edits is not None:
            before_edits(result)
        if run.spill is not None and settings.edits:
            result = replace(result, edits_written=run.spill.merge_into(settings.edits, n_chunks, signature=sig))
        return result


class _Run:
    """The parent's side of one streamed run: what it has folded in so far."""

    def __init__(self, judge: JudgeBase, store: JudgedEditStore | None, settings: StreamSettings, folder: str,
                 progress: bool, lines: int, stack: contextlib.ExitStack) -> None:
        self.judge, self.store, self.settings, self.stack = judge, store, settings, stack
        self.markers = Markers(folder) if settings.work_dir else None
        self.spill = EditSpill(folder) if settings.edits else None
        self.ask = FinishAsk(settings.top, settings.by_edit, folder if settings.edits else None, settings.report)
        self.executor: Any = None
        self.beside = _Beside(CER_ONLY, get_policy(None), "grapheme")
        self.report = None if settings.report is None else ReportFold(settings.report)
        self.provenance: Provenance | None = None
        self.rows = SpilledLines()  # every line (a block in memory, the others on disk)
        self.documents = DocumentFold()  # the documents' sums, folded as chunks land
        self.skipped: list[str] = []
        self.seen: dict[str, Judgement] = {}
        self.flying: set[str] = set()  # keys being judged for chunks in flight
        self.severity: dict[str, float | None] = {}  # of the same edits, computed once
        self.cache = no_stats()  # every chunk's store counters, summed
        self.earlier = no_stats()  # those of the chunks taken from markers (what the run that finished them did)
        self.resumed = (0, 0)  # chunks taken from markers, of all chunks (set by execute)
        self.top = TopList(settings.top, edit_rank if settings.by_edit else span_rank)
        self.line_bar = line_bar(lines, progress, desc="scoring")
        if self.line_bar is not None:
            stack.callback(self.line_bar.close)
        self.judge_bar: JudgeBar | None = judge_bar(judge, 0, progress) if judge.stats is not None else None
        if self.judge_bar is not None:
            stack.callback(self.judge_bar.close)

    def execute(self, tasks: Iterator[ChunkTask], n_chunks: int) -> None:
        self.resumed = (0, n_chunks)
        pending = self._resume(tasks)
        if pending is None:
            return
        executor = self.stack.enter_context(contextlib.closing(
            _executor(self.settings, self.judge, n_chunks, self.store, held=self.provenance is None)))
        self.executor = executor
        handed: dict[int, ChunkTask] = {}
        if getattr(executor, "held", False):
            self._execute_held(executor.prepared(_tee(pending, handed)), handed)
        else:
            flight: deque[_Dispatched] = deque()
            for prep in executor.prepared(_tee(pending, handed)):
                flight.append(self._dispatch(prep, handed.pop(prep.index), executor))
                if len(flight) >= executor.workers:
                    self._land(flight.popleft())
            while flight:
                self._land(flight.popleft())
        if not hasattr(executor, "refresh_stats"):
            executor.close()  # every chunk has landed: the workers' memory is given back before the result is built

    def _execute_held(self, preps: Iterator[HeldChunk], handed: dict[int, ChunkTask]) -> None:
        """Chunks held by their workers (:mod:`semcer.scale.held`): judged while earlier ones finish."""
        judging: deque[_Dispatched] = deque()
        finishing: deque[_Completed] = deque()
        workers = self.executor.workers
        for prep in preps:
            judging.append(self._dispatch_held(prep, handed.pop(prep.index)))
            if len(judging) >= workers:
                finishing.append(self._complete(judging.popleft()))
            if len(finishing) >= workers:
                self._land_held(finishing.popleft())
        while judging:
            finishing.append(self._complete(judging.popleft()))
        while finishing:
            self._land_held(finishing.popleft())

    def _new_edits(self, keys: Sequence[str]) -> dict[str, int]:
        """Key -> first position of the edits no earlier chunk has (judged, or being judged), so that
        any number of chunks in flight judge what one chunk at a time would."""
        new: dict[str, int] = {}
        seen, flying = self.seen, self.flying
        for pos, key in enumerate(keys):
            if key not in seen and key not in flying and key not in new:
                new[key] = pos
        flying.update(new)
        return new

    def _dispatch_held(self, prep: HeldChunk, task: ChunkTask) -> _Dispatched:
        new = self._new_edits(prep.keys)
        handle = self.executor.judge(prep.index, list(new.values())) if new else None
        return _Dispatched(prep, task, new, handle)

    def _complete(self, d: _Dispatched) -> _Completed:
        """The oldest chunk's new edits judged: counted, known to later chunks; its finish requested
        from its worker with the judgements of its other edits."""
        judged, ready, overwritten = d.handle.get() if d.handle is not None else ([], None, 0)
        keys = list(d.new)
        cache = (store_judged(self.judge.identity, keys, None, judged, None if ready is None else self.store, ready,
                              overwritten) if keys else CacheStats(0, 0, 0, 0, 0))
        cache.total = cast(HeldChunk, d.prep).edits
        fresh = tuple(zip(keys, judged))
        self.seen.update(fresh)
        self.severity.update((k, j.severity) for k, j in fresh)
        self.flying.difference_update(d.new)
        seen, new = self.seen, d.new
        known = [seen[k] for k in d.prep.keys if k not in new]  # distinct, in the order finish_held reads them
        return _Completed(d, fresh, cache, self.executor.finish(d.prep.index, known, self.ask))

    def _land_held(self, c: _Completed) -> None:
        self._fold(self._outcome(c.dispatched, c.fresh, c.cache, c.finishing.get()), len(c.dispatched.task.pairs))

    def _outcome(self, d: _Dispatched, fresh: tuple[tuple[str, Judgement], ...], cache: CacheStats,
                 fin: Finished) -> ChunkOutcome:
        """A finished chunk's outcome, its marker written unless an edit of it could not be judged (a
        rerun then takes the chunk again and sends only those edits: the others are in the store)."""
        outcome = ChunkOutcome(d.prep.index, self._fingerprint(d.task) if self.markers else "", fin.rows,
                               d.prep.skipped, fresh, cache, fin.candidates, d.prep.words, d.prep.pages, fin.digest)
        if self.markers is not None and not cache.failures:
            self.markers.save(outcome)
        return outcome

    def _dispatch(self, prep: Prepared, task: ChunkTask, executor: Any) -> _Dispatched:
        """Start judging a prepared chunk's distinct new edits (with workers, while earlier chunks land)."""
        new = {k: prep.contexts[p] for k, p in self._new_edits(prep.keys).items()}
        handle = executor.submit_offline(list(new.values()), list(new)) if new and self.judge.deterministic else None
        return _Dispatched(prep, task, new, handle)

    def _land(self, d: _Dispatched) -> None:
        """Finish the oldest chunk in flight and fold it in (chunks land in order)."""
        outcome = self._finish(d)
        self.flying.difference_update(d.new)
        self._fold(outcome, len(d.task.pairs))

    def _resume(self, tasks: Iterator[ChunkTask]) -> Iterator[ChunkTask] | None:
        """Fold in the finished chunks' markers; the tasks left (None when every chunk was finished)."""
        for task in tasks:
            done = self._marker(task)
            if done is None:
                self._warn_refused(task.index)
                return _chain_one(task, tasks)
            self._fold(done, len(task.pairs))
            self.earlier = added(self.earlier, done.cache)
            self.resumed = (self.resumed[0] + 1, self.resumed[1])
        return None

    def _warn_refused(self, index: int) -> None:
        """Say once (a warning: one line from the command) how many markers failed authentication."""
        refused = 0 if self.markers is None else self.markers.refused_from(index)
        if refused:
            warnings.warn(f"{refused} completion marker(s) in {self.settings.work_dir} failed authentication "
                          "(planted, damaged, or written under another key or by an older semcer) and were not "
                          "loaded: their chunks are done again", RuntimeWarning, stacklevel=2)

    def _marker(self, task: ChunkTask) -> ChunkOutcome | None:
        if self.markers is None:
            return None
        done = self.markers.load(task.index, self._fingerprint(task))
        if done is not None and self.spill is not None and not self.spill.path(task.index).is_file():
            return None
        return done

    def _fingerprint(self, task: ChunkTask) -> str:
        report = "" if self.settings.report is None else f":{self.settings.report.fingerprint()}"
        return f"{task_fingerprint(task)}:top={self.settings.top}:by_edit={self.settings.by_edit}{report}"

    def _finish(self, d: _Dispatched) -> ChunkOutcome:
        """Store a dispatched chunk's judgements (judging them here when no worker did) and finish it
        here; every earlier chunk has landed, so ``seen`` has all its other edits."""
        prep, task, new = cast(Prepared, d.prep), d.task, d.new  # a chunk this process finishes was prepared whole
        judgements, cache = self._judge_new(new, d.handle)
        fresh = tuple(zip(new, judgements))
        seen, sev = self.seen, self.severity
        lookup = dict(fresh)
        every = [lookup[k] if k in lookup else seen[k] for k in prep.keys]
        sev.update((k, j.severity) for k, j in fresh)  # once per distinct edit (the fold skips them)
        cache.total = len(prep.contexts)
        prov = self.provenance
        attach = None if prov is None else (lambda judged: prov.attach(judged, task.unit, task.policy))
        return self._outcome(d, fresh, cache, finish_chunk(prep, every, [sev[k] for k in prep.keys], self.ask, attach))

    def _judge_new(self, new: dict[str, EditContext], handle: Pending | None) -> tuple[list[Judgement], CacheStats]:
        j = self.judge
        if not new:
            return [], CacheStats(0, 0, 0, 0, 0)
        contexts, keys = list(new.values()), list(new)
        if handle is not None:
            judged, ready, overwritten = handle.get()
            return judged, store_judged(j.identity, keys, contexts, judged, None if ready is None else self.store,
                                        ready, overwritten)
        base = self.cache.judged - self.earlier.judged  # sent by this run so far (a resumed chunk's not)
        bar = self.judge_bar
        step = None if bar is None else (lambda d, t: bar(base + d, base + t))
        return judge_cached(self.executor.remote_judge(j), contexts, self.store, progress=step,
                            batch_size=j.preferred_batch_size, deterministic=j.deterministic, keys=keys)

    def _fold(self, outcome: ChunkOutcome, lines: int) -> None:
        table = as_table(outcome.rows)
        self.rows.extend(table)
        self.documents.fold(table)
        self.skipped.extend(outcome.skipped)
        self.seen.update(outcome.new)
        sev = self.severity
        sev.update((k, j.severity) for k, j in outcome.new if k not in sev)  # a resumed chunk's
        self.cache = added(self.cache, outcome.cache)
        self.top.offer(outcome.top)
        self.beside.fold(outcome)
        if self.report is not None:
            if outcome.report is None:
                raise SemcerError("a finished chunk has no report digest: start again without the work folder's markers")
            self.report.fold(outcome.report)
        if self.line_bar is not None:
            self.line_bar(lines)

    def _failed(self) -> list[Judgement]:
        """The failed judgements among the distinct edits judged (none when nothing failed)."""
        if not self.cache.failures:
            return []
        return [j for j in self.seen.values() if j.p is None]

    def result(self, signature: Signature, unmatched: Unmatched) -> Streamed:
        rows = self.rows
        agg = self.documents.aggregation(judged=True)
        stats = None
        if self.judge.stats is not None and hasattr(self.executor, "refresh_stats"):
            self.executor.refresh_stats()  # the requests were made by the Ray actors
            stats = self.executor.stats
        judging = streamed_judge_run(self.judge, self.cache, self.earlier, self.resumed[0], stats, failed=self._failed())
        ev = Evaluation(signature, rows, agg, tuple(self.skipped), None, judging, unmatched)
        return replace(Streamed(ev, tuple(self.top.items()), None, *self.beside.results()), resumed=self.resumed)


@dataclass(frozen=True)
class _Dispatched:
    """A chunk in flight: prepared, its distinct new edits handed to the judge (``new``: key ->
    context, or -> position in a held chunk; ``handle``: judged by workers; None: judged by the
    parent when the chunk lands, or nothing new)."""

    prep: Prepared | HeldChunk
    task: ChunkTask
    new: dict[str, Any]
    handle: Pending | None


@dataclass(frozen=True)
class _Completed:
    """A held chunk whose new edits are judged, being finished by its worker (``finishing.get()``)."""

    dispatched: _Dispatched
    fresh: tuple[tuple[str, Judgement], ...]
    cache: CacheStats
    finishing: Any


class _Beside:
    """The parent's sums of what is measured beside CER: the WER tally, the page scores so far."""

    def __init__(self, beside: Beside, policy: TextPolicy, unit: Unit, unmatched: str = "error",
                 reading: Sequence[tuple[str, str]] = (), *, empty_ref: str = "error") -> None:
        self.tally = None if beside.tokenizer is None else WerTally(beside.tokenizer, policy, empty_ref=empty_ref,
                                                                    unmatched=unmatched, reading=reading)
        self.page_score, self.policy, self.unit = beside.page_score, policy, unit
        self.page_signature = page_score_signature(unit, policy, unmatched=unmatched, reading=reading)
        self.page_ids: list[str] = []
        self.pages: list[LineAssignment] = []

    def fold(self, outcome: ChunkOutcome) -> None:
        if self.tally is not None:
            if outcome.words is None:
                raise SemcerError("a finished chunk has no WER words: start again without the work folder's markers")
            for line_id, doc, words in outcome.words:
                self.tally.add(line_id, doc, words)
        if self.page_score:
            if outcome.pages is None:
                raise SemcerError("a finished chunk has no page scores: start again without the work folder's markers")
            for line_id, page in outcome.pages:
                self.page_ids.append(line_id)
                self.pages.append(page)

    def results(self) -> tuple[WerResult | None, PageScores | None]:
        wer = None if self.tally is None else self.tally.result()
        pages = (PageScores(tuple(self.page_ids), tuple(self.pages), self.unit, self.policy.name, self.page_signature)
                 if self.page_score else None)
        return wer, pages


def _executor(settings: StreamSettings, judge: JudgeBase, n_chunks: int, store: JudgedEditStore | None, *,
              held: bool) -> Any:
    """Where the chunks go: Ray actors or worker processes that hold their chunks (``held``, for a
    deterministic judge with a spec), or that only prepare and judge; this process."""
    spec = judge.spec()
    spec_json = None if spec is None else spec.to_json()
    holding = spec_json if held and judge.deterministic else None  # the spec of a judge whose chunks are held
    if settings.engine == "ray":
        from semcer.scale.ray_engine import RayExecutor, RayHeldExecutor

        if holding is not None:
            return RayHeldExecutor(settings.workers, holding, judge.identity, settings.ray_address,
                                   stored=store is not None, gpus=settings.ray_gpus)
        return RayExecutor(settings.workers, spec_json, judge.identity, settings.ray_address, gpus=settings.ray_gpus)
    if settings.workers > 1 and n_chunks > 1:
        path = None if store is None or store.readonly else str(store.path)
        workers = min(settings.workers, n_chunks)
        if holding is not None:
            return HeldPoolExecutor(workers, holding, judge.identity, path, store is not None)
        return PoolExecutor(workers, spec_json, judge.identity, path, store is not None)
    return InlineExecutor()


def _chain_one(first: ChunkTask, rest: Iterator[ChunkTask]) -> Iterator[ChunkTask]:
    yield first
    yield from rest


def _tee(tasks: Iterator[ChunkTask], handed: dict[int, ChunkTask]) -> Iterator[ChunkTask]:
    """``tasks``, each also kept in ``handed`` by index as it is handed out (the parent needs it back)."""
    for t in tasks:
        handed[t.index] = t
        yield t


def _all_pairs(pairs: Sequence[Pair] | JsonlSource) -> Iterable[Pair]:
    return pairs.pairs() if isinstance(pairs, JsonlSource) else pairs


def _check_references(pairs: Sequence[Pair] | JsonlSource, pol: TextPolicy) -> None:
    """Raise the error of the first reference that is empty after ``pol`` before any chunk is judged,
    as the alignment of one pass over all lines would (a :class:`JsonlSource` whose check pass looked
    for them under ``pol`` is not read again)."""
    if isinstance(pairs, JsonlSource) and pairs.empty_checked == pol:
        return
    empty = first_empty_reference(_all_pairs(pairs), pol)
    if empty is not None:
        raise empty_reference_error(empty, pol)


def unmatched_of(paired: Any) -> Unmatched:
    """The ids a :class:`semcer.io.pairing.Paired` left unmatched, and the policy it was paired under."""
    return Unmatched(paired.dropped_refs, paired.dropped_hyps, paired.empty_hyps, paired.unmatched)
