"""hOCR (HTML with OCR classes, as Tesseract writes it) -> :class:`Page`.

**Parsing.** A file that starts (after a BOM and whitespace) with an XML declaration ``<?xml`` is
XHTML, as Tesseract writes it, and is parsed as XML with all the guards of
:mod:`semcer.io.formats.tree` (a malformed file is an error naming its line and column). Any other
file is parsed as HTML by the standard library's lenient parser (no DTD, no external anything);
what that parser would keep as literal text though the file means an entity is refused with the
XML path's messages: an entity declaration (``<!DOCTYPE html [<!ENTITY ...>]>``) and a reference
such as ``&xxe;`` to an entity that HTML does not define (:func:`semcer.io.formats.tree.parse_html`).

**Elements**, by their ``class`` (one of the element's whitespace-separated classes), in document
order (hOCR has no reading-order element; Tesseract writes its own reading order):

- lines: ``ocr_line``, and the other line classes Tesseract writes (``ocr_header``,
  ``ocr_caption``, ``ocr_textfloat``) and ``ocrx_line``;
- words: ``ocrx_word`` inside a line; a word's text is all the text inside it (``<strong>``,
  ``<em>`` included) with runs of whitespace made one space and both ends trimmed;
- a line's text: its words joined by one space; a line without ``ocrx_word`` elements: all the
  text inside it, whitespace runs made one space, trimmed;
- paragraphs: ``ocr_par``; a line's paragraph is the nearest ``ocr_par`` around it (a line outside
  any paragraph is grouped by its nearest ``ocr_carea``, else stands alone).

**Levels.** ``level="line"``: one segment per line; ``level="par"``: one segment per paragraph,
its text the texts of its lines joined by ``\\n``. Empty lines (and paragraphs) are not segments;
they are listed in :attr:`Page.skipped` (reason "no text").

Bounding box: the ``bbox x0 y0 x1 y1`` property of the element's ``title``. The page's image: the
``image "..."`` property of the first ``ocr_page``. (dinglehopper reads no hOCR, so there is no
dinglehopper dialect for it.)
"""

from __future__ import annotations

import re

from semcer.errors import InputError
from semcer.io.formats.page import NO_TEXT, BBox, Page, Skipped, build_page
from semcer.io.formats.tree import Node

__all__ = ["LINE_CLASSES", "parse_title", "read_hocr"]

LINE_CLASSES = frozenset({"ocr_line", "ocrx_line", "ocr_header", "ocr_caption", "ocr_textfloat"})
_WS = re.compile(r"\s+")

Piece = tuple[str | None, str, str, BBox | None, str | None, int, int]


def _classes(node: Node) -> list[str]:
    c = node.get("class")
    return c.split() if c else []


def parse_title(title: str) -> dict[str, str]:
    """The properties of an hOCR ``title`` (``"bbox 1 2 3 4; x_wconf 95"`` -> ``{"bbox": "1 2 3 4",
    "x_wconf": "95"}``); a property named twice keeps its first value."""
    props: dict[str, str] = {}
    for part in title.split(";"):
        part = part.strip()
        if not part:
            continue
        key, _, value = part.partition(" ")
        props.setdefault(key, value.strip())
    return props


def _bbox(node: Node, name: str) -> BBox | None:
    title = node.get("title")
    if not title:
        return None
    raw = parse_title(title).get("bbox")
    if raw is None:
        return None
    parts = raw.split()
    try:
        if len(parts) != 4:
            raise ValueError
        x0, y0, x1, y1 = (float(p) for p in parts)
    except ValueError:
        raise InputError(f"{name}:{node.line}:{node.column}: title bbox {raw!r} is not four numbers "
                         "(bbox x0 y0 x1 y1); fix the title") from None
    return (x0, y0, x1, y1)


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _line_text(line: Node) -> str:
    words = [n for n in line.iter() if "ocrx_word" in _classes(n)]
    if not words:
        return _clean(line.itertext())
    return " ".join(t for w in words if (t := _clean(w.itertext())))


def read_hocr(root: Node, name: str, level: str) -> Page:
    """The page of a parsed hOCR document (``level`` ``"par"`` or ``"line"``)."""
    image = None
    # (line node, its group node or None), in document order
    lines: list[tuple[Node, Node | None]] = []
    stack: list[tuple[Node, Node | None, Node | None]] = [(root, None, None)]
    while stack:
        node, par, area = stack.pop()
        classes = _classes(node)
        if "ocr_page" in classes and image is None and node.get("title"):
            raw = parse_title(node.get("title") or "").get("image")
            if raw:
                image = raw.strip().strip("\"'") or None
        if LINE_CLASSES.intersection(classes):
            lines.append((node, par or area))
            continue
        if "ocr_par" in classes:
            par = node
        elif "ocr_carea" in classes:
            area = node
        stack.extend((c, par, area) for c in reversed(node.children))
    skipped: list[Skipped] = []
    pieces: list[Piece] = []
    groups: list[tuple[Node | None, list[tuple[Node, str]]]] = []
    for line, group in lines:
        text = _line_text(line)
        if not groups or group is None or groups[-1][0] is not group:
            groups.append((group, []))
        groups[-1][1].append((line, text))
    for group, members in groups:
        gid = group.get("id") if group is not None else None
        for line, text in members:
            kind = next(c for c in _classes(line) if c in LINE_CLASSES)
            if not text:
                skipped.append(Skipped(line.get("id"), kind, NO_TEXT, line.line, line.column, gid, _bbox(line, name)))
            elif level == "line":
                pieces.append((line.get("id"), text, kind, _bbox(line, name), gid, line.line, line.column))
        if level == "par":
            texts = [t for _, t in members if t]
            holder = group if group is not None else members[0][0]
            kind = next((c for c in _classes(holder) if c in ("ocr_par", "ocr_carea") or c in LINE_CLASSES), holder.name)
            if texts:
                pieces.append((holder.get("id"), "\n".join(texts), kind, _bbox(holder, name), None, holder.line,
                               holder.column))
            elif group is not None:
                skipped.append(Skipped(holder.get("id"), kind, NO_TEXT, holder.line, holder.column))
    return build_page(name, "hocr", "", level, "semcer", pieces, skipped, image=image)
