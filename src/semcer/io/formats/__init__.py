"""Page formats: PAGE-XML, ALTO and hOCR (and plain-text pages) read into typed pages with provenance.

- :func:`read_page` / :func:`parse_page`: one file (path / bytes) -> :class:`Page` at a level
  (``"region"`` or ``"line"``; ``"block"``/``"par"`` are ALTO's/hOCR's names for region), in a
  dialect (``"semcer"``: the rules documented in :mod:`~semcer.io.formats.pagexml`,
  :mod:`~semcer.io.formats.alto`, :mod:`~semcer.io.formats.hocr`; ``"dinglehopper"``:
  dinglehopper 0.11's extraction, which with the ``dinglehopper`` text policy reproduces its CER).
- :func:`detect_xml_format`: which format the first bytes of a file are.
- :func:`element_at` / :func:`elements_in`: the element an offset (or an edit's original span) of
  the page text falls in; :class:`~semcer.io.formats.provenance.Provenance`: the element each
  side of every judged edit falls in (what edit lists, the score JSON and the report show).
- :func:`pair_files` / :func:`read_pairs` / :func:`page_key`: reference and output files paired
  by name; unmatched and ignored files are returned, never dropped.
- :func:`page_items` / :func:`paired_items`: pages -> :class:`semcer.io.collections.Item` rows,
  per page or per segment.
- :func:`page_reader`: a reader for :func:`semcer.io.collections.register_reader`.

Parsing is hardened (no entities, no external anything, size, element and depth limits:
:mod:`~semcer.io.formats.tree`); every mistake in a file is one InputError naming the file, line
and column.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from semcer.io.formats.detect import detect_xml_format
from semcer.io.formats.files import FilePair, FilePairing, PagePair, ReadPairs, page_key, pair_files, read_pairs
from semcer.io.formats.items import PairedItems, page_items, paired_items, segment_texts
from semcer.io.formats.page import SEPARATOR, BBox, Page, Segment, Skipped, element_at, elements_in
from semcer.io.formats.read import DIALECTS, LEVELS, PAGE_FORMATS, parse_page, read_page, resolve_level
from semcer.io.formats.tree import MAX_BYTES, MAX_DEPTH, MAX_ELEMENTS

if TYPE_CHECKING:
    from semcer.io.collections import Item

__all__ = [
    "DIALECTS",
    "LEVELS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "PAGE_FORMATS",
    "SEPARATOR",
    "BBox",
    "FilePair",
    "FilePairing",
    "Page",
    "PagePair",
    "PairedItems",
    "ReadPairs",
    "Segment",
    "Skipped",
    "detect_xml_format",
    "element_at",
    "elements_in",
    "page_items",
    "page_key",
    "page_reader",
    "pair_files",
    "paired_items",
    "parse_page",
    "read_page",
    "read_pairs",
    "resolve_level",
    "segment_texts",
]


def page_reader(format: str | None = None, *, level: str = "region", granularity: str = "page",
                dialect: str = "semcer", hyphen: str | None = None) -> Callable[[bytes, str], list[Item]]:
    """A reader ``(bytes, name) -> items`` of one page file, for
    :func:`semcer.io.collections.register_reader` (``format`` None: detected from the content).

    ``granularity="page"``: one item, its id the file's :func:`page_key` (so ``p1.gt.xml`` and
    ``p1.ocr.xml`` pair), no doc. ``"segment"``: one item per segment, its id the element id
    (matched across two files by element id), its doc the page key.
    """

    def read(data: bytes, name: str) -> list[Item]:
        page = parse_page(data, name, format=format, level=level, dialect=dialect, hyphen=hyphen)
        key = page_key(name.replace("\\", "/").rpartition("/")[2])
        if granularity == "page":
            return page_items(page, id=key)
        items = page_items(page, id=key, granularity="segment")
        prefix = key + "#"
        return [it._replace(id=it.id[len(prefix):]) for it in items]

    return read
