"""Stores written before issue 11's compact layout (schema 1: the judge identity and both marked texts
in every row) are read as they are, and upgraded in place when opened for writing: every row kept,
a corrupt row still reported and never used, the file smaller."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import time

import pytest
from helpers import RecordingJudge, make_ctx, p_of

from semcer.alignment.context import EditContext
from semcer.errors import StoreError
from semcer.store.cached import judge_cached
from semcer.store.keys import edit_key
from semcer.store.sqlite import SCHEMA_VERSION, JudgedEditStore

#: The schema-1 layout as semcer 0.1.0 wrote it (a copy: the test must not depend on today's code).
V1 = (
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE judged_edits (key TEXT PRIMARY KEY, judge TEXT NOT NULL, lang TEXT NOT NULL, op TEXT NOT NULL,
    ref_unit TEXT NOT NULL, hyp_unit TEXT NOT NULL, ref_pos INTEGER NOT NULL, hyp_pos INTEGER NOT NULL,
    marked_ref TEXT NOT NULL, marked_hyp TEXT NOT NULL,
    p0 REAL NOT NULL, p1 REAL NOT NULL, p2 REAL NOT NULL, p3 REAL NOT NULL, p4 REAL NOT NULL,
    edit_class TEXT NOT NULL, flags TEXT NOT NULL, created REAL NOT NULL)""",
    "CREATE INDEX judged_edits_judge ON judged_edits (judge)",
)


def _long(i: int) -> EditContext:
    ref = f"Zeile {i}: " + "eine lange Zeile mit vielen Wörtern darin, " * 5
    mr, mh = ref.replace("lange", "l⟦a⟧nge", 1), ref.replace("lange", "l⟦o⟧nge", 1)
    pos = mr.index("⟦")  # code points, one unit each here
    return EditContext("de", "S", "a", "o", pos, pos, ref, ref.replace("lange", "longe", 1), mr, mh)


def _v1_row(judge: str, ctx: EditContext, p: tuple[float, ...]) -> tuple:
    key = edit_key(judge, "\x1f".join((ctx.lang, ctx.op, ctx.marked_ref, ctx.marked_hyp)))
    return (key, judge, ctx.lang, ctx.op, ctx.ref_unit, ctx.hyp_unit, ctx.ref_pos, ctx.hyp_pos, ctx.marked_ref,
            ctx.marked_hyp, *p, "letter", json.dumps(["t"]), time.time())


@pytest.fixture
def v1_store(tmp_path):
    """A schema-1 store: 60 rows of RecordingJudge (30 short lines, 30 long), 5 of another judge, and
    two corrupt rows (a probability that is text; a judge that is a blob)."""
    path = tmp_path / "old.sqlite"
    ctxs = [make_ctx(i) for i in range(30)] + [_long(i) for i in range(30)]
    rows = [_v1_row(RecordingJudge.identity, c, p_of(c)) for c in ctxs]
    rows += [_v1_row("other-judge", make_ctx(100 + i), (0.0, 0.0, 1.0, 0.0, 0.0)) for i in range(5)]
    bad_text = list(_v1_row(RecordingJudge.identity, make_ctx(200), p_of(make_ctx(200))))
    bad_text[12] = "half"
    bad_judge = list(_v1_row(RecordingJudge.identity, make_ctx(201), p_of(make_ctx(201))))
    bad_judge[1] = b"\x07"  # a blob (a number would be stored as text in a TEXT column)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        for statement in V1:
            conn.execute(statement)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [("schema_version", "1"), ("created_by", "semcer 0.1.0")])
        conn.executemany(f"INSERT INTO judged_edits VALUES ({', '.join('?' * 18)})", rows + [bad_text, bad_judge])
    conn.close()
    return path, ctxs, {bad_text[0]: "not a number", bad_judge[0]: "judge is a 1-byte blob"}


def test_a_schema_1_store_is_read_as_it_is(v1_store):
    path, ctxs, bad = v1_store
    before = path.read_bytes()
    with JudgedEditStore(path, readonly=True) as store:
        assert store.schema_version == 1
        assert len(store) == 67 and store.count(RecordingJudge.identity) == 61 and store.count("other-judge") == 5
        report = store.check()
        assert report.rows == 67 and sorted(report.corrupt) == sorted(bad)
        assert all(why in report.corrupt[key] for key, why in bad.items())
        rows = store.rows(RecordingJudge.identity, skip_corrupt=True)
        assert {(r["marked_ref"], r["marked_hyp"], r["p"]) for r in rows} == {
            (c.marked_ref, c.marked_hyp, p_of(c)) for c in ctxs}
        if importlib.util.find_spec("pyarrow") is not None:  # exported as any store, and imported into a new one
            exported = store.export_parquet(path.with_suffix(".parquet"), skip_corrupt=True)
            assert exported == (65, 2)
            with JudgedEditStore(path.with_name("new.sqlite")) as new:
                assert new.import_parquet(path.with_suffix(".parquet")).inserted == 65
                assert new.rows() == store.rows(skip_corrupt=True)
        with pytest.raises(StoreError, match="store was opened read-only"):
            store.put_many([(store.key("j", ctxs[0]), "j", ctxs[0], RecordingJudge().judge([ctxs[0]])[0])])
    assert path.read_bytes() == before


def test_a_schema_1_store_is_upgraded_when_opened_for_writing(v1_store):
    path, ctxs, bad = v1_store
    with JudgedEditStore(path, readonly=True) as store:
        old_rows = store.rows(skip_corrupt=True)
        old_judges = store.judges()
    size_before = path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob("old.sqlite-*"))
    with JudgedEditStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 2
        assert store.rows(skip_corrupt=True) == old_rows  # every sound row, as it was
        report = store.check()
        assert report.rows == 67 and sorted(report.corrupt) == sorted(bad)  # still refused, still reported
        assert old_judges == [("?b'\\x07'", 1), (RecordingJudge.identity, 61), ("other-judge", 5)]  # "counting:v1" < "other"
        assert store.judges() == [("?0", 1), (RecordingJudge.identity, 61), ("other-judge", 5)]  # id 0: no judge
        # the old rows are hits; the corrupt ones are judged again and replaced
        judge = RecordingJudge()
        results, stats = judge_cached(judge, ctxs + [make_ctx(200)], store)
        assert stats.hits == 60 and stats.corrupt == 1 and stats.judged == 1
        assert [r.p for r in results] == [p_of(c) for c in ctxs + [make_ctx(200)]]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()[0] == "2"
        columns = [row[1] for row in conn.execute("PRAGMA table_info(judged_edits)")]
        assert "pair" in columns and "marked_ref" not in columns
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'judged_edits_v1'").fetchone()[0] == 0
    conn.close()
    assert path.stat().st_size < size_before  # the old pages given back
