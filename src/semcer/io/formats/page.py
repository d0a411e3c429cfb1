"""The typed page every reader returns, and provenance: which element an offset of the page text is in.

A :class:`Page` is what one PAGE-XML, ALTO, hOCR (or plain-text) file says, at one level: its
segments (regions or lines) in reading order, each with its text, element id, element name,
bounding box, the id of the element that holds it, and where it is in the file. The page text is
the segments' texts joined with :data:`SEPARATOR` (``"\\n"``) — between lines and between regions
alike — so a segment's text starts at :attr:`Segment.start` of :attr:`Page.text` and the
separator after it is at :attr:`Segment.end`.

Edits carry code-point spans into the pre-policy text (:attr:`semcer.alignment.edits.Edit.ref_span`);
when an item's text is a page text, :func:`element_at` and :func:`elements_in` name the element an
edit falls in.

What a reader left out is never dropped silently: :attr:`Page.skipped` lists every region or line
that is not in the text, with the reason (no text, not in the reading order, referred to twice,
missing), and every element whose text is not all read (text outside its lines or words; an ALTO
``String`` without ``CONTENT``).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

__all__ = ["SEPARATOR", "BBox", "Page", "Segment", "Skipped", "build_page", "element_at", "elements_in"]

#: Between the texts of two segments of a page (lines or regions alike).
SEPARATOR = "\n"

#: A bounding box ``(x0, y0, x1, y1)``: left, top, right, bottom, in the file's coordinates
#: (pixels for PAGE and hOCR; ALTO's ``MeasurementUnit``, see :attr:`Page.coordinate_unit`).
BBox = tuple[float, float, float, float]

# Reasons in Skipped.reason
NO_TEXT = "no text"
NOT_IN_ORDER = "not in the reading order"
REFERRED_AGAIN = "referred to again by the reading order"
MISSING = "the reading order refers to an element the page does not have"
NO_LINES = "has no lines"
OUTSIDE_LINES = "has text outside its lines, not read"
OUTSIDE_WORDS = "has text outside its words, not read"
NO_CONTENT = "has no CONTENT attribute"

#: Element kinds of line-level and region-level segments (for :attr:`Segment.kind`/:attr:`Skipped.kind`).
LINE_KINDS = frozenset({"TextLine", "line", "ocr_line", "ocrx_line", "ocr_header", "ocr_caption", "ocr_textfloat"})
REGION_KINDS = frozenset({"TextRegion", "TextBlock", "ocr_par", "ocr_carea"})


@dataclass(frozen=True, slots=True)
class Segment:
    """One region or line of a page, as read."""

    id: str | None  # the element's id (PAGE @id, ALTO @ID, hOCR @id); None when it has none
    text: str
    kind: str  # the element: "TextRegion", "TextLine", "TextBlock", "ocr_par", "ocr_line", "line", ...
    bbox: BBox | None  # None where the file gives no geometry
    parent: str | None  # the id of the region/block/paragraph holding a line; None for regions
    line: int  # where the element starts in the file (1-based line and column)
    column: int
    start: int = 0  # code-point offset of ``text`` in Page.text

    @property
    def end(self) -> int:
        """The offset just after the text (where the separator to the next segment is)."""
        return self.start + len(self.text)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A region or line that is not in the page text, and why."""

    id: str | None
    kind: str
    reason: str  # NO_TEXT, NOT_IN_ORDER, REFERRED_AGAIN, MISSING, NO_LINES, OUTSIDE_LINES, OUTSIDE_WORDS, NO_CONTENT
    line: int
    column: int
    parent: str | None = None
    bbox: BBox | None = None


@dataclass(frozen=True)
class Page:
    """One page file read at one level: segments in reading order and their joined text.

    ``format`` is ``"page-xml"``, ``"alto"``, ``"hocr"`` or ``"text"``; ``version`` the schema
    version (``"2019-07-15"``, ``"4"``, ...; ``""`` when unknown); ``level`` the level read
    (``"region"``/``"line"`` for PAGE, ``"block"``/``"line"`` for ALTO, ``"par"``/``"line"`` for
    hOCR, ``"line"`` for text); ``dialect`` the extraction rules (``"semcer"`` or
    ``"dinglehopper"``, see :mod:`semcer.io.formats`); ``hyphen`` how ALTO's ``HYP`` was read when
    the file has one and it was not read as printed (``"join"`` or ``"drop"``, semcer dialect; None
    otherwise): it changes the text, so it goes into the signature.
    """

    file: str
    format: str
    version: str
    level: str
    dialect: str
    segments: tuple[Segment, ...]
    text: str
    skipped: tuple[Skipped, ...] = ()
    image: str | None = None  # the image file the page describes, when the file names it
    coordinate_unit: str = "pixel"
    hyphen: str | None = None
    _starts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    @property
    def ids(self) -> tuple[str | None, ...]:
        return tuple(s.id for s in self.segments)


def build_page(file: str, format: str, version: str, level: str, dialect: str,
               pieces: list[tuple[str | None, str, str, BBox | None, str | None, int, int]],
               skipped: list[Skipped], *, image: str | None = None, coordinate_unit: str = "pixel",
               hyphen: str | None = None) -> Page:
    """A page from ``(id, text, kind, bbox, parent, line, column)`` pieces in reading order."""
    segments = []
    pos = 0
    for id_, text, kind, bbox, parent, line, column in pieces:
        segments.append(Segment(id_, text, kind, bbox, parent, line, column, pos))
        pos += len(text) + len(SEPARATOR)
    text = SEPARATOR.join(s.text for s in segments)
    return Page(file, format, version, level, dialect, tuple(segments), text, tuple(skipped), image, coordinate_unit,
                hyphen, tuple(s.start for s in segments))


def _starts(page: Page) -> tuple[int, ...]:
    return page._starts if page._starts or not page.segments else tuple(s.start for s in page.segments)


def element_at(page: Page, offset: int) -> Segment | None:
    """The segment whose text holds code point ``offset`` of ``page.text``; None when the offset is
    a separator between two segments or outside the text."""
    if offset < 0 or offset >= len(page.text):
        return None
    i = bisect_right(_starts(page), offset) - 1
    if i < 0:
        return None
    seg = page.segments[i]
    return seg if offset < seg.end else None


def elements_in(page: Page, start: int, end: int) -> tuple[Segment, ...]:
    """The segments an original span ``[start, end)`` of ``page.text`` touches, in order.

    An empty span (``start == end``, where an insertion stands) is in the segment that holds
    ``start``, or else in the segment that ends at ``start`` (an insertion at the end of a line);
    a span made only of separators touches no segment.
    """
    if start == end:
        seg = element_at(page, start)
        if seg is not None:
            return (seg,)
        i = bisect_right(_starts(page), start) - 1
        if i >= 0 and page.segments[i].end == start:  # a line that ends there, or an empty one there
            return (page.segments[i],)
        return ()
    out = []
    segments = page.segments
    for i in range(max(bisect_right(_starts(page), start) - 1, 0), len(segments)):  # no slice: O(found), not O(page)
        seg = segments[i]
        if seg.start >= end:
            break
        if seg.end > start and seg.text:
            out.append(seg)
    return tuple(out)
