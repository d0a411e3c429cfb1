"""A persistent SQLite store of judged edits, so that no edit is ever judged twice.

An edit is keyed by the judge's identity and the edit's content (language, operation and marked
pair), never by the line id or where the line stands, so an identical edit elsewhere in a corpus,
or in another corpus, is a hit. All five probabilities are stored, so a change of rating values
needs no new judging. Several processes may write one store at once (WAL mode, writers wait for
each other); a run killed at any moment loses at most the batch it was judging.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from semcer.alignment.context import EditContext
from semcer.errors import StoreError
from semcer.judges.distribution import Judgement, check_distribution
from semcer.store.keys import edit_key
from semcer.version import __version__

#: Version of the on-disk layout; a store with a higher version is refused, never guessed at.
SCHEMA_VERSION = 1

#: Seconds a writer waits for another writer's transaction before giving up.
BUSY_TIMEOUT_S = 120.0

#: Keys per ``IN (...)`` query: under SQLite's historical limit of 999 bound parameters.
_IN_CHUNK = 900

COLUMNS = (
    "key", "judge", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos",
    "marked_ref", "marked_hyp", "p0", "p1", "p2", "p3", "p4", "edit_class", "flags", "created",
)

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS judged_edits (
    key TEXT PRIMARY KEY,
    judge TEXT NOT NULL,
    lang TEXT NOT NULL,
    op TEXT NOT NULL,
    ref_unit TEXT NOT NULL,
    hyp_unit TEXT NOT NULL,
    ref_pos INTEGER NOT NULL,
    hyp_pos INTEGER NOT NULL,
    marked_ref TEXT NOT NULL,
    marked_hyp TEXT NOT NULL,
    p0 REAL NOT NULL, p1 REAL NOT NULL, p2 REAL NOT NULL, p3 REAL NOT NULL, p4 REAL NOT NULL,
    edit_class TEXT NOT NULL,
    flags TEXT NOT NULL,
    created REAL NOT NULL
)""",
    "CREATE INDEX IF NOT EXISTS judged_edits_judge ON judged_edits (judge)",
)

INSERT = f"INSERT OR IGNORE INTO judged_edits ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def flags_to_text(flags: Sequence[str]) -> str:
    return "[]" if not flags else json.dumps(list(flags), ensure_ascii=False)


def flags_from_text(text: str) -> tuple[str, ...]:
    return () if text == "[]" else tuple(json.loads(text))


