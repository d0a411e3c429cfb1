"""Read reference and output (hypothesis) collections and pair them by id.

Every reader turns one input into a :class:`Collection` of :class:`Item` values, each remembering
where it was read (``path:line``) so that later errors can point back at the input. Files are read
as bytes and decoded as strict UTF-8 (a leading BOM is removed); a user mistake is always an
:class:`~semcer.errors.InputError` with a one-line ``path:line: message``, never a traceback.

Formats (``format=`` forces one; otherwise it is detected, see below):

- ``jsonl`` (``.jsonl``, ``.ndjson``): one JSON object per line with ``id`` (a string; an integer
  is accepted and becomes its decimal string) and ``text``; optional ``doc`` and ``lang``; other
  keys are ignored. Blank lines are allowed only at the end of the file.
- ``json`` (``.json``): one JSON array of such objects, same fields and rules as ``jsonl``; the
  line of an item is the line where its object starts. Parsed by the same reader as JSONL
  (:mod:`semcer.io.jsonl`: nesting too deep, huge integers, escaped NULs and lone surrogates are
  one-line errors).
- ``tsv`` / ``csv``: a header row naming at least ``id`` and ``text`` (optional ``doc``,
  ``lang``; other columns are ignored). CSV follows the usual quoting rules (a quoted field may
  hold commas, quotes and newlines). TSV has no quoting and no escapes: every character except tab
  and newline is literal, so quotes and backslashes in the text survive as they are. Fields are
  read as written, except that a header writing spaces after its delimiters (``id, text``) has
  them skipped in every row too (a quoted field keeps its spaces); a column name with white space
  before its delimiter (``text ,doc``) is refused, since its values would keep theirs.
  Blank lines are allowed only at the end of the file.
- ``parquet`` (``.parquet``, ``.pq``, or the ``PAR1`` signature): the rows of a Parquet file's
  ``id`` (string or integer) and ``text`` columns, optional ``doc`` and ``lang``; other columns are
  never read; the record rules of ``jsonl``, each row named ``path row N`` (:mod:`semcer.io.parquet`;
  needs pyarrow, ``semcer[parquet]``).
- ``text``: line-aligned, one item per line, id = 1-based line number. Blank lines are items with
  empty text; only the line break itself (``\\n`` or ``\\r\\n``) is removed, all other whitespace
  is kept; a final line break does not start another item. One text file against one page file
  (PAGE-XML, ALTO or hOCR, read one item per page) is that page's text instead, as a directory's
  ``.txt`` page is (:func:`text_page`; :func:`semcer.io.pairing.pair_collections` decides, as only
  the two sides together tell).
- ``directory`` of Parquet shards (``part-00000.parquet``, ... below it, as Spark, pandas and the
  Hugging Face ``datasets`` write them): one ``parquet`` collection, the shards' rows in the order
  of their relative paths, ids unique across shards; files and folders whose names start with
  ``.`` or ``_`` (``_SUCCESS``, ``_metadata``) skipped; a partition key kept in a folder name
  (``lang=en/``) is not read, only the files' columns are. A directory holding shards and pages
  is refused.
- ``directory`` (of pages): every ``*.txt`` file and every page file (PAGE-XML, ALTO, hOCR: ``.xml``,
  ``.html``, ``.htm``, ``.xhtml``, ``.hocr``) below the directory, each also gzip-compressed
  (``p001.txt.gz``, ``p1.xml.gz``: decompressed as a single ``.gz`` file is, with its limits);
  recursively, a symbolic link to a folder followed like a folder (a link back to a folder above
  it, or a second way to one folder, is refused: it would loop or read pages twice; a folder that
  cannot be listed is an error naming it), a link to a file read as a file of the link's name
  (:mod:`semcer.io.folders`); hidden files and directories, whose name starts with
  ``.``, are skipped; one page per file. The id of every page is its pairing key
  (:func:`semcer.io.formats.page_key`): the relative path with ``/`` separators, without ``.gz``,
  its extension and a ``.gt``/``.ocr``-like marker (``book1/p001`` for ``book1/p001.txt`` and
  ``book1/p001.gt.txt``, ``p1`` for ``p1.hocr.gz``), so that plain-text ground truth pairs with
  page files by name; two files with one key are an error naming both (and, in different formats,
  saying how to keep one). A file's format is detected as a single file's is (rule 2 below): a
  ``.txt`` page's text is its lines as the ``text`` format splits them (every ``\\r\\n`` a line
  break, a final one none) joined with ``\\n`` (a ``.txt`` file whose content is PAGE-XML, ALTO or
  hOCR is read as that page), and another file that is none of the page formats is an error. A
  file named like a page that cannot be read as one (``p1.xml.bz2``, a broken link) is an error,
  never skipped in silence. **The directory is the document**: the doc of a page is the path of
  the directory that holds it (``book1`` for ``book1/p001.txt``, ``en/book1`` for
  ``en/book1/p001.txt``); a page directly in the top directory has no doc, so it is its own
  document, like any item without a doc.

An input with no items (an empty file, ``[]``, a table's header and no rows, a directory without
pages, a page file without lines read one item per line) reads as a collection without items
(:attr:`Collection.empty` says why), not as an error: :func:`semcer.io.pairing.pair_collections`
refuses an empty reference collection, and an empty output collection unless ``unmatched="empty"``
(a system that returned nothing is scored against every reference, as all deletions).

Where the data comes from: a path; ``"-"``, standard input (read to the end; it cannot be a
directory); a gzip-compressed file (``.gz``, or any file whose bytes start with the gzip
signature, standard input included) is decompressed first, at most :data:`GZIP_LIMIT` bytes (2
GiB: a guard against decompression bombs), and the format is detected inside it (``refs.jsonl.gz``
uses the suffix ``.jsonl``). Data compressed twice, and a ``.gz`` file that is not gzip, are
refused. (The rule of every reader, a single page file's too: :mod:`semcer.io.compressed`, which holds the limit.)

Detection (:func:`detect_format`), in this order; a directory is always ``directory``:

1. Binary files are refused, naming what they look like, by their signature: PDF, PNG, JPEG, GIF,
   TIFF, WebP, JPEG 2000, ZIP (and .docx/.xlsx/.odt/.epub), legacy Office, SQLite,
   Arrow, NumPy, ELF, bzip2, xz, zstd, 7-Zip, UTF-16/UTF-32 (byte-order mark; UTF-16 markup is
   named as markup, rule 2). Beyond signatures,
   any NUL byte or invalid UTF-8 is refused with its line and byte offset.
2. Markup: text whose first non-blank character is ``<`` followed by ``?xml``, ``!DOCTYPE`` or
   an element name, named by its root element and the namespace that element declares
   (:func:`semcer.io.formats.detect.detect_markup`, the one rule of single files, of a directory's
   files and of page parsing; text further on is never looked at): ``page-xml`` (root ``PcGts`` or
   in a PAGE namespace), ``alto`` (root ``alto`` or in an ALTO namespace), ``hocr`` (root ``html``
   with a tag of an hOCR class, ``ocr_page``/``ocr_line``/``ocrx_word``/..., or an ``ocr-system``
   meta tag), all three read as pages whatever the file is named; other markup is ``html`` or
   ``xml`` (any other root), refused as not supported yet (``format="text"`` reads it as plain
   text anyway), except in a file named ``.txt``, which is text (rule 3: a VLM's
   ``<think>...</think>``, a line starting with ``<unk>``). A reader
   registered for ``html`` or ``xml`` (:func:`register_reader`) reads it instead.
3. A known suffix decides between the readable formats: ``.jsonl``/``.ndjson`` → ``jsonl``,
   ``.json`` → ``json`` (but ``jsonl`` when its first line is a whole JSON object: JSON Lines
   named ``.json``), ``.tsv``, ``.csv``, ``.txt`` → ``text``.
4. Otherwise (any other suffix, no suffix, standard input) the content decides:
   ``[`` first → ``json`` when the array is empty, its first element is an object, its first
   element cannot be read (nested too deeply, a huge number) or is a broken object (``[{"``),
   otherwise ``text`` (``[1] Introduction``, ``[{Illegible}]``); ``{`` first → ``jsonl`` when the first line is a
   JSON object (or cannot be read) or begins like one (``{"``), ``json`` when it is ``{`` alone
   (a pretty-printed object: refused as a single object), otherwise ``text`` (``{braces}``); a
   first line that splits on tabs into fields including ``id`` and ``text`` → ``tsv``, on commas
   (CSV rules) → ``csv``; anything else → ``text``.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from semcer.errors import InputError, quoted
from semcer.io.compressed import GZIP_LIMIT, GZIP_MAGIC, decompressed, without_gz
from semcer.io.folders import file_problem, walk_folders
from semcer.io.formats.detect import PAGE_FORMATS, detect_markup
from semcer.io.formats.tree import MAX_BYTES
from semcer.io.jsonl import (
    MalformedJSON,
    array_records,
    binary_format,
    parse,
    records,
    records_key,
    refuse_binary,
    scan_value,
    single_object,
)
from semcer.io.jsonl import decode as _decode
from semcer.io.jsonl import json_type as _json_type
from semcer.io.jsonl import lines as _lines
from semcer.io.jsonl import read_bytes as _read_bytes
from semcer.io.parquet import SUFFIXES as PARQUET_SUFFIXES
from semcer.io.parquet import rows as parquet_rows

__all__ = ["FORMATS", "GZIP_LIMIT", "LANGUAGE_TAG", "PAGE_FORMATS", "READERS", "RECOGNISED", "Collection", "Item",
           "NoItems", "PageOptions", "check_languages", "detect_file_format", "detect_format", "first_bad_language",
           "input_formats", "language_error",
           "parquet_shards", "read_collection", "register_reader", "text_page"]

#: The formats semcer reads itself (``"memory"`` marks collections built in code).
FORMATS = ("jsonl", "json", "tsv", "csv", "text", "parquet", "directory")
#: Formats :func:`detect_format` recognises that have no reader yet, by how a message names them.
RECOGNISED: dict[str, str] = {"html": "HTML that is not hOCR", "xml": "XML that is not PAGE-XML, ALTO or hOCR"}
#: Suffixes of other compressors: a page named like ``p1.xml.bz2`` in a directory is refused, not skipped.
_OTHER_COMPRESSION = (".bz2", ".xz", ".zst", ".lz4", ".lzma", ".zip", ".7z")


@dataclass(frozen=True)
class PageOptions:
    """How page files are read: ``level`` ("region" or "line": whose text; ALTO's "block" and hOCR's
    "par" are its "region"), ``granularity`` ("page": one item per page, its segments joined with
    newlines; "segment": one item per region or line, id ``<page>#<element id>``), ``dialect``
    ("semcer", or "dinglehopper": its extraction rules), ``hyphen`` (ALTO's HYP: "keep", "join",
    "drop"), ``keep_going`` (a directory with a malformed file: read the rest, list the failures)."""

    level: str = "region"
    granularity: str = "page"
    dialect: str = "semcer"
    hyphen: str | None = None
    keep_going: bool = False
STDIN = "-"
STDIN_NAME = "<stdin>"
_SUFFIX_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".tsv": "tsv", ".csv": "csv",
                   ".txt": "text"}
_HEAD = 1 << 20  # detection looks at the first MiB
_LANG = itemgetter(3)  # an Item's lang

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
    """All items read from one input, in input order, with unique ids.

    For page formats (PAGE-XML, ALTO, hOCR) ``pages`` maps each page's key to its typed page (its
    segments, element ids and boxes: the provenance of every offset of its text), ``single_page``
    says the input was one page file, ``failures`` lists the files of a directory that could not
    be read when reading went on past them (``keep_going``), and ``granularity`` is how the pages
    became items (:class:`PageOptions`).

    An input with no items (an empty file, a CSV header and no rows, a folder without pages) reads as
    a collection without items, ``empty`` saying so (``"path: no items (the input is empty)"``):
    whether that is an error is the pairing's question (:func:`semcer.io.pairing.pair_collections`:
    an empty reference always, an empty output unless ``unmatched="empty"``, which scores every
    reference against an empty output).
    """

    items: tuple[Item, ...]
    path: str  # what was read
    format: str  # "jsonl" | "tsv" | "csv" | "text" | "directory" | "memory" | "page-xml" | "alto" | "hocr"
    pages: dict[str, Any] = field(default_factory=dict)
    single_page: bool = False
    failures: tuple[tuple[str, str], ...] = ()
    granularity: str = "page"
    empty: str = ""  # why there are no items (the message of an empty input), "" when there are

    def __len__(self) -> int:
        return len(self.items)


# --------------------------------------------------------------------------------------------
# Reading

#: A format reader: the (decompressed) bytes of one input and its name (for messages) -> its items,
#: each with ``source`` set to ``name:line``. Text readers decode with :func:`semcer.io.jsonl.decode`.
Reader = Callable[[bytes, str], "list[Item]"]


def register_reader(name: str, reader: Reader) -> None:
    """Make ``read_collection`` read format ``name`` (e.g. ``"page-xml"``, as :func:`detect_format`
    names it) with ``reader``; the name becomes valid for ``format=`` and ``--format``. The built-in
    formats cannot be replaced."""
    if name in FORMATS:
        raise ValueError(f"{name!r} is a built-in format")
    READERS[name] = reader


def input_formats() -> tuple[str, ...]:
    """Every format ``read_collection`` can read now: the built-in ones, then registered ones."""
    return FORMATS + PAGE_FORMATS + tuple(n for n in READERS if n not in FORMATS + PAGE_FORMATS)


def read_collection(path: str | os.PathLike, *, format: str | None = None,
                    pages: PageOptions | None = None) -> Collection:
    """Read one reference or output collection, detecting the format if not given.

    ``path`` is a file, a directory (format ``directory``) or ``"-"`` for standard input; a gzip
    file is decompressed first. See the module documentation for the formats and how they are
    detected. Raises InputError for anything malformed, with the file and line in the message.
    """
    name = str(path)
    if format is not None and format not in input_formats():
        raise InputError(_unreadable_format(format, name, forced=True))
    if name == STDIN:
        name = STDIN_NAME
        if format == "directory":
            raise InputError(f"{name}: format 'directory' needs a directory, not standard input")
        data = _read_stdin()
        suffix = ""
    else:
        p = Path(path)
        if not p.exists():
            raise InputError(f"{name}: no such file or directory")
        if p.is_dir():
            if format not in (None, "directory"):
                raise InputError(f"{name}: is a directory; read it with format 'directory'")
            return _read_directory(p, name, pages or PageOptions())
        if format == "directory":
            raise InputError(f"{name}: format 'directory' needs a directory, this is a file")
        data = _read_bytes(p, name)
        suffix = p.suffix.lower()
    data, suffix = decompressed(data, name, suffix)
    fmt = detect_format(data, suffix) if format is None else format
    if fmt in PAGE_FORMATS and format is not None:
        _check_forced_page(data, suffix, fmt, name)
    if fmt in PAGE_FORMATS:
        options = pages or PageOptions()
        key, page, items = _page(data, name, fmt, Path(name).name, None, options)
        coll = _collection(items, name, fmt)  # no items: a page without lines, read --by-line
        return Collection(coll.items, name, fmt, {key: page}, single_page=True, granularity=options.granularity,
                          empty=coll.empty)
    reader = READERS.get(fmt)
    if reader is None:
        if fmt not in RECOGNISED:
            refuse_binary(data, name)
        raise InputError(_unreadable_format(fmt, name, forced=False))
    try:
        return _collection(reader(data, name), name, fmt)
    except NoItems as exc:  # a table's header and no rows
        return Collection((), name, fmt, empty=str(exc))


def _check_forced_page(data: bytes, suffix: str, fmt: str, name: str) -> None:
    """A page file forced to be read as another page format is refused: the reader would find none
    of its elements and an empty page would follow (PAGE-XML read as hOCR has no ``ocr_line``)."""
    found = detect_format(data, suffix)
    if found in PAGE_FORMATS and found != fmt:
        raise InputError(f"{name}: is {found}, not {fmt} (the format asked for); drop the format option to read it as "
                         f"{found}, or give --format {found}")


def detect_file_format(path: str | os.PathLike) -> str | None:
    """The format :func:`read_collection` would detect for the file ``path``, from its first bytes
    (all that detection looks at), without reading it whole; None where only reading can tell: a
    directory (its files), gzip data (detected once decompressed), a path that cannot be read (the
    read says why)."""
    p = Path(path)
    try:
        if not p.is_file():
            return None
        with open(p, "rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return None
    if head.startswith(GZIP_MAGIC) or p.suffix.lower() == ".gz":
        return None
    return detect_format(head, p.suffix.lower())


class NoItems(InputError):
    """An input with no items, said by its reader; :func:`read_collection` makes it an empty
    :class:`Collection` (its ``empty``), for the pairing to decide."""


def _collection(items: list[Item], name: str, fmt: str) -> Collection:
    if not items:
        return Collection((), name, fmt, empty=f"{name}: no items (the input is empty)")
    check_unique(items, name)
    check_languages(items, name)
    return Collection(items=tuple(items), path=name, format=fmt)


#: A language tag's shape: BCP 47 (RFC 5646: a 2-3 letter language, then subtags of 1-8 letters or
#: digits joined by ``-``; or a private-use ``x-…`` or grandfathered ``i-…`` tag), or a POSIX locale
#: name's (``zh_CN``, joined by ``_``). Whether the language exists is the judges' business, not the syntax's.
LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*|[XxIi](?:-[A-Za-z0-9]{1,8})+")


def language_error(value: object, where: str) -> InputError:
    """The error for a ``lang`` that is not a language tag (:data:`LANGUAGE_TAG`)."""
    return InputError(f"{where}: 'lang' {value!r} is not a language tag (BCP 47 such as de, vi, zh-CN, or a locale "
                      "name such as zh_CN)")


def first_bad_language(langs: Sequence[str | None]) -> int | None:
    """The position of the first of ``langs`` that is neither None nor a language tag, or None (each
    distinct value matched once)."""
    bad = {lang for lang in set(langs) if lang is not None and not LANGUAGE_TAG.fullmatch(lang)}
    return next(k for k, lang in enumerate(langs) if lang in bad) if bad else None


def check_languages(items: list[Item] | tuple[Item, ...], name: str) -> None:
    """Every item's ``lang`` is None or a language tag; else the error names the first item with a bad one."""
    k = first_bad_language(list(map(_LANG, items)))
    if k is not None:
        raise language_error(items[k].lang, items[k].source or name)


