"""Write output files all or nothing: into a temporary file beside the target, then rename.

- A reader never sees a half-written file, and an interrupted run leaves the old file intact.
- A target that is a device or a named pipe (``/dev/null``, ``/dev/stdout``) is written directly.
- A target that is a symbolic link is written where it points (as ``> LINK`` in a shell does):
  the file it names is replaced, the link stays; a dangling link's file is created.
- Modes are what any other program would leave: a new file gets ``0666 & ~umask`` (the kernel
  applies the umask when the temporary file is created), a replaced file keeps its mode.
- The temporary file is ``.NAME.HOST.PID.RANDOM.tmp`` in the target's folder. An error, Ctrl-C
  (SIGINT), SIGTERM or SIGHUP during the write removes it (a process with the default action for
  SIGTERM/SIGHUP still dies of the signal, after the removal). SIGKILL cannot be caught: the file
  stays, and the next atomic write of the same target removes every such file whose process (same
  host, PID no longer running) is gone. A file of a live process is never touched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import signal
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:32] or "host"
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

_live: set[str] = set()  # temporary files being written by this process
_saved: dict[int, Any] = {}  # signal -> the handler ours replaced, while a write is in progress
_depth = [0]  # writes in progress in the main thread (a list: no `global` statement)
_lock = threading.Lock()


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success it replaces ``path``, on error it is removed.

    A ``path`` that exists and is not a regular file (``/dev/null``, ``/dev/stdout``, a named
    pipe) is written directly: replacing it would replace the device or pipe itself."""
    binary = "b" in mode
    kw: dict[str, Any] = {"encoding": None if binary else encoding, "newline": None if binary else ""}
    path = written_path(path)
    if _special(path):
        with open(path, mode, **kw) as handle:
            yield handle
        return
    with _temporary(path) as (fd, _), os.fdopen(fd, mode, **kw) as handle:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())


def atomic_path(path: str | os.PathLike[str]) -> contextlib.AbstractContextManager[Path]:
    """Like :func:`atomic_write` for writers that need a path (e.g. pyarrow): yields the temp path,
    which exists (empty, with the final mode) and is renamed onto ``path`` when the block ends."""

    @contextlib.contextmanager
    def _ctx() -> Iterator[Path]:
        target = written_path(path)
        if _special(target):
            yield target
            return
        with _temporary(target) as (fd, tmp):
            os.close(fd)  # the writer opens the path itself
            yield tmp

    return _ctx()


def written_path(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` replaces: where it points when it is a symbolic link (followed to
    the end; a dangling link names the file it would point to)."""
    target = Path(path)
    return Path(os.path.realpath(target)) if target.is_symlink() else target


def probe_folder(folder: str | os.PathLike[str]) -> None:
    """Create and remove a file in ``folder``, as an atomic write there would: OSError when that
    fails (``os.access`` is no test: it says yes to root on a read-only file system or in /proc)."""
    fd, probe = tempfile.mkstemp(dir=folder, prefix=".semcer-probe-")
    os.close(fd)
    os.unlink(probe)


#: What each error number of a refused file creation means, said as it is (an error number not here
#: is said by its own message). ENOENT in an existing folder: a file system such as /proc, where no
#: file can be created (its "No such file or directory" names no missing file).
_CREATE_REFUSED = {errno.EACCES: "no permission", errno.EPERM: "no permission", errno.EROFS: "a read-only file system",
                   errno.ENOSPC: "no space left on the device", errno.EDQUOT: "the disk quota is exhausted",
                   errno.ENOENT: "the file system there takes no new files"}


def refused_reason(exc: OSError) -> str:
    """Why creating a file in an existing folder failed (``exc`` from :func:`probe_folder`), in words
    that are true for its error number."""
    return _CREATE_REFUSED.get(exc.errno or 0) or exc.strerror or str(exc)


def _special(target: Path) -> bool:
    """An existing target that is neither a regular file nor a directory (a device, a pipe)."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextlib.contextmanager
def _temporary(target: Path) -> Iterator[tuple[int, Path]]:
    directory = target.parent if str(target.parent) else Path(".")
    remove_stale(target)
    try:
        keep = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        keep = None  # a new file: 0666 & ~umask, as open() gives it
    fd, tmp = _create(directory, target.name)
    _guard(tmp)
    try:
        if keep is not None:
            os.fchmod(fd, keep)
        yield fd, tmp
        if keep is not None:  # a writer given the path may have recreated the file
            os.chmod(tmp, keep)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    finally:
        _unguard(tmp)


def _create(directory: Path, name: str) -> tuple[int, Path]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = directory / f".{name}.{_HOST}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:  # pragma: no cover - 32 random bits
            continue


def remove_stale(target: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files that runs killed while writing ``target`` left beside it (same
    host, process no longer running); returns what was removed."""
    target = Path(target)
    directory = target.parent if str(target.parent) else Path(".")
    prefix = f".{target.name}."
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        n = entry.name
        if not (n.startswith(prefix) and n.endswith(".tmp")):
            continue
        parts = n[len(prefix) : -len(".tmp")].split(".")
        if len(parts) != 3 or parts[0] != _HOST or not parts[1].isdigit() or _alive(int(parts[1])):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process (or a number no process has: keep it, to be safe)
    return True


# ---- removing the temporary file on SIGTERM / SIGHUP --------------------------------------------


def _guard(tmp: Path) -> None:
    """Remember ``tmp``; in the main thread, install the removing handler for the signals whose
    action is the default (termination), for the time of the write."""
    with _lock:
        _live.add(str(tmp))
    if threading.current_thread() is not threading.main_thread():
        return
    _depth[0] += 1
    if _depth[0] == 1:
        for sig in _SIGNALS:
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(sig) is signal.SIG_DFL:
                    _saved[sig] = signal.signal(sig, _on_signal)


def _unguard(tmp: Path) -> None:
    with _lock:
        _live.discard(str(tmp))
    if threading.current_thread() is not threading.main_thread():
        return
    _depth[0] -= 1
    if _depth[0] == 0:
        for sig, old in list(_saved.items()):
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(sig) is _on_signal:
                    signal.signal(sig, old)
            del _saved[sig]


def _on_signal(signum: int, frame: Any) -> None:
    for tmp in list(_live):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    signal.signal(signum, _saved.get(signum, signal.SIG_DFL))
    os.kill(os.getpid(), signum)  # die of the signal, as without the handler
