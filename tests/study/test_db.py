"""The study file: one rating per reader and slot, explicit revisions, concurrent writers."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading

import pytest
from studyhelpers import write_edits

from semcer.errors import InputError, SemcerError
from semcer.study.create import add_reader, create_study, plan
from semcer.study.db import StudyDB, digest
from semcer.study.sampling import Slot


@pytest.fixture
def study(tmp_path):
    edits = write_edits(tmp_path / "edits.jsonl")
    tokens = create_study(tmp_path / "s.study", plan([str(edits)], [], None, None, 1, 2), ["ana", "ben"])
    return StudyDB(tmp_path / "s.study"), tokens


def test_tokens_stored_hashed(study):
    db, tokens = study
    raw = sqlite3.connect(db.path).execute("SELECT name, token_hash FROM readers").fetchall()
    assert dict(raw) == {n: digest(t) for n, t in tokens.items()}
    blob = db.path.read_bytes()
    assert all(t.encode() not in blob for t in tokens.values())
    assert db.reader_for_token(tokens["ana"]) == "ana" and db.reader_for_token("x" + tokens["ana"]) is None


def test_one_rating_per_slot_and_revision(study):
    db, _ = study
    slot = db.next_slot("ana")[1]
    assert db.rate("ana", slot, level=2) is True
    assert db.rate("ana", slot, level=4) is False  # a second answer without revise is ignored
    assert [(r.level, r.revisions) for r in db.ratings("ana")] == [(2, 0)]
    assert db.rate("ana", slot, level=4, revise=True) is True
    assert [(r.level, r.revisions) for r in db.ratings("ana")] == [(4, 1)]
    assert db.ratings("ben") == []
    with pytest.raises(SemcerError):  # not a slot of the reader: the foreign key refuses it
        db.rate("ana", Slot("no-such-item", 0), level=1)
    with pytest.raises(SemcerError):
        db.rate("ana", db.next_slot("ana")[1], level=7)  # CHECK constraint


def test_next_slot_skips_come_last(study):
    db, _ = study
    pos0, first = db.next_slot("ana")
    db.skip("ana", first)
    pos1, _ = db.next_slot("ana")
    assert pos1 == pos0 + 1
    total = len(db.items()) + 2
    for _ in range(total - 1):  # answer everything else
        _, s = db.next_slot("ana")
        if s == first:
            break
        db.rate("ana", s, level=1)
    assert db.next_slot("ana") == (pos0, first)
    db.rate("ana", first, verdict="cannot_judge")
    assert db.next_slot("ana") is None
    db.skip("ana", first)  # skipping an answered slot (from its review page) changes nothing
    assert db.next_slot("ana") is None
    p = {x.reader: x for x in db.progress()}["ana"]
    assert (p.slots, p.done, p.cannot_judge, p.skipped) == (total, total, 1, 0)


def test_sessions_expire(study):
    db, _ = study
    session, csrf = db.new_session("ana")
    assert db.session(session) == ("ana", csrf) and db.session(session + "x") is None
    with sqlite3.connect(db.path) as conn:
        conn.execute("UPDATE sessions SET created = created - 31 * 86400")
    assert db.session(session) is None


def test_add_reader_and_refusals(study, tmp_path):
    db, _ = study
    token = add_reader(db, "cy")
    assert db.reader_for_token(token) == "cy"
    with pytest.raises(InputError):
        add_reader(db, "cy")
    with pytest.raises(SemcerError):
        create_study(db.path, plan([str(tmp_path / "edits.jsonl")], [], None, None, 1, 0), [])
    (tmp_path / "other.db").write_bytes(b"not a database at all, just bytes" * 10)
    with pytest.raises(InputError):
        StudyDB(tmp_path / "other.db")


def _rate_all(path: str, reader: str, level: int) -> None:
    db = StudyDB(path)
    while (found := db.next_slot(reader)) is not None:
        db.rate(reader, found[1], level=level)


def test_threads_do_not_overwrite(study):
    db, _ = study
    for name in ("r1", "r2", "r3"):
        add_reader(db, name)
    # every reader rates from two threads at once: each slot must end up rated once
    threads = [threading.Thread(target=_rate_all, args=(str(db.path), name, k % 5))
               for k, name in enumerate(["ana", "ben", "r1", "r2", "r3"] * 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = db.ratings()
    keys = [(r.reader, r.item, r.rep) for r in rows]
    assert len(keys) == len(set(keys)) == 5 * (len(db.items()) + 2)
    assert {r.reader: r.level for r in rows} == {"ana": 0, "ben": 1, "r1": 2, "r2": 3, "r3": 4}


def test_processes_do_not_overwrite(study):
    db, _ = study
    ctx = multiprocessing.get_context("fork")  # the parent holds no open connection
    procs = [ctx.Process(target=_rate_all, args=(str(db.path), name, level)) for name, level in
             (("ana", 1), ("ana", 3), ("ben", 2))]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    rows = db.ratings()
    keys = [(r.reader, r.item, r.rep) for r in rows]
    assert len(keys) == len(set(keys)) == 2 * (len(db.items()) + 2)
    assert {r.level for r in rows if r.reader == "ben"} == {2}


def test_a_skipped_first_showing_holds_its_repeat_back(study):
    """Skipping an item's first showing must not bring its repeat forward: the reader sees the two in
    order, and the export reads the first answer as the first (it read them swapped)."""
    db, _ = study
    schedule = {}
    pos = 0
    while (slot := db.slot("ana", pos)) is not None:
        schedule[pos] = slot
        pos += 1
    repeated = next(s.item for s in schedule.values() if s.rep == 1)
    first_pos = next(p for p, s in schedule.items() if s == Slot(repeated, 0))
    for p in range(first_pos):  # answer up to the first showing, then skip it
        db.rate("ana", schedule[p], level=1)
    assert db.next_slot("ana") == (first_pos, Slot(repeated, 0))
    db.skip("ana", Slot(repeated, 0))
    served = []
    while (nxt := db.next_slot("ana")) is not None:
        served.append(nxt[1])
        db.rate("ana", nxt[1], level=len(served) % 5)
    assert served.index(Slot(repeated, 0)) < served.index(Slot(repeated, 1))
    assert len(served) == len(schedule) - first_pos  # every slot served once, none lost
    # the done page's "review your last answer" is the last slot answered, not the last position
    assert db.last_answered("ana") == next(p for p, s in schedule.items() if s == served[-1])
    db.rate("ana", schedule[0], level=3, revise=True)  # a revision is the latest answer
    assert db.last_answered("ana") == 0
    assert db.last_answered("ben") is None