def _unreadable_format(fmt: str, name: str, *, forced: bool) -> str:
    if fmt in RECOGNISED:
        what = RECOGNISED[fmt]
        how = ("format 'text' reads the markup as plain text; page files are 'page-xml', 'alto' or 'hocr'" if forced
               else "pass --format text (--ref-format text or --hyp-format text for one side) to read the markup "
               "as plain text")
        return f"{name}: {what} ({fmt}) is recognised but not supported yet; {how}, or convert it to JSONL, JSON, " \
               "TSV, CSV or plain text"
    return f"{name}: unknown input format {fmt!r}; expected one of {', '.join(input_formats())}"


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None or getattr(stream, "buffer", None) is None:
        raise InputError(f"{STDIN_NAME}: there is no standard input to read")
    if hasattr(stream, "isatty") and stream.isatty():
        raise InputError(f"{STDIN_NAME}: standard input is a terminal; pipe or redirect the data into it "
                         "(semcer cer - hyps.jsonl < refs.jsonl)")
    try:
        return stream.buffer.read()
    except OSError as exc:
        raise InputError(f"{STDIN_NAME}: cannot read: {exc.strerror or exc}") from None


def detect_format(data: bytes, suffix: str = "") -> str:
    """The format of the bytes of one file (decompressed), given its suffix (``".jsonl"``, or ``""``
    when there is none or it is standard input): one of :data:`FORMATS` (not ``directory``), a name
    of :data:`RECOGNISED` (markup), or a binary format's name (``"pdf"``, ``"png"``, ``"sqlite"``,
    ...). The rules are in the module documentation; this never raises."""
    binary = binary_format(data)
    if data.startswith(b"PAR1") and (binary is not None or suffix.lower() in PARQUET_SUFFIXES):
        return "parquet"  # read by its reader: a truncated file named .parquet is refused there, as such
    if binary is not None:
        if binary[0] == "utf-16":  # UTF-16 markup (XML may be UTF-16) is named as markup
            markup = _named_markup(data[:_HEAD].decode("utf-16", "replace").lstrip(), suffix)
            if markup is not None:
                return markup
        return binary[0]
    skip = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    head = data[skip : skip + _HEAD].decode("utf-8", "replace")
    start = head.lstrip()
    markup = _named_markup(start, suffix)
    if markup is not None:
        return markup
    by_suffix = _SUFFIX_FORMATS.get(suffix.lower())
    if by_suffix == "json":
        return "jsonl" if _json_kind(_first_line(start)) == "object" else "json"
    if by_suffix is not None:
        return by_suffix
    if start.startswith("["):
        return "json" if _array_start(start) else "text"
    if start.startswith("{"):
        first = _first_line(start)
        kind = _json_kind(first)
        if kind in ("object", "unreadable"):
            return "jsonl"
        if first.strip() == "{":
            return "json"
        return "jsonl" if re.match(r'\{\s*"', first) else "text"
    header = _lines(head[: head.find("\n") + 1 or len(head)])[:1]
    if header:
        line = header[0]
        fields = line.split("\t") if "\t" in line else next(csv.reader([line]), [])
        if {"id", "text"} <= {f.strip() for f in fields}:
            return "tsv" if "\t" in line else "csv"
    return "text"


