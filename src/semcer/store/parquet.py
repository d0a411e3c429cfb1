"""The judged-edit store's exchange format: Parquet files with the labelled data's columns.

Columns follow the labelled data in ``data/severity/`` (``p`` as a list of five floats, with the
derived ``severity`` and ``mode``) plus ``key``, ``judge``, ``edit_class``, ``flags`` and
``created``, so an import into a fresh store reproduces every exported row exactly. Needs pyarrow
(``pip install "semcer[parquet]"``).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from semcer.alignment.context import content_key
from semcer.atomic import atomic_path, probe_folder
from semcer.errors import StoreError, quoted
from semcer.judges.distribution import LEVELS, check_derived, check_distribution, expected_rating, mode_of
from semcer.store.keys import edit_key, is_deterministic
from semcer.store.sqlite import (
    COLUMNS,
    ONE_HOT_FLAG,
    SCHEMA_VERSION,
    JudgedEditStore,
    corrupt_message,
    edit_problem,
    flags_from_text,
    flags_to_text,
)
from semcer.version import __version__

#: Rows per Parquet record batch on export and import (bounds memory on large stores).
PARQUET_BATCH = 50_000

#: Rows per write transaction of an import: a concurrent writer waits for one batch at most, not
#: for the whole file (5,000 rows hold the lock for some tens of milliseconds).
IMPORT_BATCH = 5_000

#: Pause (seconds) after each import transaction, in which writers waiting for the lock get it.
IMPORT_PAUSE_S = 0.005

PARQUET_HINT = 'Parquet support needs pyarrow: pip install "semcer[parquet]"'

_MAGIC = b"PAR1"
_FLAGS = COLUMNS.index("flags")


class ParquetSource(NamedTuple):
    """A Parquet file of judged edits opened and checked whole by :func:`open_source` (``columns``
    to read, ``now``: the time given to rows without ``created``), ready for :func:`import_parquet`."""

    path: Any
    parquet: Any
    columns: list[str]
    now: float


class ExportResult(NamedTuple):
    """What an export did: ``written`` rows, ``corrupt`` rows left out (only with ``skip_corrupt``)."""

    written: int
    corrupt: int = 0


class ImportResult(NamedTuple):
    """What an import did: ``inserted`` rows, ``present`` already in the store (kept as they were),
    ``deterministic`` rows of a deterministic built-in judge (:data:`semcer.store.keys.DETERMINISTIC_PREFIXES`) and
    ``one_hot`` one-hot fallbacks, both skipped (see :func:`import_parquet`)."""

    inserted: int
    present: int
    deterministic: int = 0
    one_hot: int = 0


def export_parquet(store: JudgedEditStore, path: str | os.PathLike, *, judge_identity: str | None = None,
                   skip_corrupt: bool = False) -> ExportResult:
    """Write the store (or one judge's edits) to a Parquet file, all or nothing.

    Every row passes the store's read-back check (:func:`semcer.store.sqlite.check_row`) first: a
    corrupt row is a StoreError and nothing is written, or with ``skip_corrupt`` it is left out and
    counted. ``path`` must end in ``.parquet`` and may not be the store itself (however spelled), nor
    an existing file that is not a Parquet file (it is never overwritten).
    """
    pa, pq = _pyarrow()
    check_output(store.path, path)
    schema = _parquet_schema(pa)
    written = 0
    corrupt: dict[str, str] = {}
    with contextlib.closing(store.scan(judge_identity, by_judge=True)) as rows, atomic_path(path) as tmp:
        with pq.ParquetWriter(tmp, schema) as writer:
            good: list[Sequence[Any]] = []
            for row, reason in rows:
                if reason:
                    corrupt[row[0] if isinstance(row[0], str) else repr(row[0])] = reason
                    continue
                good.append(row)
                if len(good) >= PARQUET_BATCH:
                    writer.write_table(_rows_to_table(pa, schema, good))
                    written += len(good)
                    good = []
            if good:
                writer.write_table(_rows_to_table(pa, schema, good))
                written += len(good)
            if written == 0:
                writer.write_table(schema.empty_table())
        if corrupt and not skip_corrupt:
            raise StoreError(corrupt_message(store.path, corrupt, written + len(corrupt),
                                             what=f"nothing exported to {path} (--skip-corrupt exports the rest)"))
    return ExportResult(written, len(corrupt))


def check_output(store_path: str | os.PathLike, path: str | os.PathLike) -> None:
    """Refuse an export path that is the store at ``store_path`` (or its -wal/-shm), a directory, a
    file that is not a Parquet file, one in a directory that is missing or not writable, or a name
    that does not end in ``.parquet`` (any case: the export is always Parquet, and a ``judged.csv``
    holding Parquet would mislead whoever opens it). Reads nothing of the store, so that a command
    can check its output before it opens the store."""
    out, store = Path(path), Path(store_path)
    if out.exists():
        for own in (store, Path(f"{store}-wal"), Path(f"{store}-shm")):
            try:
                same = os.path.samefile(out, own)
            except OSError:
                same = False
            if same:
                raise StoreError(f"{path}: is the store {store} itself; give the Parquet file another name "
                                 f"(e.g. {store.with_suffix('.parquet').name})")
        if out.is_dir():
            raise StoreError(f"{path}: is a directory; give a file name (e.g. {out / 'judged.parquet'})")
        try:
            with open(out, "rb") as fh:
                head = fh.read(len(_MAGIC))
        except OSError as exc:
            raise StoreError(f"{path}: cannot be read to check what it is ({exc.strerror}); "
                             "choose another output file") from None
        if head and head != _MAGIC:
            raise StoreError(f"{path}: exists and is not a Parquet file; not overwritten "
                             "(remove it, or choose another name)")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise StoreError(f"{path}: no such directory {parent}; create it first or choose another output file")
    try:
        probe_folder(parent)
    except OSError as exc:
        raise StoreError(f"{path}: cannot write in {parent} ({exc.strerror or exc}: no permission, or a read-only "
                         "file system); choose another output file") from None
    if out.suffix.lower() != ".parquet":
        example = out.with_suffix(".parquet").name if out.name else "judged.parquet"
        raise StoreError(f"{path}: unknown extension {out.suffix or '(none)'!r} for an export, which is always "
                         f"Parquet; name it .parquet (e.g. {example})")


def open_source(path: str | os.PathLike) -> ParquetSource:
    """Open a Parquet file to import and check it whole (its columns and types, then every row, as
    :func:`import_parquet` says), without a store: so that a command can refuse a missing, foreign or
    bad file before it creates a store. A StoreError names the file (and the row) and what is wrong."""
    pa, pq = _pyarrow()
    source = Path(path)
    if not source.exists():
        raise StoreError(f"{path}: no such file")
    if source.is_dir():
        raise StoreError(f"{path}: is a directory, expected a Parquet file")
    try:
        parquet = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(f"{path}: not a readable Parquet file ({exc})") from None
    columns = _check_parquet_schema(pa, parquet.schema_arrow, path)
    now = time.time()
    for _ in _checked_rows(parquet, columns, path, now):  # the whole file, before anything is written
        pass
    return ParquetSource(path, parquet, columns, now)


def import_parquet(store: JudgedEditStore, path: str | os.PathLike | ParquetSource) -> ImportResult:
    """Add the judged edits of a Parquet file to ``store``.

    The whole file is checked first (columns and types, five probabilities in [0, 1] summing to 1,
    a ``severity`` and ``mode`` that are the ones ``p`` gives where the file has them
    (:func:`semcer.judges.distribution.check_derived`; the store keeps ``p`` only), keys matching their
    content); a bad row is a StoreError naming the file and the row, and then
    nothing is imported. The rows are then inserted in transactions of :data:`IMPORT_BATCH` rows,
    so that other writers of the store (a concurrent ``semcer score``) wait for one batch at most;
    an import stopped midway leaves the batches done (every row checked), and a rerun adds the rest.

    Skipped, and counted in the result: rows of a deterministic built-in judge (their judgements are
    recomputed locally and never taken from a file, so a forged row cannot change a score), and
    one-hot fallbacks (the store never keeps them; the next run asks the judge again).

    ``path`` may be a file already opened and checked by :func:`open_source` (it is not checked again).
    """
    path, parquet, columns, now = path if isinstance(path, ParquetSource) else open_source(path)
    inserted = present = deterministic = one_hot = 0
    pending: list[tuple] = []

    def flush() -> None:
        nonlocal inserted, present
        added = store.insert_values(pending)
        inserted += added
        present += len(pending) - added
        pending.clear()
        time.sleep(IMPORT_PAUSE_S)  # let a waiting writer in

    for values in _checked_rows(parquet, columns, path, now):
        if is_deterministic(values[1]):
            deterministic += 1
        elif ONE_HOT_FLAG in flags_from_text(values[_FLAGS]):
            one_hot += 1
        else:
            pending.append(values)
            if len(pending) >= IMPORT_BATCH:
                flush()
    if pending:
        flush()
    return ImportResult(inserted, present, deterministic, one_hot)


def _checked_rows(parquet: Any, columns: list[str], path: Any, now: float) -> Iterator[tuple]:
    """Every row of the file as INSERT values, checked (:func:`_import_row`)."""
    row_index = 0
    for batch in parquet.iter_batches(batch_size=PARQUET_BATCH, columns=columns):
        data = batch.to_pydict()
        for i in range(batch.num_rows):
            yield _import_row(data, i, row_index + i, path, now)
        row_index += batch.num_rows


_REQUIRED_STRINGS = ("key", "judge", "lang", "op", "ref_unit", "hyp_unit", "marked_ref", "marked_hyp")
_REQUIRED_INTS = ("ref_pos", "hyp_pos")
#: The fields of :func:`semcer.store.sqlite.edit_problem`, in its order.
_EDIT_FIELDS = ("lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos", "marked_ref", "marked_hyp")


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise StoreError(PARQUET_HINT) from None
    return pa, pq


def _parquet_schema(pa: Any) -> Any:
    fields = [(name, pa.string()) for name in ("key", "judge", "lang", "op", "ref_unit", "hyp_unit")]
    fields += [("ref_pos", pa.int64()), ("hyp_pos", pa.int64())]
    fields += [("marked_ref", pa.string()), ("marked_hyp", pa.string())]
    fields += [("p", pa.list_(pa.float64())), ("severity", pa.float64()), ("mode", pa.int64())]
    fields += [("edit_class", pa.string()), ("flags", pa.list_(pa.string())), ("created", pa.float64())]
    metadata = {"semcer.store_schema_version": str(SCHEMA_VERSION), "semcer.version": __version__}
    return pa.schema(fields, metadata=metadata)


def _rows_to_table(pa: Any, schema: Any, rows: list[Sequence[Any]]) -> Any:
    """A Parquet record batch from store rows in ``COLUMNS`` order."""
    arrays = {name: list(col) for name, col in zip(COLUMNS, zip(*rows))}
    ps = [list(p) for p in zip(*(arrays.pop(f"p{k}") for k in range(LEVELS)))]
    arrays["p"] = ps
    arrays["severity"] = [expected_rating(p) for p in ps]
    arrays["mode"] = [mode_of(p) for p in ps]
    arrays["flags"] = [list(flags_from_text(f)) for f in arrays["flags"]]
    return pa.table({field.name: arrays[field.name] for field in schema}, schema=schema)


def _check_parquet_schema(pa: Any, schema: Any, path: Any) -> list[str]:
    """The columns to read, after checking names and types; a StoreError says what is wrong."""
    types = {field.name: field.type for field in schema}
    is_str = lambda t: pa.types.is_string(t) or pa.types.is_large_string(t)
    is_list = lambda t: pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)
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
    if "severity" in types and not (pa.types.is_floating(types["severity"]) or pa.types.is_integer(types["severity"])):
        problems.append(f"column 'severity' is {types['severity']}, expected double")
    if "mode" in types and not pa.types.is_integer(types["mode"]):
        problems.append(f"column 'mode' is {types['mode']}, expected integer")
    if problems:
        raise StoreError(f"{path}: not a judged-edit file: {'; '.join(problems)}")
    optional = [name for name in ("edit_class", "flags", "created", "severity", "mode") if name in types]
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
        raise bad(f"op is {quoted(data['op'][i])}, expected S, D or I")
    severity = data["severity"][i] if "severity" in data else None  # derived columns: checked, not stored
    mode = data["mode"][i] if "mode" in data else None
    try:
        p = check_distribution(data["p"][i])
        check_derived(p, severity, mode)
    except ValueError as exc:
        raise bad(str(exc)) from None
    key, judge = data["key"][i], data["judge"][i]
    if key != edit_key(judge, content_key(data["lang"][i], data["op"][i], data["marked_ref"][i], data["marked_hyp"][i])):
        raise bad("key does not match its judge, lang, op and marked pair")
    problem = edit_problem(*(data[name][i] for name in _EDIT_FIELDS))
    if problem:
        raise bad(problem)
    edit_class = (data["edit_class"][i] if "edit_class" in data else None) or ""
    flags = (data["flags"][i] if "flags" in data else None) or []
    if any(f is None for f in flags):
        raise bad("flags contains a null")
    created = data["created"][i] if "created" in data else None
    return (
        key, judge, data["lang"][i], data["op"][i], data["ref_unit"][i], data["hyp_unit"][i],
        int(data["ref_pos"][i]), int(data["hyp_pos"][i]), data["marked_ref"][i], data["marked_hyp"][i],
        *p, edit_class, flags_to_text(flags), float(now if created is None else created),
    )


