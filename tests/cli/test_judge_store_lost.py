"""A store deleted, or replaced by another file, while `semcer judge` fills it: the run says how many
judged edits are not in the store (the store's warnings, as for `semcer score`), and then, since the
store is all that `semcer judge` makes, ends with one error line naming the store and exit status 2
(before: exit status 0, as if the edits had been kept).

The LLM judge answers from a loopback server, one edit per request (``--concurrency 1``), and the
run commits every 4 edits (``--commit-every 4``): so the server's 5th request comes after the first
commit and before the second, and the file is deleted or replaced then.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import pytest
from helpers import fill_store, store_lost_at, store_lost_warnings
from llm_server import ChatServer, fixed_backend

import semcer.cli
import semcer.cli.judge

BATCH = 4
LINES = 10  # two edits a line (2 -> 7, o -> 0), each in its own context: 20 distinct edits


def _corpus(tmp_path: Path) -> tuple[Path, Path]:
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    with refs.open("w", encoding="utf-8") as r, hyps.open("w", encoding="utf-8") as h:
        for k in range(LINES):
            r.write(json.dumps({"id": str(k), "text": f"Zeile {k}: Betrag {k}.250 Euro", "lang": "de"}) + "\n")
            h.write(json.dumps({"id": str(k), "text": f"Zeile {k}: Betrag {k}.750 Eur0"}) + "\n")
    return refs, hyps


def _judge_args(server: ChatServer, refs: Path, hyps: Path, store: Path) -> list[str]:
    return ["judge", str(refs), str(hyps), "--judge", "llm", "--endpoint", server.url, "--model", "tiny",
            "--concurrency", "1", "--commit-every", str(BATCH), "--store", str(store), "--json", "-q"]


def _stored(path: Path) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT * FROM judged_edits ORDER BY key").fetchall()


def _lost_line(store: Path, what: str) -> str:
    return (f"semcer: error: {store}: the store was deleted, moved or replaced by another file during the run: {what}; "
            "judge again into a store that stays in place (with the same --store, only the edits missing from it "
            "are judged)")


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_store_lost_under_semcer_judge_is_an_error_after_the_count(tmp_path, capsys, how):
    refs, hyps = _corpus(tmp_path)
    store = tmp_path / "judged.sqlite"
    other = fill_store(tmp_path / "other.sqlite")
    other_rows = _stored(other)
    # the first batch is committed, the second not yet written
    backend, seen = store_lost_at(BATCH + 1, store, other, how, fixed_backend())

    with ChatServer(backend) as server:
        status = semcer.cli.main(_judge_args(server, refs, hyps, store))
    out, err = capsys.readouterr()
    lost = seen["requests"] - BATCH
    assert seen["kept_before"] == BATCH and lost == 2 * LINES - BATCH
    assert status == 2
    assert err.splitlines() == [*store_lost_warnings(store, BATCH, lost),
                                _lost_line(store, f"{lost} judged edit(s) of this run are not in it")]
    assert json.loads(out)["judged"] == 2 * LINES  # what was judged (and spent) is still reported
    if how == "deleted":
        assert not store.exists()  # not made again by the run
    else:
        assert _stored(store) == other_rows


def test_a_store_gone_after_the_last_commit_is_an_error_too(tmp_path, capsys, monkeypatch):
    """Deleted after the run's last commit, before it ends: no commit counted a lost edit, but the
    store the run filled is not at its path."""
    refs, hyps = _corpus(tmp_path)
    store = tmp_path / "judged.sqlite"
    judge_corpus = semcer.cli.judge.judge_corpus

    def then_deleted(*args, **kwargs):
        summary = judge_corpus(*args, **kwargs)
        store.unlink()
        return summary

    monkeypatch.setattr(semcer.cli.judge, "judge_corpus", then_deleted)
    with ChatServer(fixed_backend()) as server:
        status = semcer.cli.main(_judge_args(server, refs, hyps, store))
    err = capsys.readouterr().err
    assert status == 2
    assert err.splitlines() == [_lost_line(store, "the file now at that path (if any) is not the one this run filled")]


def test_a_store_that_stays_in_place_is_no_error(tmp_path, capsys):
    refs, hyps = _corpus(tmp_path)
    store = tmp_path / "judged.sqlite"
    with ChatServer(fixed_backend()) as server:
        assert semcer.cli.main(_judge_args(server, refs, hyps, store)) == 0
    assert capsys.readouterr().err == ""
    assert len(_stored(store)) == 2 * LINES