def _first_line(text: str) -> str:
    nl = text.find("\n")
    return text if nl < 0 else text[:nl]


def _json_kind(text: str) -> str:
    """``"object"``, ``"other"`` (valid JSON, not an object), ``"malformed"`` or ``"unreadable"``."""
    try:
        value = parse(text, "")
    except MalformedJSON:
        return "malformed"
    except InputError:  # nested too deeply, a huge integer: JSON, but hostile
        return "unreadable"
    return "object" if type(value) is dict else "other"


def _array_start(text: str) -> bool:
    """Whether text starting with ``[`` is meant as a JSON array of objects (see the module rules)."""
    rest = text[1:].lstrip(" \t\r\n")
    if not rest or rest[0] == "]":
        return bool(rest)
    try:
        value, _ = scan_value(rest, 0, "")
    except MalformedJSON:
        return bool(re.match(r'\{\s*["}]', rest))  # a broken object: its error is reported
    except InputError:  # nested too deeply, a huge integer: JSON, but hostile
        return True
    return type(value) is dict


def _named_markup(text: str, suffix: str) -> str | None:
    """The markup format of ``text`` as detection names it (:func:`semcer.io.formats.detect.detect_markup`,
    the one rule of single files and of a directory's files): a page format whatever the suffix,
    other markup (HTML, XML) only when the file is not named ``.txt`` (a ``.txt`` file is text:
    ``<think>...</think>`` from a VLM, a line starting with ``<unk>`` or ``<script>``)."""
    markup = detect_markup(text)
    if markup in RECOGNISED and suffix.lower() == ".txt":
        return None
    return markup


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
    return _items(records(text, name), name)


