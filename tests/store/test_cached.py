"""Judging through the store (semcer.store.cached.judge_cached): each distinct edit judged once,
failures never stored, and a run killed at any moment resumed without judging anything twice."""

from __future__ import annotations

import dataclasses
import json
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import SRC, RecordingJudge, make_ctx, p_of

from semcer.errors import JudgeError
from semcer.judges.base import FixedJudge
from semcer.judges.distribution import Judgement
from semcer.store.cached import CacheStats, judge_cached
from semcer.store.sqlite import JudgedEditStore


def test_duplicate_contexts_are_judged_once_and_returned_in_order(tmp_path):
    distinct = [make_ctx(i) for i in range(30)]
    # The same edit on other lines of other documents: identical content, different place.
    contexts = [dataclasses.replace(distinct[i % 30], line_id=f"l{i}", doc=f"d{i % 4}") for i in range(90)]
    for store in (None, JudgedEditStore(tmp_path / "s.sqlite")):
        judge = RecordingJudge()
        seen: list[tuple[int, int]] = []
        results, stats = judge_cached(judge, contexts, store, batch_size=7, progress=lambda d, t, seen=seen: seen.append((d, t)))
        assert sorted(judge.judged) == sorted(c.content_key() for c in distinct)
        assert [r.p for r in results] == [p_of(c) for c in contexts]
        assert stats == CacheStats(total=90, unique=30, hits=0, judged=30, failures=0)
        assert [len(b) for b in judge.calls] == [7, 7, 7, 7, 2]
        assert seen == [(0, 30), (7, 30), (14, 30), (21, 30), (28, 30), (30, 30)]  # (0, n): before the first batch
        if store is not None:
            again = RecordingJudge()
            results2, stats2 = judge_cached(again, contexts, store)
            assert again.calls == [] and results2 == results
            assert stats2 == CacheStats(total=90, unique=30, hits=30, judged=0, failures=0)
            store.close()


def test_failures_are_not_stored_and_are_judged_again(tmp_path):
    contexts = [make_ctx(i) for i in range(20)]
    failing = {contexts[3].content_key(), contexts[11].content_key()}
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        first = RecordingJudge(fail=failing)
        results, stats = judge_cached(first, contexts, store, batch_size=8)
        assert stats.failures == 2 and stats.judged == 20
        assert results[3].p is None and results[3].failure == "timeout"
        assert len(store) == 18
        second = RecordingJudge()
        results, stats = judge_cached(second, contexts, store)
        assert sorted(second.judged) == sorted([contexts[3].content_key(), contexts[11].content_key()])
        assert stats == CacheStats(total=20, unique=20, hits=18, judged=2, failures=0)
        assert all(r.p is not None for r in results) and len(store) == 20


def test_judge_returning_wrong_count_is_an_error(tmp_path):
    class Short:
        identity = "short"

        def judge(self, contexts):
            return [Judgement(p_of(c)) for c in contexts][:-1]

    with pytest.raises(JudgeError, match="returned 2 judgements for 3"):
        judge_cached(Short(), [make_ctx(i) for i in range(3)], None)


def test_fixed_judge_through_the_store(tmp_path):
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        judge = FixedJudge(p=(0.0, 0.25, 0.25, 0.5, 0.0))
        results, _ = judge_cached(judge, [make_ctx(i) for i in range(5)], store)
        assert store.judges() == [(judge.identity, 5)]
        assert results[0].severity == pytest.approx(0.5625)


# -- a run killed mid-way ------------------------------------------------------------------------

