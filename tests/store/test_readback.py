"""Stored judgements are checked when they are read back (issue 11, item 2): a tampered or damaged
row is reported and never used; it is judged again and the new judgement replaces it."""

from __future__ import annotations

import math
import sqlite3
import struct

import pytest
from helpers import P_STORED, RecordingJudge, dump, make_ctx, p_of

import semcer
from semcer.errors import StoreError
from semcer.judges.base import FixedJudge
from semcer.judges.distribution import Judgement
from semcer.store.cached import judge_cached
from semcer.store.packing import pack_pair
from semcer.store.sqlite import JudgedEditStore

# Three lines, one edit each: 2 substitutions and 1 deletion over 5 + 7 + 11 = 23 graphemes.
REFS = ["110-2", "Tấm Cám", "hello world"]
HYPS = ["11O-2", "Tám Cám", "hello wrld"]
UNITS, EDITS = 23, 3

# Every edit charged 0.5 (expected rating of this distribution: 0.25/4 + 0.5/2 + 0.25*3/4).
P = (0.0, 0.25, 0.5, 0.25, 0.0)
SEMCER = 0.5 * EDITS / UNITS


def _judge() -> FixedJudge:
    return FixedJudge(p=P, name="readback")


def _tamper(path, assignment: str, where: str = "") -> int:
    with sqlite3.connect(path) as conn:
        n = conn.execute(f"UPDATE judged_edits SET {assignment} {where}").rowcount
    conn.close()
    return n


# (SET clause, what is wrong with the row)
TAMPERED = [
    ("p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 10", "a probability of 10 (semCER 130 %)"),
    ("p0 = 10, p1 = 0, p2 = 0, p3 = 0, p4 = 0", "a probability of 10 on level 0"),
    ("p0 = 0.5, p1 = 0.2, p2 = 0.1, p3 = 0.1, p4 = 0.0", "sums to 0.9"),
    ("p0 = 0.25, p4 = -0.25", "a negative probability, sum still 1"),
    ("p4 = 1e999", "an infinite probability"),
    ("p2 = 'half'", "text in a REAL column"),
    ("p2 = x'3fe0000000000000'", "a blob (the bytes of 0.5) in a REAL column"),
    ("flags = 'not json'", "flags that are not JSON"),
    ("flags = '{\"one\": 1}'", "flags that are a JSON object"),
    ("flags = '\"ab\"'", "flags that are a JSON string (would read as two flags 'a', 'b')"),
    ("flags = '[1, 2]'", "flags that are not strings"),
    ("edit_class = x'00'", "a blob as the edit class"),
    ("lang = CAST(x'ff' AS TEXT)", "a text value that is not UTF-8 (SQLite's reader fails the whole query)"),
    (f"pair = x'{pack_pair('x⟦y⟧', 'x⟦z⟧').hex()}'", "a sound marked pair that is not the row's content"),
    ("pair = substr(pair, 1, length(pair) - 1)", "a marked pair cut short"),
    ("pair = CAST(pair || x'00' AS BLOB)", "a marked pair with a byte after it"),
    ("pair = pair || x'00'", "a marked pair made text (not UTF-8) by a concatenation"),
    ("pair = 'ab⟦c⟧'", "text where the packed pair should be"),
    ("pair = x'07' || substr(pair, 2)", "a marked pair with an unknown codec"),
    ("judge = 99", "a judge id that names no judge"),
    ("judge = 'someone-else'", "a judge that is text, not an id"),
]


@pytest.mark.parametrize("assignment, why", TAMPERED, ids=[w for _, w in TAMPERED])
def test_tampered_rows_never_move_semcer(tmp_path, assignment, why):
    path = tmp_path / "s.sqlite"
    first = semcer.evaluate(REFS, HYPS, judge=_judge(), store=path)
    assert first.corpus.cer == pytest.approx(EDITS / UNITS) and first.corpus.semcer == pytest.approx(SEMCER)
    good = dump(path)
    assert len(good) == EDITS

    assert _tamper(path, assignment) == EDITS
    again = semcer.evaluate(REFS, HYPS, judge=_judge(), store=path)
    assert again.corpus.semcer == pytest.approx(SEMCER)
    assert again.judge_run is not None
    assert again.judge_run.cache_hits == 0 and again.judge_run.judged == EDITS  # the bad rows were judged again
    # ... and the new judgements replaced them (not INSERT OR IGNORE keeping the bad ones)
    assert [r[P_STORED] for r in dump(path)] == [P] * EDITS
    third = semcer.evaluate(REFS, HYPS, judge=_judge(), store=path)
    assert third.judge_run is not None and third.judge_run.cache_hits == EDITS and third.judge_run.judged == 0


