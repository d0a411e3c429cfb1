"""A study file locked by another process (here a second Python process inside `BEGIN EXCLUSIVE`,
as an `sqlite3` shell would hold it) is waited for by the store's rule (guards.LockWaits): said
once after WAIT_NOTE_AFTER_S, then, after the study's own timeout (db.BUSY_TIMEOUT_S), one clear
error (StudyLocked), which the app answers as a study it cannot write (503, nothing recorded).
Before: a silent wait of 30 s, then "database is locked" (the app: a 500 page saying the study is
damaged; opening a study in a rollback journal mode: "not a semcer study file").

A change waits for another writer whatever the journal mode; a read waits only in a study file in a
rollback journal mode (a copy made with ``VACUUM INTO``), which semcer never switches to WAL.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time
from pathlib import Path

import pytest
from helpers import locked, released_at
from studyhelpers import write_edits

import semcer.cli
from semcer.store import guards
from semcer.study import db as studydb
from semcer.study.create import create_study, plan
from semcer.study.db import StudyDB, StudyLocked


def _new_study(tmp_path: Path) -> tuple[Path, str]:
    """A study of the fixture edits with one reader, ana; with her token."""
    edits = write_edits(tmp_path / "edits.jsonl")
    path = tmp_path / "s.study"
    return path, create_study(path, plan([str(edits)], [], None, None, 0, 1), ["ana"])["ana"]


@pytest.fixture
def study(tmp_path) -> Path:
    return _new_study(tmp_path)[0]


@pytest.fixture
def short_waits(monkeypatch):
    monkeypatch.setattr(guards, "WAIT_NOTE_AFTER_S", 0.2)
    monkeypatch.setattr(studydb, "BUSY_TIMEOUT_S", 1.0)


def _copy_in_rollback_mode(study: Path) -> Path:
    copy = study.with_name("copy.study")
    with contextlib.closing(sqlite3.connect(study)) as conn:
        conn.execute("VACUUM INTO ?", (str(copy),))
    with contextlib.closing(sqlite3.connect(copy)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    return copy


def _note(path: Path, seconds: str = "30") -> str:
    return f"waiting for the study file {path}, which another process holds (up to {seconds} s)"


def _error(path: Path) -> str:
    return (f"{path}: database is locked: another process has held the study file's lock for 1 s (the study's web "
            "app, another semcer study command, or an sqlite3 shell inside a transaction); run again when it is done")


def _notes(caplog) -> list[tuple[str, bool]]:
    return [(r.getMessage(), getattr(r, "note", False)) for r in caplog.records if r.name == "semcer.store"]


def test_an_answer_waits_for_the_lock_says_so_once_and_is_kept(study, monkeypatch, caplog):
    monkeypatch.setattr(guards, "WAIT_NOTE_AFTER_S", 0.2)
    db = StudyDB(study)
    first, second = db.next_slot("ana")[1], db.slot("ana", 1)
    with locked(study, 1.0) as holder:
        assert db.rate("ana", first, level=2)
        answered = time.time()
        assert answered > released_at(holder)
    with locked(study, 0.5):
        assert db.rate("ana", second, level=3)  # a second wait of this StudyDB is not said again
    assert sorted(r.level for r in db.ratings()) == [2, 3]
    assert _notes(caplog) == [(_note(study), True)]


def test_a_lock_held_past_the_timeout_is_one_clear_line(study, short_waits, capsys):
    with locked(study, -1):
        started = time.monotonic()
        status = semcer.cli.main(["study", "add-reader", str(study), "ben"])
        waited = time.monotonic() - started
    assert status == 2 and waited >= 1.0
    assert capsys.readouterr().err.splitlines() == [f"semcer: note: {_note(study, '1')}", f"semcer: error: {_error(study)}"]
    assert StudyDB(study).readers() == ["ana"]


def test_a_study_in_a_rollback_journal_mode_is_read_after_the_wait(study, monkeypatch, capsys):
    monkeypatch.setattr(guards, "WAIT_NOTE_AFTER_S", 0.2)
    copy = _copy_in_rollback_mode(study)
    with locked(copy, 1.0) as holder:
        assert semcer.cli.main(["study", "status", str(copy), "--json"]) == 0
        ended = time.time()
        assert ended > released_at(holder)
    out, err = capsys.readouterr()
    assert '"ana"' in out and err.splitlines() == [f"semcer: note: {_note(copy)}"]


def test_a_study_in_a_rollback_journal_mode_held_past_the_timeout_is_locked_not_foreign(study, short_waits, caplog):
    copy = _copy_in_rollback_mode(study)
    db = StudyDB(copy)
    with locked(copy, -1):
        with pytest.raises(StudyLocked) as opened:
            StudyDB(copy)  # before: "not a semcer study file"
        with pytest.raises(StudyLocked) as read:
            db.progress()
    assert str(opened.value) == str(read.value) == _error(copy)
    assert _notes(caplog) == [(_note(copy, "1"), True)] * 2  # once for each StudyDB


def test_the_app_answers_a_study_locked_past_the_timeout_as_one_it_cannot_write(tmp_path, short_waits):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from semcer.study.web import create_app

    study, token = _new_study(tmp_path)
    c = TestClient(create_app(StudyDB(study)))
    pre = re.search(r'name="csrf" value="([^"]+)"', c.get("/signin").text).group(1)
    assert c.post("/signin", data={"csrf": pre, "token": token}, follow_redirects=False).status_code == 303
    page = c.get("/rate")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    pos = re.search(r'name="pos" value="(\d+)"', page.text).group(1)
    with locked(study, -1):
        r = c.post("/rate", data={"csrf": csrf, "pos": pos, "level": "2"}, follow_redirects=False)
    assert r.status_code == 503 and "your answer was not recorded" in r.text and "damaged" not in r.text
    assert StudyDB(study).ratings() == []