_KILLED_RUN = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    from semcer.alignment.context import EditContext
    from semcer.judges.distribution import Judgement
    from semcer.store.cached import judge_cached
    from semcer.store.sqlite import JudgedEditStore

    contexts_path, store_path, log_path, ready_path = sys.argv[2:6]
    block_on, pause = int(sys.argv[6]), float(sys.argv[7])

    class Recording:
        identity = "recording:v1"
        calls = 0

        def judge(self, contexts):
            self.calls += 1
            if self.calls == block_on:  # this batch is in flight when the parent kills us
                open(ready_path, "w").close()
                time.sleep(600)
            time.sleep(pause)
            out = [Judgement((0.0, 0.5, 0.5, 0.0, 0.0)) for c in contexts]
            with open(log_path, "a") as fh:  # recorded as judged only once the judge has answered
                fh.write("".join(JudgedEditStore.key(self.identity, c) + "\\n" for c in contexts))
            return out

    with open(contexts_path, encoding="utf-8") as fh:
        contexts = [EditContext(**c) for c in json.load(fh)]
    with JudgedEditStore(store_path) as store:
        judge_cached(Recording(), contexts, store, batch_size=8)
    open(ready_path + ".done", "w").close()
    """
)


def _run_killable(tmp_path: Path, log: Path, *, block_on: int, pause: float) -> subprocess.Popen:
    """A run judging 120 edits (60 distinct, each twice) in batches of 8, logging what it judged."""
    script, contexts = tmp_path / "killed_run.py", tmp_path / "contexts.json"
    script.write_text(_KILLED_RUN, encoding="utf-8")
    rows = [dataclasses.asdict(make_ctx(i % 60, line_id=str(i))) for i in range(120)]
    contexts.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    args = [sys.executable, str(script), str(SRC), str(contexts), str(tmp_path / "store.sqlite"),
            str(log), str(tmp_path / "ready"), str(block_on), str(pause)]
    return subprocess.Popen(args)


def _logged(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [line for line in log.read_text().splitlines() if len(line) == 64]


def _wait_for(condition, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "timed out waiting for the run"
        time.sleep(0.01)


def _rerun_and_check(tmp_path: Path, log1: Path) -> tuple[list[str], list[str]]:
    first = _logged(log1)
    expected = {JudgedEditStore.key("recording:v1", make_ctx(i)) for i in range(60)}
    with JudgedEditStore(tmp_path / "store.sqlite") as store:
        stored_after_kill = len(store)
        log2 = tmp_path / "log2"
        proc = _run_killable(tmp_path, log2, block_on=0, pause=0.0)
        assert proc.wait(timeout=60) == 0
        second = _logged(log2)
        assert set(first) | set(second) == expected  # none lost
        assert len(store) == 60 == stored_after_kill + len(second)
        assert len(set(second)) == len(second)
    return first, second


def test_killed_run_is_resumed_without_judging_anything_twice(tmp_path):
    log1 = tmp_path / "log1"
    proc = _run_killable(tmp_path, log1, block_on=4, pause=0.0)
    _wait_for(lambda: (tmp_path / "ready").exists(), proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    first, second = _rerun_and_check(tmp_path, log1)
    assert len(first) == 3 * 8  # three batches judged and stored, the fourth in flight and lost
    assert not set(first) & set(second)  # nothing judged twice


def test_killed_at_a_random_moment_loses_at_most_the_batch_in_flight(tmp_path):
    log1 = tmp_path / "log1"
    proc = _run_killable(tmp_path, log1, block_on=0, pause=0.02)
    _wait_for(lambda: len(_logged(log1)) >= 16, proc)
    time.sleep(random.uniform(0.0, 0.04))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    if (tmp_path / "ready.done").exists():
        pytest.skip("the run finished before the kill")  # pragma: no cover
    first, second = _rerun_and_check(tmp_path, log1)
    twice = set(first) & set(second)
    assert len(twice) <= 8 and twice <= set(first[-8:])  # only the last batch, judged but not yet stored


# -- one-hot fallbacks (issue 11, item 4) ----------------------------------------------------------


class _Answering:
    """An LLM-like judge: one-hot readings (no probabilities came back) until the server is fixed."""

    identity = "llm/t1:openai:model=tiny:labels=0|1|2|3|4"

    def __init__(self, fixed: bool) -> None:
        self.fixed, self.judged = fixed, 0

    def judge(self, contexts):
        self.judged += len(contexts)
        if self.fixed:
            return [Judgement(p_of(c), flags=("label_mass=0.98",)) for c in contexts]
        return [Judgement((0.0, 0.0, 1.0, 0.0, 0.0), flags=("one-hot",)) for c in contexts]


def test_the_store_skips_the_llm_judges_one_hot_flag():
    from semcer.judges.llm import ONE_HOT_FLAG
    from semcer.store.sqlite import ONE_HOT_FLAG as STORE_FLAG

    assert STORE_FLAG == ONE_HOT_FLAG == "one-hot"


def test_one_hot_fallbacks_are_used_but_never_stored(tmp_path):
    contexts = [make_ctx(i) for i in range(12)]
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        broken = _Answering(fixed=False)
        first, stats = judge_cached(broken, contexts, store, batch_size=5)
        assert [j.p for j in first] == [(0.0, 0.0, 1.0, 0.0, 0.0)] * 12 and stats.judged == 12
        assert len(store) == 0  # not stored: the next run asks again
        assert store.put_many([(store.key("j", contexts[0]), "j", contexts[0], first[0])]) == 0

        fixed = _Answering(fixed=True)
        second, stats = judge_cached(fixed, contexts, store)
        assert fixed.judged == 12 and stats.hits == 0
        assert [j.p for j in second] == [p_of(c) for c in contexts]
        assert len(store) == 12
        third, stats = judge_cached(_Answering(fixed=True), contexts, store)
        assert stats.hits == 12 and [j.p for j in third] == [p_of(c) for c in contexts]


def test_one_hot_rows_stored_by_an_older_semcer_are_asked_again_and_replaced(tmp_path):
    import sqlite3

    contexts = [make_ctx(i) for i in range(8)]
    path = tmp_path / "s.sqlite"
    with JudgedEditStore(path) as store:
        judge_cached(_Answering(fixed=True), contexts, store)
    with sqlite3.connect(path) as conn:  # what an older semcer stored from a server without logprobs
        conn.execute("UPDATE judged_edits SET p0 = 0, p1 = 0, p2 = 1, p3 = 0, p4 = 0, flags = '[\"one-hot\"]'")
    conn.close()
    with JudgedEditStore(path) as store:
        keys = [store.key(_Answering.identity, c) for c in contexts]
        found = store.get_many(keys)
        assert found == {} and sorted(found.one_hot) == sorted(keys)
        fixed = _Answering(fixed=True)
        results, stats = judge_cached(fixed, contexts, store)
        assert stats.stale == 8 and stats.hits == 0 and fixed.judged == 8
        assert [j.p for j in results] == [p_of(c) for c in contexts]
        stored = store.get_many(keys)
        assert [stored[k].p for k in keys] == [p_of(c) for c in contexts]  # replaced


def test_a_judge_returning_an_invalid_distribution_is_refused_even_without_a_store():
    import pytest

    import semcer
    from semcer.errors import JudgeError
    from semcer.judges import FixedJudge

    with pytest.raises(JudgeError, match="invalid judgement: p has a value outside"):
        semcer.evaluate(["ab"], ["ax"], judge=FixedJudge((2.0, 0.0, 0.0, 0.0, 0.0)))
    with pytest.raises(JudgeError, match="p sums to"):
        semcer.evaluate(["ab"], ["ax"], judge=FixedJudge((0.5, 0.0, 0.0, 0.0, 0.0)))