@pytest.mark.parametrize("assignment, why", TAMPERED[:7] + TAMPERED[-2:], ids=[w for _, w in TAMPERED[:7] + TAMPERED[-2:]])
def test_corrupt_rows_are_counted_and_misses_for_judge_cached(tmp_path, assignment, why):
    ctxs = [make_ctx(i) for i in range(12)]
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        judge_cached(RecordingJudge(), ctxs, store)
        bad = sorted(store.key(RecordingJudge.identity, c) for c in ctxs[:4])
        assert _tamper(store.path, assignment, f"WHERE key IN ({', '.join(map(repr, bad))})") == 4

        found = store.get_many([store.key(RecordingJudge.identity, c) for c in ctxs])
        assert len(found) == 8 and not set(bad) & set(found)
        assert sorted(found.corrupt) == bad
        assert all(reason for reason in found.corrupt.values())

        judge = RecordingJudge()
        results, stats = judge_cached(judge, ctxs, store)
        assert stats.corrupt == 4 and stats.hits == 8 and stats.judged == 4
        assert sorted(store.key(judge.identity, c) for c in judge.calls[0]) == bad
        assert [r.p for r in results] == [p_of(c) for c in ctxs]
        _, stats = judge_cached(RecordingJudge(), ctxs, store)
        assert stats.corrupt == 0 and stats.hits == 12


def test_flipped_bytes_in_the_file_pass_sqlites_integrity_check_but_not_ours(tmp_path):
    """Eight bytes of a probability overwritten in the file itself: SQLite's integrity check passes."""
    path = tmp_path / "s.sqlite"
    semcer.evaluate(REFS, HYPS, judge=_judge(), store=path)
    raw = path.read_bytes()
    half, quarter = struct.pack(">d", 0.5), struct.pack(">d", 0.25)
    assert raw.count(half) == EDITS and raw.count(quarter) == 2 * EDITS  # REAL values are 8 bytes, big-endian
    for flipped in (struct.pack(">d", 0.9375), struct.pack(">d", math.nan)):  # sum 1.4375; NaN (read as NULL)
        path.write_bytes(raw.replace(half, flipped))
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
        with JudgedEditStore(path) as store:
            _, stats = judge_cached(_judge(), _contexts(), store)
            assert stats.corrupt == EDITS
        path.write_bytes(raw.replace(half, flipped))  # damaged again for the end-to-end check
        ev = semcer.evaluate(REFS, HYPS, judge=_judge(), store=path)
        assert ev.corpus.semcer == pytest.approx(SEMCER)


def _contexts():
    ev = semcer.evaluate(REFS, HYPS, judge=_judge())
    assert ev.judged is not None
    return [j.context for j in ev.judged]


def test_rows_and_export_refuse_corrupt_rows(tmp_path):
    path = tmp_path / "s.sqlite"
    with JudgedEditStore(path) as store:
        judge_cached(RecordingJudge(), [make_ctx(i) for i in range(10)], store)
    bad_key = sorted(r[0] for r in dump(path))[3]
    _tamper(path, "p1 = 'x'", f"WHERE key = '{bad_key}'")
    with JudgedEditStore(path, readonly=True) as store:
        with pytest.raises(StoreError, match=rf"s\.sqlite: 1 corrupt row .*{bad_key[:12]}.*semcer store check"):
            store.rows()
        kept = store.rows(skip_corrupt=True)
        assert len(kept) == 9 and bad_key not in {r["key"] for r in kept}
        assert kept.corrupt == {bad_key: kept.corrupt[bad_key]} and "not a number" in kept.corrupt[bad_key]


def test_check_finds_and_deletes_corrupt_rows(tmp_path):
    path = tmp_path / "s.sqlite"
    with JudgedEditStore(path) as store:
        judge_cached(RecordingJudge(), [make_ctx(i) for i in range(10)], store)
    keys = sorted(r[0] for r in dump(path))
    _tamper(path, "p1 = 'x'", f"WHERE key = '{keys[3]}'")
    _tamper(path, "flags = '[1]'", f"WHERE key = '{keys[5]}'")
    with JudgedEditStore(path, readonly=True) as store:
        report = store.check()
        assert report.rows == 10 and sorted(report.corrupt) == [keys[3], keys[5]]
    with JudgedEditStore(path) as store:
        assert store.check(delete=True).deleted == 2
        assert len(store) == 8 and store.check().corrupt == {}
        assert len(store.rows()) == 8


def test_one_check_and_one_tolerance_on_write_and_on_read(tmp_path):
    """put_many still refuses what get_many would refuse: one check, one tolerance, both ways."""
    ctx = make_ctx(0)
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        key = store.key("j", ctx)
        slightly_off = (0.2, 0.2, 0.2, 0.2, 0.2 + 5e-7)  # within the tolerance: accepted both ways
        assert store.put_many([(key, "j", ctx, Judgement(slightly_off))]) == 1
        assert store.get_many([key])[key].p == slightly_off
        _tamper(store.path, "p4 = 0.2 + 5e-6")  # outside it
        found = store.get_many([key])
        assert found == {} and "sums to" in found.corrupt[key]
