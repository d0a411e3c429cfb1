"""The judged-edit store on SQLite (semcer.store.sqlite): opening, lookups and inserts, concurrent
writer processes, listing rows."""

from __future__ import annotations

import math
import multiprocessing
import random
import sqlite3

import pytest
from helpers import make_ctx, p_of

from semcer.alignment.context import EditContext
from semcer.errors import StoreError
from semcer.judges.distribution import Judgement
from semcer.store.sqlite import SCHEMA_VERSION, JudgedEditStore

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
    with pytest.raises(StoreError, match=r"not-a-store\.sqlite"):
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


def test_reading_a_store_leaves_no_wal_or_shm_files_and_changes_nothing(tmp_path):
    path = tmp_path / "s.sqlite"
    with JudgedEditStore(path) as store:
        store.put_many([(store.key("j", make_ctx(0)), "j", make_ctx(0), Judgement(p_of(make_ctx(0))))])
    before = path.read_bytes()
    with JudgedEditStore(path, readonly=True) as store:
        assert store.count("j") == 1
        assert {p.name for p in tmp_path.iterdir()} >= {"s.sqlite-wal", "s.sqlite-shm"}  # WAL mode while open
        with pytest.raises(sqlite3.OperationalError, match="readonly"):  # query_only: not even SQL writes
            store._conn.execute("DELETE FROM judged_edits")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]
    assert path.read_bytes() == before


def test_a_study_file_opened_as_a_store_is_named_a_study(tmp_path):
    path = tmp_path / "a.study"
    with sqlite3.connect(path) as conn:
        for table in ("meta", "items", "readers", "ratings"):
            conn.execute(f"CREATE TABLE {table} (x)")
    with pytest.raises(StoreError, match=r"a\.study: a semcer reader study, not a judged-edit store"):
        JudgedEditStore(path, readonly=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.study"]


# -- put_many / get_many -------------------------------------------------------------------------


def test_put_and_get_many_first_writer_wins(tmp_path):
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        ctxs = [make_ctx(i) for i in range(2000)]  # more keys than one IN (...) chunk
        rows = [(store.key("j", c), "j", c, Judgement(p_of(c), "digit", ("no-lexicon", "label_mass=0.97"))) for c in ctxs]
        assert store.put_many(rows) == 2000
        assert store.put_many(rows[:10]) == 0
        other = (0.0, 0.0, 0.0, 0.0, 1.0)
        assert store.put_many([(rows[0][0], "j", ctxs[0], Judgement(other))]) == 0
        keys = [r[0] for r in rows] + ["0" * 64]
        got = store.get_many(keys + keys[:5])
        assert len(got) == 2000 and "0" * 64 not in got
        assert got[rows[0][0]] == Judgement(p_of(ctxs[0]), "digit", ("no-lexicon", "label_mass=0.97"))
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


def test_rows_lists_every_edit_with_its_distribution(tmp_path):
    ctx = EditContext("vi", "S", "ấ", "á", 1, 1, "Tấm", "Tám", "T⟦ấ⟧m", "T⟦á⟧m")
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        store.put_many([(JudgedEditStore.key("j1", ctx), "j1", ctx, Judgement((0.0, 0.1, 0.2, 0.3, 0.4), "mark"))])
        (row,) = store.rows()
        assert row["p"] == (0.0, 0.1, 0.2, 0.3, 0.4) and row["marked_hyp"] == "T⟦á⟧m" and row["judge"] == "j1"
        assert store.rows("other") == []


# -- write order -----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["put_many", "overwrite_many"])
def test_one_transaction_writes_its_rows_in_key_order_and_gives_judge_ids_in_row_order(tmp_path, method):
    """Rows are written by key (the key index's pages written together), but a new judge still gets
    its id in the order the rows came: the second judge seen is id 2 whatever the keys."""
    rows = []
    for i in range(60):
        judge = "zeta-judge" if i < 30 else "alpha-judge"  # the first judge sorts last
        ctx = make_ctx(i)
        rows.append((JudgedEditStore.key(judge, ctx), judge, ctx, Judgement(p_of(ctx))))
    first, rest = rows[:30], rows[30:]
    random.Random(7).shuffle(first)
    rows = first + rest
    path = tmp_path / "s.sqlite"
    with JudgedEditStore(path) as store:
        getattr(store, method)(rows)
    with sqlite3.connect(path) as conn:
        written = [k for (k,) in conn.execute("SELECT key FROM judged_edits ORDER BY rowid")]
        ids = dict(conn.execute("SELECT identity, id FROM judges"))
    assert written == sorted(r[0] for r in rows)
    assert ids == {"zeta-judge": 1, "alpha-judge": 2}
