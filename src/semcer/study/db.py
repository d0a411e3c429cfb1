"""The study file: one SQLite database holding the items, the readers (tokens stored hashed), each
reader's schedule, the sessions of the rating app, and the ratings.

Every rating is its own transaction, committed before the app answers (WAL journal,
``synchronous=FULL``), so a server killed at any moment keeps every rating a reader saw accepted. A
reader rates a slot (an item, or its repeat) at most once: ``UNIQUE (reader, item, rep)``; a second
answer for the same slot is ignored unless it is an explicit revision, which updates the row and
counts the change. Each call opens its own connection, so threads and processes can share the file;
it opens an existing file only (``mode=rw``: a study moved or deleted while served is
:class:`StudyMissing`, never an empty file made in its place), and the last connection's close
folds the WAL into the file, so a study moved between answers holds every answer accepted. A
call that waits for another process's lock on the file (an ``sqlite3`` shell inside a transaction,
say) waits by a store's rule (:class:`semcer.store.guards.LockWaits`): said once after a second or
two, and after :data:`BUSY_TIMEOUT_S` a :class:`StudyLocked`; a read waits only in a file in a
rollback journal mode (a copy made with ``VACUUM INTO``), each call's reads being one read transaction.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semcer.atomic import atomic_path
from semcer.errors import InputError, SemcerError, first_line, quoted
from semcer.io.ratings import RatedItem
from semcer.store.guards import LockWaits, has_side_files, why_unwritable
from semcer.study.sampling import Slot

FORMAT = "semcer-study/1"
#: Seconds a call waits for another process's lock on the study file before it gives up (the wait
#: itself is said after :data:`semcer.store.guards.WAIT_NOTE_AFTER_S`, as a store's is). Shorter than
#: a store's: a study's transactions are one answer each (milliseconds), so a lock held this long is
#: a holder that is stuck (an sqlite3 shell inside a transaction), and the app's reader is waiting.
BUSY_TIMEOUT_S = 30.0
#: Who may hold a study file's lock, as the error of a wait that ran out says it.
_HOLDERS = "the study's web app, another semcer study command, or an sqlite3 shell inside a transaction"
VERDICTS = ("rated", "cannot_judge")
#: How long a sign-in lasts (the cookie's Max-Age and the stored session's age limit).
SESSION_DAYS = 30

_SCHEMA = (
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE items (id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('edit', 'pair')), "
    "lang TEXT NOT NULL, stratum TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE TABLE readers (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, created REAL NOT NULL)",
    "CREATE TABLE slots (reader TEXT NOT NULL REFERENCES readers (name), pos INTEGER NOT NULL, "
    "item TEXT NOT NULL REFERENCES items (id), rep INTEGER NOT NULL CHECK (rep IN (0, 1)), "
    "PRIMARY KEY (reader, pos), UNIQUE (reader, item, rep))",
    "CREATE TABLE ratings (reader TEXT NOT NULL, item TEXT NOT NULL, rep INTEGER NOT NULL, "
    "verdict TEXT NOT NULL CHECK (verdict IN ('rated', 'cannot_judge')), "
    "level INTEGER CHECK (level BETWEEN 0 AND 4), choice TEXT CHECK (choice IN ('a', 'b', 'equal')), "
    "created REAL NOT NULL, updated REAL NOT NULL, revisions INTEGER NOT NULL DEFAULT 0, "
    "UNIQUE (reader, item, rep), FOREIGN KEY (reader, item, rep) REFERENCES slots (reader, item, rep))",
    "CREATE TABLE skips (reader TEXT NOT NULL, item TEXT NOT NULL, rep INTEGER NOT NULL, at REAL NOT NULL, "
    "PRIMARY KEY (reader, item, rep))",
    "CREATE TABLE sessions (hash TEXT PRIMARY KEY, reader TEXT NOT NULL REFERENCES readers (name), "
    "csrf TEXT NOT NULL, created REAL NOT NULL)",
)


#: The settings of the meta table that are whole numbers.
_META_NUMBERS = ("seed", "repeats", "edits", "pairs")
#: The end of every message about a damaged study file.
DAMAGED_HINT = "restore the study file from a copy (semcer never writes such a value)"
#: SQLite's primary result codes that mean the file (or its folder, for the -wal and -shm files)
#: cannot be written: SQLITE_PERM, SQLITE_READONLY, SQLITE_FULL, SQLITE_CANTOPEN.
_NOT_WRITABLE = (3, 8, 13, 14)
#: The text fields of a pair item's data.
PAIR_FIELDS = ("ref", "a", "b", "lang", "a_system", "b_system")


def item_problem(kind: object, data: object, item_id: object = None) -> str:
    """What is wrong with an item's data, in words ("" when nothing): an edit's must be an edit-list
    record with its marked pair (keyed by ``item_id``, when given), a pair's an object with the texts
    of :data:`PAIR_FIELDS`."""
    if not isinstance(data, dict):
        return f"its data is {type(data).__name__ if data is not None else 'null'}, not a JSON object"
    try:
        json.dumps(data, allow_nan=False)
    except ValueError:
        return "its data holds NaN or Infinity, which JSON does not have"
    if kind == "pair":
        wrong = [name for name in PAIR_FIELDS if not isinstance(data.get(name), str)]
        return f"the pair has no text {', '.join(map(repr, wrong))}" if wrong else ""
    if kind != "edit":
        return f"its kind is {quoted(kind)}, not 'edit' or 'pair'"
    if not isinstance(data.get("edit_id"), str):
        return "the edit has no 'edit_id'"
    if item_id is not None and data["edit_id"] != item_id:
        return f"its edit_id {quoted(data['edit_id'])} is not the item's id"
    try:
        RatedItem(data["edit_id"], data.get("lang"), data, "@", edit_list=True).context()
    except InputError as exc:  # "@: 'ref_unit' is missing; a judge needs ...": what is wrong, only
        return "the edit's " + str(exc).removeprefix("@: ").split("; ")[0]
    return ""


def rating_problem(r: RatingRow) -> str:
    """What is wrong with a stored rating, in words ("" when nothing)."""
    if r.rep not in (0, 1) or type(r.rep) is not int:
        return f"its repeat number is {quoted(r.rep)}, not 0 or 1"
    if r.verdict not in VERDICTS:
        return f"its verdict is {quoted(r.verdict)}, not one of {', '.join(VERDICTS)}"
    if r.level is not None and (type(r.level) is not int or not 0 <= r.level <= 4):
        return f"its level is {quoted(r.level)}, not 0 to 4"
    if r.choice not in (None, "a", "b", "equal"):
        return f"its choice is {quoted(r.choice)}, not a, b or equal"
    if r.verdict == "rated" and (r.level is None) == (r.choice is None):
        return "a rating needs exactly one of a level and a choice"
    return ""


def digest(token: str) -> str:
    """What is stored of a token: its SHA-256 (tokens are 128-bit random, so no salt is needed)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(16)


