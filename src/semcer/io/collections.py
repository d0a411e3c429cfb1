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
  and newline is literal, so quotes and backslashes in the text survive as they are.
  Blank lines are allowed only at the end of the file.
- ``parquet`` (``.parquet``, ``.pq``, or the ``PAR1`` signature): the rows of a Parquet file's
  ``id`` (string or integer) and ``text`` columns, optional ``doc`` and ``lang``; other columns are
  never read; the record rules of ``jsonl``, each row named ``path row N`` (:mod:`semcer.io.parquet`;
  needs pyarrow, ``semcer[parquet]``).
- ``text``: line-aligned, one item per line, id = 1-based line number. Blank lines are items with
  empty text; only the line break itself (``\\n`` or ``\\r\\n``) is removed, all other whitespace
  is kept; a final line break does not start another item.
- ``directory`` of Parquet shards (``part-00000.parquet``, ... below it, as Spark, pandas and the
  Hugging Face ``datasets`` write them): one ``parquet`` collection, the shards' rows in the order
  of their relative paths, ids unique across shards; files and folders whose names start with
  ``.`` or ``_`` (``_SUCCESS``, ``_metadata``) skipped; a partition key kept in a folder name
  (``lang=en/``) is not read, only the files' columns are. A directory holding shards and pages
  is refused.
- ``directory`` (of pages): every ``*.txt`` file and every page file (PAGE-XML, ALTO, hOCR: ``.xml``,
  ``.html``, ``.htm``, ``.xhtml``, ``.hocr``) below the directory, each also gzip-compressed
  (``p001.txt.gz``, ``p1.xml.gz``: decompressed as a single ``.gz`` file is, with its limits);
  recursively; hidden files and directories, whose name starts with ``.``, are skipped; one page
  per file. The id of every page is its pairing key (:func:`semcer.io.formats.page_key`): the
  relative path with ``/`` separators, without ``.gz``, its extension and a ``.gt``/``.ocr``-like
  marker (``book1/p001`` for ``book1/p001.txt`` and ``book1/p001.gt.txt``, ``p1`` for
  ``p1.hocr.gz``), so that plain-text ground truth pairs with page files by name; two files with one
  key are an error naming both. A ``.txt`` page's text is the file content with one trailing line
  break removed (a ``.txt`` file whose content is PAGE-XML, ALTO or hOCR is read as that page). A
  file named like a page that cannot be read as one (``p1.xml.bz2``, a broken link) is an error,
  never skipped in silence. **The directory is the document**: the doc of a page is the path of
  the directory that holds it (``book1`` for ``book1/p001.txt``, ``en/book1`` for
  ``en/book1/p001.txt``); a page directly in the top directory has no doc, so it is its own
  document, like any item without a doc.

Where the data comes from: a path; ``"-"``, standard input (read to the end; it cannot be a
directory); a gzip-compressed file (``.gz``, or any file whose bytes start with the gzip
signature, standard input included) is decompressed first, at most :data:`GZIP_LIMIT` bytes (2
GiB: a guard against decompression bombs), and the format is detected inside it (``refs.jsonl.gz``
uses the suffix ``.jsonl``). Data compressed twice, and a ``.gz`` file that is not gzip, are
refused.

Detection (:func:`detect_format`), in this order; a directory is always ``directory``:

1. Binary files are refused, naming what they look like, by their signature: PDF, PNG, JPEG, GIF,
   TIFF, WebP, JPEG 2000, ZIP (and .docx/.xlsx/.odt/.epub), legacy Office, SQLite,
   Arrow, NumPy, ELF, bzip2, xz, zstd, 7-Zip, UTF-16/UTF-32 (byte-order mark; UTF-16 markup is
   named as markup, rule 2). Beyond signatures,
   any NUL byte or invalid UTF-8 is refused with its line and byte offset.
