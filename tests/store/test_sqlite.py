"""The judged-edit store: keys, lookups, concurrent writers, killed runs, Parquet round trips, CLI."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import multiprocessing
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from semcer.cli import main
from semcer.errors import JudgeError, StoreError
from semcer.judges.base import MARK_CLOSE, MARK_OPEN, EditContext, FixedJudge, Judgement
from semcer.store import SCHEMA_VERSION, CacheStats, JudgedEditStore, judge_cached

SRC = Path(__file__).resolve().parent.parent / "src"

# (lang, reference line, output line): real text in several scripts.
LINES = [
    ("vi", "Hà Nội mùa thu", "Hà Nội mùa thư"),
    ("de", "Schiebeanzahl muss 0 oder 16 sein", "Schiebeanzahl muss 0 oder 11 sein"),
    ("zh", "请输入有效的日期", "请输入有效的日明"),
    ("hi", "फ़ाइल खोलने में त्रुटि", "फ़ाइल खोलने मे त्रुटि"),
    ("th", "ไม่สามารถเปิดไฟล์ได้", "ไม่สามารถปิดไฟล์ได้"),
    ("fr", "Impossible d’ouvrir « rapport.pdf »", "Impossible d'ouvrir « rapport.pdf »"),
    ("en", "Amount due: 1,250.00 EUR", "Amount due: 1,750.00 EUR"),
]


def _mark(text: str, pos: int, unit: str, length: int) -> str:
    return f"{text[:pos]}{MARK_OPEN}{unit}{MARK_CLOSE}{text[pos + length:]}"


def make_ctx(i: int, *, line_id: str = "", doc: str = "", lang: str | None = None) -> EditContext:
    """The i-th distinct edit: a substitution, deletion or insertion in one of LINES (code-point positions)."""
    base_lang, ref, hyp = LINES[i % len(LINES)]
    op = "SDI"[(i // len(LINES)) % 3]
    pos = (i // (3 * len(LINES))) % min(len(ref), len(hyp))
    variant = i // (3 * len(LINES) * min(len(ref), len(hyp)))
    ref = ref + " " * variant  # keeps every i distinct
    if op == "S":
        r_unit, h_unit = ref[pos], hyp[pos]
        marked_ref, marked_hyp = _mark(ref, pos, r_unit, 1), _mark(hyp, pos, h_unit, 1)
    elif op == "D":
        r_unit, h_unit = ref[pos], ""
        marked_ref, marked_hyp = _mark(ref, pos, r_unit, 1), _mark(hyp, pos, "", 0)
    else:
        r_unit, h_unit = "", hyp[pos]
        marked_ref, marked_hyp = _mark(ref, pos, "", 0), _mark(hyp, pos, h_unit, 1)
    return EditContext(lang or base_lang, op, r_unit, h_unit, pos, pos, ref, hyp, marked_ref, marked_hyp, line_id, doc)


def p_of(ctx: EditContext) -> tuple[float, ...]:
    """A deterministic, non-trivial distribution per edit (awkward floats on purpose)."""
    h = hashlib.sha256(ctx.content_key().encode()).digest()
    raw = [b + 1 for b in h[:5]]
    total = sum(raw)
    p = [x / total for x in raw]
    p[4] = 1.0 - sum(p[:4])
    return tuple(p)


class CountingJudge:
    """Records every edit it is asked to judge; fails on edits whose content key is in ``fail``."""

    identity = "counting:v1"

    def __init__(self, fail: set[str] | frozenset[str] = frozenset()) -> None:
        self.calls: list[list[EditContext]] = []
        self.fail = fail

    def judge(self, contexts):
        self.calls.append(list(contexts))
        return [
            Judgement(None, failure="timeout") if c.content_key() in self.fail else Judgement(p_of(c), "letter", ("t",))
            for c in contexts
        ]

    @property
    def judged(self) -> list[str]:
        return [c.content_key() for batch in self.calls for c in batch]


def dump(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT * FROM judged_edits ORDER BY key").fetchall()


# -- keys ----------------------------------------------------------------------------------------


def test_key_is_content_not_place():
    ctx = make_ctx(3, line_id="doc1-line7", doc="doc1")
    key = JudgedEditStore.key("rubric:v1", ctx)
    assert key == hashlib.sha256(f"rubric:v1\x1e{ctx.content_key()}".encode()).hexdigest()
    assert len(key) == 64
    elsewhere = dataclasses.replace(ctx, line_id="doc9-line1", doc="doc9", lang_source="script")
    assert JudgedEditStore.key("rubric:v1", elsewhere) == key
    assert JudgedEditStore.key("rubric:v2", ctx) != key
    assert JudgedEditStore.key("rubric:v1", dataclasses.replace(ctx, lang="en")) != key
    assert JudgedEditStore.key("rubric:v1", dataclasses.replace(ctx, marked_hyp=ctx.marked_hyp + "x")) != key
    assert JudgedEditStore.key("rubric:v1", dataclasses.replace(ctx, marked_ref=ctx.marked_ref + "x")) != key


# -- opening -------------------------------------------------------------------------------------


def test_new_store_is_wal_with_schema_version(tmp_path):
    path = tmp_path / "judged.sqlite"
    with JudgedEditStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert len(store) == 0 and store.judges() == []
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)


@pytest.mark.parametrize("readonly", [False, True])
def test_corrupt_file_is_a_store_error_naming_it(tmp_path, readonly):
    path = tmp_path / "not-a-store.sqlite"
    path.write_bytes(b"this is not SQLite, just some bytes\n" * 200)
    with pytest.raises(StoreError, match="not-a-store.sqlite"):
        JudgedEditStore(path, readonly=readonly)


def test_foreign_sqlite_file_and_newer_schema_are_refused(tmp_path):
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(StoreError, match="not a semcer store"):
        JudgedEditStore(foreign)

    newer = tmp_path / "newer.sqlite"
    JudgedEditStore(newer).close()
    with sqlite3.connect(newer) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(StoreError, match="newer"):
        JudgedEditStore(newer)
    with pytest.raises(StoreError, match="newer"):
        JudgedEditStore(newer, readonly=True)


def test_readonly_store(tmp_path):
    with pytest.raises(StoreError, match="no such store"):
        JudgedEditStore(tmp_path / "missing.sqlite", readonly=True)
    path = tmp_path / "s.sqlite"
    ctx = make_ctx(0)
    with JudgedEditStore(path) as store:
        store.put_many([(store.key("j", ctx), "j", ctx, Judgement(p_of(ctx)))])
    with JudgedEditStore(path, readonly=True) as store:
        assert store.count("j") == 1
        with pytest.raises(StoreError, match="read-only"):
            store.put_many([(store.key("j", make_ctx(1)), "j", make_ctx(1), Judgement(p_of(make_ctx(1))))])
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.count()


# -- put_many / get_many -------------------------------------------------------------------------


def test_put_and_get_many_first_writer_wins(tmp_path):
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        ctxs = [make_ctx(i) for i in range(2000)]  # more keys than one IN (...) chunk
        rows = [(store.key("j", c), "j", c, Judgement(p_of(c), "digit", ("no-lexicon", "one-hot"))) for c in ctxs]
        assert store.put_many(rows) == 2000
        assert store.put_many(rows[:10]) == 0
        other = (0.0, 0.0, 0.0, 0.0, 1.0)
        assert store.put_many([(rows[0][0], "j", ctxs[0], Judgement(other))]) == 0
        keys = [r[0] for r in rows] + ["0" * 64]
        got = store.get_many(keys + keys[:5])
        assert len(got) == 2000 and "0" * 64 not in got
        assert got[rows[0][0]] == Judgement(p_of(ctxs[0]), "digit", ("no-lexicon", "one-hot"))
        assert all(got[k].p == p_of(c) for k, c in zip(keys, ctxs))
        assert store.count("j") == 2000 and store.count("other") == 0 and store.judges() == [("j", 2000)]


def test_put_many_skips_failures_and_rejects_bad_rows(tmp_path):
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        a, b = make_ctx(0), make_ctx(1)
        assert store.put_many([(store.key("j", a), "j", a, Judgement(None, failure="timeout"))]) == 0
        assert len(store) == 0
        with pytest.raises(StoreError, match="sums to"):
            store.put_many([(store.key("j", a), "j", a, Judgement((0.5, 0.5, 0.5, 0.0, 0.0)))])
        with pytest.raises(StoreError, match="outside"):
            store.put_many([(store.key("j", a), "j", a, Judgement((1.5, -0.5, 0.0, 0.0, 0.0)))])
        with pytest.raises(StoreError, match="finite"):
            store.put_many([(store.key("j", a), "j", a, Judgement((math.nan, 1.0, 0.0, 0.0, 0.0)))])
        with pytest.raises(ValueError, match="does not belong"):
            store.put_many([(store.key("j", b), "j", a, Judgement(p_of(a)))])
        assert len(store) == 0  # a bad row leaves the whole batch out


# -- judge_cached --------------------------------------------------------------------------------


def test_duplicate_contexts_are_judged_once_and_returned_in_order(tmp_path):
    distinct = [make_ctx(i) for i in range(30)]
    # The same edit on other lines of other documents: identical content, different place.
    contexts = [dataclasses.replace(distinct[i % 30], line_id=f"l{i}", doc=f"d{i % 4}") for i in range(90)]
    for store in (None, JudgedEditStore(tmp_path / "s.sqlite")):
        judge = CountingJudge()
        seen = []
        results, stats = judge_cached(judge, contexts, store, batch_size=7, progress=lambda d, t: seen.append((d, t)))
        assert sorted(judge.judged) == sorted(c.content_key() for c in distinct)
        assert [r.p for r in results] == [p_of(c) for c in contexts]
        assert stats == CacheStats(total=90, unique=30, hits=0, judged=30, failures=0)
        assert [len(b) for b in judge.calls] == [7, 7, 7, 7, 2]
        assert seen == [(7, 30), (14, 30), (21, 30), (28, 30), (30, 30)]
        if store is not None:
            again = CountingJudge()
            results2, stats2 = judge_cached(again, contexts, store)
            assert again.calls == [] and results2 == results
            assert stats2 == CacheStats(total=90, unique=30, hits=30, judged=0, failures=0)
            store.close()


def test_failures_are_not_stored_and_are_judged_again(tmp_path):
    contexts = [make_ctx(i) for i in range(20)]
    failing = {contexts[3].content_key(), contexts[11].content_key()}
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        first = CountingJudge(fail=failing)
        results, stats = judge_cached(first, contexts, store, batch_size=8)
        assert stats.failures == 2 and stats.judged == 20
        assert results[3].p is None and results[3].failure == "timeout"
        assert len(store) == 18
        second = CountingJudge()
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


# -- concurrent writers --------------------------------------------------------------------------


def _concurrent_writer(path: str, worker: int, barrier, queue) -> None:
    """Writes edits [100 w, 100 w + 300) in small transactions, reading in between."""
    try:
        barrier.wait()
        store = JudgedEditStore(path)  # every worker opens (and may create) the store at once
        inserted = 0
        ids = list(range(worker * 100, worker * 100 + 300))
        random.Random(worker).shuffle(ids)
        for start in range(0, len(ids), 10):
            ctxs = [make_ctx(i) for i in ids[start : start + 10]]
            inserted += store.put_many([(store.key("j", c), "j", c, Judgement(p_of(c))) for c in ctxs])
            store.get_many([store.key("j", c) for c in ctxs])
        store.close()
        queue.put((worker, inserted, ""))
    except BaseException as exc:  # reported to the parent, which fails the test
        queue.put((worker, -1, f"{type(exc).__name__}: {exc}"))


def test_concurrent_writer_processes(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    mp = multiprocessing.get_context("spawn")
    workers = 4
    barrier, queue = mp.Barrier(workers), mp.Queue()
    procs = [mp.Process(target=_concurrent_writer, args=(path, w, barrier, queue)) for w in range(workers)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    errors = [err for _, _, err in results if err]
    assert errors == []
    expected = {JudgedEditStore.key("j", make_ctx(i)) for i in range(100 * (workers - 1) + 300)}
    assert sum(n for _, n, _ in results) == len(expected) == 600  # each edit inserted by exactly one writer
    with JudgedEditStore(path) as store:
        assert len(store) == 600
        assert set(store.get_many(sorted(expected))) == expected


# -- a run killed mid-way ------------------------------------------------------------------------

_KILLED_RUN = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    from semcer.judges.base import EditContext, Judgement
    from semcer.store import JudgedEditStore, judge_cached

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


# -- Parquet -------------------------------------------------------------------------------------


@pytest.fixture
def filled_store(tmp_path):
    path = tmp_path / "filled.sqlite"
    with JudgedEditStore(path) as store:
        judge_cached(CountingJudge(), [make_ctx(i) for i in range(150)], store, batch_size=64)
        judge_cached(FixedJudge(p=(1 / 3, 1 / 3, 1 / 3, 0.0, 0.0), name="thirds"), [make_ctx(i) for i in range(40)], store)
    return path


def test_parquet_round_trip_is_exact(tmp_path, filled_store):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "edits.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        assert store.export_parquet(out) == 190
    table = pq.read_table(out)
    for name in ("key", "judge", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos",
                 "marked_ref", "marked_hyp", "p", "severity", "mode", "edit_class", "flags"):
        assert name in table.column_names
    row = table.slice(0, 1).to_pylist()[0]
    assert len(row["p"]) == 5 and row["severity"] == pytest.approx(Judgement(tuple(row["p"])).severity)
    assert row["mode"] == Judgement(tuple(row["p"])).mode

    with JudgedEditStore(tmp_path / "fresh.sqlite") as fresh:
        assert fresh.import_parquet(out) == (190, 0)
        assert fresh.import_parquet(out) == (0, 190)
    assert dump(tmp_path / "fresh.sqlite") == dump(filled_store)

    only = tmp_path / "thirds.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        identity = FixedJudge(p=(1 / 3, 1 / 3, 1 / 3, 0.0, 0.0), name="thirds").identity
        assert store.export_parquet(only, judge_identity=identity) == 40
    assert set(pq.read_table(only).column("judge").to_pylist()) == {identity}


def _broken_copy(tmp_path, source, name, mutate):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = pq.read_table(source).to_pylist()
    schema = mutate(rows)
    path = tmp_path / name
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


@pytest.mark.parametrize(
    "name, change, message",
    [
        ("short-p.parquet", {"p": [0.5, 0.5, 0.0, 0.0]}, "p has 4 values"),
        ("sum.parquet", {"p": [0.5, 0.3, 0.1, 0.0, 0.0]}, "sums to"),
        ("negative.parquet", {"p": [1.2, -0.2, 0.0, 0.0, 0.0]}, "outside"),
        ("nan.parquet", {"p": [math.nan, 1.0, 0.0, 0.0, 0.0]}, "finite"),
        ("null-p.parquet", {"p": None}, "p is missing"),
        ("op.parquet", {"op": "X"}, "op is 'X'"),
        ("key.parquet", {"lang": "xx"}, "key does not match"),
    ],
)
def test_import_rejects_bad_rows_and_imports_nothing(tmp_path, filled_store, name, change, message):
    pytest.importorskip("pyarrow")
    good = tmp_path / "good.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        store.export_parquet(good)

    def mutate(rows):
        rows[7].update(change)
        return None

    bad = _broken_copy(tmp_path, good, name, mutate)
    with JudgedEditStore(tmp_path / "target.sqlite") as target:
        with pytest.raises(StoreError, match=rf"{name}: row 7 .*{message}"):
            target.import_parquet(bad)
        assert len(target) == 0


def test_import_rejects_wrong_schema_and_non_parquet(tmp_path, filled_store):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    good = tmp_path / "good.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        store.export_parquet(good)
    table = pq.read_table(good)
    pq.write_table(table.drop_columns(["p", "marked_hyp"]), tmp_path / "missing.parquet")
    as_text = table.set_column(table.schema.get_field_index("p"), "p", pa.array([str(p) for p in table.column("p").to_pylist()]))
    pq.write_table(as_text, tmp_path / "text-p.parquet")
    (tmp_path / "notes.parquet").write_text("not parquet at all")
    with JudgedEditStore(tmp_path / "target.sqlite") as target:
        with pytest.raises(StoreError, match=r"missing.parquet: .*missing column 'marked_hyp'.*missing column 'p'"):
            target.import_parquet(tmp_path / "missing.parquet")
        with pytest.raises(StoreError, match=r"text-p.parquet: .*column 'p' is string"):
            target.import_parquet(tmp_path / "text-p.parquet")
        with pytest.raises(StoreError, match=r"notes.parquet: not a readable Parquet file"):
            target.import_parquet(tmp_path / "notes.parquet")
        assert len(target) == 0


def test_import_of_labelled_data_layout_without_store_extras(tmp_path, filled_store):
    pq = pytest.importorskip("pyarrow.parquet")
    good = tmp_path / "good.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        store.export_parquet(good)
    pq.write_table(pq.read_table(good).drop_columns(["edit_class", "flags", "created", "severity", "mode"]), tmp_path / "lean.parquet")
    with JudgedEditStore(tmp_path / "target.sqlite") as target:
        assert target.import_parquet(tmp_path / "lean.parquet") == (190, 0)
        hit = target.get_many([JudgedEditStore.key("counting:v1", make_ctx(0))])
        assert list(hit.values())[0] == Judgement(p_of(make_ctx(0)))


def test_export_is_atomic(tmp_path, filled_store, monkeypatch):
    pytest.importorskip("pyarrow")
    import semcer.store as store_module

    out = tmp_path / "out" / "edits.parquet"
    out.parent.mkdir()
    out.write_bytes(b"previous export")

    def explode(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(store_module, "_rows_to_table", explode)
    with JudgedEditStore(filled_store, readonly=True) as store, pytest.raises(OSError, match="disk full"):
        store.export_parquet(out)
    assert out.read_bytes() == b"previous export"
    assert os.listdir(out.parent) == ["edits.parquet"]  # no temporary file left behind


def test_parquet_needs_pyarrow(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(StoreError, match=r'pip install "semcer\[parquet\]"'):
            store.export_parquet(tmp_path / "x.parquet")
        with pytest.raises(StoreError, match=r'pip install "semcer\[parquet\]"'):
            store.import_parquet(tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


# -- CLI -----------------------------------------------------------------------------------------


def test_cli_info_export_import(tmp_path, filled_store, capsys):
    pytest.importorskip("pyarrow")
    assert main(["store", "info", str(filled_store)]) == 0
    out = capsys.readouterr().out
    assert "edits: 190" in out and "150  counting:v1" in out and f"schema version: {SCHEMA_VERSION}" in out

    parquet = tmp_path / "all.parquet"
    assert main(["store", "export", str(filled_store), str(parquet)]) == 0
    assert "exported 190" in capsys.readouterr().out
    assert main(["store", "export", str(filled_store), str(tmp_path / "one.parquet"), "--judge", "counting:v1"]) == 0
    assert "exported 150" in capsys.readouterr().out

    target = tmp_path / "new.sqlite"
    assert main(["store", "import", str(target), str(parquet)]) == 0
    assert "imported 190" in capsys.readouterr().out
    assert dump(target) == dump(filled_store)


def test_cli_errors_are_one_line(tmp_path, filled_store, capsys):
    assert main(["store", "info", str(tmp_path / "missing.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("semcer: error:") and "missing.sqlite" in err and err.count("\n") == 1

    assert main(["store", "export", str(filled_store), str(tmp_path / "x.parquet"), "--judge", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "no edits of judge 'nobody'" in err and "counting:v1" in err
    assert not (tmp_path / "x.parquet").exists()


def test_rows_lists_every_edit_with_its_distribution(tmp_path):
    from semcer.judges.base import EditContext, Judgement
    from semcer.store import JudgedEditStore

    ctx = EditContext("vi", "S", "ấ", "á", 1, 1, "Tấm", "Tám", "T⟦ấ⟧m", "T⟦á⟧m")
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        store.put_many([(JudgedEditStore.key("j1", ctx), "j1", ctx, Judgement((0.0, 0.1, 0.2, 0.3, 0.4), "mark"))])
        (row,) = store.rows()
        assert row["p"] == (0.0, 0.1, 0.2, 0.3, 0.4) and row["marked_hyp"] == "T⟦á⟧m" and row["judge"] == "j1"
        assert store.rows("other") == []