def _read_json(text: str, name: str) -> list[Item]:
    return _items(array_records(text, name), name)


def _items(values: Iterator[tuple[str, object]], name: str) -> list[Item]:
    items: list[Item] = []
    append = items.append
    for where, obj in values:
        if type(obj) is not dict:
            raise InputError(f"{where}: expected a JSON object with 'id' and 'text', got {_json_type(obj)}")
        id_, text_, doc, lang = obj.get("id"), obj.get("text"), obj.get("doc"), obj.get("lang")
        if (type(id_) is str and id_ and type(text_) is str
                and (doc is None or type(doc) is str) and (lang is None or type(lang) is str)):
            append(Item(id_, text_, doc or None, lang or None, where))  # the usual, valid record
        elif "id" not in obj and "text" not in obj and records_key(obj) is not None:
            raise InputError(single_object(where, obj, name))  # {"items": [...]} on one line
        else:
            append(_make_item(id_, text_, doc, lang, where, obj))
    return items


def _make_item(id_: object, text: object, doc: object, lang: object, where: str,
               record: dict | None = None) -> Item:
    """Validate the fields of one record (from JSON, with its ``record``, or a table row) and build its Item."""
    if type(id_) is int:  # not bool, which is an int subclass
        id_ = str(id_)
    elif type(id_) is not str:
        raise InputError(f"{where}: 'id' is {_got(id_, 'id', record)}; every item needs a string id")
    if not id_:
        raise InputError(f"{where}: 'id' is empty; every item needs a non-empty id")
    if type(text) is not str:
        raise InputError(f"{where}: 'text' is {_got(text, 'text', record)} (id {quoted(id_)}); use \"\" for an empty text")
    for key, value in (("doc", doc), ("lang", lang)):
        if value is not None and type(value) is not str:
            raise InputError(
                f"{where}: {key!r} must be a string or absent, not {_json_type(value)}"
            )
    return Item(id=id_, text=text, doc=doc or None, lang=lang or None, source=where)  # type: ignore[arg-type]


