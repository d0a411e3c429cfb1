"""Read a collection from a Parquet file: the rows of its ``id``, ``text``, ``doc`` and ``lang`` columns.

The columns are those of JSONL's fields: ``id`` (a string column, or an integer one whose values
become their decimal strings) and ``text`` (a string column) are required, ``doc`` and ``lang``
(string columns) are optional, other columns are never read. Dictionary-encoded columns (a pandas
``category``) are read as their values. A column of another type is refused by its name and type
before any row is read; a null id or text, and a NUL character in a text, by its row (1-based):
the same rules, and the same messages, as a JSONL record's (:func:`semcer.io.collections.read_collection`
builds the items). Rows are read in batches (:data:`BATCH_ROWS`), so a file is never held twice as
Arrow and as Python strings. Needs pyarrow (``pip install "semcer[parquet]"``); without it, reading
a Parquet file is a one-line error, as is a file that is not valid Parquet (truncated, corrupt).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from semcer.errors import InputError, first_line, quoted

__all__ = ["BATCH_ROWS", "COLUMNS", "SUFFIXES", "rows"]

#: The columns read, required ones first.
COLUMNS = ("id", "text", "doc", "lang")
#: File suffixes named as Parquet (detection also knows the format by its ``PAR1`` signature).
SUFFIXES = (".parquet", ".pq")
#: Rows converted to Python values at a time.
BATCH_ROWS = 65_536


def rows(data: bytes, name: str) -> Iterator[tuple[Any, Any, Any, Any, str]]:
    """``(id, text, doc, lang, where)`` of every row of the Parquet file ``data`` (named ``name`` in
    messages), in file order; ``where`` is ``"NAME row N"``. The values are as stored (None for
    null; ints for an integer id), for the caller's record rules; the columns' types, a NUL in a
    text and the file itself are checked here."""
    pq, pa = _pyarrow(name)
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{name}: not a readable Parquet file ({first_line(exc)})") from None
    present = _checked_columns(pf.schema_arrow, name, pa)
    n = 0
    try:
        for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=present):
            values = [batch.column(c).to_pylist() for c in present]
            ids, texts = values[0], values[1]
            docs = values[2] if "doc" in present else [None] * len(ids)
            langs = values[present.index("lang")] if "lang" in present else [None] * len(ids)
            for id_, text, doc, lang in zip(ids, texts, docs, langs):
                n += 1
                if text is not None and "\x00" in text:
                    raise InputError(f"{name} row {n}: the text holds a NUL character (id {quoted(str(id_))}); "
                                     "a transcription holds no NUL: remove it")
                yield id_, text, doc, lang, f"{name} row {n}"
    except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{name} row {n + 1}: cannot be read ({first_line(exc)}); the file may be "
                         "truncated or corrupt") from None


def _pyarrow(name: str) -> tuple[Any, Any]:
    """``pyarrow.parquet`` and ``pyarrow``, or the one-line error naming the extra."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f'{name}: reading Parquet needs pyarrow: pip install "semcer[parquet]"') from None
    return pq, pa


def _checked_columns(schema: Any, name: str, pa: Any) -> list[str]:
    """The columns of :data:`COLUMNS` the file has, in that order; a missing ``id`` or ``text``, or
    a column of a type semcer does not read, is an error naming it."""
    names = list(schema.names)
    missing = [c for c in COLUMNS[:2] if c not in names]
    if missing:
        shown = ", ".join(map(quoted, names[:10])) + (", ..." if len(names) > 10 else "")
        raise InputError(f"{name}: no {' or '.join(map(repr, missing))} column (columns: {shown or 'none'}); a "
                         "Parquet file needs string columns 'id' and 'text' (optional 'doc', 'lang')")
    present = [c for c in COLUMNS if c in names]
    for column in present:
        if names.count(column) > 1:
            raise InputError(f"{name}: column {quoted(column)} appears twice")
        kind = schema.field(column).type
        if not (_is_text(kind, pa) or (column == "id" and pa.types.is_integer(kind))):
            want = "a string or integer column" if column == "id" else "a string column"
            raise InputError(f"{name}: column {quoted(column)} is {kind}, not {want}; convert it (e.g. with "
                             "pyarrow.compute.cast) or write the collection as JSONL")
    return present


def _is_text(kind: Any, pa: Any) -> bool:
    """Whether an Arrow type holds strings: string, large string, string view, dictionary-encoded
    strings, or nulls only (a column of no values: its rows are read as missing)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    view = getattr(pa.types, "is_string_view", None)
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)
                or (view is not None and view(kind)))
