"""Resumption: a `semcer score` process killed with SIGKILL mid-run and started again gives the
numbers of an uninterrupted run, and sends no edit to the judge that the killed run had stored.

The judge is the LLM judge against the real loopback server of the LLM-judge tests
(tests/llm_server.py), which counts the requests it answers: one request per edit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import ChatServer, fixed_backend

import semcer.cli
from semcer.store.sqlite import JudgedEditStore

ROOT = Path(__file__).resolve().parents[2]
REFS, HYPS = ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"
EDITS = 818  # distinct edits of the example (references vs tess_noisy), each one request


@pytest.fixture
def server():
    with ChatServer(fixed_backend()) as s:
        yield s


def _args(server, store, work, out):
    return ["score", str(REFS), str(HYPS), "--judge", "llm", "--endpoint", server.url, "--model", "tiny",
            "--concurrency", "2", "--store", str(store), "--work-dir", str(work), "--chunk-lines", "20",
            "--workers", "1", "--json", "--lines", "--quiet", "-o", str(out)]


def _stored(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with JudgedEditStore(path, readonly=True) as st:
            return len(st)
    except Exception:  # the writer is creating it
        return 0


def _kill_midway(cmd: list[str], store: Path, work: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    child = subprocess.Popen([sys.executable, "-m", "semcer.cli", *cmd], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and child.poll() is None:
            if _stored(store) >= 150 and list(work.glob("chunk-*.pkl")):
                break
            time.sleep(0.05)
        assert child.poll() is None, f"the run ended before it could be killed: {child.stderr.read().decode()[-500:]}"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL


def _numbers(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k != "judge"}


def test_sigkill_then_rerun_gives_the_uninterrupted_numbers_and_judges_nothing_twice(server, tmp_path):
    ref_out = tmp_path / "ref.json"
    assert semcer.cli.main(_args(server, tmp_path / "ref.sqlite", tmp_path / "ref-work", ref_out)) == 0
    assert server.stats.requests == EDITS
    server.reset()

    store, work, out = tmp_path / "s.sqlite", tmp_path / "work", tmp_path / "out.json"
    server.delay = 0.03
    _kill_midway(_args(server, store, work, out), store, work)
    assert not out.exists()  # the output is written whole or not at all
    stored = _stored(store)
    markers = len(list(work.glob("chunk-*.pkl")))
    assert 0 < stored < EDITS and markers >= 1

    server.delay = 0.0
    before = server.stats.requests
    assert semcer.cli.main(_args(server, store, work, out)) == 0
    assert server.stats.requests - before == EDITS - stored  # every stored edit reused, every other sent once
    got, want = json.loads(out.read_text()), json.loads(ref_out.read_text())
    assert _numbers(got) == _numbers(want)
    assert got["judge"]["identity"] == want["judge"]["identity"] and got["judge"]["edits"] == EDITS
    assert got["judge"]["cache_hits"] + got["judge"]["sent"] == EDITS
    assert _stored(store) == EDITS


def test_a_finished_run_is_loaded_from_its_markers(tmp_path, capsys):
    args = ["score", str(REFS), str(HYPS), "--work-dir", str(tmp_path / "w"), "--chunk-lines", "30", "--workers", "1",
            "--json", "--lines", "--quiet"]
    assert semcer.cli.main(args) == 0
    first = capsys.readouterr().out
    marker = tmp_path / "w" / "chunk-000000.pkl"
    stamp = marker.stat().st_mtime_ns
    assert semcer.cli.main(args) == 0
    assert capsys.readouterr().out == first and marker.stat().st_mtime_ns == stamp  # reused, not rewritten
    assert semcer.cli.main([*args[:-3], "--policy", "raw", "--json", "--lines", "--quiet"]) == 0
    assert marker.stat().st_mtime_ns != stamp  # other settings: the marker does not apply, the chunk is redone
