"""Worker processes (semcer.scale.workers): calls answered in order, exceptions raised again, a
worker that dies named instead of waited for, and a `semcer score` run that is interrupted (Ctrl-C,
SIGTERM) or loses a worker ending with one line, no traceback, no output and no process left."""

from __future__ import annotations

import json
import operator
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from semcer.errors import InputError, SemcerError
from semcer.scale.workers import Worker, WorkerDied

ROOT = Path(__file__).resolve().parents[2]
REFS, HYPS = ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"


@pytest.fixture
def worker():
    w = Worker()
    yield w
    w.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped) is not alive
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _gone(pids, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(map(_alive, pids)):
            return True
        time.sleep(0.05)
    return False


def test_calls_are_answered_in_order_with_their_values(worker):
    calls = [worker.submit(operator.mul, k, 3) for k in range(50)]
    assert [c.get() for c in reversed(calls)] == [3 * k for k in reversed(range(50))]
    assert worker.submit(os.getpid).get() == worker.pid != os.getpid()


def test_a_large_call_and_a_large_answer_cross_without_blocking(worker):
    big = "x" * (8 << 20)  # far beyond a pipe's buffer, in both directions at once
    calls = [worker.submit(str.upper, big) for _ in range(3)]
    assert all(c.get() == big.upper() for c in calls)


def test_an_exception_is_raised_again_here_with_its_type(worker):
    with pytest.raises(InputError, match="bad line"):
        worker.submit(_raise, InputError("bad line")).get()
    assert worker.submit(operator.add, 1, 2).get() == 3  # the worker goes on


def _raise(exc: BaseException) -> None:
    raise exc


def test_a_killed_worker_is_named_not_waited_for(worker):
    pid = worker.submit(os.getpid).get()
    pending = worker.submit(time.sleep, 60)
    time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    started = time.monotonic()
    with pytest.raises(WorkerDied, match=rf"worker process {pid} was killed by SIGKILL.*out-of-memory"):
        pending.get()
    assert time.monotonic() - started < 10
    with pytest.raises(WorkerDied):  # and a later call says so too, rather than hanging
        worker.submit(operator.add, 1, 2).get()
    assert issubclass(WorkerDied, SemcerError)  # the command line prints it as one line


def test_a_worker_ignores_ctrl_c_and_sigterm_and_close_ends_it_busy_or_idle():
    idle, busy = Worker(), Worker()
    pids = [idle.submit(os.getpid).get(), busy.submit(os.getpid).get()]
    for pid in pids:
        os.kill(pid, signal.SIGINT)
        os.kill(pid, signal.SIGTERM)
    assert idle.submit(operator.add, 2, 2).get() == 4 and busy.submit(operator.add, 1, 1).get() == 2
    busy.submit(time.sleep, 60)
    started = time.monotonic()
    idle.close()
    busy.close()
    assert time.monotonic() - started < 10
    assert _gone(pids)


def test_a_worker_ends_quietly_when_its_parent_is_gone(tmp_path):
    # A parent that starts a worker, prints its pid and is killed: the worker sees the pipe close and ends.
    script = ("import os, sys, time\nfrom semcer.scale.workers import Worker\n"
              "w = Worker()\nprint(w.submit(os.getpid).get(), flush=True)\ntime.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    pid = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    assert _gone([pid])
    assert b"Traceback" not in parent.stderr.read()


def _signal_masks(pid: int) -> dict[str, int]:
    """The blocked and ignored signals of ``pid`` (/proc/PID/status), as bit masks."""
    fields = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line)
    return {name: int(fields[name], 16) for name in ("SigBlk", "SigIgn")}


_MASKS = """\
import multiprocessing.forkserver as fs, os, signal, sys
from semcer.scale.workers import Worker, prestart
prestart()
w = Worker()
print(fs._forkserver._forkserver_pid, w.submit(os.getpid).get(), signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []),
      flush=True)
sys.stdin.readline()
w.close()
"""


@pytest.mark.skipif("forkserver" not in __import__("multiprocessing").get_all_start_methods()
                    or not Path("/proc/self/status").exists(), reason="no forkserver, or no /proc")
def test_the_forkserver_keeps_ctrl_c_blocked_and_the_worker_ignores_it():
    """The forkserver is started with SIGINT blocked (a Ctrl-C while it imported the workers' code
    printed its traceback); a worker ignores it instead, and the parent's mask is as it was."""
    child = subprocess.Popen([sys.executable, "-c", _MASKS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    try:
        server, worker, parent_blocked = child.stdout.readline().split()
        sigint = 1 << (signal.SIGINT - 1)
        assert _signal_masks(int(server))["SigBlk"] & sigint
        masks = _signal_masks(int(worker))
        assert not masks["SigBlk"] & sigint and masks["SigIgn"] & sigint
        assert parent_blocked == "False"
    finally:
        child.communicate("\n", timeout=60)
    assert child.returncode == 0, child.stderr


def test_a_worker_left_unclosed_does_not_keep_its_parent_from_exiting():
    """multiprocessing ends daemon processes at exit with SIGTERM, which a worker ignores, and waits
    for them: a worker that nothing closed (a Ctrl-C between its start and its owner) is ended by
    semcer's own exit handler instead."""
    script = "import os\nfrom semcer.scale.workers import Worker\nw = Worker()\nprint(w.submit(os.getpid).get())\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0 and done.stderr == ""
    assert _gone([int(done.stdout)])


# ---- a whole `semcer score` run --------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The bundled example twelve times over (new ids): long enough with two workers to be stopped
    in the middle, whichever judge."""
    folder = tmp_path_factory.mktemp("corpus")
    for src, name in ((REFS, "refs.jsonl"), (HYPS, "hyps.jsonl")):
        lines = src.read_text(encoding="utf-8").splitlines()
        with open(folder / name, "w", encoding="utf-8") as fh:
            for copy in range(12):
                for line in lines:
                    rec = json.loads(line)
                    rec["id"] = f"{rec['id']}~{copy}"
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return folder / "refs.jsonl", folder / "hyps.jsonl"


def _start(corpus, out: Path, work: Path) -> subprocess.Popen:
    refs, hyps = corpus
    cmd = [sys.executable, "-m", "semcer.cli", "score", str(refs), str(hyps), "--workers", "2", "--chunk-lines", "8",
           "--work-dir", str(work), "--json", "-o", str(out), "--quiet"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "src")})


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = [int(k) for t in os.listdir(f"/proc/{p}/task")
                    for k in Path(f"/proc/{p}/task/{t}/children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            kids = []
        out += kids
        todo += kids
    return out


def _mid_run(child: subprocess.Popen, work: Path) -> list[int]:
    """Wait until chunks have landed (the workers are at work), then the processes under ``child``."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None and len(list(work.glob("chunk-*.pkl"))) < 3:
        time.sleep(0.01)
    assert child.poll() is None, f"the run ended before it could be stopped: {child.stderr.read().decode()[-500:]}"
    return _descendants(child.pid)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
@pytest.mark.parametrize(("how", "code", "said"), [
    ("ctrl-c", 128 + signal.SIGINT, "semcer: interrupted"),  # SIGINT to the whole process group, as a terminal does
    ("kill", 128 + signal.SIGTERM, "semcer: stopped by SIGTERM"),  # SIGTERM to the command's process
    ("scheduler", 128 + signal.SIGTERM, "semcer: stopped by SIGTERM"),  # SIGTERM to every process of the group
])
def test_a_stopped_run_ends_with_one_line_and_leaves_nothing(corpus, tmp_path, how, code, said):
    out, work = tmp_path / "out.json", tmp_path / "work"
    child = _start(corpus, out, work)
    try:
        tree = _mid_run(child, work)
        assert len(tree) >= 3  # the workers (and the forkserver) are running
        if how == "ctrl-c":
            os.killpg(child.pid, signal.SIGINT)
        elif how == "kill":
            os.kill(child.pid, signal.SIGTERM)
        else:
            os.killpg(child.pid, signal.SIGTERM)
        assert child.wait(timeout=60) == code
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    err = child.stderr.read().decode()
    assert err.strip() == said, err  # no worker's traceback, no leaked-semaphore warning
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert _gone(tree)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
def test_a_run_that_loses_a_worker_says_so_then_resumes(corpus, tmp_path):
    out, work = tmp_path / "out.json", tmp_path / "work"
    child = _start(corpus, out, work)
    try:
        tree = _mid_run(child, work)
        workers = [p for p in tree if "forkserver" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")
                   and p not in _direct_children(child.pid)]
        assert len(workers) == 2, workers  # the forkserver's children
        os.kill(workers[-1], signal.SIGKILL)  # as the out-of-memory killer would
        assert child.wait(timeout=60) == 2
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    err = child.stderr.read().decode().strip()
    assert err.startswith(f"semcer: error: worker process {workers[-1]} was killed by SIGKILL") and "\n" not in err
    assert not out.exists()
    assert _gone(tree)
    # Started again, it resumes and gives the numbers of a run never stopped.
    rerun = _start(corpus, out, work)
    assert rerun.wait(timeout=300) == 0, rerun.stderr.read().decode()
    whole = _start(corpus, tmp_path / "whole.json", tmp_path / "whole-work")
    assert whole.wait(timeout=300) == 0
    got, want = json.loads(out.read_text()), json.loads((tmp_path / "whole.json").read_text())
    assert {k: v for k, v in got.items() if k != "judge"} == {k: v for k, v in want.items() if k != "judge"}
    resumed = got["judge"].pop("resumed")  # the chunks finished before the worker was lost: their edits told apart
    assert 3 <= resumed["chunks"] < 360 and resumed["sent"] + got["judge"]["sent"] == want["judge"]["sent"]


def _direct_children(pid: int) -> list[int]:
    return [int(k) for t in os.listdir(f"/proc/{pid}/task") for k in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]


_WORKER_IMPORTS = """
import sys
from semcer.scale.workers import WORKER_MODULES, Worker, prestart
if sys.argv[1] == "prestart":
    prestart()
w = Worker()
try:
    print(" ".join(m for m in WORKER_MODULES if m in w.submit(eval, "list(__import__('sys').modules)").get()))
finally:
    w.close()
"""


@pytest.mark.skipif("forkserver" not in __import__("multiprocessing").get_all_start_methods(), reason="no forkserver")
def test_prestart_has_the_forkserver_import_what_workers_run():
    """After prestart() a worker has the workers' code before its first call (it was forked from a
    forkserver that imported it); without it, a worker imports it on its first calls. A fresh process
    each, since a forkserver keeps what it imported when it started."""
    def imported(mode: str) -> set[str]:
        out = subprocess.run([sys.executable, "-c", _WORKER_IMPORTS, mode], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return set(out.stdout.split())

    assert {"semcer.scale.held", "semcer.judges.compact.judge"} <= imported("prestart")
    assert "semcer.scale.held" not in imported("plain")


def test_workers_are_prestarted_only_for_inputs_of_more_than_one_chunk(tmp_path):
    from semcer.cli.score import _BYTES_PER_LINE_GUESS, _needs_workers
    from semcer.scale.pipeline import StreamSettings

    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    small.write_bytes(b"x" * 1000)
    big.write_bytes(b"x" * (_BYTES_PER_LINE_GUESS * 100 + 1))
    two = StreamSettings(workers=2, chunk_lines=100)
    assert _needs_workers(str(big), two) and not _needs_workers(str(small), two)
    assert not _needs_workers(str(big), StreamSettings(workers=1, chunk_lines=100))
    assert not _needs_workers(str(big), StreamSettings(workers=2, chunk_lines=100, engine="ray"))
    assert not _needs_workers(str(tmp_path), two) and not _needs_workers(str(tmp_path / "missing"), two)
