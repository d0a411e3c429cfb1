"""A persistent SQLite store of judged edits, so that no edit is ever judged twice.

An edit is keyed by the judge's identity and the edit's content (language, operation and marked
pair), never by the line id or where the line stands, so an identical edit elsewhere in a corpus,
or in another corpus, is a hit. All five probabilities are stored, so a change of rating values
needs no new judging. Several processes may write one store at once (WAL mode, writers wait for
each other); a run killed at any moment loses at most the batch it was judging (a deterministic
judge's rows, recomputed anyway, are written in larger transactions).

Layout (schema 2, :data:`STORED`): one row per judged edit with its judge as the id of its identity
in table ``judges``, and its marked pair as one packed value (:mod:`semcer.store.packing`: both sides
in one DEFLATE stream, so a page's window takes some 40 % of its UTF-8 bytes); readers see the
columns of :data:`COLUMNS`, whatever the layout. A schema-1 store (semcer 0.1.0) is read as it is, and
upgraded in place when opened for writing.

Nothing read back is trusted blindly: every row passes :func:`check_row` (its types, the one
distribution check :func:`semcer.judges.distribution.check_distribution`, a key that matches its
content, a judge id and a packed pair that decode) before it is used; a row that fails is reported,
never used (a text value that is not UTF-8 included: it fails its row, not the query). Judgements flagged
:data:`ONE_HOT_FLAG` (an LLM answer without probabilities) are never stored, so a later run asks
again.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Collection, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN, EditContext, content_key
from semcer.errors import StoreError
from semcer.judges.distribution import ONE_HOT_FLAG, Judgement, check_distribution
from semcer.store.guards import BUSY_TIMEOUT_S, LockWaits, StoreFile, has_side_files, why_unwritable
from semcer.store.keys import edit_key
from semcer.store.packing import pack_pair, unpack_pair
from semcer.text.units import segment
from semcer.version import __version__

if TYPE_CHECKING:
    from semcer.store.parquet import ExportResult, ImportResult, ParquetSource

#: Version of the on-disk layout; a store with a higher version is refused, never guessed at. Version 1
#: (semcer 0.1.0 until issue 11) kept the judge identity and both marked texts in every row; it is read
#: as it is, and upgraded in place to this layout (:meth:`JudgedEditStore._upgrade`) when opened for writing.
SCHEMA_VERSION = 2

#: The first bytes of every SQLite database file.
_SQLITE_HEADER = b"SQLite format 3\x00"

#: Keys per ``IN (...)`` query: under SQLite's historical limit of 999 bound parameters.
_IN_CHUNK = 900

#: Rows per batch when a store is upgraded or scanned.
_BATCH = 5_000


#: The columns of a judged edit as every reader sees it (:func:`check_row`, the Parquet files).
COLUMNS = (
    "key", "judge", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos",
    "marked_ref", "marked_hyp", "p0", "p1", "p2", "p3", "p4", "edit_class", "flags", "created",
)

#: The columns as stored (schema 2): the judge as the id of its identity in table ``judges``, the
#: marked pair as one packed value (:mod:`semcer.store.packing`).
STORED = (
    "key", "judge", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos",
    "pair", "p0", "p1", "p2", "p3", "p4", "edit_class", "flags", "created",
)

_EDITS_TABLE = """CREATE TABLE judged_edits (
    key TEXT PRIMARY KEY,
    judge INTEGER NOT NULL,
    lang TEXT NOT NULL,
    op TEXT NOT NULL,
    ref_unit TEXT NOT NULL,
    hyp_unit TEXT NOT NULL,
    ref_pos INTEGER NOT NULL,
    hyp_pos INTEGER NOT NULL,
    pair BLOB NOT NULL,
    p0 REAL NOT NULL, p1 REAL NOT NULL, p2 REAL NOT NULL, p3 REAL NOT NULL, p4 REAL NOT NULL,
    edit_class TEXT NOT NULL,
    flags TEXT NOT NULL,
    created REAL NOT NULL
)"""

_JUDGES_TABLE = "CREATE TABLE judges (id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE)"
_JUDGE_INDEX = "CREATE INDEX judged_edits_judge ON judged_edits (judge)"

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
)""",
    _JUDGES_TABLE,
    _EDITS_TABLE,
    _JUDGE_INDEX,
)

_PLACEHOLDERS = ", ".join("?" * len(STORED))
INSERT = f"INSERT OR IGNORE INTO judged_edits ({', '.join(STORED)}) VALUES ({_PLACEHOLDERS})"
REPLACE = f"INSERT OR REPLACE INTO judged_edits ({', '.join(STORED)}) VALUES ({_PLACEHOLDERS})"

#: What an overwrite compares (not the positions of the first occurrence, nor the time).
_CONTENT = ("judge", "lang", "op", "ref_unit", "hyp_unit", "marked_ref", "marked_hyp",
            "p0", "p1", "p2", "p3", "p4", "edit_class", "flags")

_SELECT = {1: f"SELECT {', '.join(COLUMNS)} FROM judged_edits", 2: f"SELECT {', '.join(STORED)} FROM judged_edits"}
_TEXT_COLUMNS = ("key", "judge", "lang", "op", "ref_unit", "hyp_unit", "marked_ref", "marked_hyp", "edit_class", "flags")
_I = {name: i for i, name in enumerate(COLUMNS)}
_S = {name: i for i, name in enumerate(STORED)}
_P = slice(_I["p0"], _I["p4"] + 1)
_FLAGS = _I["flags"]
_CONTENT_AT = tuple(_I[c] for c in _CONTENT)
#: The type of each column of a sound row, as SQLite returns them.
_SOUND_TYPES = tuple(int if c in ("ref_pos", "hyp_pos") else float if c in ("p0", "p1", "p2", "p3", "p4", "created")
                     else str for c in COLUMNS)


