"""Ctrl-C at any moment of a run with worker processes ends it with one line: `semcer: interrupted`,
exit status 130, no output file, and no traceback from the forkserver or a worker that was still
starting (a terminal sends SIGINT to every process of the command's process group).

The moments are taken from what the run has started, seen in /proc: the forkserver (while it
imports the workers' code: Ctrl-C then printed its traceback before the one line) and the first
worker (while the next one starts), each at a few delays.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFS, HYPS = ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"
COPIES = 20  # 4,800 lines: two chunks of the default 2,500, so two workers are started

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists() or os.name != "posix",
                                reason="watches the run's processes in /proc")

#: (what the run has started, seconds after it was seen) at which Ctrl-C is sent.
MOMENTS = [("forkserver", 0.0), ("forkserver", 0.05), ("forkserver", 0.2), ("forkserver", 0.4),
           ("worker", 0.0), ("worker", 0.05)]
TRIES = 3  # a moment the run did not live to (it ended before the signal was sent) is tried again


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("interrupt")
    out = []
    for src in (REFS, HYPS):
        lines = src.read_text(encoding="utf-8").splitlines()
        path = folder / src.name
        path.write_text("".join(line.replace('"id": "', f'"id": "c{k}-', 1) + "\n"
                                for k in range(COPIES) for line in lines), encoding="utf-8")
        out.append(path)
    return out[0], out[1]


def _children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is ``pid``, with their command lines."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append((int(entry), Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")))
        except (OSError, IndexError, ValueError):
            continue  # it ended meanwhile
    return found


def _seen(pid: int, what: str) -> bool:
    servers = [p for p, cmd in _children(pid) if "forkserver" in cmd]
    return bool(servers) if what == "forkserver" else any(_children(s) for s in servers)


def _interrupted_at(refs: Path, hyps: Path, out: Path, what: str, delay: float) -> subprocess.CompletedProcess | None:
    """Run `semcer score` with two workers in a process group of its own and send SIGINT to the group
    ``delay`` seconds after ``what`` was seen; None when the run ended before the signal could be sent."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "semcer", "score", str(refs), str(hyps), "--workers", "2", "--json", "-o", str(out)]
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=0)
    try:
        deadline = time.monotonic() + 60
        while child.poll() is None and not _seen(child.pid, what) and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(delay)
        if child.poll() is not None:
            child.communicate()
            return None
        os.killpg(child.pid, signal.SIGINT)
        stdout, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    return subprocess.CompletedProcess(cmd, child.returncode, stdout.decode(), stderr.decode())


@pytest.mark.parametrize(("what", "delay"), MOMENTS)
def test_ctrl_c_while_the_workers_start_is_one_line(corpus, tmp_path, what, delay):
    refs, hyps = corpus
    out = tmp_path / "o.json"
    for _ in range(TRIES):
        got = _interrupted_at(refs, hyps, out, what, delay)
        if got is not None:
            break
        out.unlink(missing_ok=True)
    else:
        pytest.fail(f"the run ended before Ctrl-C at {what}+{delay} s, {TRIES} times")
    lines = [line for line in got.stderr.splitlines() if not line.startswith("semcer: note: --workers")]  # < 2 cores
    assert (got.returncode, lines) == (128 + signal.SIGINT, ["semcer: interrupted"]), got.stderr
    assert got.stdout == "" and not out.exists()