2. Markup: text whose first non-blank character is ``<`` followed by ``?xml``, ``!DOCTYPE`` or
   an element name. It is named ``page-xml`` (root ``PcGts`` or the PAGE namespace), ``alto``
   (root ``alto`` or the ALTO namespace), ``hocr`` (HTML with ``ocr_page``/``ocr_line``/
   ``ocrx_word`` classes or an ``ocr-system`` meta tag), all three read as pages whatever the file
   is named; other markup is ``html`` or ``xml`` (any other root), refused as not supported yet
   (``format="text"`` reads it as plain text anyway), except in a file named ``.txt``, which is
   text (rule 3: a VLM's ``<think>...</think>``, a line starting with ``<unk>``). A reader
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
import gzip
import io
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from semcer.errors import InputError, quoted
from semcer.io.jsonl import MalformedJSON, array_records, binary_format, parse, records, refuse_binary, scan_value
from semcer.io.jsonl import decode as _decode
from semcer.io.jsonl import json_type as _json_type
from semcer.io.jsonl import lines as _lines
from semcer.io.jsonl import read_bytes as _read_bytes
from semcer.io.parquet import SUFFIXES as PARQUET_SUFFIXES
from semcer.io.parquet import rows as parquet_rows

__all__ = ["FORMATS", "GZIP_LIMIT", "LANGUAGE_TAG", "PAGE_FORMATS", "READERS", "RECOGNISED", "Collection", "Item",
           "PageOptions", "check_languages", "detect_file_format", "detect_format", "first_bad_language", "input_formats",
           "language_error",
           "parquet_shards", "read_collection", "register_reader"]

#: The formats semcer reads itself (``"memory"`` marks collections built in code).
FORMATS = ("jsonl", "json", "tsv", "csv", "text", "parquet", "directory")
#: Formats :func:`detect_format` recognises that have no reader yet, by how a message names them.
RECOGNISED: dict[str, str] = {"html": "HTML that is not hOCR", "xml": "XML that is not PAGE-XML, ALTO or hOCR"}
#: The page formats (read by :mod:`semcer.io.formats`, with :class:`PageOptions`).
PAGE_FORMATS = ("page-xml", "alto", "hocr")
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
#: The most bytes a gzip-compressed input may decompress to (a guard against decompression bombs).
GZIP_LIMIT = 2 << 30
STDIN = "-"
STDIN_NAME = "<stdin>"
_SUFFIX_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".tsv": "tsv", ".csv": "csv",
                   ".txt": "text"}
