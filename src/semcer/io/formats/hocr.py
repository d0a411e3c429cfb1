"""hOCR (HTML with OCR classes, as Tesseract writes it) -> :class:`Page`.

**Parsing.** A file that starts (after a BOM and whitespace) with an XML declaration ``<?xml`` is
XHTML, as Tesseract writes it, and is parsed as XML with all the guards of
:mod:`semcer.io.formats.tree` (a malformed file is an error naming its line and column). Any other
file is parsed as HTML by the standard library's lenient parser (no DTD, no external anything);
what that parser would keep as literal text though the file means an entity is refused with the
XML path's messages: an entity declaration (``<!DOCTYPE html [<!ENTITY ...>]>``) and a reference
such as ``&xxe;`` to an entity that HTML does not define, and a character reference that it would
turn into U+FFFD or drop (``&#0;``, ``&#xD800;``, ``&#1;``); an HTML file that ends inside an
element (other than ``html`` and ``head``: a file cut short) is refused too
(:func:`semcer.io.formats.tree.parse_html`). In XHTML that names an XHTML DTD (as Tesseract's
does) the HTML named entities (``&nbsp;``, ``&eacute;``, ...) are read in text, though no DTD is
read (:func:`semcer.io.formats.tree.parse_xml`, ``xhtml_entities``).

**Elements**, by their ``class`` (one of the element's whitespace-separated classes), in document
order (hOCR has no reading-order element; Tesseract writes its own reading order):

- lines: ``ocr_line``, and the other line classes Tesseract writes (``ocr_header``,
  ``ocr_caption``, ``ocr_textfloat``) and ``ocrx_line``;
- words: ``ocrx_word``; a word's text is all the text inside it (``<strong>``, ``<em>``
  included) with runs of whitespace made one space and both ends trimmed;
- a line's text: its words joined by one space; a line without ``ocrx_word`` elements: all the
  text inside it, whitespace runs made one space, trimmed;
- paragraphs: ``ocr_par``; a line's paragraph is the nearest ``ocr_par`` around it (a line outside
  any paragraph is grouped by its nearest ``ocr_carea``, else stands alone).

**A file without lines** is read all the same (hOCR does not require ``ocr_line``): the
``ocrx_word`` elements outside any line are read as lines too, one per parent element (the
words' parent, an ``ocr_par`` say, is the line: its id, class and bbox; its text its words
joined by one space); and an hOCR element (a class ``ocr_*`` or ``ocrx_*``: ``ocr_page``,
``ocr_carea``, ``ocr_par``, ...) that holds text but no line and no word is a line whose text is
all the text inside it, whitespace runs made one space, trimmed (``<p class='ocr_par'>`` with
bare text; an ``ocr_page`` whose text is in elements without hOCR classes). Such a line is
grouped, at ``level="par"``, by the element itself when it is an ``ocr_par`` or ``ocr_carea``.
All lines are in document order (of where their text starts).

**Nothing is dropped silently.** Text that none of this reads is listed in :attr:`Page.skipped`:
an element (hOCR, or the ``body``) holding text outside its lines and words (reason "has text
outside its lines, not read"), and a line holding text outside its words (it is read, its words
only; reason "has text outside its words, not read"). Text in no hOCR element and outside the
``body`` (the ``head``'s ``title``) is not page text.

**Levels.** ``level="line"``: one segment per line; ``level="par"``: one segment per paragraph,
its text the texts of its lines joined by ``\\n``. Empty lines (and paragraphs) are not segments;
they are listed in :attr:`Page.skipped` (reason "no text").

Bounding box: the ``bbox x0 y0 x1 y1`` property of the element's ``title``. The page's image: the
``image "..."`` property of the first ``ocr_page``. (dinglehopper reads no hOCR, so there is no
dinglehopper dialect for it.)
"""


from __future__ import annotations

import re
from dataclasses import dataclass, field

from semcer.errors import InputError
from semcer.io.formats.page import NO_TEXT, OUTSIDE_LINES, OUTSIDE_WORDS, BBox, Page, Skipped, build_page
from semcer.io.formats.tree import Node