def check_reader_name(name: str) -> None:
    """A reader's name: 1 to 64 printable characters (it is shown on pages and in exports)."""
    if not name or len(name) > 64 or not name.isprintable():
        raise InputError(f"reader name {quoted(name)}: give 1 to 64 printable characters")


class StudyMissing(SemcerError):
    """The study file is gone (moved or deleted) since it was opened."""


class StudyNotWritable(SemcerError):
    """The study file, or its folder (SQLite's -wal and -shm files), cannot be written."""


class StudyLocked(StudyNotWritable):
    """Another process has held the study file's lock for :data:`BUSY_TIMEOUT_S`: nothing could be
    read or written now (the app answers as for a study it cannot write: nothing was recorded)."""


def _uri(path: Path, *, immutable: bool = False) -> str:
    """The URI that opens an existing study file for writing and never creates one (``mode=rw``):
    only :meth:`StudyDB.creating` makes a study file. ``immutable``: for reading only, creating no
    -wal or -shm file and taking no lock (``mode=ro&immutable=1``)."""
    return "file:" + urllib.parse.quote(str(path.absolute())) + ("?mode=ro&immutable=1" if immutable else "?mode=rw")


def _settings(conn: sqlite3.Connection) -> None:
    """The settings of every connection to a study."""
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")


def _refuse_existing(path: Path) -> None:
    if path.exists():
        raise SemcerError(f"{path}: already exists; a study is created once (add readers with semcer study add-reader)")


