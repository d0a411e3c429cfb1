"""A store locked by another process (here a second Python process inside `BEGIN EXCLUSIVE`, as an
`sqlite3` shell would hold it): the run says once, after a second or two, that it is waiting (not
with --quiet), goes on when the lock is let go, and fails with one clear line when it is held past
the timeout (before: 120 s of silence, then "database is locked")."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from helpers import EXAMPLES, fill_store, locked, make_ctx, p_of, released_at

import semcer.cli
from semcer.judges.distribution import Judgement
from semcer.store import guards
from semcer.store.sqlite import JudgedEditStore


def _dump(path: Path) -> list[tuple]:
    """The store's rows, read through a connection closed afterwards."""
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT * FROM judged_edits ORDER BY key").fetchall()


def _keys(path: Path) -> set[str]:
    return {row[0] for row in _dump(path)}


def _score_args(store: Path, workers: int = 1) -> list[str]:
    return ["score", str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_noisy.jsonl"), "--store", str(store),
            "--workers", str(workers), "--json", *(["--chunk-lines", "40"] if workers > 1 else [])]


@pytest.mark.parametrize("quiet", [False, True])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_waits_for_a_locked_store_says_so_once_and_goes_on(tmp_path, quiet, workers):
    store = fill_store(tmp_path / "judged.sqlite")  # an existing store: opening it takes no write lock
    before = _keys(store)
    args = [sys.executable, "-m", "semcer", *_score_args(store, workers), *(["-q"] if quiet else [])]
    # held long enough that every writer waits past the note's 1.5 s however late it starts writing (a
    # loaded machine takes seconds to start two workers and judge their first chunk)
    with locked(store, 3.0 if workers == 1 else 7.0) as holder:
        run = subprocess.run(args, capture_output=True, text=True, timeout=300)
        ended = time.time()
        released = released_at(holder)
    assert run.returncode == 0, run.stderr
    assert ended > released  # it waited for the lock instead of failing or writing around it
    note = f"semcer: note: waiting for the store {store}, which another process holds (up to 120 s)"
    said = run.stderr.splitlines()
    if quiet or workers == 1:
        assert said == ([] if quiet else [note])
    else:  # each process that writes the store (here the two workers) says it once, as the parent would
        assert 1 <= len(said) <= workers and set(said) == {note}, said
    fresh = tmp_path / "fresh.sqlite"
    assert semcer.cli.main([*_score_args(fresh), "-o", str(tmp_path / "fresh.json")]) == 0
    assert _keys(store) == before | _keys(fresh)  # what an unlocked run writes, besides what was there
    assert len(_keys(fresh)) > 0 and not before & _keys(fresh)


def test_a_lock_held_past_the_timeout_is_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(guards, "BUSY_TIMEOUT_S", 1.0)
    monkeypatch.setattr(guards, "WAIT_NOTE_AFTER_S", 0.2)
    store = fill_store(tmp_path / "judged.sqlite")
    before = _dump(store)
    with locked(store, -1):
        started = time.monotonic()
        status = semcer.cli.main([*_score_args(store), "-o", str(tmp_path / "out.json")])
        waited = time.monotonic() - started
    assert status == 2 and waited >= 1.0
    assert capsys.readouterr().err.splitlines() == [
        f"semcer: note: waiting for the store {store}, which another process holds (up to 1 s)",
        f"semcer: error: {store}: database is locked: another process has held the store's lock for 1 s (another "
        "semcer run writing it, or an sqlite3 shell inside a transaction); run again when it is done",
    ]
    assert _dump(store) == before and not (tmp_path / "out.json").exists()


def test_opening_a_store_another_process_holds_waits_and_says_so(tmp_path, monkeypatch, caplog):
    """A new store whose file another process has just made and locks (not yet in WAL mode, so even
    reading it waits): the open waits, says so once, and makes the store when the lock is let go."""
    monkeypatch.setattr(guards, "WAIT_NOTE_AFTER_S", 0.3)
    path = tmp_path / "new.sqlite"
    with locked(path, 1.5) as holder:
        with JudgedEditStore(path) as store:
            opened = time.time()
            ctx = make_ctx(3)
            assert store.put_many([(store.key("j:v1", ctx), "j:v1", ctx, Judgement(p_of(ctx)))]) == 1
        released = released_at(holder)
    assert opened > released
    notes = [r for r in caplog.records if r.name == "semcer.store"]
    assert [(r.getMessage(), getattr(r, "note", False)) for r in notes] == [
        (f"waiting for the store {path}, which another process holds (up to 120 s)", True)]
    assert len(_dump(path)) == 1


def test_a_short_wait_says_nothing(tmp_path, caplog):
    path = fill_store(tmp_path / "judged.sqlite")
    with JudgedEditStore(path) as store, locked(path, 0.3) as holder:
        ctx = make_ctx(500)
        assert store.put_many([(store.key("j:v1", ctx), "j:v1", ctx, Judgement(p_of(ctx)))]) == 1
        written = time.time()
        assert written > released_at(holder)
    assert [r for r in caplog.records if r.name == "semcer.store"] == []
