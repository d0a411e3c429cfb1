"""The Ray engine: chunks held by Ray actors (the offline judges), or prepared by Ray Data
(``map_batches``) and judged by actors (an LLM judge).

The parent cuts the corpus into chunks as for the local engine. With a deterministic judge that has
a spec (``compact``, ``rubric``, a student), :class:`RayHeldExecutor` gives each chunk to one actor
for its whole life, as the local engine gives it to one worker process (:mod:`semcer.scale.held`:
the actor prepares it and keeps its edit contexts, judges the edits the parent names as new,
finishes it; only keys, judgements and the finished rows travel). Otherwise (an LLM judge)
:class:`RayExecutor` hands the chunks to Ray Data in windows of a few chunks per worker
(``ray.data.from_items`` of the pickled chunks, prepared in ``map_batches``, read back in order),
and the parent looks each batch up in the store first and sends only the misses, spread over actors.
Every actor rebuilds the judge from its :class:`semcer.judges.base.JudgeSpec` (an API key only ever
by the name of the environment variable holding it, read where the actor runs). The parent alone
writes the store (a node may not see its file) and aggregates, so the result and its signature are
those of the local engine.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
import signal
import socket
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from semcer.alignment.context import EditContext
from semcer.errors import SemcerError
from semcer.judges.base import JudgeBase, JudgeStats
from semcer.judges.distribution import Judgement
from semcer.scale.chunks import ChunkTask, Prepared, judge_from_spec, judge_part, judge_ready, prepare_chunk
from semcer.scale.executors import Pending, in_order, pieces, split
from semcer.scale.finishing import FinishAsk, Finished
from semcer.scale.held import HeldChunk, finish_held, judge_held, prepare_held
from semcer.scale.workers import RESUME_HINT, WorkerDied
from semcer.store.sqlite import ReadyRows

#: Chunks per worker in one Ray Data dataset: each dataset costs a start-up (its plan, its tasks).
WINDOW_PER_WORKER = 8

RAY_HINT = "--engine ray needs Ray: pip install 'semcer[ray]'"


def import_ray() -> Any:
    """The ``ray`` module, or a one-line error naming the extra."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise SemcerError(RAY_HINT) from None
    return ray


def _prepare_batch(batch: dict[str, Any]) -> dict[str, Any]:
    """Ray Data's ``map_batches`` function: each pickled chunk prepared, pickled back."""
    import numpy as np

    out = [pickle.dumps(prepare_chunk(pickle.loads(bytes(b))), protocol=pickle.HIGHEST_PROTOCOL)
           for b in batch["task"]]
    return {"index": np.asarray(batch["index"]), "prepared": np.array(out, dtype=object)}


class JudgeActor:
    """A Ray actor holding one judge rebuilt from its spec."""

    def __init__(self, spec_json: str, identity: str) -> None:
        self._spec, self._identity = spec_json, identity

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        return judge_part(self._spec, self._identity, contexts)

    def judge_ready(self, contexts: Sequence[EditContext],
                    keys: Sequence[str]) -> tuple[list[Judgement], ReadyRows | None, int]:
        return judge_ready(self._spec, self._identity, contexts, keys)  # the parent writes: a node may not see the file

    def stats(self) -> dict[str, Any] | None:
        s = judge_from_spec(self._spec, self._identity).stats
        return None if s is None else s.as_dict()


def _start_ray(ray: Any, address: str | None, gpus: float) -> bool:
    """Connect to ``address`` (or start a local Ray) unless Ray is already initialised, and check that
    an actor reserving ``gpus`` GPUs can be placed (:func:`check_gpus`); quiet, in order. True when
    this call started it (and so shuts it down); a one-line error, Ray shut down again, when it
    cannot connect or place an actor.

    Ray's own loggers are set to errors first: Ray Data logs every dataset's plan at INFO, and a new
    local Ray announces at WARNING that it turned token authentication on (it stays on; an explicit
    ``RAY_AUTH_MODE`` is Ray's to honour)."""
    for name in ("ray", "ray.data"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if ray.is_initialized():
        check_gpus(ray, gpus)
        return False
    _check_reachable(address)
    try:
        with _signal_handlers_kept():
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                     configure_logging=False)
    except ConnectionError as exc:  # "auto" with no cluster running, a cluster that went away
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SemcerError(f"--ray-address {address}: cannot connect to a Ray cluster: {first}") from None
    except ValueError as exc:  # an address Ray cannot parse ("nonsense")
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SemcerError(f"--ray-address {address}: not a Ray address ({first}); give auto, HOST:PORT or "
                          "ray://HOST:PORT") from None
    try:
        check_gpus(ray, gpus)
    except SemcerError:
        ray.shutdown()
        raise
    return True


#: Seconds to wait for a Ray cluster's address to accept a connection before saying it cannot be reached
#: (Ray itself retries for a minute or more, printing a warning every few seconds).
REACH_TIMEOUT_S = 5.0


