"""What a store handle watches while a run uses it: another process's lock on the file, and the file.

Both are said on the logger ``semcer.store``, one record each (the command line prints a record as
one line on standard error; a program that configures no logging sees it there too, from
logging's last-resort handler, and so does a worker process of a run):

* a wait for another process's lock (another run writing the store, an import, an ``sqlite3``
  shell inside ``BEGIN EXCLUSIVE``), to write or to read (:meth:`LockWaits.begin_read`), that
  lasts :data:`WAIT_NOTE_AFTER_S`, once per handle, as a note (the record's attribute ``note`` is
  True: a user should know why nothing moves, nothing is wrong yet); after :data:`BUSY_TIMEOUT_S`
  the wait ends in a :class:`StoreError`. A study file (:mod:`semcer.study.db`) waits by the same
  rule (:class:`LockWaits`), with its own timeout and error;
* a store file deleted, moved or replaced by another file while the handle writes it (on Linux
  SQLite would go on writing the unlinked file, and every judged edit would be lost without a
  word), as a warning that says how many judged edits are not in the file at the store's path.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from semcer.errors import SemcerError, StoreError

LOG = logging.getLogger("semcer.store")

#: Seconds a writer waits for another writer's transaction before giving up.
BUSY_TIMEOUT_S = 120.0

#: Seconds of waiting for another process's lock after which the wait is said (once per handle).
WAIT_NOTE_AFTER_S = 1.5

#: While waiting for another writer's lock, the longest pause (seconds) before asking again. Short,
#: so that a writer queued behind a long import gets the lock in the import's next pause between
#: batches (SQLite's own busy handler sleeps up to 100 ms between tries and can miss every pause).
LOCK_POLL_S = 0.002

#: SQLite's primary result codes of a lock held elsewhere: SQLITE_BUSY, SQLITE_LOCKED.
_LOCK_CODES = (5, 6)

T = TypeVar("T")


def is_lock_error(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says that another connection holds the lock (asking again may succeed)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return (code & 0xFF) in _LOCK_CODES
    return "locked" in str(exc) or "busy" in str(exc)


#: Who may hold a store's lock, as the message of a wait that ran out says it.
STORE_HOLDERS = "another semcer run writing it, or an sqlite3 shell inside a transaction"


class LockWaits:
    """The lock waits of one handle on the SQLite file ``path`` (a store, or a study file: ``what``
    names it in the note and the error): every statement that may wait for another process's lock
    runs through :meth:`run`. ``timeout``: the seconds a wait may last (None: :data:`BUSY_TIMEOUT_S`
    at the time of the wait); ``holders``: who may hold the lock, for the error; ``error``: its class."""

    def __init__(self, path: Path, *, what: str = "store", timeout: float | None = None,
                 holders: str = STORE_HOLDERS, error: type[SemcerError] = StoreError) -> None:
        self.path = path
        self.what = what
        self.holders = holders
        self.error = error
        self._timeout = timeout
        self.noted = False

    @property
    def timeout(self) -> float:
        """The seconds a wait may last now."""
        return BUSY_TIMEOUT_S if self._timeout is None else self._timeout

    def run(self, conn: sqlite3.Connection, action: Callable[[], T]) -> T:
        """``action()`` (a statement on ``conn`` that takes a lock), asked again every few
        milliseconds while another process holds the lock, for up to :attr:`timeout` seconds
        (SQLite's busy handler is off meanwhile: it sleeps up to 100 ms between tries); the
        handle's first wait that lasts :data:`WAIT_NOTE_AFTER_S` is said, the end of the time
        is an error naming the file."""
        timeout = self.timeout
        started = time.monotonic()
        delay = 0.0002
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            while True:
                try:
                    return action()
                except sqlite3.OperationalError as exc:
                    if not is_lock_error(exc):
                        raise
                waited = time.monotonic() - started
                if waited >= timeout:
                    raise self.error(f"{self.path}: database is locked: another process has held the {self.what}'s "
                                     f"lock for {timeout:g} s ({self.holders}); run again when it is done")
                if not self.noted and waited >= WAIT_NOTE_AFTER_S:
                    self.noted = True
                    LOG.warning("waiting for the %s %s, which another process holds (up to %g s)", self.what,
                                self.path, timeout, extra={"note": True})
                time.sleep(delay)
                delay = min(delay * 2, LOCK_POLL_S)
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")

    def begin_read(self, conn: sqlite3.Connection) -> None:
        """Begin a read transaction on ``conn`` (in autocommit mode) and take its shared lock now,
        waiting through :meth:`run`: a file in a rollback journal mode (a copy made by ``VACUUM
        INTO``, say) is not read while another process holds its lock to write, and a WAL file not
        while one holds it in exclusive locking mode; the reads inside the transaction then wait no more."""
        self.run(conn, lambda: _begin_read(conn))


def _begin_read(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN")
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the first read takes the shared lock
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _file_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file ``path`` names, or None when it names none."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st.st_dev, st.st_ino


def why_unwritable(path: Path) -> str:
    """Why this process may not write the SQLite file at ``path`` (the file, or the folder that keeps
    its -wal and -shm files), or "" when it may. Asked of the kernel (``access``: permissions, an
    immutable file, a read-only mount) before SQLite opens anything, since a connection to a file it
    may not write still creates ``FILE-wal`` and ``FILE-shm`` in a writable folder, and leaves them.
    The one check of the store and of a study file."""
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only to this process"
    parent = path.resolve().parent
    if parent.is_dir() and not os.access(parent, os.W_OK):
        return "its folder is read-only to this process"
    return ""


def has_side_files(path: Path) -> bool:
    """Whether a -wal or -shm file lies beside the SQLite file ``path`` (a connection has it open,
    or had): then it is not opened immutable."""
    return Path(f"{path}-wal").exists() or Path(f"{path}-shm").exists()


class StoreFile:
    """The file a handle opened for writing at ``path``, checked around each commit, and the judged
    edits of the handle that are not in the file at ``path`` because it no longer names that file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.id = _file_id(path)
        self.lost = 0  # rows not kept (rolled back, or committed to the file after it left the path)
        self.said = 0  # of those, how many a warning has counted
        self.let_go = False  # whether the handle's write-ahead log was emptied into its own file

    def gone(self) -> bool:
        """Whether ``path`` no longer names the file that was opened (deleted, moved or replaced).
        A path that cannot be looked up for another reason (permissions) is taken to be the file."""
        try:
            return _file_id(self.path) != self.id
        except OSError:
            return False

    def not_kept(self, rows: int) -> None:
        """``rows`` judged edits of a transaction are not in the store; the first such rows are said at once."""
        self.lost += rows
        if rows and not self.said:
            self.said = self.lost
            LOG.warning("%s was deleted, moved or replaced by another file during the run: the %d judged edit(s) "
                        "this run wrote since are not in it (nor are earlier ones, unless the file now there has "
                        "them), and it writes no more there; the scores are not affected, and a later run judges the "
                        "missing edits again", self.path, self.lost)

    def closing(self) -> None:
        """At the handle's close: the total said, when more were lost after the first warning."""
        if self.lost > self.said:
            self.said = self.lost
            LOG.warning("%s: in all %d judged edit(s) this run wrote after the store was deleted, moved or replaced "
                        "are not in it", self.path, self.lost)


class OneLine(logging.Handler):
    """A record of :data:`LOG` as one line on standard error: ``semcer: note: ...`` for a record
    marked ``note`` (none with ``quiet``), else ``semcer: warning: ...``."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(logging.WARNING)
        self.quiet = quiet

    def emit(self, record: logging.LogRecord) -> None:
        note = bool(getattr(record, "note", False))
        if not (note and self.quiet):
            print(f"semcer: {'note' if note else 'warning'}: {record.getMessage()}", file=sys.stderr)


@contextlib.contextmanager
def said_on_stderr(quiet: bool) -> Iterator[None]:
    """For the time of a command, what the store says (:data:`LOG`) is one line on standard error
    (:class:`OneLine`); a worker process started meanwhile says it the same way
    (:func:`stderr_state`, :func:`say_on_stderr`)."""
    handler, propagate = OneLine(quiet), LOG.propagate
    LOG.addHandler(handler)
    LOG.propagate = False
    try:
        yield
    finally:
        LOG.removeHandler(handler)
        LOG.propagate = propagate


def stderr_state() -> bool | None:
    """The ``quiet`` of the :class:`OneLine` that prints the store's records in this process, or
    None when none does (what a worker process started now should do: :func:`say_on_stderr`)."""
    for handler in LOG.handlers:
        if isinstance(handler, OneLine):
            return handler.quiet
    return None


def say_on_stderr(quiet: bool | None) -> None:
    """In a worker process: print the store's records as its parent does (``quiet`` from
    :func:`stderr_state` there; None: leave logging as it is)."""
    if quiet is not None and stderr_state() is None:
        LOG.addHandler(OneLine(quiet))
        LOG.propagate = False