__all__ = ["LINE_CLASSES", "parse_title", "read_hocr"]

LINE_CLASSES = frozenset({"ocr_line", "ocrx_line", "ocr_header", "ocr_caption", "ocr_textfloat"})
_GROUP_CLASSES = ("ocr_par", "ocr_carea")
_HOCR_PREFIXES = ("ocr_", "ocrx_")
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


def _is_hocr(classes: list[str]) -> bool:
    return any(c.startswith(_HOCR_PREFIXES) for c in classes)


def _kind(node: Node) -> str:
    """What a segment of ``node`` is called: its line class, else its first hOCR class, else its tag."""
    classes = _classes(node)
    return next((c for c in classes if c in LINE_CLASSES), None) or next(
        (c for c in classes if c.startswith(_HOCR_PREFIXES)), node.name)


def _id(node: Node | None) -> str | None:
    return node.get("id") if node is not None else None


def _words_in(line: Node) -> tuple[list[Node], bool]:
    """The ``ocrx_word`` elements inside ``line`` (not inside one another), in document order, and
    whether it holds text outside them."""
    words: list[Node] = []
    stray = False
    stack: list[str | Node] = list(reversed(line.content or ()))
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            stray = stray or bool(item.strip())
        elif "ocrx_word" in _classes(item):
            words.append(item)
        else:
            stack.extend(reversed(item.content or ()))
    return words, stray


def _words_text(words: list[Node]) -> str:
    return " ".join(t for w in words if (t := _clean(w.itertext())))


@dataclass(frozen=True, slots=True)
class _Line:
    """One line of the page as read, before it is a segment (see the module documentation)."""

    at: tuple[int, int]  # where its text starts in the file: document order
    node: Node  # the element that gives the segment its id, bbox and place
    kind: str
    text: str
    group: Node | None  # its paragraph (else content area) at level "par"
    parent: Node | None  # the paragraph (else content area) around the element: Segment.parent


def _line(at: tuple[int, int], node: Node, text: str, par: Node | None, area: Node | None) -> _Line:
    """A line of ``node``, in the paragraph ``par`` and content area ``area`` (either may be ``node``)."""
    parent = next((g for g in (par, area) if g is not None and g is not node), None)
    return _Line(at, node, _kind(node), text, par or area, parent)


@dataclass
class _Found:
    """What a walk of an hOCR tree found."""

    lines: list[_Line] = field(default_factory=list)
    left_out: list[tuple[Node, str, Node | None]] = field(default_factory=list)  # (element, reason, parent)
    # the innermost hOCR element (or body) around bare text -> (the elements around it, paragraph, area)
    bare: dict[int, tuple[tuple[Node, ...], Node | None, Node | None]] = field(default_factory=dict)
    filled: set[int] = field(default_factory=set)  # ids of the elements that hold a line or word
    image: str | None = None

    def fill(self, chain: tuple[Node, ...]) -> None:
        self.filled.update(id(n) for n in chain)

    def add_line(self, node: Node, par: Node | None, area: Node | None, chain: tuple[Node, ...]) -> None:
        words, stray = _words_in(node)
        line = _line((node.line, node.column), node, _words_text(words) if words else _clean(node.itertext()), par,
                     area)
        self.lines.append(line)
        if words and stray:
            self.left_out.append((node, OUTSIDE_WORDS, line.parent))
        self.fill(chain)

    def add_words(self, node: Node, words: list[Node], par: Node | None, area: Node | None,
                  chain: tuple[Node, ...]) -> None:
        self.lines.append(_line((words[0].line, words[0].column), node, _words_text(words), par, area))
        self.fill(chain)


def _page_image(node: Node) -> str | None:
    raw = parse_title(node.get("title") or "").get("image")
    return (raw.strip().strip("\"'") or None) if raw else None


