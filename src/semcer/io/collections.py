"""Read reference and output (hypothesis) collections and pair them by id.

Every reader turns one input into a :class:`Collection` of :class:`Item` values, each remembering
where it was read (``path:line``) so that later errors can point back at the input. Files are read
as bytes and decoded as strict UTF-8 (a leading BOM is removed); a user mistake is always an
:class:`~semcer.errors.InputError` with a one-line ``path:line: message``, never a traceback.

Formats (``format=`` or detected from the path):

- ``jsonl`` (``.jsonl``, ``.ndjson``): one JSON object per line with ``id`` (a string; an integer
  is accepted and becomes its decimal string) and ``text``; optional ``doc`` and ``lang``; other
  keys are ignored. Blank lines are allowed only at the end of the file.
- ``tsv`` / ``csv``: a header row naming at least ``id`` and ``text`` (optional ``doc``,
  ``lang``; other columns are ignored). CSV follows the usual quoting rules (a quoted field may
  hold commas, quotes and newlines). TSV has no quoting and no escapes: every character except tab
  and newline is literal, so quotes and backslashes in the text survive as they are.
  Blank lines are allowed only at the end of the file.
- ``text`` (anything else): line-aligned, one item per line, id = 1-based line number. Blank lines
  are items with empty text; only the line break itself (``\\n`` or ``\\r\\n``) is removed, all
  other whitespace is kept; a final line break does not start another item.
- ``directory``: every ``*.txt`` file below the directory (recursively; hidden files and
  directories, whose name starts with ``.``, are skipped), one page per file. The id is the
  relative path with ``/`` separators (``book1/p001.txt``), the text is the file content with one
  trailing line break removed. **The directory is the document**: the doc of a page is the path of
  the directory that holds it (``book1`` for ``book1/p001.txt``, ``en/book1`` for
  ``en/book1/p001.txt``); a page directly in the top directory has no doc, so it is its own
  document, like any item without a doc.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from semcer.errors import InputError
from semcer.io.jsonl import decode as _decode
from semcer.io.jsonl import json_type as _json_type
from semcer.io.jsonl import lines as _lines
from semcer.io.jsonl import read_bytes as _read_bytes
from semcer.io.jsonl import records

__all__ = ["FORMATS", "Collection", "Item", "read_collection"]

#: Formats :func:`read_collection` accepts; ``"memory"`` marks collections built in code.
FORMATS = ("jsonl", "tsv", "csv", "text", "directory")
_SUFFIX_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".tsv": "tsv", ".csv": "csv"}


class Item(NamedTuple):
    """One reference or output line (or page) as read, with where it was read from.

    (A named tuple rather than a frozen dataclass: a corpus has millions of these, and a named
    tuple is built about seven times faster.)
    """

    id: str
    text: str
    doc: str | None = None  # document id; None = not given
    lang: str | None = None
    source: str = ""  # "path:line" where it was read, for error messages


@dataclass(frozen=True)
class Collection:
    """All items read from one input, in input order, with unique ids."""

    items: tuple[Item, ...]
    path: str  # what was read
    format: str  # "jsonl" | "tsv" | "csv" | "text" | "directory" | "memory"

    def __len__(self) -> int:
        return len(self.items)


# --------------------------------------------------------------------------------------------
# Reading


def read_collection(path: str | os.PathLike, *, format: str | None = None) -> Collection:
    """Read one reference or output collection, detecting the format from the path if not given.

    A directory is read as ``directory``; ``.jsonl``/``.ndjson`` as ``jsonl``; ``.tsv`` and
    ``.csv`` as such; any other file as line-aligned ``text``. Raises InputError for anything
    malformed, with the file and line in the message.
    """
    p = Path(path)
    name = str(path)
    if not p.exists():
        raise InputError(f"{name}: no such file or directory")
    fmt = _detect_format(p) if format is None else format
    if fmt not in FORMATS:
        raise InputError(
            f"{name}: unknown input format {fmt!r}; expected one of {', '.join(FORMATS)}"
        )
    if fmt == "directory":
        if not p.is_dir():
            raise InputError(f"{name}: format 'directory' needs a directory, this is a file")
        items = _read_directory(p, name)
    else:
        if p.is_dir():
            raise InputError(f"{name}: is a directory; read it with format 'directory'")
        text = _decode(_read_bytes(p, name), name)
        items = _FILE_READERS[fmt](text, name)
    if not items:
        raise InputError(f"{name}: no items (the input is empty)")
    check_unique(items, name)
    return Collection(items=tuple(items), path=name, format=fmt)


def _detect_format(p: Path) -> str:
    if p.is_dir():
        return "directory"
    return _SUFFIX_FORMATS.get(p.suffix.lower(), "text")


def _content_end(lines: list[str], name: str, kind: str) -> int:
    """Number of lines before the trailing empty ones; an empty line before that is an error."""
    end = len(lines)
    while end and not lines[end - 1]:
        end -= 1
    if "" in lines[:end]:
        i = lines.index("")
        raise InputError(
            f"{name}:{i + 1}: blank line in a {kind} file (only allowed at the end); "
            "remove it or give the item an empty text"
        )
    return end


def _read_jsonl(text: str, name: str) -> list[Item]:
    items: list[Item] = []
    append = items.append
    for where, obj in records(text, name):
        if type(obj) is not dict:
            raise InputError(f"{where}: expected a JSON object with 'id' and 'text', got {_json_type(obj)}")
        id_, text_, doc, lang = obj.get("id"), obj.get("text"), obj.get("doc"), obj.get("lang")
        if (type(id_) is str and id_ and type(text_) is str
                and (doc is None or type(doc) is str) and (lang is None or type(lang) is str)):
            append(Item(id_, text_, doc or None, lang or None, where))  # the usual, valid record
        else:
            append(_make_item(id_, text_, doc, lang, where))
    return items


def _make_item(id_: object, text: object, doc: object, lang: object, where: str) -> Item:
    """Validate the fields of one record (from JSON or a table row) and build its Item."""
    if type(id_) is int:  # not bool, which is an int subclass
        id_ = str(id_)
    elif type(id_) is not str:
        got = "missing" if id_ is None else f"{_json_type(id_)}, not a string"
        raise InputError(f"{where}: 'id' is {got}; every item needs a string id")
    if not id_:
        raise InputError(f"{where}: 'id' is empty; every item needs a non-empty id")
    if type(text) is not str:
        got = "missing" if text is None else f"{_json_type(text)}, not a string"
        raise InputError(f"{where}: 'text' is {got} (id {id_!r}); use \"\" for an empty text")
    for key, value in (("doc", doc), ("lang", lang)):
        if value is not None and type(value) is not str:
            raise InputError(
                f"{where}: {key!r} must be a string or absent, not {_json_type(value)}"
            )
    return Item(id=id_, text=text, doc=doc or None, lang=lang or None, source=where)  # type: ignore[arg-type]


def _read_text(text: str, name: str) -> list[Item]:
    return [
        Item(id=str(n), text=line, source=f"{name}:{n}")
        for n, line in enumerate(_lines(text), start=1)
    ]


def _read_tsv(text: str, name: str) -> list[Item]:
    lines = _lines(text)
    end = _content_end(lines, name, "TSV")
    reader = csv.reader(lines[:end], delimiter="\t", quoting=csv.QUOTE_NONE, strict=True)
    return _read_table(_numbered(reader, name), name, "TSV")


def _read_csv(text: str, name: str) -> list[Item]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = list(_numbered(reader, name))
    while rows and not rows[-1][1]:  # trailing blank lines are allowed
        rows.pop()
    for line, row in rows:
        if not row:
            raise InputError(
                f"{name}:{line}: blank line in a CSV file (only allowed at the end); "
                "remove it or give the item an empty text"
            )
    return _read_table(iter(rows), name, "CSV")


def _numbered(reader: Any, name: str) -> Iterator[tuple[int, list[str]]]:
    """Yield (first line of the record, fields); a record may span lines in CSV."""
    line = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"{name}:{line}: malformed row: {exc}") from None
        yield line, row
        line = reader.line_num + 1


def _read_table(rows: Iterator[tuple[int, list[str]]], name: str, kind: str) -> list[Item]:
    first = next(rows, None)
    if first is None:
        return []
    header = [h.strip() for h in first[1]]
    col: dict[str, int] = {}
    for i, h in enumerate(header):
        if h in col and h in ("id", "text", "doc", "lang"):
            raise InputError(f"{name}:1: column {h!r} appears twice in the header")
        col.setdefault(h, i)
    missing = [c for c in ("id", "text") if c not in col]
    if missing:
        raise InputError(
            f"{name}:1: header has no {' or '.join(map(repr, missing))} column "
            f"(header columns: {', '.join(map(repr, header))}); a {kind} file needs a header row "
            "with at least 'id' and 'text'"
        )
    i_id, i_text = col["id"], col["text"]
    i_doc, i_lang = col.get("doc"), col.get("lang")
    width = len(header)
    items = []
    for line, row in rows:
        where = f"{name}:{line}"
        if len(row) != width:
            hint = " (a tab inside the text?)" if kind == "TSV" and len(row) > width else ""
            raise InputError(f"{where}: {len(row)} fields, the header has {width}{hint}")
        doc = row[i_doc] if i_doc is not None else None
        lang = row[i_lang] if i_lang is not None else None
        items.append(_make_item(row[i_id], row[i_text], doc, lang, where))
    return items


def _read_directory(root: Path, name: str) -> list[Item]:
    items = []
    for rel in _txt_files(root):
        path = root.joinpath(*rel.split("/"))
        fname = str(path)
        text = _decode(_read_bytes(path, fname), fname)
        if text.endswith("\n"):
            text = text[:-2] if text.endswith("\r\n") else text[:-1]
        parent = rel.rpartition("/")[0]
        items.append(Item(id=rel, text=text, doc=parent or None, source=f"{fname}:1"))
    if not items:
        raise InputError(f"{name}: no items (no .txt files in this directory)")
    return items


def _txt_files(root: Path) -> list[str]:
    """Relative paths (with '/') of the non-hidden *.txt files below root, sorted."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        for f in filenames:
            is_page = f.lower().endswith(".txt") and not f.startswith(".")
            if is_page and os.path.isfile(os.path.join(dirpath, f)):
                found.append(prefix + f)
    return sorted(found)


def check_unique(items: list[Item] | tuple[Item, ...], name: str) -> None:
    if len({item.id for item in items}) == len(items):
        return
    seen: dict[str, Item] = {}
    for item in items:
        first = seen.get(item.id)
        if first is not None:
            raise InputError(
                f"{item.source or name}: duplicate id {item.id!r} (first at {first.source or name})"
            )
        seen[item.id] = item


_FILE_READERS = {"jsonl": _read_jsonl, "tsv": _read_tsv, "csv": _read_csv, "text": _read_text}