def _write_new(path: Path, meta: dict[str, str], items: Sequence[Item]) -> None:
    """The schema, the meta rows and the items, in one transaction, into the empty file ``path``."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN")
        for sql in _SCHEMA:
            conn.execute(sql)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [("format", FORMAT), *meta.items()])
        conn.executemany("INSERT INTO items VALUES (?, ?, ?, ?, ?)",
                         [(i.id, i.kind, i.lang, i.stratum, json.dumps(i.data, ensure_ascii=False)) for i in items])
        conn.execute("COMMIT")
    finally:
        conn.close()


@dataclass(frozen=True)
class Item:
    """One item of the study: an edit (its edit-list record) or a pair (ref, a, b)."""

    id: str
    kind: str
    lang: str
    stratum: str
    data: dict[str, Any]


@dataclass(frozen=True)
class RatingRow:
    """One stored rating."""

    reader: str
    item: str
    rep: int
    verdict: str
    level: int | None
    choice: str | None
    revisions: int


@dataclass(frozen=True)
class Progress:
    """One reader's progress: slots in the schedule, rated, cannot judge, skipped (not yet rated)."""

    reader: str
    slots: int
    rated: int
    cannot_judge: int
    skipped: int

    @property
    def done(self) -> int:
        return self.rated + self.cannot_judge