def _got(value: object, key: str, record: dict | None) -> str:
    """How a message names a field that is not a string: missing, null (a JSON record that has the key) or its type."""
    if value is None:
        return "null" if record is not None and key in record else "missing"
    return f"{_json_type(value)}, not a string"


def _read_parquet(data: bytes, name: str) -> list[Item]:
    return [_make_item(id_, text, doc, lang, where) for id_, text, doc, lang, where in parquet_rows(data, name)]


def _read_text(text: str, name: str) -> list[Item]:
    return [
        Item(id=str(n), text=line, source=f"{name}:{n}")
        for n, line in enumerate(_lines(text), start=1)
    ]


def _read_tsv(text: str, name: str) -> list[Item]:
    lines = _lines(text)
    end = _content_end(lines, name, "TSV")
    spaced = bool(lines) and any(f.startswith(" ") for f in lines[0].split("\t"))
    reader = csv.reader(lines[:end], delimiter="\t", quoting=csv.QUOTE_NONE, strict=True, skipinitialspace=spaced)
    return _read_table(_numbered(reader, name), name, "TSV")


def _read_csv(text: str, name: str) -> list[Item]:
    try:
        header = next(csv.reader(io.StringIO(text, newline=""), strict=True), [])
    except csv.Error:
        header = []  # the read below names the row
    spaced = any(f.startswith(" ") for f in header)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True, skipinitialspace=spaced)
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


