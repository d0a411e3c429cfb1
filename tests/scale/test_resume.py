"""Resumption: a `semcer score` process killed with SIGKILL mid-run and started again gives the
numbers of an uninterrupted run, and sends no edit to the judge that the killed run had stored.

The judge is the LLM judge against the real loopback server of the LLM-judge tests
(tests/llm_server.py), which counts the requests it answers: one request per edit.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import Answer, ChatServer, fixed_backend

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
    judge, resumed = got["judge"], got["judge"]["resumed"]
    assert resumed["chunks"] == markers  # the finished chunks: what the killed run judged for them, told apart
    assert judge["sent"] == judge["judged"] == judge["requests"] == EDITS - stored  # what this run sent, no more
    assert resumed["sent"] + judge["cache_hits"] == stored and resumed["cache_hits"] == 0
    assert judge["cache_hits"] + judge["sent"] + resumed["sent"] == EDITS
    assert _stored(store) == EDITS


def test_a_finished_run_is_loaded_from_its_markers(tmp_path, capsys):
    args = ["score", str(REFS), str(HYPS), "--work-dir", str(tmp_path / "w"), "--chunk-lines", "30", "--workers", "1",
            "--json", "--lines", "--quiet"]
    assert semcer.cli.main(args) == 0
    first = json.loads(capsys.readouterr().out)
    marker = tmp_path / "w" / "chunk-000000.pkl"
    stamp = marker.stat().st_mtime_ns
    assert semcer.cli.main(args) == 0
    again = json.loads(capsys.readouterr().out)
    assert _numbers(again) == _numbers(first) and marker.stat().st_mtime_ns == stamp  # reused, not rewritten
    was = first["judge"]
    assert was["sent"] == was["judged"] == was["unique_edits"] > 0 and "resumed" not in was
    assert again["judge"] == {**was, "cache_hits": 0, "sent": 0, "judged": 0,  # nothing judged by this run
                              "resumed": {"chunks": 8, "cache_hits": 0, "sent": was["sent"], "judged": was["judged"],
                                          "failures": 0}}  # what the first run judged for them
    assert semcer.cli.main(args[:-1]) == 0  # not --quiet: the resumption is said, on standard error
    assert capsys.readouterr().err == (f"semcer: note: resumed 8 of 8 chunk(s) from {tmp_path / 'w'} (their lines "
                                       "were not aligned or judged again)\n")  # 240 lines, 30 a chunk
    assert semcer.cli.main([*args[:-3], "--policy", "raw", "--json", "--lines", "--quiet"]) == 0
    assert marker.stat().st_mtime_ns != stamp  # other settings: the marker does not apply, the chunk is redone


def test_a_chunk_with_edits_that_failed_is_taken_again_by_the_rerun(tmp_path):
    """A chunk whose edits the judge could not all judge gets no marker: a rerun with the same
    --work-dir sends exactly the edits that failed (the rest are in the store), as the failure note
    promises, and ends with the numbers of a run that never failed."""
    good = fixed_backend()
    garbage = Answer([("the", 0.0)], "the")  # no label among the answer's tokens: no usable answer

    def some_fail(body: dict) -> Answer:
        prompt = body["messages"][-1]["content"]
        return garbage if "⟦ể⟧" in prompt else good(body)  # the edits of an "ể" (the first in chunk 6)

    def args(server: ChatServer, store: Path, work: Path, out: Path) -> list[str]:
        return [*_args(server, store, work, out), "--max-retries", "0"]  # a failure is final at once

    ref_out, out = tmp_path / "ref.json", tmp_path / "out.json"
    with ChatServer(good) as server:
        assert semcer.cli.main(args(server, tmp_path / "ref.sqlite", tmp_path / "ref-work", ref_out)) == 0
    store, work = tmp_path / "s.sqlite", tmp_path / "work"
    with ChatServer(some_fail) as server:
        assert semcer.cli.main(args(server, store, work, out)) == 1
    failed = json.loads(out.read_text())["judge"]["failures"]
    chunks, markers = -(-240 // 20), len(list(work.glob("chunk-*.pkl")))
    assert 0 < failed < EDITS and 0 < markers < chunks  # some chunks failed, some did not
    leading = next(i for i in range(chunks) if not (work / f"chunk-{i:06d}.pkl").exists())  # the first that failed
    assert _stored(store) == EDITS - failed
    with ChatServer(good) as server:
        assert semcer.cli.main(args(server, store, work, out)) == 0
        assert server.stats.requests == failed  # only the edits that failed, none of the stored ones
    got, want = json.loads(out.read_text()), json.loads(ref_out.read_text())
    assert _numbers(got) == _numbers(want) and got["judge"]["failures"] == 0
    assert got["judge"]["resumed"]["chunks"] == leading > 0  # the finished chunks before the first one that failed
    assert len(list(work.glob("chunk-*.pkl"))) == chunks


# ---- markers are authenticated before they are unpickled ------------------------------------------

MAGIC = b"SEMCERMK\x01\x00"  # the marker format's header, written out by hand: b"SEMCERMK", version 1 (<H)
MAC_BYTES = 32  # HMAC-SHA256


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    """A cache folder of the test's own (the markers' key is created there), with the machine's lexicon
    tables linked in so that they are not built again."""
    from semcer.cache_folder import cache_root

    lexicons = cache_root() / "lexicons"
    folder = tmp_path / "cache"
    folder.mkdir()
    if lexicons.is_dir():
        (folder / "lexicons").symlink_to(lexicons, target_is_directory=True)
    monkeypatch.setenv("SEMCER_CACHE_DIR", str(folder))
    return folder


class _Planted:
    """A pickle whose loading creates ``canary`` (builtins.open in mode "w"): what an attacker plants."""

    def __init__(self, canary: Path) -> None:
        self.canary = canary

    def __reduce__(self):
        return (open, (str(self.canary), "w"))


def _offline(work: Path, out: Path) -> list[str]:
    return ["score", str(REFS), str(HYPS), "--work-dir", str(work), "--chunk-lines", "30", "--workers", "1",
            "--json", "--lines", "--quiet", "-o", str(out)]


def _cli(args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "semcer", *args], env=env, capture_output=True, text=True, timeout=300)


def _payload(marker: Path) -> object:
    """The outcome a genuine marker holds (read past the header and the MAC by hand)."""
    data = marker.read_bytes()
    assert data[:len(MAGIC)] == MAGIC
    return pickle.loads(data[len(MAGIC) + MAC_BYTES:])


def test_a_planted_pickle_is_never_loaded_and_its_chunks_are_redone(tmp_path):
    ref_out = tmp_path / "ref.json"
    assert semcer.cli.main(_offline(tmp_path / "ref-work", ref_out)) == 0
    work, out = tmp_path / "work", tmp_path / "out.json"
    assert semcer.cli.main(_offline(work, tmp_path / "first.json")) == 0
    assert len(list(work.glob("chunk-*.pkl"))) == 8  # 240 lines, 30 a chunk

    canary = tmp_path / "pwned"
    live = pickle.dumps(_Planted(canary))
    pickle.loads(live).close()  # the payload is live: loading it creates the file
    assert canary.exists()
    canary.unlink()
    (work / "chunk-000000.pkl").write_bytes(MAGIC + bytes(MAC_BYTES) + live)  # the right header, a forged MAC
    (work / "chunk-000003.pkl").write_bytes(live)  # no header at all (as markers were before they were signed)
    stamp = (work / "chunk-000005.pkl").stat().st_mtime_ns

    p = _cli(_offline(work, out))
    assert p.returncode == 0, p.stderr
    assert not canary.exists()
    assert "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines() == [
        f"semcer: warning: 2 completion marker(s) in {work} failed authentication (planted, damaged, or written "
        "under another key or by an older semcer) and were not loaded: their chunks are done again"]
    assert json.loads(out.read_text()) == json.loads(ref_out.read_text())
    assert _payload(work / "chunk-000000.pkl").index == 0  # written again, genuine
    assert (work / "chunk-000005.pkl").stat().st_mtime_ns != stamp  # every chunk after the planted one redone


def test_a_marker_with_one_flipped_byte_is_redone_and_the_others_reused(tmp_path):
    work, out = tmp_path / "work", tmp_path / "out.json"
    assert semcer.cli.main(_offline(work, out)) == 0
    first = out.read_text()
    damaged = work / "chunk-000002.pkl"
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0x01
    damaged.write_bytes(bytes(data))
    stamps = {m.name: m.stat().st_mtime_ns for m in work.glob("chunk-*.pkl")}

    with pytest.warns(RuntimeWarning, match=r"^1 completion marker\(s\) in .* failed authentication"):
        assert semcer.cli.main(_offline(work, out)) == 0
    got, want = json.loads(out.read_text()), json.loads(first)
    assert _numbers(got) == _numbers(want)
    resumed = got["judge"].pop("resumed")
    assert resumed["chunks"] == 2 and 0 < resumed["sent"] < want["judge"]["sent"]  # chunks 0 and 1
    assert got["judge"] == {**want["judge"], "sent": want["judge"]["sent"] - resumed["sent"],
                            "judged": want["judge"]["judged"] - resumed["judged"]}  # the chunks from 2 on, judged again
    now = {m.name: m.stat().st_mtime_ns for m in work.glob("chunk-*.pkl")}
    assert [n for n in sorted(now) if now[n] == stamps[n]] == ["chunk-000000.pkl", "chunk-000001.pkl"]  # reused
    assert damaged.read_bytes() != bytes(data) and _payload(damaged).index == 2


def test_genuine_markers_are_reused_and_a_damaged_one_is_judged_again(server, tmp_path):
    """Without a store only the markers can spare a request: a rerun over genuine markers sends none,
    and one over a damaged last marker sends exactly the edits that chunk judged first."""
    work, out = tmp_path / "work", tmp_path / "out.json"
    args = _args(server, tmp_path / "unused.sqlite", work, out)
    del args[args.index("--store"):args.index("--store") + 2]
    assert semcer.cli.main(args) == 0
    assert server.stats.requests == EDITS
    want = json.loads(out.read_text())

    assert semcer.cli.main(args) == 0
    assert server.stats.requests == EDITS  # every chunk loaded from its marker
    got = json.loads(out.read_text())
    assert _numbers(got) == _numbers(want)
    assert (got["judge"]["sent"], got["judge"]["judged"], got["judge"]["requests"]) == (0, 0, 0)  # this run's
    assert got["judge"]["resumed"] == {"chunks": 12, "cache_hits": 0, "sent": EDITS, "judged": EDITS, "failures": 0}
    assert want["judge"]["sent"] == want["judge"]["judged"] == EDITS and "resumed" not in want["judge"]

    last = sorted(work.glob("chunk-*.pkl"))[-1]
    first_judged = len(_payload(last).new)
    assert first_judged > 0
    data = bytearray(last.read_bytes())
    data[len(MAGIC) + 3] ^= 0x80  # inside the MAC
    last.write_bytes(bytes(data))
    with pytest.warns(RuntimeWarning, match="1 completion marker"):
        assert semcer.cli.main(args) == 0
    assert server.stats.requests == EDITS + first_judged
    got = json.loads(out.read_text())
    assert _numbers(got) == _numbers(want)
    assert got["judge"]["sent"] == got["judge"]["requests"] == first_judged  # the damaged chunk's, sent again
    assert got["judge"]["resumed"] == {"chunks": 11, "cache_hits": 0, "sent": EDITS - first_judged,
                                       "judged": EDITS - first_judged, "failures": 0}


def test_the_key_is_private_reused_and_replaced_when_refused(tmp_path, cache_dir):
    work, out = tmp_path / "work", tmp_path / "out.json"
    assert semcer.cli.main(_offline(work, out)) == 0
    key = cache_dir / "marker.key"
    st = key.stat()
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_size == 32
    secret = key.read_bytes()
    stamps = {m.name: m.stat().st_mtime_ns for m in work.glob("chunk-*.pkl")}

    assert _cli(_offline(work, out)).returncode == 0  # another process: the same key, every marker reused
    assert key.read_bytes() == secret and key.stat().st_ino == st.st_ino
    assert {m.name: m.stat().st_mtime_ns for m in work.glob("chunk-*.pkl")} == stamps

    key.write_bytes(secret[:16])  # the wrong size: refused, a new key, the markers under the old one redone
    p = _cli(_offline(work, out))
    assert p.returncode == 0 and "8 completion marker(s)" in p.stderr, p.stderr
    new = key.read_bytes()
    assert len(new) == 32 and new != secret and stat.S_IMODE(key.stat().st_mode) == 0o600


def test_processes_starting_at_once_end_with_one_key(tmp_path):
    code = ("import sys, time\nfrom semcer.scale.markers import marker_key\n"
            "while time.time() < float(sys.argv[1]): pass\n"
            "print(marker_key().hex())\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SEMCER_CACHE_DIR": str(tmp_path / "fresh" / "cache")}
    start = time.time() + 3  # every process imported and waiting before the first one looks for the key
    procs = [subprocess.Popen([sys.executable, "-c", code, str(start)], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(6)]
    keys = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert keys == {(tmp_path / "fresh" / "cache" / "marker.key").read_bytes().hex()}
    assert [f.name for f in (tmp_path / "fresh" / "cache").iterdir()] == ["marker.key"]  # no temporary left


# ---- --work-dir is checked before any work ---------------------------------------------------------


def _one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    return p.stderr.strip()


def test_a_work_dir_that_is_a_file_or_under_one_is_one_line_exit_2(tmp_path):
    plain = tmp_path / "notes.txt"
    plain.write_text("a file\n")
    out = tmp_path / "out.json"
    assert _one_line_error(_cli(_offline(plain, out))) == (
        f"semcer: error: --work-dir {plain}: is a file, not a folder; give a folder (a new name is created)")
    assert _one_line_error(_cli(_offline(plain / "w", out))) == (
        f"semcer: error: --work-dir {plain / 'w'}: {plain} is a file, not a folder")
    assert _one_line_error(_cli(_offline(plain / "a" / "b", out))) == (
        f"semcer: error: --work-dir {plain / 'a' / 'b'}: {plain} is a file, not a folder")
    assert plain.read_text() == "a file\n" and not out.exists()


def test_a_work_dir_whose_parent_is_missing_is_refused_and_nothing_is_created(tmp_path):
    missing = tmp_path / "nonexistent" / "a" / "b"
    out = tmp_path / "out.json"
    assert _one_line_error(_cli(_offline(missing, out))) == (
        f"semcer: error: --work-dir {missing}: folder {missing.parent} does not exist; create it first "
        f"(mkdir -p {missing.parent})")
    assert not (tmp_path / "nonexistent").exists() and not out.exists()
    new = tmp_path / "new"  # the folder itself may be created
    p = _cli(_offline(new, out))
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert len(list(new.glob("chunk-*.pkl"))) == 8