class StudyDB:
    """A study file (see the module documentation)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # another process's lock waited for as a store's is (said once per StudyDB), up to BUSY_TIMEOUT_S
        self._waits = LockWaits(self.path, what="study file", timeout=BUSY_TIMEOUT_S, holders=_HOLDERS,
                                error=StudyLocked)
        if self.path.is_dir():
            raise InputError(f"{self.path}: a directory, not a study file (a study is one file, made by semcer study "
                             "create)")
        if not self.path.is_file():
            raise InputError(f"{self.path}: no such study (make one with semcer study create)")
        try:
            with self._connect() as conn:
                row = conn.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
        except (StudyMissing, StudyNotWritable):
            raise
        except SemcerError:
            row = None
        if row is None or row[0] != FORMAT:
            raise InputError(f"{self.path}: not a semcer study file")

    @classmethod
    def create(cls, path: str | Path, meta: dict[str, str], items: Sequence[Item]) -> StudyDB:
        """A new study file with ``items`` (refuses an existing file; all or nothing: :meth:`creating`)."""
        with cls.creating(path, meta, items):
            pass
        return cls(path)

    @classmethod
    @contextlib.contextmanager
    def creating(cls, path: str | Path, meta: dict[str, str], items: Sequence[Item]) -> Iterator[StudyDB]:
        """A new study file with ``items``, all or nothing: it is built in a temporary file beside
        ``path`` (:func:`semcer.atomic.atomic_path`), yielded for the caller to complete (its readers),
        and renamed onto ``path`` only when the block ends without an error; on any error nothing is
        left. Refuses an existing ``path``, also one that another run created meanwhile."""
        p = Path(path)
        _refuse_existing(p)
        try:
            with atomic_path(p) as tmp:
                try:
                    _write_new(tmp, meta, items)
                    yield cls(tmp)
                    _refuse_existing(p)
                    with contextlib.closing(sqlite3.connect(tmp)) as conn:  # the WAL into the file (the rename
                        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # moves only it); the last close removes it
                except BaseException:
                    for extra in ("-wal", "-shm", "-journal"):
                        Path(f"{tmp}{extra}").unlink(missing_ok=True)
                    raise
        except (OSError, sqlite3.Error) as exc:  # a folder this process cannot write into, a full disk
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SemcerError(f"{p}: cannot write the study ({why})") from None

    @contextlib.contextmanager
    def _connect(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection to the study (``write``: for a change, which the caller begins; else inside
        one read transaction). A study this process may not write is refused for a change before
        SQLite opens it, and read immutable when no -wal or -shm file lies beside it (no connection
        has it open): either way no file is left beside it. A wait for another process's lock
        (here, and for the caller's ``BEGIN IMMEDIATE``) goes through :class:`LockWaits`."""
        why = why_unwritable(self.path) if self.path.is_file() else ""  # a missing study is StudyMissing
        if why and write:
            raise self._not_writable(why)
        try:
            conn = sqlite3.connect(_uri(self.path, immutable=bool(why) and not has_side_files(self.path)), uri=True,
                                   timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            self._waits.run(conn, lambda: _settings(conn))  # they read the schema: they may wait
            if not write:
                self._waits.begin_read(conn)
            yield conn
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        finally:
            conn.close()

    def _error(self, exc: sqlite3.Error) -> SemcerError:
        """The error of a failed SQLite call, in words: the file gone, the file not writable, or else."""
        if not self.path.exists():
            return StudyMissing(f"{self.path}: the study file is gone (moved or deleted; {exc}); every answer the "
                                "app accepted was committed to that file before it replied, so a moved file holds "
                                f"them all: put it back at {self.path} and the app carries on")
        code = getattr(exc, "sqlite_errorcode", None)  # the extended code; its low byte is the primary one
        if isinstance(code, int) and (code & 0xFF) in _NOT_WRITABLE:
            return self._not_writable(str(exc))
        return SemcerError(f"{self.path}: {exc}")

    def _not_writable(self, why: str) -> StudyNotWritable:
        return StudyNotWritable(f"{self.path}: the study cannot be written ({why}); semcer writes the file and "
                                f"creates {self.path.name}-wal and {self.path.name}-shm beside it: make the file "
                                "and its folder writable (and not immutable: lsattr, chattr -i)")

    def check_writable(self) -> None:
        """Refuse a study this process cannot write (read-only or immutable file or folder): a real
        write, rolled back, for what the kernel's answer on permissions does not see (a full disk,
        some network file systems). One the kernel already says is not writable is refused before
        it is opened, leaving nothing beside it."""
        with self._connect(write=True) as conn:
            self._waits.run(conn, lambda: conn.execute("BEGIN IMMEDIATE"))
            try:
                conn.execute("UPDATE meta SET value = value WHERE name = 'format'")
            finally:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connect(write=True) as conn:
            self._waits.run(conn, lambda: conn.execute("BEGIN IMMEDIATE"))
            try:
                yield conn
                self._waits.run(conn, lambda: conn.execute("COMMIT"))
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise

    # -- study -----------------------------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        """The study's settings; the numbers among them (seed, repeats, edits, pairs) checked."""
        with self._connect() as conn:
            meta = {str(k): v for k, v in conn.execute("SELECT name, value FROM meta").fetchall()}
        for name in _META_NUMBERS:
            value = meta.get(name)
            if not (isinstance(value, str) and value.isascii() and value.isdigit()):
                raise InputError(f"{self.path}: the study's {name!r} setting is damaged ({quoted(value)}, not a whole "
                                 f"number); {DAMAGED_HINT}")
        return meta

    def items(self) -> list[Item]:
        """Every item, in the order drawn; an InputError naming the first damaged one."""
        with self._connect() as conn:
            rows = conn.execute("SELECT id, kind, lang, stratum, data FROM items ORDER BY rowid").fetchall()
        return [self._item(r) for r in rows]

    def item(self, item_id: str) -> Item:
        with self._connect() as conn:
            r = conn.execute("SELECT id, kind, lang, stratum, data FROM items WHERE id = ?", (item_id,)).fetchone()
        if r is None:
            raise InputError(f"{self.path}: no item {quoted(item_id)}")
        return self._item(r)

    def _item(self, row: Sequence[Any]) -> Item:
        """An item from its row, its data checked (:func:`item_problem`): a hand-edited or damaged
        file gives one line naming the study and the item, never a traceback or a half-written export."""
        item_id, kind, lang, stratum, text = row
        try:
            data = json.loads(text) if isinstance(text, (str, bytes)) else None
        except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8
            problem = f"its data is not valid JSON ({first_line(exc, 120)})"
        else:
            problem = item_problem(kind, data, item_id)
        if not problem and not all(isinstance(v, str) for v in (item_id, lang, stratum)):
            problem = "its id, language or stratum is not text"
        if problem or not isinstance(data, dict):  # (data that is no object always has a problem)
            raise InputError(f"{self.path}: item {quoted(item_id)} is damaged: {problem}; {DAMAGED_HINT}")
        return Item(item_id, kind, lang, stratum, data)

    # -- readers and sessions ----------------------------------------------------------------

    def readers(self) -> list[str]:
        with self._connect() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM readers ORDER BY created, name")]

    def add_reader(self, name: str, slots: Sequence[Slot]) -> str:
        """Add a reader with their schedule; returns their token (only its hash is stored)."""
        check_reader_name(name)
        token = new_token()
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM readers WHERE name = ?", (name,)).fetchone():
                raise InputError(f"{self.path}: reader {name!r} is already in the study")
            conn.execute("INSERT INTO readers VALUES (?, ?, ?)", (name, digest(token), time.time()))
            conn.executemany("INSERT INTO slots VALUES (?, ?, ?, ?)",
                             [(name, k, s.item, s.rep) for k, s in enumerate(slots)])
        return token

    def reader_for_token(self, token: str) -> str | None:
        with self._connect() as conn:
            row = conn.execute("SELECT name FROM readers WHERE token_hash = ?", (digest(token),)).fetchone()
        return None if row is None else str(row[0])

    def new_session(self, reader: str) -> tuple[str, str]:
        """A session for ``reader``: (the cookie's value, the session's CSRF token)."""
        session, csrf = new_token(), new_token()
        with self._write() as conn:
            conn.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)", (digest(session), reader, csrf, time.time()))
        return session, csrf

    def session(self, session: str) -> tuple[str, str] | None:
        """(reader, CSRF token) of a session cookie, None when unknown or older than SESSION_DAYS."""
        since = time.time() - SESSION_DAYS * 86400
        with self._connect() as conn:
            row = conn.execute("SELECT reader, csrf FROM sessions WHERE hash = ? AND created > ?",
                               (digest(session), since)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def end_session(self, session: str) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM sessions WHERE hash = ?", (digest(session),))

    # -- schedule and ratings ------------------------------------------------------------------

    def next_slot(self, reader: str) -> tuple[int, Slot] | None:
        """The reader's first slot without an answer, not skipped; else the first skipped one; None: done.
        A repeat waits for its first showing to be answered (a skipped first showing holds its repeat
        back), so that it is always seen, and exported, as the second of the two."""
        sql = ("SELECT s.pos, s.item, s.rep FROM slots s LEFT JOIN ratings r ON r.reader = s.reader AND r.item = s.item "
               "AND r.rep = s.rep LEFT JOIN skips k ON k.reader = s.reader AND k.item = s.item AND k.rep = s.rep "
               "WHERE s.reader = ? AND r.item IS NULL AND NOT (s.rep > 0 AND EXISTS (SELECT 1 FROM slots f "
               "LEFT JOIN ratings fr ON fr.reader = f.reader AND fr.item = f.item AND fr.rep = f.rep "
               "WHERE f.reader = s.reader AND f.item = s.item AND f.rep < s.rep AND fr.item IS NULL)) "
               "ORDER BY k.at IS NOT NULL, k.at, s.pos LIMIT 1")
        with self._connect() as conn:
            row = conn.execute(sql, (reader,)).fetchone()
        return None if row is None else (int(row[0]), Slot(row[1], int(row[2])))

    def last_answered(self, reader: str) -> int | None:
        """The position of the reader's most recent answer (a revision counts), or None before any."""
        sql = ("SELECT s.pos FROM slots s JOIN ratings r ON r.reader = s.reader AND r.item = s.item AND r.rep = s.rep "
               "WHERE s.reader = ? ORDER BY r.updated DESC, r.rowid DESC LIMIT 1")
        with self._connect() as conn:
            row = conn.execute(sql, (reader,)).fetchone()
        return None if row is None else int(row[0])

    def slot(self, reader: str, pos: int) -> Slot | None:
        with self._connect() as conn:
            row = conn.execute("SELECT item, rep FROM slots WHERE reader = ? AND pos = ?", (reader, pos)).fetchone()
        return None if row is None else Slot(row[0], int(row[1]))

    def slot_state(self, reader: str, pos: int) -> tuple[Slot, str] | None:
        """The reader's slot at ``pos`` and what they may do with it: "answered" (revise it), "open"
        (answer or skip it: their next slot, or one they skipped), "later" (not shown yet: a slot after
        the next one, or a repeat before its first showing is answered); None: no such slot."""
        sql = ("SELECT s.item, s.rep, EXISTS (SELECT 1 FROM ratings r WHERE r.reader = s.reader AND r.item = s.item "
               "AND r.rep = s.rep), EXISTS (SELECT 1 FROM skips k WHERE k.reader = s.reader AND k.item = s.item AND "
               "k.rep = s.rep) FROM slots s WHERE s.reader = ? AND s.pos = ?")
        with self._connect() as conn:
            row = conn.execute(sql, (reader, pos)).fetchone()
        if row is None:
            return None
        slot = Slot(row[0], int(row[1]))
        if row[2]:
            return slot, "answered"
        if row[3]:
            return slot, "open"
        found = self.next_slot(reader)
        return slot, "open" if found is not None and found[0] == pos else "later"

    def rate(self, reader: str, slot: Slot, *, verdict: str = "rated", level: int | None = None,
             choice: str | None = None, revise: bool = False) -> bool:
        """Store the reader's answer for ``slot``, committed before returning. A slot already answered
        keeps its answer unless ``revise`` (then it is updated). True when something was written."""
        if verdict not in VERDICTS:
            raise InputError(f"verdict {verdict!r}: expected one of {', '.join(VERDICTS)}")
        if verdict == "rated" and (level is None) == (choice is None):
            raise InputError("a rating takes a level (an edit) or a choice (a pair), exactly one of them")
        now = time.time()
        values = (reader, slot.item, slot.rep, verdict, level, choice, now, now)
        sql = "INSERT INTO ratings (reader, item, rep, verdict, level, choice, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        if revise:
            sql += (" ON CONFLICT (reader, item, rep) DO UPDATE SET verdict = excluded.verdict, level = excluded.level, "
                    "choice = excluded.choice, updated = excluded.updated, revisions = revisions + 1")
        else:
            sql += " ON CONFLICT (reader, item, rep) DO NOTHING"
        with self._write() as conn:
            n = conn.execute(sql, values).rowcount
            conn.execute("DELETE FROM skips WHERE reader = ? AND item = ? AND rep = ?", (reader, slot.item, slot.rep))
        return n > 0

    def skip(self, reader: str, slot: Slot) -> None:
        """Put the slot after every other unanswered one (it comes back once they are done)."""
        with self._write() as conn:  # an answered slot is not skipped (nothing to come back to)
            conn.execute("INSERT INTO skips SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM ratings WHERE reader = ? "
                         "AND item = ? AND rep = ?) ON CONFLICT (reader, item, rep) DO UPDATE SET at = excluded.at",
                         (reader, slot.item, slot.rep, time.time(), reader, slot.item, slot.rep))

    def ratings(self, reader: str | None = None) -> list[RatingRow]:
        """The stored ratings (of ``reader``, or all); an InputError naming the first damaged one."""
        sql = "SELECT reader, item, rep, verdict, level, choice, revisions FROM ratings"
        args: tuple[str, ...] = ()
        if reader is not None:
            sql, args = sql + " WHERE reader = ?", (reader,)
        with self._connect() as conn:
            rows = [RatingRow(*r) for r in conn.execute(sql + " ORDER BY reader, created, rowid", args).fetchall()]
        for r in rows:
            problem = rating_problem(r)
            if problem:
                raise InputError(f"{self.path}: the rating of reader {quoted(r.reader)} on item {quoted(r.item)} is "
                                 f"damaged: {problem}; {DAMAGED_HINT}")
        return rows

    def rating(self, reader: str, slot: Slot) -> RatingRow | None:
        rows = [r for r in self.ratings(reader) if r.item == slot.item and r.rep == slot.rep]
        return rows[0] if rows else None

    def progress(self) -> list[Progress]:
        sql = ("SELECT d.name, (SELECT COUNT(*) FROM slots s WHERE s.reader = d.name), "
               "(SELECT COUNT(*) FROM ratings r WHERE r.reader = d.name AND r.verdict = 'rated'), "
               "(SELECT COUNT(*) FROM ratings r WHERE r.reader = d.name AND r.verdict = 'cannot_judge'), "
               "(SELECT COUNT(*) FROM skips k WHERE k.reader = d.name) FROM readers d ORDER BY d.created, d.name")
        with self._connect() as conn:
            return [Progress(*r) for r in conn.execute(sql).fetchall()]