_HEAD = 1 << 20  # detection looks at the first MiB
_LANG = itemgetter(3)  # an Item's lang
_GZIP_MAGIC = b"\x1f\x8b"

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
    """

    items: tuple[Item, ...]
    path: str  # what was read
    format: str  # "jsonl" | "tsv" | "csv" | "text" | "directory" | "memory" | "page-xml" | "alto" | "hocr"
    pages: dict[str, Any] = field(default_factory=dict)
    single_page: bool = False
    failures: tuple[tuple[str, str], ...] = ()
    granularity: str = "page"

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
    data, suffix = _decompressed(data, name, suffix)
    fmt = detect_format(data, suffix) if format is None else format
    if fmt in PAGE_FORMATS and format is not None:
        _check_forced_page(data, suffix, fmt, name)
    if fmt in PAGE_FORMATS:
        options = pages or PageOptions()
        key, page, items = _page(data, name, fmt, Path(name).name, None, options)
        coll = _collection(items, name, fmt)
        return Collection(coll.items, name, fmt, {key: page}, single_page=True, granularity=options.granularity)
    reader = READERS.get(fmt)
    if reader is None:
        if fmt not in RECOGNISED:
            refuse_binary(data, name)
        raise InputError(_unreadable_format(fmt, name, forced=False))
    return _collection(reader(data, name), name, fmt)


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
    if head.startswith(_GZIP_MAGIC) or p.suffix.lower() == ".gz":
        return None
    return detect_format(head, p.suffix.lower())


def _collection(items: list[Item], name: str, fmt: str) -> Collection:
    if not items:
        raise InputError(f"{name}: no items (the input is empty)")
    check_unique(items, name)
    check_languages(items, name)
    return Collection(items=tuple(items), path=name, format=fmt)


#: A language tag's shape: BCP 47 (RFC 5646: a 2-3 letter language, then subtags of 1-8 letters or
#: digits joined by ``-``), or a POSIX locale name's (``zh_CN``, joined by ``_``). Whether the
#: language exists is the judges' business, not the syntax's.
LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")


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


def _decompressed(data: bytes, name: str, suffix: str) -> tuple[bytes, str]:
    """The data inside a gzip file and the suffix that names its format (``.jsonl`` of
    ``refs.jsonl.gz``); anything else unchanged."""
    named_gz = suffix == ".gz"
    if not data.startswith(_GZIP_MAGIC):
        if named_gz:
            raise InputError(f"{name}: named .gz but not gzip-compressed; rename it")
        return data, suffix
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            while chunk := gz.read(1 << 20):
                out += chunk
                if len(out) > GZIP_LIMIT:
                    raise InputError(
                        f"{name}: decompresses to more than {_size(GZIP_LIMIT)} (the limit against "
                        "decompression bombs); decompress it yourself and read the result"
                    )
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise InputError(f"{name}: truncated or corrupt gzip data ({exc})") from None
    if out.startswith(_GZIP_MAGIC):
        raise InputError(f"{name}: gzip-compressed twice; decompress it once yourself")
    inner = Path(name[:-3]).suffix.lower() if named_gz else ""
    return bytes(out), inner


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}" if unit == "bytes" else f"{n:.4g} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"  # pragma: no cover


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


_MARKUP_START = re.compile(
    r"(?:\s+|<\?.*?\?>|<!--.*?-->|<!doctype\b[^>\[]*(?:\[.*?\])?\s*>)*<([A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?)",
    re.S | re.I,
)
_HOCR = re.compile(r"""\bocr(?:_page|_line|x_word|_carea|_par)\b|['"]ocr-system['"]""")


def _named_markup(text: str, suffix: str) -> str | None:
    """The markup format of ``text`` as detection names it: a page format whatever the suffix, other
    markup (HTML, XML) only when the file is not named ``.txt`` (a ``.txt`` file is text:
    ``<think>...</think>`` from a VLM, a line starting with ``<unk>`` or ``<script>``)."""
    markup = _markup(text)
    if markup in RECOGNISED and suffix.lower() == ".txt":
        return None
    return markup


def _markup(text: str) -> str | None:
    """The markup format of text starting with ``<`` (see the module rules), or None."""
    if not text.startswith("<"):
        return None
    m = _MARKUP_START.match(text)
    root = m.group(1) if m else ""
    if not root and not re.match(r"<(?:\?xml\b|!doctype\b)", text, re.I):
        return None  # "<3", "< 5": not markup
    local = root.rpartition(":")[2]
    if local == "PcGts" or "primaresearch.org/PAGE" in text:
        return "page-xml"
    if local.lower() == "alto" or "loc.gov/standards/alto" in text:
        return "alto"
    if local.lower() == "html" or re.match(r"(?:<\?.*?\?>\s*)?<!doctype\s+html", text, re.I | re.S):
        return "hocr" if _HOCR.search(text) else "html"
    return "xml"


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
    return _items(records(text, name))


def _read_json(text: str, name: str) -> list[Item]:
    return _items(array_records(text, name))


def _items(values: Iterator[tuple[str, object]]) -> list[Item]:
    items: list[Item] = []
    append = items.append
    for where, obj in values:
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
        raise InputError(f"{where}: 'text' is {got} (id {quoted(id_)}); use \"\" for an empty text")
    for key, value in (("doc", doc), ("lang", lang)):
        if value is not None and type(value) is not str:
            raise InputError(
                f"{where}: {key!r} must be a string or absent, not {_json_type(value)}"
            )
    return Item(id=id_, text=text, doc=doc or None, lang=lang or None, source=where)  # type: ignore[arg-type]


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


_SHOWN_COLUMNS = 10  # header columns a missing-column error lists


