"""Worker processes that run the calls they are sent, in order, and say so when one of them dies.

``multiprocessing.Pool`` replaces a worker that dies (the kernel's out-of-memory killer, a
``kill -9``) and then waits for ever for the calls that worker had; at scale that is a run that
hangs without a word. A :class:`Worker` is one process (forkserver where there is one) and a pipe:
the calls sent to it run one after another, each answered in turn (a value, or the exception it
raised, raised again here), and a call whose worker died raises :class:`WorkerDied`, naming the
signal or the exit status. A thread per worker reads the answers as they come, so neither side
can block the other with a large message.

A worker runs until it is told to stop (or the pipe closes: its parent is gone, and it ends
quietly). It ignores Ctrl-C and SIGTERM, which a terminal or a job scheduler sends to every process
of a command: the command's process alone decides, unwinds and ends its workers
(:meth:`Worker.close`, SIGKILL when one is still busy), so an interrupted run ends with one line.
Ctrl-C reaches the forkserver and a worker that is still starting too (before either can ignore it:
the forkserver imports :data:`WORKER_MODULES` first), so both are started with SIGINT blocked
(:func:`ctrl_c_held`), as they inherit it; a Ctrl-C meanwhile is this process's, raised once they are
started.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import multiprocessing
import multiprocessing.util  # its exit handler registered before this module's (:data:`_LIVE`)
import pickle
import signal
import threading
import weakref
from collections.abc import Iterator
from typing import Any

from semcer.errors import SemcerError
from semcer.store.guards import say_on_stderr, stderr_state

_STOP = b""  # the message that ends a worker (a call is never empty)
#: What a run that lost a worker can do (the end of every :class:`WorkerDied` message).
RESUME_HINT = "with --work-dir, running the same command again resumes from the finished chunks"


class WorkerDied(SemcerError):
    """A worker process ended while it had calls to answer."""


def context() -> Any:
    """The start method of the workers: forkserver where there is one (a fork of a process that
    imported nothing of the parent's state), else spawn."""
    return multiprocessing.get_context("forkserver" if "forkserver" in multiprocessing.get_all_start_methods()
                                       else "spawn")


#: What the workers of a run import on their first calls (the held chunks' and the checks' code and the
#: offline judges): :func:`prestart` has the forkserver import them once, before it forks any worker.
WORKER_MODULES = ("semcer.scale.held", "semcer.scale.reading", "semcer.judges.compact.judge",
                  "semcer.judges.rubric.features", "pythainlp")


def prestart() -> None:
    """Start the forkserver now, importing :data:`WORKER_MODULES` (a missing optional one is skipped),
    while this process goes on reading and checking its inputs: the workers it starts later are
    forked with that code already imported instead of each importing it on its first call. Nothing
    where there is no forkserver; a forkserver already running keeps what it imported."""
    ctx = context()
    if ctx.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    ctx.set_forkserver_preload(["__main__", *WORKER_MODULES])  # __main__: the default preload, kept
    with ctrl_c_held():
        forkserver.ensure_running()


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """SIGINT blocked in this thread for the time of the block, so that a process started in it
    inherits the block: the forkserver keeps it (it ignores Ctrl-C once it has imported its preload)
    and the workers it forks lift it once they ignore Ctrl-C (:func:`_serve`). A Ctrl-C received
    meanwhile stays pending and is raised here (KeyboardInterrupt) when the block ends. Nothing where
    signals cannot be blocked.

    multiprocessing's resource tracker is started first: starting it unblocks SIGINT in this thread
    (it blocks SIGINT and SIGTERM around its own start, then unblocks them), which would lift the
    block before the forkserver is started under it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


#: The workers started and not yet closed: :func:`_close_left_workers` ends them when the interpreter
#: exits. A Ctrl-C can land between a worker's start and the code that would close it (an executor
#: being built); multiprocessing's own exit handler ends daemon processes with SIGTERM, which workers
#: ignore, and then waits for them: without this the command would never exit.
_LIVE: weakref.WeakSet[Worker] = weakref.WeakSet()


def _close_left_workers() -> None:
    for worker in list(_LIVE):
        worker.close()


atexit.register(_close_left_workers)  # after multiprocessing.util's handler: run before it


class Call:
    """A call sent to a worker: ``get()`` waits for its answer (the value, or the exception raised)."""

    __slots__ = ("_seq", "_worker")

    def __init__(self, worker: Worker, seq: int) -> None:
        self._worker, self._seq = worker, seq

    def get(self) -> Any:
        return self._worker.answer(self._seq)


class Worker:
    """One worker process (see the module documentation); ``collect`` is the state of its garbage
    collector (the caller's, :func:`semcer.scale.executors.start_workers`)."""

    def __init__(self, collect: bool = True) -> None:
        ctx = context()
        here, there = ctx.Pipe()
        said = stderr_state()  # the store's notes and warnings, printed in the worker as here
        self._process = ctx.Process(target=_serve, args=(there, collect, said), daemon=True, name="semcer-worker")
        self._conn = here
        self._answers: dict[int, tuple[bool, Any]] = {}
        self._ready = threading.Condition()
        self._sent = 0  # calls sent
        self._got = 0  # answers read (by the reader thread; answers come in the order of the calls)
        self._ended = False
        self._reader = threading.Thread(target=self._read, name="semcer-worker-reader", daemon=True)
        try:
            with ctrl_c_held():  # the forkserver (when this starts it), the worker and its reader thread
                self._process.start()  # start with Ctrl-C blocked: it is the main thread's, raised here
                _LIVE.add(self)
                self._reader.start()
        except BaseException:  # Ctrl-C meanwhile: the worker, if started, does not outlive this
            _LIVE.discard(self)
            if self._process.pid is not None:
                self._process.kill()
                self._process.join()
            here.close()
            raise
        finally:
            there.close()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def submit(self, fn: Any, *args: Any) -> Call:
        """Send ``fn(*args)`` to the worker (``fn`` importable by name, the arguments picklable)."""
        seq = self._sent
        message = pickle.dumps((seq, fn, args), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self._conn.send_bytes(message)
        except OSError:
            raise self._died() from None
        self._sent += 1
        return Call(self, seq)

    def answer(self, seq: int) -> Any:
        """The answer of call ``seq``: its value, or the exception it raised (raised here)."""
        with self._ready:
            while seq not in self._answers:
                if self._ended:
                    raise self._died()
                self._ready.wait()
            ok, value = self._answers.pop(seq)
        if ok:
            return value
        raise value

    def close(self) -> None:
        """End the worker: told to stop when it has nothing left to answer, else killed at once."""
        _LIVE.discard(self)
        if self._process.pid is None:
            return
        with self._ready:
            idle = not self._ended and self._got == self._sent
        if idle:
            with contextlib.suppress(OSError):
                self._conn.send_bytes(_STOP)
            self._process.join(2)
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        if self._reader.ident is not None:
            self._reader.join(5)  # it reads the end of the pipe the worker's exit closed, and returns
        self._conn.close()

    def _read(self) -> None:
        """Read answers until the pipe closes (the worker ended, or was ended)."""
        while True:
            try:
                data = self._conn.recv_bytes()
            except (EOFError, OSError, TypeError):  # TypeError: the connection was closed under the read
                break
            try:
                seq, ok, value = pickle.loads(data)
            except Exception as exc:  # an answer that does not unpickle here: that call's error
                seq, ok, value = self._got, False, SemcerError(f"a worker's answer could not be read: {exc!r}")
            with self._ready:
                self._answers[seq] = (ok, value)
                self._got += 1
                self._ready.notify_all()
        with self._ready:
            self._ended = True
            self._ready.notify_all()

    def _died(self) -> WorkerDied:
        self._process.join(5)
        code = self._process.exitcode
        if code is None:
            how = "stopped answering"
        elif code < 0:
            how = f"was killed by {_signal_name(-code)}"
        else:
            how = f"exited with status {code}"
        hint = (" (the kernel's out-of-memory killer does this: try fewer --workers or a smaller --chunk-lines)"
                if code == -signal.SIGKILL else "")
        return WorkerDied(f"worker process {self._process.pid} {how} before it answered{hint}; {RESUME_HINT}")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _serve(conn: Any, collect: bool, said: bool | None = None) -> None:
    """The worker's loop: run each call received, send its answer; end on the stop message or when
    the parent is gone. ``said``: how the parent prints the store's records
    (:func:`semcer.store.guards.stderr_state`)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # started with SIGINT blocked (ctrl_c_held): ignored now instead
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    say_on_stderr(said)
    if not collect:
        gc.disable()
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        if data == _STOP:
            return
        seq, fn, args = pickle.loads(data)
        try:
            answer = (seq, True, fn(*args))
        except BaseException as exc:
            answer = (seq, False, exc)
        try:
            conn.send_bytes(_dumps(answer))
        except OSError:
            return  # the parent is gone


def _dumps(answer: tuple[int, bool, Any]) -> bytes:
    """The answer pickled; an answer (or exception) that does not pickle becomes an error that does."""
    try:
        return pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        seq, _, value = answer
        return pickle.dumps((seq, False, SemcerError(f"a worker's answer could not be sent: {value!r}: {exc!r}")),
                            protocol=pickle.HIGHEST_PROTOCOL)
