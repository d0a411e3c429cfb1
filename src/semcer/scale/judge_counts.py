"""What a streamed run's judging did, told apart from what the chunks it resumed had done before.

A run started again with the same work folder takes its finished chunks from their completion
markers (:mod:`semcer.scale.markers`): their lines are not aligned and their edits not judged
again, yet each marker keeps the store counters of the run that finished the chunk. Summed in,
they would have a run that resumed every chunk in a second report thousands of edits ``sent``
to the judge. So the counters of the resumed chunks are kept apart (:class:`StreamedJudgeRun`):
``cache_hits``, ``sent`` and ``judged`` are this run's, and ``resumed`` says what the earlier run
did for the chunks taken from markers. The scores do not depend on any of this.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from semcer.judges.base import JudgeBase, JudgeStats
from semcer.judges.distribution import Judgement
from semcer.store.cached import CacheStats
from semcer.store.judging import JudgeRun, judge_run

#: The store's anomaly counters, shown only when they happened (as :meth:`JudgeRun.to_dict` does).
_ANOMALIES = ("corrupt", "stale", "overwritten")


def no_stats() -> CacheStats:
    return CacheStats(0, 0, 0, 0, 0)


def added(a: CacheStats, b: CacheStats, sign: int = 1) -> CacheStats:
    """The counters of ``a`` and ``b`` together (``sign=-1``: those of ``a`` less ``b``'s)."""
    return CacheStats(*(getattr(a, f.name) + sign * getattr(b, f.name) for f in fields(CacheStats)))


@dataclass(frozen=True)
class StreamedJudgeRun(JudgeRun):
    """A streamed run's :class:`JudgeRun`. ``edits`` and ``unique_edits`` count the whole corpus, and
    ``failures`` (with ``failure_reasons``) every edit of the result left without a judgement, a
    resumed chunk's included (semCER waits for them: the exit status says so); ``cache_hits``,
    ``sent``, ``judged``, the store's anomalies and the requests are what this run did. ``resumed``:
    for the chunks taken from the work folder's markers (``chunks`` of them), what the run that
    finished them did (``cache_hits``, ``sent``, ``judged``, ``failures``); empty when none was.
    This run's failures are ``failures`` less ``resumed["failures"]``, so that ``sent == judged +``
    those, as in a run that resumed nothing."""

    resumed: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.resumed:
            out["resumed"] = dict(self.resumed)
        return out


def streamed_judge_run(judge: JudgeBase, cache: CacheStats, earlier: CacheStats, chunks: int,
                       stats: JudgeStats | None = None, *, failed: list[Judgement]) -> JudgeRun:
    """The :class:`StreamedJudgeRun` of a run whose chunks' counters sum to ``cache``, ``earlier``
    being those of the ``chunks`` chunks it resumed (a plain :class:`JudgeRun` when it resumed none:
    the same as before resumption was told apart)."""
    if not chunks:
        return judge_run(judge, cache, stats, failed=failed)
    now = replace(added(cache, earlier, -1), total=cache.total, unique=cache.unique)  # the corpus's edits, still
    this = judge_run(judge, now, stats, failed=failed)
    resumed = [("chunks", chunks), ("cache_hits", earlier.hits), ("sent", earlier.judged),
               ("judged", earlier.judged - earlier.failures), ("failures", earlier.failures)]
    resumed += [(name, getattr(earlier, name)) for name in _ANOMALIES if getattr(earlier, name)]
    told = StreamedJudgeRun(**{f.name: getattr(this, f.name) for f in fields(this)})
    return replace(told, failures=cache.failures, resumed=tuple(resumed))
