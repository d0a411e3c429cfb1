"""Reads of a store that wait for another process's lock wait as writes do (guards.LockWaits): said
once after WAIT_NOTE_AFTER_S, a StoreError after the timeout (before: a silent wait of 120 s, then
"database is locked").

Which reads can wait, found with a second process inside ``BEGIN EXCLUSIVE`` (tried with each read
method): none of a WAL store's, whose readers never wait for a writer; but a read-only handle leaves
a store's journal mode as it is, and a store in a rollback journal mode (a copy made with ``VACUUM
INTO``, which writes one in mode DELETE) is not read at all while another process holds its lock
to write. Opening such a store already waited through LockWaits; the reads of a handle already
open (``semcer store info``, ``check``, ``export``, a lookup) did not. A WAL store held by a process
in exclusive locking mode waits at the open, which waited through LockWaits already.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import fill_store, locked, make_ctx

import semcer.store.sqlite
from semcer.errors import StoreError
from semcer.store import guards
from semcer.store.sqlite import JudgedEditStore


@pytest.fixture
def short_waits(monkeypatch):
    monkeypatch.setattr(guards, "WAIT_NOTE_AFTER_S", 0.2)
    monkeypatch.setattr(guards, "BUSY_TIMEOUT_S", 1.0)
    monkeypatch.setattr(semcer.store.sqlite, "BUSY_TIMEOUT_S", 1.0)  # SQLite's own busy handler: what waited before


def _rollback_copy(tmp_path: Path) -> Path:
    """A store of 190 edits copied with VACUUM INTO: a store in journal mode DELETE."""
    store = fill_store(tmp_path / "judged.sqlite")
    copy = tmp_path / "copy.sqlite"
    with contextlib.closing(sqlite3.connect(store)) as conn:
        conn.execute("VACUUM INTO ?", (str(copy),))
    with contextlib.closing(sqlite3.connect(copy)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    return copy


_KEYS = [JudgedEditStore.key("counting:v1", make_ctx(i)) for i in range(3)]

def _through_reading(store: JudgedEditStore) -> int:
    with store.reading() as conn:
        return conn.execute("SELECT count(*) FROM judged_edits").fetchone()[0]


_READS: dict[str, Callable[[JudgedEditStore], Any]] = {
    "judges": JudgedEditStore.judges,
    "count": JudgedEditStore.count,
    "get_many": lambda store: store.get_many(_KEYS),
    "scan": lambda store: list(store.scan()),
    "rows": JudgedEditStore.rows,
    "check": JudgedEditStore.check,
    "reading": _through_reading,
}


def _notes(caplog) -> list[tuple[str, bool]]:
    return [(r.getMessage(), getattr(r, "note", False)) for r in caplog.records if r.name == "semcer.store"]


@pytest.mark.parametrize("read", sorted(_READS))
def test_a_read_of_a_store_held_past_the_timeout_says_so_and_fails_clearly(tmp_path, short_waits, caplog, read):
    copy = _rollback_copy(tmp_path)
    with JudgedEditStore(copy, readonly=True) as store, locked(copy, -1):
        started = time.monotonic()
        with pytest.raises(StoreError) as err:
            _READS[read](store)
        waited = time.monotonic() - started
    assert waited >= 1.0
    assert str(err.value) == (
        f"{copy}: database is locked: another process has held the store's lock for 1 s (another semcer run "
        "writing it, or an sqlite3 shell inside a transaction); run again when it is done")
    assert _notes(caplog) == [(f"waiting for the store {copy}, which another process holds (up to 1 s)", True)]


def test_a_read_waits_for_the_lock_says_so_once_and_reads(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(guards, "WAIT_NOTE_AFTER_S", 0.2)
    copy = _rollback_copy(tmp_path)
    with JudgedEditStore(copy, readonly=True) as store:
        want = store.judges()
        with locked(copy, 1.0) as holder:
            got = store.judges()
            read = time.time()
            released = float(holder.communicate(timeout=30)[0].strip())
        assert got == want and read > released
        assert store.count() == 190  # unlocked: no wait, nothing more said
    assert _notes(caplog) == [(f"waiting for the store {copy}, which another process holds (up to 120 s)", True)]


def test_a_read_of_a_wal_store_does_not_wait_for_a_writer(tmp_path, short_waits, caplog):
    """The experiment's other half, kept: a WAL store is read while another process holds its write lock."""
    store_path = fill_store(tmp_path / "judged.sqlite")
    with JudgedEditStore(store_path, readonly=True) as store, locked(store_path, -1):
        started = time.monotonic()
        assert store.count() == 190 and len(list(store.scan())) == 190
        assert time.monotonic() - started < 0.2
    assert _notes(caplog) == []