@contextlib.contextmanager
def _signal_handlers_kept() -> Iterator[None]:
    """The process's handlers of SIGTERM, SIGINT and SIGHUP as they were before the block (in the
    main thread): ``ray.init`` installs its own, and a stopped run must still end the way a local
    one does (``semcer: stopped by SIGTERM``, status 143, the work folder's markers kept)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = ("SIGTERM", "SIGINT", "SIGHUP")
    saved = {sig: signal.getsignal(sig) for sig in (getattr(signal, n) for n in names if hasattr(signal, n))}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)


def _check_reachable(address: str | None) -> None:
    """A one-line error when ``address`` names a host and port (``HOST:PORT`` or ``ray://HOST:PORT``)
    that does not accept a TCP connection within :data:`REACH_TIMEOUT_S`; other forms (none, ``local``,
    ``auto``) are Ray's to resolve."""
    if not address or address in ("local", "auto"):
        return
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        return  # not a host and port: Ray says what it makes of it
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT_S).close()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise SemcerError(f"--ray-address {address}: cannot reach a Ray cluster there ({why})") from None


def check_gpus(ray: Any, gpus: float) -> None:
    """A one-line error when every actor is to reserve ``gpus`` GPUs and no live node of the cluster
    has that many: Ray would wait for such a node for ever, in silence. An autoscaling cluster's
    nodes that do not exist yet are not waited for: start them first."""
    if gpus <= 0:
        return
    most = max((float(n.get("Resources", {}).get("GPU", 0.0)) for n in ray.nodes() if n.get("Alive")), default=0.0)
    if most < gpus:
        raise SemcerError(f"--ray-gpus {gpus:g}: no node of the Ray cluster has {gpus:g} GPU(s) for an actor "
                          f"(the most on one node: {most:g})")


def _end(ray: Any, actors: Sequence[Any], started: bool) -> None:
    """Kill ``actors``, and shut Ray down when this run ``started`` it."""
    for a in actors:
        ray.kill(a)
    if started:
        ray.shutdown()


def _loaded(task: ChunkTask) -> ChunkTask:
    """``task`` with its lines carried along (a node of the cluster may not see the files)."""
    return replace(task, pairs=task.pairs.loaded()) if hasattr(task.pairs, "loaded") else task


class HeldActor:
    """A Ray actor holding chunks from preparation to finish (:mod:`semcer.scale.held`'s steps, in
    the actor's own process; Ray runs one caller's calls to an actor in the order they were made)."""

    def prepare(self, task: ChunkTask) -> HeldChunk:
        return prepare_held(task)

    def judge(self, index: int, positions: Sequence[int], spec_json: str, identity: str,
              stored: bool) -> tuple[list[Judgement], ReadyRows | None, int]:
        return judge_held(index, positions, spec_json, identity, None, stored)  # the parent writes the store

    def finish(self, index: int, known: Sequence[Judgement], ask: FinishAsk) -> Finished:
        return finish_held(index, known, ask)


def _ray_get(ray: Any, refs: Any) -> Any:
    """``ray.get(refs)``, except that a stop signal's exception raised while it waits (Ctrl-C's
    KeyboardInterrupt, SIGTERM's ``semcer.cli.Stopped``: a BaseException that is no Exception) comes
    out as itself: Ray's waiting loop turns any but KeyboardInterrupt into a SystemError."""
    try:
        return ray.get(refs)
    except SystemError as exc:
        cause = exc.__cause__
        if isinstance(cause, BaseException) and not isinstance(cause, Exception):
            raise cause from None
        raise


class _Answer:
    """A Ray call's result as the pipeline waits for it (``get()``); a lost actor is :class:`WorkerDied`."""

    __slots__ = ("_ray", "_ref")

    def __init__(self, ray: Any, ref: Any) -> None:
        self._ray, self._ref = ray, ref

    def get(self) -> Any:
        try:
            return _ray_get(self._ray, self._ref)
        except self._ray.exceptions.RayActorError as exc:
            raise WorkerDied(f"a Ray actor holding chunks died: {str(exc).splitlines()[0]}; {RESUME_HINT}") from None