_SHOWN_COLUMNS = 10  # header columns a missing-column error lists


def _read_table(rows: Iterator[tuple[int, list[str]]], name: str, kind: str) -> list[Item]:
    """The items of a table's rows, the first its header. Fields are read as written, except that a
    header writing spaces after its delimiters (``id, text``) has them skipped in every row too (a
    quoted field keeps its spaces), so that no value gains a leading space its header lost."""
    first = next(rows, None)
    if first is None:
        return []
    col = _columns(first[1], name, kind)
    i_id, i_text = col["id"], col["text"]
    i_doc, i_lang = col.get("doc"), col.get("lang")
    width = len(first[1])
    items = []
    for line, row in rows:
        where = f"{name}:{line}"
        if len(row) != width:
            hint = " (a tab inside the text?)" if kind == "TSV" and len(row) > width else ""
            raise InputError(f"{where}: {len(row)} fields, the header has {width}{hint}")
        doc = row[i_doc] if i_doc is not None else None
        lang = row[i_lang] if i_lang is not None else None
        items.append(_make_item(row[i_id], row[i_text], doc, lang, where))
    if not items:
        raise NoItems(f"{name}: no items (a {kind} header and no rows); add one row per item below the header")
    return items


def _columns(header: list[str], name: str, kind: str) -> dict[str, int]:
    """Column name -> position, from a table's header row; the known columns once each, ``id`` and ``text`` present."""
    col: dict[str, int] = {}
    for i, h in enumerate(header):
        if h in col and h in _COLUMNS:
            raise InputError(f"{name}:1: column {quoted(h)} appears twice in the header")
        if h != h.strip() and h.strip() in _COLUMNS:
            raise InputError(f"{name}:1: header column {quoted(h)} has white space around its name; the values are read "
                             "as written, so theirs would count as text: remove it (spaces after a delimiter alone "
                             "are skipped, in the header and in every row)")
        col.setdefault(h, i)
    missing = [c for c in ("id", "text") if c not in col]
    if missing:
        more = ", ..." if len(header) > _SHOWN_COLUMNS else ""
        raise InputError(
            f"{name}:1: header has no {' or '.join(map(repr, missing))} column "
            f"(header columns: {', '.join(map(quoted, header[:_SHOWN_COLUMNS]))}{more}); a {kind} file needs a "
            f"header row with at least 'id' and 'text'{_delimiter_hint(header, kind)}"
        )
    return col


_COLUMNS = ("id", "text", "doc", "lang")
#: Delimiters a table file may use that its format does not, and how a message names them.
_DELIMITERS = {";": "semicolons", "\t": "tabs", ",": "commas", "|": "vertical bars"}


def _delimiter_hint(header: list[str], kind: str) -> str:
    """Where the header names ``id`` and ``text`` once split on another delimiter (``id;text``), what to do."""
    line = ("\t" if kind == "TSV" else ",").join(header)
    found = next((d for d in _DELIMITERS if d in line and {"id", "text"} <= {f.strip() for f in line.split(d)}), None)
    if found is None:
        return ""
    if found == "\t":
        return "; its fields are separated by tabs: name it .tsv (or pass --format tsv), a .csv file is read with commas"
    if found == ",":
        return "; its fields are separated by commas: name it .csv (or pass --format csv), a .tsv file is read with tabs"
    return (f"; its fields are separated by {_DELIMITERS[found]}: semcer reads .csv files with commas and .tsv files "
            "with tabs, so save it with one of them (a spreadsheet's CSV export writes commas)")