def flags_to_text(flags: Sequence[str]) -> str:
    return "[]" if not flags else json.dumps(list(flags), ensure_ascii=False)


def flags_from_text(text: str) -> tuple[str, ...]:
    return () if text == "[]" else tuple(json.loads(text))


def _kind(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return f"text {value[:24]!r}"
    if isinstance(value, bytes):
        return f"a {len(value)}-byte blob"
    return f"{type(value).__name__} {value!r}"


def check_row(row: Sequence[Any]) -> str:
    """Why a stored row (values in ``COLUMNS`` order) may not be used, or "" when it is sound.

    Text columns must hold text and positions integers (SQLite keeps any value in any column); the
    five probabilities must be numbers that pass :func:`check_distribution` (the check, with its one
    tolerance, that every distribution from a judge or a file passes); ``flags`` must be a JSON list
    of strings; and the key must be the hash of the row's judge and content, so that a row whose
    text was damaged is never taken for another edit's judgement.
    """
    if tuple(map(type, row)) != _SOUND_TYPES:  # the common case costs one comparison
        reason = _type_problem(row)
        if reason:
            return reason
    try:
        check_distribution(row[_P])
    except ValueError as exc:
        return str(exc)
    flags = row[_FLAGS]
    if flags != "[]":
        try:
            parsed = json.loads(flags)
        except ValueError:
            parsed = None
        if type(parsed) is not list or not all(type(f) is str for f in parsed):
            return f"flags are not a JSON list of strings: {flags[:40]!r}"
    op = row[_I["op"]]
    if op not in ("S", "D", "I"):
        return f"op is {op!r}, expected S, D or I"
    key = edit_key(row[_I["judge"]], content_key(row[_I["lang"]], op, row[_I["marked_ref"]], row[_I["marked_hyp"]]))
    if row[0] != key:
        return "key does not match its judge, lang, op and marked pair"
    return edit_problem(*row[_I["lang"]:_I["marked_hyp"] + 1])


def edit_problem(lang: str, op: str, ref_unit: str, hyp_unit: str, ref_pos: int, hyp_pos: int,
                 marked_ref: str, marked_hyp: str) -> str:
    """Why these fields of a row (op S, D or I, already checked) are not one edit as
    :func:`semcer.alignment.context.edit_contexts` builds it, or "" when they are.

    A row whose key matches its content may still describe no edit (its key recomputed after a
    forgery): no language, or a marked side without the edit's unit marked where the row says, which
    a judge, a study or a report would then read wrongly or refuse. Each side must hold its unit
    between ⟦ ⟧ after ``pos`` units (:func:`_mark_problem`); D has no unit on the output side and
    I none on the reference side (an empty ⟦⟧ at the insertion point).
    """
    if not lang:
        return "lang is empty"
    return (_mark_problem("ref", marked_ref, ref_unit, ref_pos, op != "I")
            or _mark_problem("hyp", marked_hyp, hyp_unit, hyp_pos, op != "D"))


def _mark_problem(side: str, marked: str, unit: str, pos: int, present: bool) -> str:
    """Why ``marked`` is not a line with ``unit`` between ⟦ ⟧ after ``pos`` units (``present``: the
    edit has a unit on this side, else ``unit`` is empty and the mark an empty ⟦⟧), or "".

    Units are counted as the contexts were cut (:func:`semcer.text.units.segment`): grapheme
    clusters, or code points for a line scored with ``--unit codepoint``, which a row does not record,
    so either count is taken. A line may hold ⟦ or ⟧ itself: the mark is the ⟦unit⟧ after ``pos``
    units. Costs a search in the common case; a line is segmented only where a cluster spans code points.
    """
    if present != bool(unit):
        return (f"{side}_unit is empty but the op has a unit on that side" if present else
                f"{side}_unit is {unit[:24]!r}; the op leaves that side empty")
    if present and len(unit) > 1 and len(segment(unit)) != 1:
        return f"{side}_unit {unit[:24]!r} is not one unit"
    if pos < 0:
        return f"{side}_pos is {pos}, negative"
    token = f"{MARK_OPEN}{unit}{MARK_CLOSE}"
    at = marked.find(token)
    if at < 0:
        return f"marked_{side} does not hold the edit's mark {token[:26]!r}"
    while at >= 0:
        if at == pos or (at > pos and len(segment(marked[:at])) == pos):
            return ""
        at = marked.find(token, at + 1)
    return f"marked_{side} does not hold the mark {token[:26]!r} at unit {pos}"


def _type_problem(row: Sequence[Any]) -> str:
    """What is wrong with the types of a row whose types are not exactly :data:`_SOUND_TYPES`, or ""
    (probabilities and times that are integers are numbers too)."""
    for name in _TEXT_COLUMNS:
        if type(row[_I[name]]) is not str:
            return f"{name} is {_kind(row[_I[name]])}, not text"
    for name in ("ref_pos", "hyp_pos"):
        if type(row[_I[name]]) is not int:
            return f"{name} is {_kind(row[_I[name]])}, not an integer"
    for name in ("p0", "p1", "p2", "p3", "p4", "created"):
        if type(row[_I[name]]) not in (float, int):
            return f"{name} is {_kind(row[_I[name]])}, not a number"
    return ""


def _text_or_bytes(value: bytes) -> str | bytes:
    """A stored text value as ``str``, or as its bytes when they are not UTF-8 (a damaged row, which
    :func:`check_row` then refuses, instead of a query that fails for every row)."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value


@contextlib.contextmanager
def _tolerant_text(conn: sqlite3.Connection) -> Iterator[None]:
    """Read text values with :func:`_text_or_bytes` (slower than SQLite's own decoding: for bulk reads
    and for a lookup that met a damaged value)."""
    conn.text_factory = _text_or_bytes
    try:
        yield
    finally:
        conn.text_factory = str


def _judgement(row: Sequence[Any]) -> Judgement:
    """The judgement of a row that passed :func:`check_row`."""
    p: Any = row[_P]
    if not all(type(x) is float for x in p):
        p = tuple(float(x) for x in p)
    return Judgement(p, row[_I["edit_class"]], flags_from_text(row[_FLAGS]))


def corrupt_message(path: Path, corrupt: dict[str, str], of: int, *, what: str = "not used") -> str:
    """One line on corrupt rows: how many, the first and why, and what to do."""
    key, reason = next(iter(corrupt.items()))
    n = len(corrupt)
    return (f"{path}: {n} corrupt row{'s' if n != 1 else ''} of {of} (first: key {key[:12]}: {reason}); {what}. "
            f"`semcer store check {path} --delete` removes them (a rerun then judges those edits again)")


class Found(dict[str, Judgement]):
    """What :meth:`JudgedEditStore.get_many` found: key -> judgement, for sound rows only.

    ``corrupt`` maps the keys of rows that failed :func:`check_row` to the reason; ``one_hot``
    lists the keys whose stored judgement is a one-hot fallback (stored by an older semcer).
    Neither is in the mapping: to the caller they are misses, to be judged again, and the new
    judgement replaces the old row (``put_many(..., replace=...)``).
    """

    corrupt: dict[str, str]
    one_hot: list[str]

    def __init__(self) -> None:
        super().__init__()
        self.corrupt = {}
        self.one_hot = []


class Rows(list[dict[str, Any]]):
    """What :meth:`JudgedEditStore.rows` returns; ``corrupt`` maps the keys of rows left out to the reason."""

    corrupt: dict[str, str]

    def __init__(self) -> None:
        super().__init__()
        self.corrupt = {}


@dataclass(frozen=True)
class CheckReport:
    """What :meth:`JudgedEditStore.check` found: ``rows`` checked, ``corrupt`` key -> reason (a key
    that is not text shows as ``rowid N``), ``one_hot`` one-hot fallbacks stored by an older semcer
    (sound, but asked again by the next run), ``deleted`` corrupt rows removed."""

    rows: int
    corrupt: dict[str, str] = field(default_factory=dict)
    one_hot: int = 0
    deleted: int = 0


def checked_values(rows: Sequence[tuple[str, str, EditContext, Judgement]], where: str) -> list[tuple]:
    """Rows in :data:`COLUMNS` order of the ``(key, judge_identity, ctx, judgement)`` worth storing:
    each key checked against its edit, each distribution checked; failures and one-hot fallbacks
    left out (``where`` names the store in errors)."""
    now = time.time()
    values = []
    for key, identity, ctx, judgement in rows:
        if judgement.p is None or ONE_HOT_FLAG in judgement.flags:
            continue
        if key != JudgedEditStore.key(identity, ctx):
            raise ValueError(f"key {key} does not belong to judge {identity!r} and edit {ctx.content_key()!r}")
        try:
            p = check_distribution(judgement.p)
        except ValueError as exc:
            raise StoreError(f"{where}: judge {identity!r} returned an invalid judgement "
                             f"for {ctx.marked_hyp!r}: {exc}") from None
        values.append((
            key, identity, ctx.lang, ctx.op, ctx.ref_unit, ctx.hyp_unit, int(ctx.ref_pos), int(ctx.hyp_pos),
            ctx.marked_ref, ctx.marked_hyp, *p,
            judgement.edit_class, flags_to_text(judgement.flags), now,
        ))
    return values


@dataclass(frozen=True)
class ReadyRows:
    """Judged edits made ready for :meth:`JudgedEditStore.overwrite_many` by :func:`ready_rows`, which
    may run in another process (a worker), so that the one writer only writes: each row in
    :data:`COLUMNS` order (checked) and its packed marked pair."""

    values: tuple[tuple, ...]
    pairs: tuple[bytes, ...]


_first = itemgetter(0)


def _by_key(stored: list[tuple]) -> list[tuple]:
    """Stored rows (key first) in key order, rows of equal keys in their order, for one ``executemany``.

    A store's keys are random (sha256), so rows written as they come touch pages all over the key
    index; written by key, the rows of one transaction that share an index page are written together
    (193k bench edits in transactions of 16,384, a scratch measurement: the lookup and the insert took
    16-20 µs a row as they came, 10-12 by key). Judge ids are given before, in the rows' own order."""
    return sorted(stored, key=_first)


def ready_rows(rows: Sequence[tuple[str, str, EditContext, Judgement]], where: str = "store") -> ReadyRows:
    """``(key, judge_identity, ctx, judgement)`` rows checked (:func:`checked_values`) and packed."""
    values = checked_values(rows, where)
    m_ref, m_hyp = _I["marked_ref"], _I["marked_hyp"]
    return ReadyRows(tuple(values), tuple(pack_pair(v[m_ref], v[m_hyp]) for v in values))


def _writable(path: Path) -> bool:
    """Whether this process may write ``path`` and its directory. A read-only handle then opens it
    read-write with SQLite's ``query_only`` set: nothing can be changed through it, and, unlike a
    ``mode=ro`` connection, the last one to close removes the ``-wal`` and ``-shm`` files of a WAL
    store (a study's or store's folder is not left with two more files each time it is read).
    Where it may not, and no -wal or -shm file lies beside the store (so no connection has it open),
    the handle opens it immutable, which creates neither."""
    return not why_unwritable(path)


class JudgedEditStore:
    """Judged edits in one SQLite file, keyed by judge identity and edit content.

    ``readonly=True`` opens an existing store without creating or changing anything (SQLite's
    ``query_only``; see :func:`_writable` for why such a handle is read-write underneath where it may be). Where
    the file or its directory is not writable, the store is opened *immutable* (``?mode=ro&immutable=1``;
    ``immutable`` says so) when no -wal or -shm file lies beside it, or when SQLite cannot read a WAL
    store there otherwise (it needs to create ``STORE-shm``): SQLite then creates no file, takes no
    locks and assumes that nobody changes the file while it is open, so a writer elsewhere at the
    same time may make the reads wrong. The handle may be used from several threads of one process;
    other processes open their own handle.

    A store opened for writing is created when missing (``create=False`` refuses a missing or empty
    file instead, for a command that only changes an existing store); ``created`` says that this handle
    made it, in a file that did not exist. One this process may not write is refused before SQLite
    opens it (nothing is left beside it). A ``with`` block left by an exception closes the handle
    with :meth:`discard_if_unused`, so that a failed run leaves no empty store behind.

    A wait for another process's lock, to write or to read (each read method is one read
    transaction whose lock is taken first), is said after a second or two, and a store file
    deleted, moved or replaced while the handle writes it is said with the number of judged edits
    not in it (:attr:`not_kept`, :meth:`gone`); the rows after that are not written
    (:mod:`semcer.store.guards`).
    """

    def __init__(self, path: str | os.PathLike, *, readonly: bool = False, create: bool = True) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.immutable = False
        self.created = False
        self._create = create and not readonly
        self._made_schema = False
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._waits = LockWaits(self.path)
        self._file: StoreFile | None = None  # the file a handle for writing opened
        self._judge_rows = 0  # rows added to table judges in the current write transaction
        existed = self.path.exists()
        try:
            self._conn = self._connect()
            if not readonly:  # the file the connection opened (or made), before anything is written
                self._file = StoreFile(self.path)
            self.schema_version = self._init_schema()
            self.created = self._made_schema and not existed
        except sqlite3.Error as exc:
            self._close_quietly()
            if not readonly and "readonly" in str(exc):
                raise self._not_writable(str(exc)) from None
            raise StoreError(f"{self.path}: not a usable semcer store ({exc})") from None
        except StoreError:
            self._close_quietly()
            raise

    # -- opening -------------------------------------------------------------------------------

    def _not_writable(self, why: str) -> StoreError:
        return StoreError(
            f"{self.path}: cannot be written ({why}); a store needs write access to the file and its "
            f"directory (WAL mode keeps {self.path.name}-wal and {self.path.name}-shm beside it): copy it "
            "somewhere writable, or read it with `semcer store info` or `semcer store export`"
        )

    def _connect(self, *, immutable: bool = False) -> sqlite3.Connection:
        if self.path.is_dir():
            raise StoreError(f"{self.path}: is a directory, expected a store file")
        if self.path.exists():
            self._check_file()
        elif not self._create:
            raise StoreError(f"{self.path}: no such store")
        if self.readonly:
            if not os.access(self.path, os.R_OK):
                raise StoreError(f"{self.path}: permission denied (the store file is not readable)")
            writable = _writable(self.path)
            immutable = immutable or not (writable or has_side_files(self.path))  # creates no -wal or -shm file
            self.immutable = immutable
            mode = "ro&immutable=1" if immutable else "rw" if writable else "ro"
            uri = f"{self.path.resolve().as_uri()}?mode={mode}"
            conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA query_only = ON")
        else:
            why = why_unwritable(self.path)
            if why:  # refused before SQLite creates STORE-wal and STORE-shm beside a file it then cannot write
                raise self._not_writable(why)
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return conn

    def _check_file(self) -> None:
        """Refuse, before SQLite opens it, an existing file that is no SQLite database: one without
        SQLite's header, or an empty one unless a store may be created in it (SQLite takes an empty
        file for an empty database; one whose content is all in a non-empty -wal is left to SQLite)."""
        try:
            with open(self.path, "rb") as fh:
                head = fh.read(len(_SQLITE_HEADER))
        except OSError:
            return  # SQLite then says what is wrong
        if head == _SQLITE_HEADER:
            return
        if head:
            raise StoreError(f"{self.path}: not an SQLite file, so not a judged-edit store")
        wal = Path(f"{self.path}-wal")
        if not self._create and not (wal.exists() and wal.stat().st_size > 0):
            raise StoreError(f"{self.path}: an empty file, not a judged-edit store")

    def _init_schema(self) -> int:
        conn = self._conn
        assert conn is not None
        if self.readonly:
            return self._open_readonly(conn)
        self._waits.run(conn, lambda: self._ensure_wal(conn))
        # synchronous=NORMAL in WAL mode survives a killed process; only a power cut may lose the
        # last transactions, which for a cache means re-judging a few edits.
        conn.execute("PRAGMA synchronous = NORMAL")
        version = self._check_existing(conn, allow_empty=self._create)
        if version == SCHEMA_VERSION:  # an existing store opens without taking the write lock
            return version
        self._waits.run(conn, lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            version = self._check_existing(conn, allow_empty=self._create)
            if version == 0:
                for statement in _SCHEMA:  # not executescript(), which would commit the open transaction
                    conn.execute(statement)
                self._made_schema = True
                conn.executemany(
                    "INSERT OR IGNORE INTO meta (name, value) VALUES (?, ?)",
                    [("schema_version", str(SCHEMA_VERSION)), ("created_by", f"semcer {__version__}")],
                )
            elif version == 1:
                self._upgrade(conn)
            self._waits.run(conn, lambda: conn.execute("COMMIT"))
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        if version == 1:
            with contextlib.suppress(sqlite3.Error):  # give the old rows' pages back (not if a reader holds the file)
                conn.execute("VACUUM")
        return SCHEMA_VERSION

    def _upgrade(self, conn: sqlite3.Connection) -> None:
        """Rewrite a schema-1 store in this layout, inside the caller's write transaction.

        Every row is carried over as it was, its judge replaced by the id of its identity and its
        marked texts packed into one value; a row that fails the read-back check stays one that fails
        it (a judge that is not text gets id 0, which names no judge; texts that are not text an
        empty pair), so it is still reported and never used.
        """
        conn.execute("DROP INDEX IF EXISTS judged_edits_judge")
        conn.execute("ALTER TABLE judged_edits RENAME TO judged_edits_v1")
        for statement in (_JUDGES_TABLE, _EDITS_TABLE, _JUDGE_INDEX):
            conn.execute(statement)
        last = -1
        ids: dict[str, int] = {}
        while batch := conn.execute(f"SELECT rowid, {', '.join(COLUMNS)} FROM judged_edits_v1 WHERE rowid > ? "
                                    f"ORDER BY rowid LIMIT {_BATCH}", (last,)).fetchall():
            last = batch[-1][0]
            conn.executemany(INSERT, [self._stored(conn, row[1:], ids, strict=False) for row in batch])
        conn.execute("DROP TABLE judged_edits_v1")
        conn.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(SCHEMA_VERSION),))
        conn.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('upgraded_by', ?)", (f"semcer {__version__}",))

    def _open_readonly(self, conn: sqlite3.Connection) -> int:
        """The schema version through a read-only connection, reopened immutable when it must be.

        A read-only connection to a WAL store needs ``STORE-shm``; when that does not exist and
        cannot be created (a read-only directory, a file the reader may not write), SQLite fails
        with "attempt to write a readonly database". Then, unless a write-ahead log with content
        lies beside the store (whose transactions an immutable open would not see), the store is
        reopened immutable.
        """
        try:
            return self._waits.run(conn, lambda: self._check_existing(conn, allow_empty=False))
        except sqlite3.OperationalError as exc:
            if "readonly" not in str(exc) and "unable to open" not in str(exc):
                raise
        wal = Path(f"{self.path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(
                f"{self.path}: cannot be read without write access to its directory: {wal.name} holds "
                "transactions not yet merged into the store; let a process that may write there open it once "
                "(`semcer store import` or `semcer score --store` merge the log when they end), or copy the "
                "store with its -wal file somewhere writable"
            )
        self._close_quietly()
        self._conn = self._connect(immutable=True)
        return self._check_existing(self._conn, allow_empty=False)

    @staticmethod
    def _ensure_wal(conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower()
            if mode != "wal":
                raise sqlite3.OperationalError(f"could not switch to WAL mode (journal mode is {mode})")

    def _check_existing(self, conn: sqlite3.Connection, *, allow_empty: bool) -> int:
        """The schema version of the file, 0 for an empty database; refuses foreign or newer files."""
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and allow_empty:
            return 0
        if "meta" not in tables or "judged_edits" not in tables:
            if {"items", "ratings", "readers"} <= tables:  # semcer.study.db's tables
                raise StoreError(f"{self.path}: a semcer reader study, not a judged-edit store (a study is read "
                                 "by `semcer study export`)")
            found = ", ".join(sorted(tables)) or "none"
            raise StoreError(f"{self.path}: an SQLite file but not a semcer store (tables: {found})")
        row = conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
        try:
            version = int(row[0]) if row else -1
        except ValueError:
            version = -1
        if version < 1:
            raise StoreError(f"{self.path}: semcer store without a valid schema version ({row[0] if row else 'none'})")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: store schema version {version} is newer than this semcer supports "
                f"({SCHEMA_VERSION}); upgrade semcer to use it"
            )
        return version

    # -- plumbing ------------------------------------------------------------------------------

    def reading(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """The connection, for reads: one read transaction (:meth:`_read`; under the handle's lock,
        SQLite errors become StoreError)."""
        return self._read()

    def transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on an error)."""
        return self._write()

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """The connection under the handle's lock; SQLite errors become a StoreError naming the file."""
        with self._lock:
            if self._conn is None:
                raise StoreError(f"{self.path}: store is closed")
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: {exc}") from exc

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """The connection under the handle's lock, inside one read transaction whose lock is taken
        first, through :class:`LockWaits` (a store in a rollback journal mode, which a read-only
        handle leaves as it is, is not read while another process holds its lock to write: the
        wait is said, and ends in a StoreError, instead of a silent wait); ended when the block ends."""
        with self._db() as conn:
            self._waits.begin_read(conn)
            try:
                yield conn
            finally:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")  # a read transaction: nothing to keep

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken with BEGIN IMMEDIATE so that concurrent writers queue (each
        wait for the lock through :class:`LockWaits`), and committed only while the store's path
        still names the file this handle opened (:class:`StoreFile`): else rolled back, counted, and
        the handle's log let go of (:meth:`_let_go`)."""
        if self.readonly or self._file is None:
            raise StoreError(f"{self.path}: store was opened read-only")
        with self._db() as conn:
            self._waits.run(conn, lambda: conn.execute("BEGIN IMMEDIATE"))
            start, self._judge_rows = conn.total_changes, 0
            try:
                yield conn
                rows = conn.total_changes - start - self._judge_rows
                if self._file.gone():  # not written into a file that is no longer the store
                    conn.execute("ROLLBACK")
                    self._let_go(conn, rows)
                    return
                self._waits.run(conn, lambda: conn.execute("COMMIT"))
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
            if self._file.gone():  # it went between the look and the commit: the rows are in a file gone from the path
                self._let_go(conn, rows)

    def _let_go(self, conn: sqlite3.Connection, rows: int) -> None:
        """The store's path no longer names this handle's file: ``rows`` are not kept, and, the first
        time, the handle's frames in ``STORE-wal`` (which SQLite finds by the path) are checkpointed
        into the handle's own file and the log emptied. Else a file put at the path later (a copy
        put back, another store moved there) would take this handle's frames as its own when next
        opened; a store moved away keeps them."""
        assert self._file is not None
        self._file.not_kept(rows)
        if self._file.let_go:
            return
        self._file.let_go = True
        conn.execute("PRAGMA busy_timeout = 0")  # another connection in the log: as much as can be done now
        try:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

    def _close_quietly(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    @property
    def not_kept(self) -> int:
        """How many judged edits this handle wrote that are not in the store, because its file was
        deleted, moved or replaced while the handle wrote it (counted at each commit by
        :class:`StoreFile`, and said by a warning); 0 for a read-only handle."""
        return 0 if self._file is None else self._file.lost

    def gone(self) -> bool:
        """Whether the store's path no longer names the file this handle opened for writing (deleted,
        moved or replaced since, also after the last commit, when :attr:`not_kept` may be 0 though
        nothing the handle wrote is at the path); False for a read-only handle. Also after :meth:`close`."""
        return self._file is not None and self._file.gone()

    def close(self) -> None:
        """Close the file; further use raises StoreError. Says how many judged edits of this handle
        are not in the store, if its file was deleted or replaced (:meth:`StoreFile.closing`)."""
        with self._lock:
            self._close_quietly()
        if self._file is not None:
            self._file.closing()

    def discard_if_unused(self) -> bool:
        """Close the handle and, when it created the store (:attr:`created`) and the store holds no
        judged edit, remove the file with its -wal and -shm; True when removed. For a run that failed
        before it wrote anything: it leaves no empty store behind.

        A store that existed before is never removed, nor one with rows in it (whoever wrote them),
        nor one that another connection holds open or is writing (after this handle closes, SQLite
        has removed the -wal only if this handle was the last connection to the store).
        """
        with self._lock:
            conn, empty = self._conn, False
            if conn is not None and self.created:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA busy_timeout = 0")  # another writer at work: keep the store
                    conn.execute("BEGIN IMMEDIATE")  # no row can be added between the count and the close
                    empty = conn.execute("SELECT 1 FROM judged_edits LIMIT 1").fetchone() is None
            self._close_quietly()  # rolls the transaction back
        if self._file is not None:
            self._file.closing()
        wal = Path(f"{self.path}-wal")
        if not empty or wal.exists() or self._file is None or self._file.gone():  # the path names another file now
            return False
        for path in (self.path, wal, Path(f"{self.path}-shm")):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return True

    def __enter__(self) -> JudgedEditStore:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.discard_if_unused()

    def __repr__(self) -> str:
        return f"JudgedEditStore({str(self.path)!r}{', readonly=True' if self.readonly else ''})"

    # -- the stored layout ---------------------------------------------------------------------

    def _judge_id(self, conn: sqlite3.Connection, identity: str, ids: dict[str, int]) -> int:
        """The id of ``identity`` in table ``judges`` (added there if new), inside a write transaction."""
        found = ids.get(identity)
        if found is None:
            self._judge_rows += conn.execute("INSERT OR IGNORE INTO judges (identity) VALUES (?)", (identity,)).rowcount
            found = ids[identity] = conn.execute("SELECT id FROM judges WHERE identity = ?", (identity,)).fetchone()[0]
        return found

    def _stored(self, conn: sqlite3.Connection, values: Sequence[Any], ids: dict[str, int], *,
                strict: bool = True, pair: bytes | None = None) -> tuple:
        """The stored row (:data:`STORED`) of a row in :data:`COLUMNS` order, inside a write transaction
        (``pair``: its marked pair already packed). Not ``strict`` (an upgrade's old rows), a judge or
        texts of the wrong type are kept as a row that fails the read-back check."""
        judge, ref, hyp = values[_I["judge"]], values[_I["marked_ref"]], values[_I["marked_hyp"]]
        if strict or type(judge) is str:
            judge_id = self._judge_id(conn, judge, ids)
        else:
            judge_id = 0  # names no judge
        if pair is None:
            pair = pack_pair(ref, hyp) if strict or (type(ref) is str and type(hyp) is str) else b""
        return (*values[:_I["judge"]], judge_id, *values[_I["lang"] : _I["marked_ref"]], pair, *values[_P.start :])

    def _identities(self, conn: sqlite3.Connection) -> dict[Any, str]:
        """Judge id -> identity (table ``judges``; empty for a schema-1 store, which keeps identities in its rows)."""
        if self.schema_version == 1:
            return {}
        return dict(conn.execute("SELECT id, identity FROM judges"))

    def _decoded(self, row: Sequence[Any], identities: dict[Any, str]) -> tuple[Sequence[Any], str]:
        """A stored row in :data:`COLUMNS` order and why it cannot be used ("" when it passes :func:`check_row`)."""
        if self.schema_version == 1:
            return row, check_row(row)
        identity = identities.get(row[_S["judge"]])
        if identity is None:
            return row, f"judge id {_kind(row[_S['judge']])} names no judge of the store"
        try:
            ref, hyp = unpack_pair(row[_S["pair"]])
        except ValueError as exc:
            return row, f"marked pair {exc}"
        logical = (row[0], identity, *row[_S["lang"] : _S["pair"]], ref, hyp, *row[_S["p0"] :])
        return logical, check_row(logical)

    def _select(self, where: str = "", order: str = "") -> str:
        return f"{_SELECT[self.schema_version]} {where} {order}"

    # -- keys, lookups, inserts ----------------------------------------------------------------

    @staticmethod
    def key(judge_identity: str, ctx: EditContext) -> str:
        """sha256 hex of the judge identity and the edit's content key (not its line id or position)."""
        return edit_key(judge_identity, ctx.content_key())

    def _found_rows(self, conn: sqlite3.Connection, keys: Sequence[str]) -> Iterator[tuple[Sequence[Any], str]]:
        """The stored rows of ``keys`` (distinct), decoded, each with why it cannot be used."""
        identities = self._identities(conn)
        for start in range(0, len(keys), _IN_CHUNK):
            chunk = keys[start : start + _IN_CHUNK]
            sql = self._select(f"WHERE key IN ({','.join('?' * len(chunk))})")
            try:
                rows = conn.execute(sql, chunk).fetchall()
            except sqlite3.OperationalError as exc:
                if "decode" not in str(exc):
                    raise
                with _tolerant_text(conn):  # a text value that is not UTF-8: read again, that row as bytes
                    rows = conn.execute(sql, chunk).fetchall()
            for row in rows:
                yield self._decoded(row, identities)

    def get_many(self, keys: Sequence[str]) -> Found:
        """The stored judgements of those ``keys`` that are in the store and sound (misses are absent).

        Every row passes :func:`check_row` first; the keys of rows that fail are in the result's
        ``corrupt`` (with the reason), those of stored one-hot fallbacks in its ``one_hot``, and
        neither is returned as a judgement (:class:`Found`).
        """
        found = Found()
        with self._read() as conn:
            for row, reason in self._found_rows(conn, list(dict.fromkeys(keys))):
                if reason:
                    found.corrupt[row[0]] = reason
                    continue
                judgement = _judgement(row)
                if ONE_HOT_FLAG in judgement.flags:
                    found.one_hot.append(row[0])
                else:
                    found[row[0]] = judgement
        return found

    def _values(self, rows: Sequence[tuple[str, str, EditContext, Judgement]]) -> list[tuple]:
        return checked_values(rows, str(self.path))

    def put_many(self, rows: Sequence[tuple[str, str, EditContext, Judgement]], *,
                 replace: Collection[str] = ()) -> int:
        """Store ``(key, judge_identity, ctx, judgement)`` rows in one transaction; returns rows written.

        A key already present is left as it is (the first writer wins), unless it is in ``replace``
        (keys that :meth:`get_many` found corrupt or one-hot): then the new judgement replaces the
        stored row. Failed judgements (``p is None``) and one-hot fallbacks (flag
        :data:`ONE_HOT_FLAG`) are skipped, so that the next run judges them again.
        """
        values = self._values(rows)
        if not values:
            return 0
        with self._write() as conn:
            ids: dict[str, int] = {}
            stored = [self._stored(conn, v, ids) for v in values]  # first: a new judge is a change too
            before = conn.total_changes
            conn.executemany(INSERT, _by_key([v for v in stored if v[0] not in replace] if replace else stored))
            if replace:
                conn.executemany(REPLACE, _by_key([v for v in stored if v[0] in replace]))
            return conn.total_changes - before

    def insert_values(self, values: Sequence[Sequence[Any]]) -> int:
        """Insert rows given in :data:`COLUMNS` order (already checked, e.g. by an import) in one
        transaction, keeping rows whose key is present; returns rows inserted."""
        with self._write() as conn:
            ids: dict[str, int] = {}
            stored = [self._stored(conn, v, ids) for v in values]  # first: a new judge is a change too
            before = conn.total_changes
            conn.executemany(INSERT, _by_key(stored))
            return conn.total_changes - before

    def overwrite_many(self, rows: Sequence[tuple[str, str, EditContext, Judgement]] | ReadyRows) -> tuple[int, int]:
        """Store rows as the truth, in one transaction; returns (inserted, overwritten).

        For judges whose answers are recomputed and never read back (the deterministic built-ins):
        a missing row is inserted, and a stored row that fails the read-back check or whose content,
        probabilities, class or flags differ from the new one (forged, damaged, or written by another
        build) is overwritten; rows that agree are left alone (compared as read back, not byte for
        byte, so another build of zlib packing the same pair differently rewrites nothing). Failures
        and one-hot fallbacks are skipped, as by :meth:`put_many`. ``rows`` may come ready
        (:func:`ready_rows`, checked and packed elsewhere).
        """
        values, pairs = (rows.values, rows.pairs) if isinstance(rows, ReadyRows) else (self._values(rows), None)
        if not values:
            return 0, 0
        with self._write() as conn:
            present = {row[0]: (row, reason) for row, reason in self._found_rows(conn, sorted({v[0] for v in values}))}
            fresh, differing = [], []
            for k, v in enumerate(values):
                old = present.get(v[0])
                if old is None:
                    fresh.append(k)
                elif old[1] or any(old[0][i] != v[i] for i in _CONTENT_AT):
                    differing.append(k)
            ids: dict[str, int] = {}
            inserting = [self._stored(conn, values[k], ids, pair=None if pairs is None else pairs[k]) for k in fresh]
            replacing = [self._stored(conn, values[k], ids, pair=None if pairs is None else pairs[k]) for k in differing]
            before = conn.total_changes
            conn.executemany(INSERT, _by_key(inserting))
            inserted = conn.total_changes - before
            conn.executemany(REPLACE, _by_key(replacing))
            return inserted, conn.total_changes - before - inserted

    # -- counts --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.count()

    def count(self, judge_identity: str | None = None) -> int:
        """Number of stored edits, of one judge or of all."""
        with self._read() as conn:
            if judge_identity is None:
                return conn.execute("SELECT count(*) FROM judged_edits").fetchone()[0]
            if self.schema_version == 1:
                return conn.execute("SELECT count(*) FROM judged_edits WHERE judge = ?", (judge_identity,)).fetchone()[0]
            return conn.execute("SELECT count(*) FROM judged_edits WHERE judge IN (SELECT id FROM judges "
                                "WHERE identity = ?)", (judge_identity,)).fetchone()[0]

    def judges(self) -> list[tuple[str, int]]:
        """Judge identities in the store with their edit counts, sorted by identity (rows whose judge
        names no judge, an id not in the table or a value that is not an identity, count under ``?<value>``)."""
        with self._read() as conn, _tolerant_text(conn):
            counts = list(conn.execute("SELECT judge, count(*) FROM judged_edits GROUP BY judge"))
            identities = self._identities(conn)
        if self.schema_version == 1:
            identities = {judge: judge for judge, _ in counts if type(judge) is str}
        return sorted((identities.get(judge, f"?{judge!r}"), n) for judge, n in counts)

    def scan(self, judge_identity: str | None = None, *, by_judge: bool = False
             ) -> Generator[tuple[Sequence[Any], str], None, None]:
        """Every stored row (of one judge or all) in :data:`COLUMNS` order with why it cannot be used
        ("" when it passes :func:`check_row`), ordered by key (``by_judge``: by judge identity, then
        key; rows whose judge id names no judge last), read in batches. The handle is held until the
        iteration ends."""
        with self._read() as conn, _tolerant_text(conn):
            identities = self._identities(conn)
            for where, args, order in self._scan_parts(identities, judge_identity, by_judge):
                cursor = conn.execute(self._select(where, order), args)
                while batch := cursor.fetchmany(_BATCH):
                    for row in batch:
                        yield self._decoded(row, identities)

    def _scan_parts(self, identities: dict[Any, str], judge_identity: str | None, by_judge: bool
                    ) -> list[tuple[str, tuple, str]]:
        """The queries of :meth:`scan`: (WHERE clause, its arguments, ORDER BY clause), in order."""
        if self.schema_version == 1:
            if judge_identity is not None:
                return [("WHERE judge = ?", (judge_identity,), "ORDER BY key")]
            return [("", (), "ORDER BY judge, key" if by_judge else "ORDER BY key")]
        if judge_identity is None and not by_judge:
            return [("", (), "ORDER BY key")]
        ids = sorted(identities, key=identities.__getitem__)
        if judge_identity is not None:
            ids = [i for i in ids if identities[i] == judge_identity]
        parts = [("WHERE judge = ?", (i,), "ORDER BY key") for i in ids]
        if judge_identity is None:
            parts.append((f"WHERE judge NOT IN ({','.join('?' * len(ids))})", tuple(ids), "ORDER BY judge, key"))
        return parts

    def rows(self, judge_identity: str | None = None, *, skip_corrupt: bool = False) -> Rows:
        """Every stored edit (of one judge or all) as a dict, ordered by key: for training on a store.

        Every row passes :func:`check_row` first. Corrupt rows are a StoreError (how many, the first
        and why), or with ``skip_corrupt`` are left out and listed in the result's ``corrupt``.
        """
        out = Rows()
        for r, reason in self.scan(judge_identity):
            if reason:
                out.corrupt[r[0] if isinstance(r[0], str) else repr(r[0])] = reason
                continue
            out.append({"key": r[0], "judge": r[1], "lang": r[2], "op": r[3], "ref_unit": r[4], "hyp_unit": r[5],
                        "ref_pos": r[6], "hyp_pos": r[7], "marked_ref": r[8], "marked_hyp": r[9],
                        "p": tuple(float(x) for x in r[_P]), "edit_class": r[_I["edit_class"]]})
        if out.corrupt and not skip_corrupt:
            raise StoreError(corrupt_message(self.path, out.corrupt, len(out) + len(out.corrupt)))
        return out

    def check(self, *, delete: bool = False) -> CheckReport:
        """Check every stored row (:func:`check_row`); with ``delete``, remove the corrupt ones."""
        corrupt: dict[str, str] = {}
        rowids: list[int] = []
        n = one_hot = 0
        with self._read() as conn, _tolerant_text(conn):
            identities = self._identities(conn)
            columns = ", ".join(COLUMNS if self.schema_version == 1 else STORED)
            for rowid, *stored in conn.execute(f"SELECT rowid, {columns} FROM judged_edits ORDER BY rowid"):
                n += 1
                row, reason = self._decoded(stored, identities)
                if reason:
                    corrupt[row[0] if isinstance(row[0], str) else f"rowid {rowid}"] = reason
                    rowids.append(rowid)
                elif ONE_HOT_FLAG in flags_from_text(row[_I["flags"]]):
                    one_hot += 1
        deleted = 0
        if delete:
            for start in range(0, len(rowids), _IN_CHUNK):
                chunk = rowids[start : start + _IN_CHUNK]
                with self._write() as conn:
                    sql = f"DELETE FROM judged_edits WHERE rowid IN ({','.join('?' * len(chunk))})"
                    deleted += conn.execute(sql, chunk).rowcount
        return CheckReport(n, corrupt, one_hot, deleted)

    # -- Parquet (semcer.store.parquet) --------------------------------------------------------

    def export_parquet(self, path: str | os.PathLike, *, judge_identity: str | None = None,
                       skip_corrupt: bool = False) -> ExportResult:
        """Write the store (or one judge's edits) to a Parquet file, all or nothing; returns an
        ``ExportResult`` (rows written, corrupt rows left out). See :func:`semcer.store.parquet.export_parquet`."""
        from semcer.store.parquet import export_parquet

        return export_parquet(self, path, judge_identity=judge_identity, skip_corrupt=skip_corrupt)

    def import_parquet(self, path: str | os.PathLike | ParquetSource) -> ImportResult:
        """Add the judged edits of a Parquet file (or one already opened and checked by
        :func:`semcer.store.parquet.open_source`); returns an ``ImportResult`` (inserted, already present,
        and the rows skipped). See :func:`semcer.store.parquet.import_parquet`."""
        from semcer.store.parquet import import_parquet

        return import_parquet(self, path)
