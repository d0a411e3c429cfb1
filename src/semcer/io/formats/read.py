"""Reading one page file: detect its format, parse it safely, extract its page at a level.

A page file may be gzip-compressed (``p1.hocr.gz``, ``p1.gt.txt.gz``): :func:`read_page` decompresses
it as every reader of semcer does (:mod:`semcer.io.compressed`: its limit against decompression
bombs, its errors for a ``.gz`` that is not gzip and for data compressed twice), and the page inside
is read as the file named without ``.gz`` would be."""

from __future__ import annotations

import os
from pathlib import Path

from semcer.errors import InputError
from semcer.io.compressed import decompressed, without_gz
from semcer.io.folders import file_problem
from semcer.io.formats.alto import read_alto
from semcer.io.formats.detect import detect_xml_format
from semcer.io.formats.hocr import read_hocr
from semcer.io.formats.page import NO_TEXT, Page, Skipped, build_page
from semcer.io.formats.pagexml import read_page_xml
from semcer.io.formats.tree import MAX_BYTES, MAX_ELEMENTS, check_size, parse_html, parse_xml
from semcer.io.jsonl import decode, lines

__all__ = ["DIALECTS", "LEVELS", "PAGE_FORMATS", "parse_page", "read_page", "resolve_level"]

#: The page formats, and the levels each one reads (the first is its region-like level).
LEVELS: dict[str, tuple[str, ...]] = {"page-xml": ("region", "line"), "alto": ("block", "line"),
                                      "hocr": ("par", "line"), "text": ("line",)}
PAGE_FORMATS = tuple(LEVELS)
DIALECTS = ("semcer", "dinglehopper")
_REGION_LIKE = ("region", "block", "par")


def resolve_level(format: str, level: str) -> str:
    """The level ``level`` means for ``format``: ``"line"``, or the format's region-like level for
    any of ``"region"``, ``"block"`` and ``"par"`` (so one ``--level region`` serves a PAGE
    reference and an ALTO or hOCR output); a text file has lines only."""
    if level == "line" or format == "text":
        if level not in _REGION_LIKE + ("line",):
            raise InputError(f"unknown level {level!r}; choose 'region' (TextRegion / TextBlock / ocr_par) or 'line'")
        return "line"
    if level in _REGION_LIKE:
        return LEVELS[format][0]
    raise InputError(f"unknown level {level!r}; choose 'region' (TextRegion / TextBlock / ocr_par) or 'line'")


def _read_text(data: bytes, name: str, dialect: str) -> Page:
    text = decode(data, name)
    pieces = []
    skipped = []
    for n, line in enumerate(lines(text), start=1):
        if dialect == "dinglehopper":
            line = line.strip()
        elif not line:
            skipped.append(Skipped(str(n), "line", NO_TEXT, n, 1))
            continue
        pieces.append((str(n), line, "line", None, None, n, 1))
    return build_page(name, "text", "", "line", dialect, pieces, skipped)  # type: ignore[arg-type]


def _is_xml(data: bytes) -> bool:
    head = data[:512]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    return head.lstrip().startswith(b"<?xml")


def parse_page(data: bytes, name: str, *, format: str | None = None, level: str = "region", dialect: str = "semcer",
               hyphen: str | None = None, max_bytes: int = MAX_BYTES, max_elements: int = MAX_ELEMENTS) -> Page:
    """The page of the bytes ``data`` of one file (``name`` for messages and :attr:`Page.file`);
    ``data`` is the page itself, already decompressed where the file was gzip (:func:`read_page`).

    ``format`` is ``"page-xml"``, ``"alto"``, ``"hocr"`` or ``"text"``; None detects it from the
    content (:func:`semcer.io.formats.detect_xml_format`), and a file that is none of the three
    markup formats is ``"text"`` when its name ends with ``.txt`` (or ``.txt.gz``) and an error otherwise.
    ``level``: see :func:`resolve_level`. ``dialect``: ``"semcer"`` (the documented rules) or
    ``"dinglehopper"`` (dinglehopper 0.11's extraction, for PAGE, ALTO and text). ``hyphen``: how
    ALTO's ``HYP`` is read (``"keep"``, ``"join"``, ``"drop"``; see :mod:`semcer.io.formats.alto`).
    Raises InputError for anything malformed or refused, naming the file, line and column.
    """
    if dialect not in DIALECTS:
        raise InputError(f"unknown dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")
    check_size(len(data), name, max_bytes)
    if format is None:
        format = detect_xml_format(data[: 1 << 16])
        if format is None:
            if without_gz(name).lower().endswith(".txt"):
                format = "text"
            else:
                raise InputError(f"{name}: not a PAGE-XML, ALTO or hOCR file (no PcGts or alto root element, no "
                                 "hOCR classes); pass the format if it is one")
    if format not in LEVELS:
        raise InputError(f"unknown page format {format!r}; choose one of {', '.join(PAGE_FORMATS)}")
    lvl = resolve_level(format, level)
    if hyphen is not None and format != "alto":
        hyphen = None  # HYP is ALTO's; the option means nothing elsewhere
    if format == "text":
        return _read_text(data, name, dialect)
    if format == "hocr":
        if dialect == "dinglehopper":
            raise InputError(f"{name}: dinglehopper reads no hOCR (it would read the markup as plain text); use the "
                             "semcer dialect (dialect='semcer'; command line: --page-dialect semcer)")
        if _is_xml(data):
            root = parse_xml(data, name, max_bytes=max_bytes, max_elements=max_elements, xhtml_entities=True)
        else:
            root = parse_html(decode(data, name), name, max_elements=max_elements)
        return read_hocr(root, name, lvl)
    root = parse_xml(data, name, max_bytes=max_bytes, max_elements=max_elements)
    if format == "page-xml":
        return read_page_xml(root, name, lvl, dialect)
    return read_alto(root, name, lvl, dialect, hyphen)


def read_page(path: str | os.PathLike[str], *, format: str | None = None, level: str = "region",
              dialect: str = "semcer", hyphen: str | None = None, max_bytes: int = MAX_BYTES,
              max_elements: int = MAX_ELEMENTS) -> Page:
    """:func:`parse_page` of a file (its size is checked before it is read). A gzip-compressed file
    (named ``.gz``, or starting with the gzip signature) is decompressed first, with the limits and
    errors of :func:`semcer.io.compressed.decompressed`; ``max_bytes`` then applies to the page inside."""
    name = str(path)
    p = Path(path)
    problem = file_problem(p)  # a broken link is named as one, with where it points
    if problem is not None:
        raise InputError(f"{name}: {problem}")
    try:
        size = p.stat().st_size
    except OSError as exc:  # pragma: no cover - the file went away after file_problem looked at it
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    check_size(size, name, max_bytes)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    data, _ = decompressed(data, name, p.suffix.lower(), page_limit=max_bytes)
    return parse_page(data, name, format=format, level=level, dialect=dialect, hyphen=hyphen, max_bytes=max_bytes,
                      max_elements=max_elements)
