"""Reading judged edits for training (semcer.io.judged): JSONL, Parquet and the store give the same
rows; a store with several judges needs a choice; bad rows are named."""

from __future__ import annotations

import json

import pytest
from student_fixtures import N_ROWS, TRAIN

from semcer.alignment.context import EditContext
from semcer.errors import InputError
from semcer.io.judged import load_judged_edits
from semcer.judges.distribution import Judgement
from semcer.judges.student.data import data_hash
from semcer.store.sqlite import JudgedEditStore


def test_jsonl_rows_carry_pair_distribution_and_line(student_rows):
    assert len(student_rows) == N_ROWS
    first = json.loads(TRAIN.read_text(encoding="utf-8").splitlines()[0])
    row = load_judged_edits(TRAIN)[0]
    assert (row.marked_ref, row.marked_hyp, row.lang, row.op, row.line_id) == (
        first["marked_ref"], first["marked_hyp"], first["lang"], first["op"], first["line_id"])
    assert row.severity == pytest.approx(first["severity"])
    assert len({r.lang for r in student_rows}) >= 10


def _context(row) -> EditContext:
    """The edit of a training row, as the store keeps edits (the store refuses rows that are not
    edits: units and positions must agree with the marked pair), from the labelled file's line."""
    for line in TRAIN.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if (r["marked_ref"], r["marked_hyp"], r["lang"], r["op"]) == (row.marked_ref, row.marked_hyp, row.lang, row.op):
            return EditContext(r["lang"], r["op"], r["ref_unit"], r["hyp_unit"], r["ref_pos"], r["hyp_pos"], r["ref"],
                               r["hyp"], r["marked_ref"], r["marked_hyp"])
    raise AssertionError(f"no line of {TRAIN} holds {row.marked_ref!r}")


def test_store_parquet_and_jsonl_give_the_same_rows(tmp_path, student_rows):
    pytest.importorskip("pyarrow")
    subset = student_rows[:30]
    store_path = tmp_path / "judged.sqlite"
    with JudgedEditStore(store_path) as store:
        entries = []
        for r in subset:
            ctx = _context(r)
            entries.append((JudgedEditStore.key("llm-test", ctx), "llm-test", ctx, Judgement(r.p)))
        store.put_many(entries)
        store.export_parquet(tmp_path / "judged.parquet")
    from_store = load_judged_edits(store_path)
    from_parquet = load_judged_edits(tmp_path / "judged.parquet")
    assert {r.judge for r in from_store} == {"llm-test"}
    expected = data_hash(subset)
    assert data_hash(from_store) == data_hash(from_parquet) == expected


def test_several_judges_need_a_choice(tmp_path, student_rows):
    path = tmp_path / "two.sqlite"
    with JudgedEditStore(path) as store:
        ctx = _context(student_rows[0])
        for identity in ("judge-a", "judge-b"):
            store.put_many([(JudgedEditStore.key(identity, ctx), identity, ctx, Judgement(student_rows[0].p))])
    with pytest.raises(InputError, match="--judge"):
        load_judged_edits(path)
    assert [r.judge for r in load_judged_edits(path, judge="judge-b")] == ["judge-b"]
    with pytest.raises(InputError, match="no edits of judge"):
        load_judged_edits(path, judge="judge-c")


def test_bad_rows_are_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"marked_ref": "a⟦b⟧", "marked_hyp": "a⟦c⟧", "p": [0.5, 0.5]}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:1: p has 2 values, expected 5"):
        load_judged_edits(path)
    path.write_text('{"marked_ref": "ab", "marked_hyp": "a⟦c⟧", "p": [1, 0, 0, 0, 0]}\n', encoding="utf-8")
    with pytest.raises(InputError, match="no ⟦…⟧ mark"):
        load_judged_edits(path)