class RayHeldExecutor:
    """``workers`` :class:`HeldActor` (each reserving ``gpus`` GPUs), chunk ``i`` held by actor
    ``i % workers``, the interface of :class:`semcer.scale.held.HeldPoolExecutor`; connects to
    ``address`` (or starts a local Ray) unless Ray is already initialised."""

    held = True

    def __init__(self, workers: int, spec_json: str, identity: str, address: str | None, *, stored: bool,
                 gpus: float = 0.0) -> None:
        self.ray = import_ray()
        self.workers, self._spec, self._identity, self._stored = workers, spec_json, identity, stored
        self._started = _start_ray(self.ray, address, gpus)
        cls = self.ray.remote(num_cpus=0, num_gpus=gpus, scheduling_strategy="SPREAD")(HeldActor)
        self._actors = [cls.remote() for _ in range(workers)]

    def _actor(self, index: int) -> Any:
        return self._actors[index % self.workers]

    def prepared(self, tasks: Iterator[ChunkTask]) -> Iterator[HeldChunk]:
        return in_order((_Answer(self.ray, self._actor(t.index).prepare.remote(_loaded(t))) for t in tasks),
                        self.workers + 1)

    def judge(self, index: int, positions: Sequence[int]) -> Pending:
        part = _Answer(self.ray, self._actor(index).judge.remote(index, list(positions), self._spec, self._identity,
                                                                 self._stored))
        return Pending(lambda: [part.get()])

    def finish(self, index: int, known: Sequence[Judgement], ask: FinishAsk) -> _Answer:
        return _Answer(self.ray, self._actor(index).finish.remote(index, list(known), ask))

    def close(self) -> None:
        _end(self.ray, self._actors, self._started)
        self._actors, self._started = [], False


class RayExecutor:
    """Ray Data for preparing chunks, ``workers`` judge actors (each reserving ``gpus`` GPUs: a
    student or a local model on GPU nodes; Ray hides the GPUs from an actor that reserves none);
    connects to ``address`` (or starts a local Ray) unless Ray is already initialised."""

    def __init__(self, workers: int, spec_json: str | None, identity: str, address: str | None, *,
                 gpus: float = 0.0) -> None:
        self.ray = import_ray()
        if spec_json is None:
            raise SemcerError("--engine ray needs a judge that can be rebuilt from its spec (a built-in judge)")
        self.workers, self._spec, self._identity, self._gpus = workers, spec_json, identity, gpus
        self._started = _start_ray(self.ray, address, gpus)
        ctx = self.ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True
        ctx.enable_progress_bars = False
        self._actors: list[Any] = []
        self.stats: JudgeStats | None = None

    def _pool(self) -> list[Any]:
        if not self._actors:
            cls = self.ray.remote(num_cpus=0, num_gpus=self._gpus, scheduling_strategy="SPREAD")(JudgeActor)
            self._actors = [cls.remote(self._spec, self._identity) for _ in range(self.workers)]
        return self._actors

    def prepared(self, tasks: Iterator[ChunkTask]) -> Iterator[Prepared]:
        window: list[dict[str, Any]] = []
        for task in map(_loaded, tasks):
            window.append({"index": task.index, "task": pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)})
            if len(window) >= WINDOW_PER_WORKER * self.workers:
                yield from self._run(window)
                window = []
        if window:
            yield from self._run(window)

    def _run(self, window: list[dict[str, Any]]) -> Iterator[Prepared]:
        ds = self.ray.data.from_items(window).map_batches(_prepare_batch, batch_size=1, batch_format="numpy")
        for row in ds.iter_rows():
            yield pickle.loads(bytes(row["prepared"]))

    def submit_offline(self, contexts: Sequence[EditContext], keys: Sequence[str]) -> Pending:
        actors = self._pool()
        refs = [actors[n % len(actors)].judge_ready.remote(c, k)
                for n, (c, k) in enumerate(pieces(contexts, keys, self.workers))]
        return Pending(lambda: _ray_get(self.ray, refs))

    def _spread(self, parts: Sequence[Sequence[EditContext]]) -> list[Judgement]:
        actors = self._pool()
        refs = [actors[n % len(actors)].judge.remote(list(p)) for n, p in enumerate(parts)]
        return [j for part in _ray_get(self.ray, refs) for j in part]

    def remote_judge(self, judge: JudgeBase) -> JudgeBase:
        return _RemoteJudge(self, judge)

    def refresh_stats(self) -> None:
        """The actors' counters summed (requests, retries, tokens), for the run's summary."""
        got = [s for s in _ray_get(self.ray, [a.stats.remote() for a in self._pool()]) if s is not None]
        if not got:
            return
        total = JudgeStats()
        for s in got:
            for name, value in s.items():
                if name == "tokens_reported":
                    total.tokens_reported = total.tokens_reported or bool(value)
                else:
                    setattr(total, name, getattr(total, name) + value)
        self.stats = total

    def close(self) -> None:
        _end(self.ray, self._actors, self._started)
        self._actors, self._started = [], False


class _RemoteJudge(JudgeBase):
    """The judge as the parent sees it through the actors: same identity and batch size; each batch
    (the store's misses) spread over the actors."""

    def __init__(self, executor: RayExecutor, judge: JudgeBase) -> None:
        self._executor, self._judge = executor, judge

    @property
    def identity(self) -> str:
        return self._judge.identity

    @property
    def preferred_batch_size(self) -> int:
        return self._judge.preferred_batch_size

    @property
    def deterministic(self) -> bool:
        return self._judge.deterministic

    @property
    def context_window(self) -> int:
        return self._judge.context_window

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        return self._executor._spread(split(contexts, self._executor.workers))