class JudgedEditStore:
    """Judged edits in one SQLite file, keyed by judge identity and edit content.

    ``readonly=True`` opens an existing store without creating or changing anything. The handle may
    be used from several threads of one process; other processes open their own handle.
    """

    def __init__(self, path: str | os.PathLike, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        try:
            self._conn = self._connect()
            self.schema_version = self._init_schema()
        except sqlite3.Error as exc:
            self._close_quietly()
            raise StoreError(f"{self.path}: not a usable semcer store ({exc})") from None
        except StoreError:
            self._close_quietly()
            raise

    # -- opening -------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise StoreError(f"{self.path}: is a directory, expected a store file")
        if self.readonly:
            if not self.path.exists():
                raise StoreError(f"{self.path}: no such store")
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        else:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return conn

    def _init_schema(self) -> int:
        conn = self._conn
        assert conn is not None
        if self.readonly:
            return self._check_existing(conn, allow_empty=False)
        self._retry_locked(lambda: self._ensure_wal(conn))
        # synchronous=NORMAL in WAL mode survives a killed process; only a power cut may lose the
        # last transactions, which for a cache means re-judging a few edits.
        conn.execute("PRAGMA synchronous = NORMAL")
        version = self._check_existing(conn, allow_empty=True)
        if version:  # an existing store opens without taking the write lock
            return version
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = self._check_existing(conn, allow_empty=True)
            if version == 0:
                for statement in _SCHEMA:  # not executescript(), which would commit the open transaction
                    conn.execute(statement)
                conn.executemany(
                    "INSERT OR IGNORE INTO meta (name, value) VALUES (?, ?)",
                    [("schema_version", str(SCHEMA_VERSION)), ("created_by", f"semcer {__version__}")],
                )
                version = SCHEMA_VERSION
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        return version

    @staticmethod
    def _ensure_wal(conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower()
            if mode != "wal":
                raise sqlite3.OperationalError(f"could not switch to WAL mode (journal mode is {mode})")

    @staticmethod
    def _retry_locked(action: Callable[[], None]) -> None:
        """Run ``action``, retrying while another process holds the lock (e.g. two creators at once)."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                action()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _check_existing(self, conn: sqlite3.Connection, *, allow_empty: bool) -> int:
        """The schema version of the file, 0 for an empty database; refuses foreign or newer files."""
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and allow_empty:
            return 0
        if "meta" not in tables or "judged_edits" not in tables:
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
        """The connection, for reads (under the handle's lock; SQLite errors become StoreError)."""
        return self._db()

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
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken with BEGIN IMMEDIATE so that concurrent writers queue."""
        if self.readonly:
            raise StoreError(f"{self.path}: store was opened read-only")
        with self._db() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise

    def _close_quietly(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def close(self) -> None:
        """Close the file; further use raises StoreError."""
        with self._lock:
            self._close_quietly()

    def __enter__(self) -> JudgedEditStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"JudgedEditStore({str(self.path)!r}{', readonly=True' if self.readonly else ''})"

    # -- keys, lookups, inserts ----------------------------------------------------------------

    @staticmethod
    def key(judge_identity: str, ctx: EditContext) -> str:
        """sha256 hex of the judge identity and the edit's content key (not its line id or position)."""
        return edit_key(judge_identity, ctx.content_key())

    def get_many(self, keys: Sequence[str]) -> dict[str, Judgement]:
        """The stored judgements of those ``keys`` that are in the store (misses are absent)."""
        unique = list(dict.fromkeys(keys))
        found: dict[str, Judgement] = {}
        with self._db() as conn:
            for start in range(0, len(unique), _IN_CHUNK):
                chunk = unique[start : start + _IN_CHUNK]
                rows = conn.execute(
                    f"SELECT key, p0, p1, p2, p3, p4, edit_class, flags FROM judged_edits "
                    f"WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
                for row in rows:
                    found[row[0]] = Judgement(row[1:6], row[6], flags_from_text(row[7]))
        return found

    def put_many(self, rows: Sequence[tuple[str, str, EditContext, Judgement]]) -> int:
        """Store ``(key, judge_identity, ctx, judgement)`` rows in one transaction; returns rows inserted.

        A key already present is left as it is (the first writer wins). Failed judgements
        (``p is None``) are skipped so that the next run judges them again.
        """
        now = time.time()
        values = []
        for key, identity, ctx, judgement in rows:
            if judgement.p is None:
                continue
            if key != self.key(identity, ctx):
                raise ValueError(f"key {key} does not belong to judge {identity!r} and edit {ctx.content_key()!r}")
            try:
                p = check_distribution(judgement.p)
            except ValueError as exc:
                raise StoreError(f"{self.path}: judge {identity!r} returned an invalid judgement "
                                 f"for {ctx.marked_hyp!r}: {exc}") from None
            values.append((
                key, identity, ctx.lang, ctx.op, ctx.ref_unit, ctx.hyp_unit, int(ctx.ref_pos), int(ctx.hyp_pos),
                ctx.marked_ref, ctx.marked_hyp, *p,
                judgement.edit_class, flags_to_text(judgement.flags), now,
            ))
        if not values:
            return 0
        with self._write() as conn:
            before = conn.total_changes
            conn.executemany(INSERT, values)
            return conn.total_changes - before

    # -- counts --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.count()

    def count(self, judge_identity: str | None = None) -> int:
        """Number of stored edits, of one judge or of all."""
        with self._db() as conn:
            if judge_identity is None:
                return conn.execute("SELECT count(*) FROM judged_edits").fetchone()[0]
            return conn.execute("SELECT count(*) FROM judged_edits WHERE judge = ?", (judge_identity,)).fetchone()[0]

    def judges(self) -> list[tuple[str, int]]:
        """Judge identities in the store with their edit counts, sorted by identity."""
        with self._db() as conn:
            return list(conn.execute("SELECT judge, count(*) FROM judged_edits GROUP BY judge ORDER BY judge"))

    def rows(self, judge_identity: str | None = None) -> list[dict[str, Any]]:
        """Every stored edit (of one judge or all) as a dict, ordered by key: for training on a store."""
        sql = ("SELECT key, judge, lang, op, ref_unit, hyp_unit, ref_pos, hyp_pos, marked_ref, marked_hyp, "
               "p0, p1, p2, p3, p4, edit_class FROM judged_edits")
        args: tuple = ()
        if judge_identity is not None:
            sql += " WHERE judge = ?"
            args = (judge_identity,)
        with self._db() as conn:
            return [
                {"key": r[0], "judge": r[1], "lang": r[2], "op": r[3], "ref_unit": r[4], "hyp_unit": r[5],
                 "ref_pos": r[6], "hyp_pos": r[7], "marked_ref": r[8], "marked_hyp": r[9],
                 "p": tuple(r[10:15]), "edit_class": r[15]}
                for r in conn.execute(sql + " ORDER BY key", args)
            ]

    # -- Parquet (semcer.store.parquet) --------------------------------------------------------

    def export_parquet(self, path: str | os.PathLike, *, judge_identity: str | None = None) -> int:
        """Write the store (or one judge's edits) to a Parquet file, all or nothing; returns rows written.
        See :func:`semcer.store.parquet.export_parquet`."""
        from semcer.store.parquet import export_parquet

        return export_parquet(self, path, judge_identity=judge_identity)

    def import_parquet(self, path: str | os.PathLike) -> tuple[int, int]:
        """Add the judged edits of a Parquet file; returns (inserted, already present).
        See :func:`semcer.store.parquet.import_parquet`."""
        from semcer.store.parquet import import_parquet

        return import_parquet(self, path)
