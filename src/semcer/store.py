"""A persistent SQLite store of judged edits, so that no edit is ever judged twice.

An edit is keyed by the judge's identity and the edit's content (language, operation and marked
pair), never by the line id or where the line stands, so an identical edit elsewhere in a corpus,
or in another corpus, is a hit. All five probabilities are stored, so a change of rating values
needs no new judging. Several processes may write one store at once (WAL mode, writers wait for
each other); a run killed at any moment loses at most the batch it was judging.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .atomic import atomic_path
from .errors import JudgeError, StoreError
from .judges.base import LEVELS, EditContext, Judge, Judgement, severity_of
from .version import __version__

#: Version of the on-disk layout; a store with a higher version is refused, never guessed at.
SCHEMA_VERSION = 1

#: Seconds a writer waits for another writer's transaction before giving up.
BUSY_TIMEOUT_S = 120.0

#: Keys per ``IN (...)`` query: under SQLite's historical limit of 999 bound parameters.
_IN_CHUNK = 900

#: Rows per Parquet record batch on export and import (bounds memory on large stores).
_PARQUET_BATCH = 50_000

_PARQUET_HINT = 'Parquet support needs pyarrow: pip install "semcer[parquet]"'

_COLUMNS = (
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

_INSERT = f"INSERT OR IGNORE INTO judged_edits ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"


def _content_key(judge_identity: str, lang: str, op: str, marked_ref: str, marked_hyp: str) -> str:
    """The store key from the fields it depends on (shared by :meth:`JudgedEditStore.key` and import)."""
    ctx = EditContext(lang, op, "", "", 0, 0, "", "", marked_ref, marked_hyp)
    return JudgedEditStore.key(judge_identity, ctx)


def _checked_p(p: Any) -> tuple[float, ...]:
    """``p`` as five floats; ValueError saying why when it is not a five-level distribution."""
    if p is None:
        raise ValueError("p is missing")
    try:
        values = tuple(map(float, p))
    except (TypeError, ValueError):
        raise ValueError(f"p is not a list of numbers: {p!r}") from None
    if len(values) != LEVELS:
        raise ValueError(f"p has {len(values)} values, expected {LEVELS}")
    total = sum(values)
    if not math.isfinite(total):
        raise ValueError(f"p has a value that is not a finite number: {list(values)}")
    if min(values) < 0.0 or max(values) > 1.0:
        raise ValueError(f"p has a value outside [0, 1]: {list(values)}")
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"p sums to {total!r}, expected 1 (within 1e-6)")
    return values


def _flags_to_text(flags: Sequence[str]) -> str:
    return "[]" if not flags else json.dumps(list(flags), ensure_ascii=False)


def _flags_from_text(text: str) -> tuple[str, ...]:
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
            raise StoreError(f"{self.path}: an SQLite file but not a semcer store (tables: {', '.join(sorted(tables)) or 'none'})")
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
        return hashlib.sha256(f"{judge_identity}\x1e{ctx.content_key()}".encode("utf-8")).hexdigest()

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
                    found[row[0]] = Judgement(row[1:6], row[6], _flags_from_text(row[7]))
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
                p = _checked_p(judgement.p)
            except ValueError as exc:
                raise StoreError(f"{self.path}: judge {identity!r} returned an invalid judgement for {ctx.marked_hyp!r}: {exc}") from None
            values.append((
                key, identity, ctx.lang, ctx.op, ctx.ref_unit, ctx.hyp_unit, int(ctx.ref_pos), int(ctx.hyp_pos),
                ctx.marked_ref, ctx.marked_hyp, *p,
                judgement.edit_class, _flags_to_text(judgement.flags), now,
            ))
        if not values:
            return 0
        with self._write() as conn:
            before = conn.total_changes
            conn.executemany(_INSERT, values)
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

    # -- Parquet -------------------------------------------------------------------------------

    def export_parquet(self, path: str | os.PathLike, *, judge_identity: str | None = None) -> int:
        """Write the store (or one judge's edits) to a Parquet file, all or nothing; returns rows written.

        Columns follow the labelled data in ``data/severity/`` (``p`` as a list of five floats, with
        the derived ``severity`` and ``mode``) plus ``key``, ``judge``, ``edit_class``, ``flags`` and
        ``created``, so :meth:`import_parquet` into a fresh store reproduces every row exactly.
        """
        pa, pq = _pyarrow()
        schema = _parquet_schema(pa)
        where, params = ("WHERE judge = ?", (judge_identity,)) if judge_identity is not None else ("", ())
        written = 0
        with self._db() as conn, atomic_path(path) as tmp:
            cursor = conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM judged_edits {where} ORDER BY judge, key", params)
            with pq.ParquetWriter(tmp, schema) as writer:
                while batch := cursor.fetchmany(_PARQUET_BATCH):
                    writer.write_table(_rows_to_table(pa, schema, batch))
                    written += len(batch)
                if written == 0:
                    writer.write_table(schema.empty_table())
        return written

    def import_parquet(self, path: str | os.PathLike) -> tuple[int, int]:
        """Add the judged edits of a Parquet file; returns (inserted, already present).

        The file is checked first (columns and types, five probabilities in [0, 1] summing to 1,
        keys matching their content); a bad row is a StoreError naming the file and the row, and
        then nothing is imported.
        """
        pa, pq = _pyarrow()
        try:
            parquet = pq.ParquetFile(path)
        except (OSError, pa.ArrowException) as exc:
            raise StoreError(f"{path}: not a readable Parquet file ({exc})") from None
        columns = _check_parquet_schema(pa, parquet.schema_arrow, path)
        now = time.time()
        inserted = present = 0
        row_index = 0
        with self._write() as conn:
            for batch in parquet.iter_batches(batch_size=_PARQUET_BATCH, columns=columns):
                data = batch.to_pydict()
                values = [
                    _import_row(data, i, row_index + i, path, now) for i in range(batch.num_rows)
                ]
                before = conn.total_changes
                conn.executemany(_INSERT, values)
                added = conn.total_changes - before
                inserted += added
                present += len(values) - added
                row_index += batch.num_rows
        return inserted, present


# -- Parquet helpers ---------------------------------------------------------------------------

_REQUIRED_STRINGS = ("key", "judge", "lang", "op", "ref_unit", "hyp_unit", "marked_ref", "marked_hyp")
_REQUIRED_INTS = ("ref_pos", "hyp_pos")


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise StoreError(_PARQUET_HINT) from None
    return pa, pq


def _parquet_schema(pa: Any) -> Any:
    fields = [(name, pa.string()) for name in ("key", "judge", "lang", "op", "ref_unit", "hyp_unit")]
    fields += [("ref_pos", pa.int64()), ("hyp_pos", pa.int64())]
    fields += [("marked_ref", pa.string()), ("marked_hyp", pa.string())]
    fields += [("p", pa.list_(pa.float64())), ("severity", pa.float64()), ("mode", pa.int64())]
    fields += [("edit_class", pa.string()), ("flags", pa.list_(pa.string())), ("created", pa.float64())]
    metadata = {"semcer.store_schema_version": str(SCHEMA_VERSION), "semcer.version": __version__}
    return pa.schema(fields, metadata=metadata)


def _rows_to_table(pa: Any, schema: Any, rows: list[tuple]) -> Any:
    """A Parquet record batch from SQLite rows in ``_COLUMNS`` order."""
    arrays = {name: list(col) for name, col in zip(_COLUMNS, zip(*rows))}
    ps = [list(p) for p in zip(*(arrays.pop(f"p{k}") for k in range(LEVELS)))]
    arrays["p"] = ps
    arrays["severity"] = [severity_of(p) for p in ps]
    arrays["mode"] = [Judgement(tuple(p)).mode for p in ps]
    arrays["flags"] = [list(_flags_from_text(f)) for f in arrays["flags"]]
    return pa.table({field.name: arrays[field.name] for field in schema}, schema=schema)


def _check_parquet_schema(pa: Any, schema: Any, path: Any) -> list[str]:
    """The columns to read, after checking names and types; a StoreError says what is wrong."""
    types = {field.name: field.type for field in schema}
    is_str = lambda t: pa.types.is_string(t) or pa.types.is_large_string(t)  # noqa: E731
    is_list = lambda t: pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)  # noqa: E731
    problems = []
    for name in (*_REQUIRED_STRINGS, *_REQUIRED_INTS, "p"):
        if name not in types:
            problems.append(f"missing column {name!r}")
    for name in _REQUIRED_STRINGS + ("edit_class",):
        if name in types and not is_str(types[name]):
            problems.append(f"column {name!r} is {types[name]}, expected string")
    for name in _REQUIRED_INTS:
        if name in types and not pa.types.is_integer(types[name]):
            problems.append(f"column {name!r} is {types[name]}, expected integer")
    if "p" in types and not (is_list(types["p"]) and pa.types.is_floating(types["p"].value_type)):
        problems.append(f"column 'p' is {types['p']}, expected list<double> of {LEVELS} probabilities")
    if "flags" in types and not (is_list(types["flags"]) and is_str(types["flags"].value_type)):
        problems.append(f"column 'flags' is {types['flags']}, expected list<string>")
    if "created" in types and not (pa.types.is_floating(types["created"]) or pa.types.is_integer(types["created"])):
        problems.append(f"column 'created' is {types['created']}, expected double")
    if problems:
        raise StoreError(f"{path}: not a judged-edit file: {'; '.join(problems)}")
    optional = [name for name in ("edit_class", "flags", "created") if name in types]
    return [*_REQUIRED_STRINGS, *_REQUIRED_INTS, "p", *optional]


def _import_row(data: dict[str, list], i: int, row: int, path: Any, now: float) -> tuple:
    """One validated row of a Parquet batch, ready for INSERT."""

    def bad(message: str) -> StoreError:
        key = data["key"][i]
        return StoreError(f"{path}: row {row}{f' (key {key[:12]})' if isinstance(key, str) else ''}: {message}")

    for name in (*_REQUIRED_STRINGS, *_REQUIRED_INTS):
        if data[name][i] is None:
            raise bad(f"{name} is missing")
    if data["op"][i] not in ("S", "D", "I"):
        raise bad(f"op is {data['op'][i]!r}, expected S, D or I")
    try:
        p = _checked_p(data["p"][i])
    except ValueError as exc:
        raise bad(str(exc)) from None
    key, judge = data["key"][i], data["judge"][i]
    if key != _content_key(judge, data["lang"][i], data["op"][i], data["marked_ref"][i], data["marked_hyp"][i]):
        raise bad("key does not match its judge, lang, op and marked pair")
    edit_class = (data["edit_class"][i] if "edit_class" in data else None) or ""
    flags = (data["flags"][i] if "flags" in data else None) or []
    if any(f is None for f in flags):
        raise bad("flags contains a null")
    created = data["created"][i] if "created" in data else None
    return (
        key, judge, data["lang"][i], data["op"][i], data["ref_unit"][i], data["hyp_unit"][i],
        int(data["ref_pos"][i]), int(data["hyp_pos"][i]), data["marked_ref"][i], data["marked_hyp"][i],
        *p, edit_class, _flags_to_text(flags), float(now if created is None else created),
    )


# -- judging through the store -----------------------------------------------------------------


@dataclass
class CacheStats:
    """What one :func:`judge_cached` call did: ``total`` edits asked, ``unique`` distinct edits,
    ``hits`` found in the store, ``judged`` sent to the judge, ``failures`` the judge failed on."""

    total: int
    unique: int
    hits: int
    judged: int
    failures: int


def judge_cached(
    judge: Judge,
    contexts: Sequence[EditContext],
    store: JudgedEditStore | None,
    *,
    batch_size: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Judgement], CacheStats]:
    """Judge ``contexts`` through the store: each distinct edit at most once, ever.

    Identical edits within the call are judged once; edits already in the store are not judged;
    the rest go to ``judge.judge()`` in batches of ``batch_size``, each batch stored as soon as it
    is judged, so a killed run loses at most the batch in flight. Failures are returned but not
    stored. ``progress(done, total)`` counts distinct edits sent to the judge, after each batch.
    Returns the judgements in input order.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    identity = judge.identity
    keys = [JudgedEditStore.key(identity, ctx) for ctx in contexts]
    first: dict[str, EditContext] = {}
    for key, ctx in zip(keys, contexts):
        first.setdefault(key, ctx)
    results = store.get_many(list(first)) if store is not None else {}
    hits = len(results)
    misses = [key for key in first if key not in results]
    failures = 0
    for start in range(0, len(misses), batch_size):
        batch = misses[start : start + batch_size]
        judged = judge.judge([first[key] for key in batch])
        if len(judged) != len(batch):
            raise JudgeError(f"judge {identity!r} returned {len(judged)} judgements for {len(batch)} edits")
        results.update(zip(batch, judged))
        failures += sum(1 for j in judged if j.p is None)
        if store is not None:
            store.put_many([(key, identity, first[key], j) for key, j in zip(batch, judged)])
        if progress is not None:
            progress(start + len(batch), len(misses))
    stats = CacheStats(total=len(contexts), unique=len(first), hits=hits, judged=len(misses), failures=failures)
    return [results[key] for key in keys], stats