def _walk(root: Node) -> _Found:
    """Lines, words outside lines and bare text, in one pass (no recursion)."""
    found = _Found()
    stack: list[tuple[Node, Node | None, Node | None, tuple[Node, ...]]] = [(root, None, None, ())]
    while stack:
        node, par, area, chain = stack.pop()
        classes = _classes(node)
        if found.image is None and "ocr_page" in classes:
            found.image = _page_image(node)
        if "ocr_par" in classes:
            par = node
        elif "ocr_carea" in classes:
            area = node
        if node.name == "body" or _is_hocr(classes):
            chain = (*chain, node)
        words: list[Node] = []
        below: list[tuple[Node, Node | None, Node | None, tuple[Node, ...]]] = []
        for item in node.content or ():
            if isinstance(item, str):
                if chain and id(chain[-1]) not in found.bare and item.strip():
                    found.bare[id(chain[-1])] = (chain, par, area)
            elif LINE_CLASSES.intersection(kinds := _classes(item)):
                found.add_line(item, par, area, chain)
            elif "ocrx_word" in kinds:
                words.append(item)
            else:
                below.append((item, par, area, chain))
        if words:
            found.add_words(node, words, par, area, chain)
        stack.extend(reversed(below))
    return found


def _read_bare_text(found: _Found) -> None:
    """An hOCR element with bare text and no line or word inside is a line of all its text; any other
    element with bare text is left out (innermost first, so an element read fills those around it)."""
    for chain, par, area in sorted(found.bare.values(), key=lambda v: -len(v[0])):
        holder = chain[-1]
        if id(holder) in found.filled or not _is_hocr(_classes(holder)):
            line = _line((holder.line, holder.column), holder, "", par, area)
            found.left_out.append((holder, OUTSIDE_LINES, line.parent))
            continue
        found.lines.append(_line((holder.line, holder.column), holder, _clean(holder.itertext()), par, area))
        found.fill(chain[:-1])


def _pieces(lines: list[_Line], name: str, level: str) -> tuple[list[Piece], list[Skipped]]:
    """The segments at ``level`` of the lines in document order, and the lines and paragraphs without text."""
    skipped: list[Skipped] = []
    pieces: list[Piece] = []
    groups: list[tuple[Node | None, list[_Line]]] = []
    for line in lines:
        if not groups or line.group is None or groups[-1][0] is not line.group:
            groups.append((line.group, []))
        groups[-1][1].append(line)
    for group, members in groups:
        for ln in members:
            node = ln.node
            if not ln.text and (level == "line" or node is not group):
                skipped.append(Skipped(node.get("id"), ln.kind, NO_TEXT, node.line, node.column, _id(ln.parent),
                                       _bbox(node, name)))
            elif ln.text and level == "line":
                pieces.append((node.get("id"), ln.text, ln.kind, _bbox(node, name), _id(ln.parent), node.line,
                               node.column))
        if level == "par":
            texts = [ln.text for ln in members if ln.text]
            holder = group if group is not None else members[0].node
            kind = (next(c for c in _classes(group) if c in _GROUP_CLASSES) if group is not None
                    else members[0].kind)
            if texts:
                pieces.append((holder.get("id"), "\n".join(texts), kind, _bbox(holder, name), None, holder.line,
                               holder.column))
            elif group is not None:
                skipped.append(Skipped(holder.get("id"), kind, NO_TEXT, holder.line, holder.column))
    return pieces, skipped


def read_hocr(root: Node, name: str, level: str) -> Page:
    """The page of a parsed hOCR document (``level`` ``"par"`` or ``"line"``)."""
    found = _walk(root)
    _read_bare_text(found)
    found.lines.sort(key=lambda ln: ln.at)
    pieces, skipped = _pieces(found.lines, name, level)
    for node, reason, parent in sorted(found.left_out, key=lambda x: (x[0].line, x[0].column)):
        skipped.append(Skipped(node.get("id"), _kind(node), reason, node.line, node.column, _id(parent),
                               _bbox(node, name)))
    return build_page(name, "hocr", "", level, "semcer", pieces, skipped, image=found.image)
