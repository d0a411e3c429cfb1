"""A study this process may not write (a read-only or immutable file, or folder) is refused by
`semcer study serve` and read by `status` and `export` without leaving anything beside it: the
writability is asked of the kernel before SQLite opens the file (a connection to a file it may not
write still creates STUDY-wal and STUDY-shm in a writable folder, and leaves them), and a read opens
it immutable. A write-ahead log that was there before, holding answers, is read, never ignored or
removed."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import read_only
from studyhelpers import write_edits

from semcer.study.create import create_study, plan
from semcer.study.db import StudyDB


@pytest.fixture
def study(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    edits = write_edits(tmp_path / "edits.jsonl")
    create_study(folder / "s.study", plan([str(edits)], [], None, None, 0, 1), ["ana"])
    return folder / "s.study"



def _listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((p.name, p.stat().st_size) for p in folder.iterdir())


def _semcer(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("which", ["file", "folder"])
def test_a_refused_serve_leaves_the_folder_as_it_was(study, tmp_path, which):
    before, content = _listing(study.parent), study.read_bytes()
    with read_only(study if which == "file" else study.parent):
        run = _semcer("study", "serve", str(study), "--port", "1")  # refused before it would listen
        after = _listing(study.parent)
    assert run.returncode == 2 and "the study cannot be written" in run.stderr, run.stderr
    assert after == before == [("s.study", len(content))] and study.read_bytes() == content


@pytest.mark.parametrize("which", ["file", "folder"])
def test_a_read_only_study_is_read_and_nothing_is_left_beside_it(study, tmp_path, which):
    before = _listing(study.parent)
    out = tmp_path / "exported"
    with read_only(study if which == "file" else study.parent):
        status = _semcer("study", "status", str(study), "--json")
        export = _semcer("study", "export", str(study), "-o", str(out))
        after = _listing(study.parent)
    assert status.returncode == 0, status.stderr
    assert [(r["reader"], r["slots"]) for r in json.loads(status.stdout)["readers"]] == [("ana", 13)]  # 12 items + 1 repeat
    assert export.returncode == 0, export.stderr
    assert after == before


def test_answers_in_a_write_ahead_log_beside_a_read_only_study_are_read_and_the_log_kept(study):
    """A study with a live connection elsewhere keeps its answers in STUDY-wal until the last close:
    a reader that may not write the file reads them (no immutable open there) and removes nothing."""
    db = StudyDB(study)
    held = sqlite3.connect(study)  # another connection: the rating's close is not the last one, the log stays
    try:
        held.execute("SELECT count(*) FROM items").fetchone()
        _, slot = db.next_slot("ana")
        assert db.rate("ana", slot, level=3)
        wal = study.with_name("s.study-wal")
        assert wal.stat().st_size > 0
        before = _listing(study.parent)
        with read_only(study):
            ratings = [(r.reader, r.level) for r in StudyDB(study).ratings()]
            after = _listing(study.parent)
        assert ratings == [("ana", 3)] and after == before
    finally:
        held.close()