def _page(data: bytes, name: str, fmt: str | None, rel: str, doc: str | None, options: PageOptions
          ) -> tuple[str, Any, list[Item]]:
    """One page file: its pairing key, its page and its items."""
    from semcer.io.formats import page_items, page_key, parse_page

    page = parse_page(data, name, format=fmt, level=options.level, dialect=options.dialect, hyphen=options.hyphen)
    key = page_key(rel)
    return key, page, page_items(page, id=key, doc=doc, granularity=options.granularity)


def _read_directory(root: Path, name: str, options: PageOptions) -> Collection:
    """Every ``.txt`` page and every page file (PAGE-XML, ALTO, hOCR) below ``root``, each also
    gzip-compressed (``p1.xml.gz``: read as a single ``.gz`` file is, with the same limits).

    Every page's id is its pairing key (:func:`semcer.io.formats.page_key`: ``name.gt.xml``,
    ``name.hocr``, ``name.txt`` and ``name.gt.txt.gz`` are all ``name``); two files with one key
    are an error naming both. A ``.txt`` file is a plain-text page unless its content is a page
    format (:func:`detect_format`). The folder holding a page is its document. A file named like a
    page that cannot be read as one (another compressor's ``.bz2``, a broken link) is an error, as
    is a malformed page; with ``options.keep_going`` each is listed in ``failures`` and the rest is read.
    """
    from semcer.io.formats.files import page_key

    files = _page_files(root)
    shards = parquet_shards(root)
    if shards:
        return _read_shards(root, name, shards, files)
    keys = _check_keys([(rel, page_key(rel)) for rel, problem in files if problem is None], root, name)
    items: list[Item] = []
    pages: dict[str, Any] = {}
    failures: list[tuple[str, str]] = []
    for rel, problem in files:
        fname = str(root.joinpath(*rel.split("/")))
        try:
            if problem is not None:
                raise InputError(f"{fname}: {problem}")
            page, found = _directory_page(fname, rel, keys[rel], options)
        except InputError as exc:
            if not options.keep_going:
                raise
            failures.append((fname, str(exc)))
            continue
        if page is not None:
            pages[keys[rel]] = page
        items.extend(found)
    if failures and not items:
        raise InputError(f"{name}: no items (no page could be read)")
    if not items:
        empty = f"{name}: no items (no .txt, PAGE-XML, ALTO or hOCR files in this directory)"
        return Collection((), name, "directory", pages, granularity=options.granularity, empty=empty)
    check_unique(items, name)
    return Collection(tuple(items), name, "directory", pages, failures=tuple(failures), granularity=options.granularity)


def parquet_shards(root: Path) -> list[str]:
    """The Parquet files below root (recursively, links to folders followed: :func:`walk_folders`; hidden
    ones, and Spark's ``_SUCCESS``/``_metadata`` files, whose names start with ``_``, skipped), as
    sorted relative paths with '/'."""
    return sorted(prefix + f for _, prefix, files in walk_folders(root, (".", "_"))
                  for f in files if f.lower().endswith(PARQUET_SUFFIXES))


def _read_shards(root: Path, name: str, shards: list[str], pages: list[tuple[str, str | None]]) -> Collection:
    """A directory of Parquet shards, one collection: every shard's rows, shards in name order
    (``part-00000.parquet``, ``part-00001.parquet``, ...), ids unique across them. A directory that
    also holds pages is refused: it is one collection or a folder of pages, not both."""
    if pages:
        raise InputError(f"{name}: holds Parquet shards ({shards[0]}) and pages ({pages[0][0]}); a directory is "
                         "either the shards of one collection or a folder of pages: move one of them out")
    items: list[Item] = []
    for rel in shards:
        path = str(root.joinpath(*rel.split("/")))
        data, _ = decompressed(_read_bytes(path, path), path, Path(rel).suffix.lower())
        items += _read_parquet(data, path)
    return _collection(items, name, "parquet")


def _check_keys(keyed: list[tuple[str, str]], root: Path, name: str) -> dict[str, str]:
    """Relative path -> key of the pages of a directory; two pages with one key are an error naming both."""
    first: dict[str, str] = {}
    for rel, key in keyed:
        if key in first:
            raise _same_key(root, name, key, [r for r, k in keyed if k == key])
        first[key] = rel
    return dict(keyed)


#: How a same-key message names the format of a page file, by its extension.
_KINDS = {".txt": "plain text", ".hocr": "hOCR", ".html": "hOCR or HTML", ".htm": "hOCR or HTML",
          ".xhtml": "hOCR or HTML", ".xml": "PAGE-XML or ALTO"}


def _kind(rel: str) -> str:
    return _KINDS.get(Path(without_gz(rel)).suffix.lower(), "page")


