"""A store file this process may not write, in a folder it may write: reading it (`store info`,
`check`, `export`) leaves no STORE-wal or STORE-shm beside it (it is opened immutable, since no
connection has it open), and opening it for writing (`semcer score --store`, the API) is refused
before SQLite creates them. Before, a read left an empty -wal and a 32 KiB -shm each time."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, fill_store, read_only

from semcer.errors import StoreError
from semcer.store.sqlite import JudgedEditStore


def _stored(path: Path) -> list[tuple]:
    """The store's rows, read through a connection closed afterwards (its close removes the -wal and -shm)."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT * FROM judged_edits ORDER BY key").fetchall()


def _listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((p.name, p.stat().st_size) for p in folder.iterdir())


def _semcer(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True, timeout=120)


def test_reading_a_read_only_store_leaves_nothing_beside_it(tmp_path):
    folder = tmp_path / "stores"
    folder.mkdir()
    store = fill_store(folder / "judged.sqlite")
    rows, before = _stored(store), _listing(folder)
    with read_only(store):
        info = _semcer("store", "info", str(store))
        check = _semcer("store", "check", str(store))
        with JudgedEditStore(store, readonly=True) as opened:
            count, immutable = len(opened), opened.immutable
        after = _listing(folder)
    assert info.returncode == 0 and "edits: 190" in info.stdout, info.stdout + info.stderr
    assert check.returncode == 0 and "rows checked: 190" in check.stdout, check.stdout + check.stderr
    assert (count, immutable) == (190, True)
    assert after == before == [("judged.sqlite", store.stat().st_size)] and _stored(store) == rows


def test_writing_a_read_only_store_is_refused_before_it_is_opened(tmp_path):
    folder = tmp_path / "stores"
    folder.mkdir()
    store = fill_store(folder / "judged.sqlite")
    rows, before = _stored(store), _listing(folder)
    with read_only(store):
        with pytest.raises(StoreError) as info:
            JudgedEditStore(store)
        run = _semcer("score", str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_noisy.jsonl"), "--store",
                      str(store), "-q")
        after = _listing(folder)
    assert str(info.value).startswith(f"{store}: cannot be written (the file is read-only to this process); a store "
                                      "needs write access to the file and its directory")
    assert run.returncode == 2 and run.stderr.startswith("semcer: error: --store"), run.stderr
    assert after == before and _stored(store) == rows