def _read_table(rows: Iterator[tuple[int, list[str]]], name: str, kind: str) -> list[Item]:
    first = next(rows, None)
    if first is None:
        return []
    header = [h.strip() for h in first[1]]
    col: dict[str, int] = {}
    for i, h in enumerate(header):
        if h in col and h in ("id", "text", "doc", "lang"):
            raise InputError(f"{name}:1: column {quoted(h)} appears twice in the header")
        col.setdefault(h, i)
    missing = [c for c in ("id", "text") if c not in col]
    if missing:
        more = ", ..." if len(header) > _SHOWN_COLUMNS else ""
        raise InputError(
            f"{name}:1: header has no {' or '.join(map(repr, missing))} column "
            f"(header columns: {', '.join(map(quoted, header[:_SHOWN_COLUMNS]))}{more}); a {kind} file needs a "
            "header row with at least 'id' and 'text'"
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
    if not items:
        what = "no page could be read" if failures else "no .txt, PAGE-XML, ALTO or hOCR files in this directory"
        raise InputError(f"{name}: no items ({what})")
    check_unique(items, name)
    return Collection(tuple(items), name, "directory", pages, failures=tuple(failures), granularity=options.granularity)


def parquet_shards(root: Path) -> list[str]:
    """The Parquet files below root (recursively; hidden ones, and Spark's ``_SUCCESS``/``_metadata``
    files, whose names start with ``_``, skipped), as sorted relative paths with '/'."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "_"))]
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        found += [prefix + f for f in filenames if f.lower().endswith(PARQUET_SUFFIXES) and not f.startswith((".", "_"))]
    return sorted(found)


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
        data, _ = _decompressed(_read_bytes(path, path), path, Path(rel).suffix.lower())
        items += _read_parquet(data, path)
    return _collection(items, name, "parquet")


def _check_keys(keyed: list[tuple[str, str]], root: Path, name: str) -> dict[str, str]:
    """Relative path -> key of the pages of a directory; two pages with one key are an error naming both."""
    from semcer.io.formats.files import same_page_name

    first: dict[str, str] = {}
    for rel, key in keyed:
        if key in first:
            path = str(root.joinpath(*rel.split("/")))
            raise same_page_name(path, key, str(root.joinpath(*first[key].split("/"))), f"in {name}")
        first[key] = rel
    return dict(keyed)


def _directory_page(fname: str, rel: str, key: str, options: PageOptions) -> tuple[Any, list[Item]]:
    """One file of a directory: its page (None for a plain-text page) and its items."""
    inner = rel[:-3] if rel.lower().endswith(".gz") else rel
    suffix = Path(inner).suffix.lower()
    data, _ = _decompressed(_read_bytes(fname, fname), fname, Path(rel).suffix.lower())
    doc = rel.rpartition("/")[0] or None
    fmt = detect_format(data, suffix) if suffix == ".txt" else None
    if suffix == ".txt" and fmt not in PAGE_FORMATS:
        text = _decode(data, fname)
        if text.endswith("\n"):
            text = text[:-2] if text.endswith("\r\n") else text[:-1]
        return None, [Item(id=key, text=text, doc=doc, source=f"{fname}:1")]
    _, page, found = _page(data, fname, fmt, inner, doc, options)
    return page, found


def _page_files(root: Path) -> list[tuple[str, str | None]]:
    """The files below root (recursively, hidden ones skipped) that are named like pages, sorted:
    each relative path (with '/') and None, or why it cannot be read as a page."""
    from semcer.io.formats.files import EXTENSIONS

    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        for f in filenames:
            low = f.lower()
            stem, dot, ext = low.rpartition(".")
            if f.startswith("."):
                continue
            if low.endswith(EXTENSIONS) or (ext == "gz" and stem.endswith(EXTENSIONS)):
                regular = os.path.isfile(os.path.join(dirpath, f))
                found.append((prefix + f, None if regular else "named like a page but not a regular file (a broken "
                              "link, a pipe?); remove it or move it out of the directory"))
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
