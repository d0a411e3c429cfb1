"""The judged-edit store's exchange format: Parquet files with the labelled data's columns.

Columns follow the labelled data in ``data/severity/`` (``p`` as a list of five floats, with the
derived ``severity`` and ``mode``) plus ``key``, ``judge``, ``edit_class``, ``flags`` and
``created``, so an import into a fresh store reproduces every exported row exactly. Needs pyarrow
(``pip install "semcer[parquet]"``).
"""

from __future__ import annotations

import os
import time
from typing import Any

from semcer.alignment.context import content_key
from semcer.atomic import atomic_path
from semcer.errors import StoreError
from semcer.judges.distribution import LEVELS, check_distribution, expected_rating, mode_of
from semcer.store.keys import edit_key
from semcer.store.sqlite import COLUMNS, INSERT, SCHEMA_VERSION, JudgedEditStore, flags_from_text, flags_to_text
from semcer.version import __version__

#: Rows per Parquet record batch on export and import (bounds memory on large stores).
PARQUET_BATCH = 50_000

PARQUET_HINT = 'Parquet support needs pyarrow: pip install "semcer[parquet]"'


def export_parquet(store: JudgedEditStore, path: str | os.PathLike, *, judge_identity: str | None = None) -> int:
    """Write the store (or one judge's edits) to a Parquet file, all or nothing; returns rows written."""
    pa, pq = _pyarrow()
    schema = _parquet_schema(pa)
    where, params = ("WHERE judge = ?", (judge_identity,)) if judge_identity is not None else ("", ())
    written = 0
    with store.reading() as conn, atomic_path(path) as tmp:
        cursor = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM judged_edits {where} ORDER BY judge, key", params)
        with pq.ParquetWriter(tmp, schema) as writer:
            while batch := cursor.fetchmany(PARQUET_BATCH):
                writer.write_table(_rows_to_table(pa, schema, batch))
                written += len(batch)
            if written == 0:
                writer.write_table(schema.empty_table())
    return written


def import_parquet(store: JudgedEditStore, path: str | os.PathLike) -> tuple[int, int]:
    """Add the judged edits of a Parquet file to ``store``; returns (inserted, already present).

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
    with store.transaction() as conn:
        for batch in parquet.iter_batches(batch_size=PARQUET_BATCH, columns=columns):
            data = batch.to_pydict()
            values = [_import_row(data, i, row_index + i, path, now) for i in range(batch.num_rows)]
            before = conn.total_changes
            conn.executemany(INSERT, values)
            added = conn.total_changes - before
            inserted += added
            present += len(values) - added
            row_index += batch.num_rows
    return inserted, present


_REQUIRED_STRINGS = ("key", "judge", "lang", "op", "ref_unit", "hyp_unit", "marked_ref", "marked_hyp")
_REQUIRED_INTS = ("ref_pos", "hyp_pos")


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


def _rows_to_table(pa: Any, schema: Any, rows: list[tuple]) -> Any:
    """A Parquet record batch from SQLite rows in ``COLUMNS`` order."""
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
        p = check_distribution(data["p"][i])
    except ValueError as exc:
        raise bad(str(exc)) from None
    key, judge = data["key"][i], data["judge"][i]
    if key != edit_key(judge, content_key(data["lang"][i], data["op"][i], data["marked_ref"][i], data["marked_hyp"][i])):
        raise bad("key does not match its judge, lang, op and marked pair")
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