def _same_key(root: Path, name: str, key: str, rels: list[str]) -> InputError:
    """Two (or more) files of a directory with one key: named as such, or, when their formats differ
    (an OCR engine's outputs side by side, as Tesseract writes ``p1.txt``, ``p1.hocr``, ``p1.xml``),
    as one page in several formats with how to keep one of them."""
    from semcer.io.formats.files import same_page_name

    paths = [str(root.joinpath(*r.split("/"))) for r in rels]
    kinds = list(dict.fromkeys(map(_kind, rels)))
    if len(kinds) == 1:
        return same_page_name(paths[1], key, paths[0], f"in {name}")
    listed = ", ".join(f"{p} ({_kind(r)})" for p, r in zip(paths, rels))
    head = (f"{name}: page {key!r} is in {len(rels)} files of different formats: {listed}. A directory holds one file "
            "per page, and --ref-format/--hyp-format apply to a file, not to a directory's pages: keep one format in "
            f"{name} and move the others out of it")
    if "/" in rels[0]:  # in a subfolder: a folder beside it would still be read
        return InputError(f"{head} (into a folder of their own, outside {name}, with the same subfolders)")
    folder = str(Path(paths[0]).parent)
    ext = next(Path(without_gz(r)).suffix.lower() for r in rels if _kind(r) != "plain text")
    moved = f"{os.path.abspath(folder) if Path(folder).name in ('', '..') else folder}-{ext[1:]}"
    return InputError(f"{head} (to score the {_KINDS[ext]} files: mkdir {moved} && mv {folder}/*{ext} {moved}/, then "
                      f"give {moved})")


def _directory_page(fname: str, rel: str, key: str, options: PageOptions) -> tuple[Any, list[Item]]:
    """One file of a directory: its page (None for a plain-text page) and its items. Its format is
    detected as a single file's is (:func:`detect_format`): a page format whatever its name, else a
    ``.txt`` file is a plain-text page and any other file is refused."""
    inner = without_gz(rel)
    suffix = Path(inner).suffix.lower()
    limit = None if suffix == ".txt" else MAX_BYTES  # a page file's limit, applied while it is decompressed
    data, _ = decompressed(_read_bytes(fname, fname), fname, Path(rel).suffix.lower(), page_limit=limit)
    doc = rel.rpartition("/")[0] or None
    fmt = detect_format(data, suffix)
    if fmt in PAGE_FORMATS:
        _, page, found = _page(data, fname, fmt, inner, doc, options)
        return page, found
    if suffix != ".txt":
        refuse_binary(data, fname)
        what = _NOT_A_PAGE.get(fmt, _NO_MARKUP) if data.strip() else "the file is empty"
        raise InputError(f"{fname}: named like a page but not PAGE-XML, ALTO or hOCR ({what}); move it out of the "
                         "directory, or name it .txt to read it as a plain-text page")
    return None, [text_page(_lines(_decode(data, fname)), key, doc, fname)]


def text_page(lines: Iterable[str], key: str, doc: str | None, name: str) -> Item:
    """A plain-text file read as the text of one page, the one rule of a directory's ``.txt`` page
    (``p1.gt.txt`` beside ``p1.hocr``) and of one text file against one page file
    (:func:`semcer.io.pairing.pair_collections`): its lines as the ``text`` format splits them (every
    ``\\r\\n`` a line break, a final one none, blank lines kept) joined with ``\\n``, one item of id
    ``key``, read from ``name``."""
    return Item(id=key, text="\n".join(lines), doc=doc, source=f"{name}:1")


#: Why a file of a directory named like a page is not one, by what detection found.
_NOT_A_PAGE = {"html": "HTML with no hOCR class (ocr_page, ocr_line, ocrx_word, ...) and no ocr-system meta tag",
               "xml": "XML whose root element is neither PcGts nor alto, in no PAGE or ALTO namespace"}
_NO_MARKUP = "it does not start with an XML or HTML element"


def _page_files(root: Path) -> list[tuple[str, str | None]]:
    """The files below root (recursively, links to folders followed: :func:`walk_folders`; hidden ones
    skipped) that are named like pages, sorted: each relative path (with '/') and None, or why it
    cannot be read as a page."""
    from semcer.io.formats.files import EXTENSIONS, named_like_page

    found = []
    for dirpath, prefix, filenames in walk_folders(root, (".",)):
        for f in filenames:
            stem, dot, ext = f.lower().rpartition(".")
            if named_like_page(f):
                problem = file_problem(os.path.join(dirpath, f))
                found.append((prefix + f, None if problem is None else f"named like a page but cannot be read as "
                              f"one: {problem}; remove it or move it out of the directory"))
            elif dot + ext in _OTHER_COMPRESSION and stem.endswith(EXTENSIONS):
                found.append((prefix + f, f"a page compressed as {dot + ext}, which semcer does not read; decompress "
                              "it or compress it with gzip (.gz)"))
    return sorted(found)


def check_unique(items: list[Item] | tuple[Item, ...], name: str) -> None:
    if len({item.id for item in items}) == len(items):
        return
    seen: dict[str, Item] = {}
    for item in items:
        first = seen.get(item.id)
        if first is not None:
            raise InputError(
                f"{item.source or name}: duplicate id {quoted(item.id)} (first at {first.source or name})"
            )
        seen[item.id] = item


def _text_reader(read: Callable[[str, str], list[Item]]) -> Reader:
    return lambda data, name: read(_decode(data, name), name)


#: The reader of each format :func:`read_collection` reads from a file (``directory`` is read apart).
READERS: dict[str, Reader] = {"jsonl": _text_reader(_read_jsonl), "json": _text_reader(_read_json),
                              "tsv": _text_reader(_read_tsv), "csv": _text_reader(_read_csv),
                              "text": _text_reader(_read_text), "parquet": _read_parquet}
