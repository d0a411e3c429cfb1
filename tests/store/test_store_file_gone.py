"""A store file deleted, or replaced by another file, while a real `semcer score` writes it: the run
says so on standard error (how many judged edits are not in the store), its scores are the ones an
undisturbed run prints, exit status 0, and nothing of the run reaches the file now at the path.

On Linux SQLite would go on writing the unlinked file, and the edits would be lost without a word;
worse, its write-ahead log (found by the path) would be taken by the file put there as its own. The
LLM judge answers from a loopback server, one edit per request, in batches of 256 edits (its
documented batch size under 32 requests at once), each batch committed before the next is sent: so
the server's 257th request comes after the first commit and before the second.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, fill_store, store_lost_at, store_lost_warnings
from llm_server import ChatServer, fixed_backend

BATCH = 256  # the OpenAI backend's batch: max(256, 8 * concurrency)


def _score(server: ChatServer, store: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "semcer", "score", str(EXAMPLES / "references.jsonl"),
                           str(EXAMPLES / "tess_noisy.jsonl"), "--judge", "llm", "--endpoint", server.url,
                           "--model", "tiny", "--concurrency", "1", "--workers", "1", "--store", str(store),
                           "--json", "-q"], capture_output=True, text=True, timeout=300)


def _stored(path: Path) -> list[tuple]:
    """The store's rows, read through a connection closed afterwards (no reader of our own stays in its log)."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT * FROM judged_edits ORDER BY key").fetchall()


def _rows(path: Path) -> int:
    return len(_stored(path))


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_store_gone_under_a_run_is_said_and_the_file_at_its_path_is_left_alone(tmp_path, how):
    store = tmp_path / "judged.sqlite"
    other = fill_store(tmp_path / "other.sqlite")  # a store of 190 edits of other judges
    other_rows = _stored(other)
    # the first batch is committed, the second not yet written
    backend, seen = store_lost_at(BATCH + 1, store, other, how, fixed_backend())

    with ChatServer(backend) as server:
        run = _score(server, store)
        requests = seen["requests"]
        undisturbed = _score(server, tmp_path / "fresh.sqlite")
    assert run.returncode == 0, run.stderr
    assert seen["kept_before"] == BATCH
    lost = requests - BATCH  # every edit judged after the change
    assert lost > BATCH  # more than one batch after it: the close says the total
    assert run.stderr.splitlines() == store_lost_warnings(store, BATCH, lost)
    got, want = json.loads(run.stdout), json.loads(undisturbed.stdout)
    assert got["corpus"] == want["corpus"] and got["judge"]["judged"] == want["judge"]["judged"] == requests
    assert _rows(tmp_path / "fresh.sqlite") == requests  # what an undisturbed run keeps
    if how == "deleted":
        assert not store.exists()  # not made again by the run
    else:  # the file put there is as it was, also when opened again (the run's log did not become its own)
        assert _stored(store) == other_rows
        check = subprocess.run([sys.executable, "-m", "semcer", "store", "check", str(store)],
                               capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and "rows checked: 190" in check.stdout, check.stdout + check.stderr


def test_a_store_moved_away_and_back_between_two_commits_loses_nothing(tmp_path, caplog):
    """The same inode back at the path before the next commit: nothing was lost, nothing is said."""
    from helpers import make_ctx, p_of

    from semcer.judges.distribution import Judgement
    from semcer.store.sqlite import JudgedEditStore

    path = tmp_path / "s.sqlite"
    with JudgedEditStore(path) as store:
        rows = [(store.key("j:v1", make_ctx(i)), "j:v1", make_ctx(i), Judgement(p_of(make_ctx(i)))) for i in range(20)]
        assert store.put_many(rows[:10]) == 10
        path.rename(tmp_path / "away.sqlite")
        (tmp_path / "away.sqlite").rename(path)
        assert store.put_many(rows[10:]) == 10
    assert _rows(path) == 20
    assert [r for r in caplog.records if r.name == "semcer.store"] == []
