"""A stored or imported row must be a real edit, not just a row whose key matches its content: a
language, op S/D/I, and on each side the edit's unit between ⟦ ⟧ after ``pos`` units (an empty ⟦⟧
where the op leaves the side empty). A forged row is refused on import (naming the row) and
reported corrupt by ``check``, never used."""

from __future__ import annotations

import re
import sqlite3

import pytest
from helpers import dump

from semcer.alignment.context import EditContext, content_key
from semcer.errors import StoreError
from semcer.judges.base import FixedJudge
from semcer.store.cached import judge_cached
from semcer.store.keys import edit_key
from semcer.store.packing import pack_pair
from semcer.store.sqlite import JudgedEditStore, edit_problem

SOUND = {"lang": "en", "op": "S", "ref_unit": "a", "hyp_unit": "o", "ref_pos": 1, "hyp_pos": 1,
         "marked_ref": "c⟦a⟧t", "marked_hyp": "c⟦o⟧t"}

# (changed fields, why the row is refused)
FORGED = [
    ({"marked_ref": "cat"}, "marked_ref does not hold the edit's mark '⟦a⟧'"),
    ({"marked_hyp": "c⟦o⟧t", "hyp_unit": "u"}, "marked_hyp does not hold the edit's mark '⟦u⟧'"),
    ({"ref_pos": -5}, "ref_pos is -5, negative"),
    ({"hyp_pos": 10**12}, "marked_hyp does not hold the mark '⟦o⟧' at unit 1000000000000"),
    ({"ref_pos": 2}, "marked_ref does not hold the mark '⟦a⟧' at unit 2"),
    ({"op": "D"}, "hyp_unit is 'o'; the op leaves that side empty"),
    ({"op": "I"}, "ref_unit is 'a'; the op leaves that side empty"),
    ({"hyp_unit": "", "marked_hyp": "c⟦⟧t"}, "hyp_unit is empty but the op has a unit on that side"),
    ({"ref_unit": "at", "marked_ref": "c⟦at⟧"}, "ref_unit 'at' is not one unit"),
    ({"lang": ""}, "lang is empty"),
]


def _fields(change: dict) -> tuple:
    row = {**SOUND, **change}
    return tuple(row[name] for name in SOUND)


def test_sound_edits_pass_in_grapheme_or_code_point_units():
    assert edit_problem(*_fields({})) == ""
    assert edit_problem(*_fields({"op": "D", "hyp_unit": "", "marked_hyp": "c⟦⟧t"})) == ""
    assert edit_problem(*_fields({"op": "I", "ref_unit": "", "marked_ref": "c⟦⟧at"})) == ""
    # "ne\u0301\u0302": 2 grapheme clusters, 4 code points (a --unit codepoint store counts those)
    for pos, why in ((2, ""), (4, ""), (3, "marked_hyp does not hold the mark '⟦x⟧' at unit 3")):
        assert edit_problem("fr", "I", "", "x", 4, pos, "ne\u0301\u0302⟦⟧", "ne\u0301\u0302⟦x⟧") == why
    # a line holding the marks itself: the mark is the one after ``pos`` units (here 5 clusters, 6 code points)
    marked = "⟦x⟧ e\u0301⟦x⟧"
    for pos, why in ((0, ""), (5, ""), (6, ""), (4, "marked_hyp does not hold the mark '⟦x⟧' at unit 4")):
        assert edit_problem("fr", "I", "", "x", 0, pos, "⟦⟧", marked) == why
    assert edit_problem("hi", "S", "दु", "द", 0, 0, "⟦दु⟧", "⟦द⟧") == ""  # one cluster, two code points


@pytest.mark.parametrize("change, why", FORGED, ids=[w for _, w in FORGED])
def test_forged_edits_are_named(change, why):
    assert edit_problem(*_fields(change)) == why


def _judge() -> FixedJudge:
    return FixedJudge(p=(0.0, 0.25, 0.5, 0.25, 0.0), name="forged")


def _store(path) -> None:
    """A store of three sound edits (substitutions in "dig", "pen", "sun"; not the "cat" of SOUND)."""
    contexts = [EditContext("en", "S", w[1], "o", 1, 1, w, w[0] + "o" + w[2], f"{w[0]}⟦{w[1]}⟧{w[2]}",
                            f"{w[0]}⟦o⟧{w[2]}") for w in ("dig", "pen", "sun")]
    with JudgedEditStore(path) as store:
        judge_cached(_judge(), contexts, store)


def _forged(change: dict) -> dict:
    """The fields of the sound edit with ``change``, and its key recomputed to match (as a forger would)."""
    row = {**SOUND, **change}
    row["key"] = edit_key(_judge().identity, content_key(row["lang"], row["op"], row["marked_ref"], row["marked_hyp"]))
    return row


@pytest.mark.parametrize("change, why", FORGED, ids=[w for _, w in FORGED])
def test_import_refuses_a_forged_row_naming_it(tmp_path, change, why):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    _store(tmp_path / "s.sqlite")
    good = tmp_path / "good.parquet"
    with JudgedEditStore(tmp_path / "s.sqlite", readonly=True) as store:
        assert store.export_parquet(good) == (3, 0)
    table = pq.read_table(good)
    rows = table.to_pylist()
    rows[2].update(_forged(change))
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), bad)
    with JudgedEditStore(tmp_path / "target.sqlite") as target:
        with pytest.raises(StoreError, match=rf"bad\.parquet: row 2 \(key {rows[2]['key'][:12]}\): {_re(why)}$"):
            target.import_parquet(bad)
        assert len(target) == 0
        assert target.import_parquet(good) == (3, 0, 0, 0)  # the sound rows still import


def _re(text: str) -> str:
    return re.escape(text)


@pytest.mark.parametrize("change, why", FORGED, ids=[w for _, w in FORGED])
def test_check_reports_a_row_forged_into_the_store(tmp_path, change, why):
    path = tmp_path / "s.sqlite"
    _store(path)
    victim = sorted(r[0] for r in dump(path))[1]
    row = _forged(change)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE judged_edits SET key = ?, lang = ?, op = ?, ref_unit = ?, hyp_unit = ?, ref_pos = ?, "
                     "hyp_pos = ?, pair = ? WHERE key = ?",
                     (row["key"], row["lang"], row["op"], row["ref_unit"], row["hyp_unit"], row["ref_pos"],
                      row["hyp_pos"], pack_pair(row["marked_ref"], row["marked_hyp"]), victim))
    conn.close()
    with JudgedEditStore(path, readonly=True) as store:
        report = store.check()
        assert report.rows == 3 and report.corrupt == {row["key"]: why}
        with pytest.raises(StoreError, match=rf"1 corrupt row of 3 \(first: key {row['key'][:12]}: {_re(why)}\)"):
            store.rows()
        assert len(store.rows(skip_corrupt=True)) == 2
