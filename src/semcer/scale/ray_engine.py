"""The Ray engine: chunks prepared by Ray Data (``map_batches``), judges in Ray actors.

The parent cuts the corpus into chunks as for the local engine and hands them to Ray Data in
windows of a few chunks per worker (``ray.data.from_items`` of the pickled chunks, prepared in
``map_batches``, read back in order). Judging goes to actors that each rebuild the judge from its
:class:`semcer.judges.base.JudgeSpec` (an API key only ever by the name of the environment variable
holding it, read where the actor runs): for an offline judge the distinct new edits of a chunk are
split among the actors; for an LLM judge the parent looks each batch up in the store first and
sends only the misses, spread over the actors. The parent alone writes the store and aggregates,
so the result and its signature are those of the local engine.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from semcer.alignment.context import EditContext
from semcer.errors import SemcerError
from semcer.judges.base import JudgeBase, JudgeStats
from semcer.judges.distribution import Judgement
from semcer.scale.chunks import ChunkTask, Prepared, judge_from_spec, judge_part, judge_ready, prepare_chunk
from semcer.scale.executors import Pending, pieces, split
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
        self._started = False
        if not self.ray.is_initialized():
            self.ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                          configure_logging=False)
            self._started = True
        for name in ("ray", "ray.data"):  # Ray Data logs every dataset's plan at INFO on standard error
            logging.getLogger(name).setLevel(logging.ERROR)
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
        for task in tasks:
            if hasattr(task.pairs, "loaded"):  # the lines travel: a node of the cluster may not see the files
                task = replace(task, pairs=task.pairs.loaded())
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
        return Pending(lambda: self.ray.get(refs))

    def _spread(self, parts: Sequence[Sequence[EditContext]]) -> list[Judgement]:
        actors = self._pool()
        refs = [actors[n % len(actors)].judge.remote(list(p)) for n, p in enumerate(parts)]
        return [j for part in self.ray.get(refs) for j in part]

    def remote_judge(self, judge: JudgeBase) -> JudgeBase:
        return _RemoteJudge(self, judge)

    def refresh_stats(self) -> None:
        """The actors' counters summed (requests, retries, tokens), for the run's summary."""
        got = [s for s in self.ray.get([a.stats.remote() for a in self._pool()]) if s is not None]
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
        for a in self._actors:
            self.ray.kill(a)
        self._actors = []
        if self._started:
            self.ray.shutdown()


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
