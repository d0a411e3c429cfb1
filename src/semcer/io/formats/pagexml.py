"""PAGE-XML (PRImA's page content schema; 2013-07-15 and 2019-07-15, and the older dates) -> :class:`Page`.

**Which regions, in which order.** When the page has a ``ReadingOrder`` (the first one in the
file), it is followed: an ``OrderedGroup`` (or ``OrderedGroupIndexed``) reads its
``RegionRefIndexed``/``OrderedGroupIndexed``/``UnorderedGroupIndexed`` children by ascending
``@index`` (an integer, required by the schema: a child without one is an error; equal indices
keep document order); an ``UnorderedGroup`` (or ``UnorderedGroupIndexed``) reads its
``RegionRef``/``OrderedGroup``/``UnorderedGroup`` children in document order; groups nest to any
depth. A reference to a ``TextRegion`` (anywhere on the page, nested regions included) reads it;
a reference to another kind of region (image, table, graphic, ...) reads nothing; a reference to
an id the page does not have is listed in :attr:`Page.skipped`. Text regions the reading order
does not refer to are not read, and are listed (reason "not in the reading order"). A region
referred to twice is read once, at its first reference (the later ones are listed). Without a
``ReadingOrder`` every ``TextRegion`` is read in document order (pre-order, so a region nested in
another comes right after its parent).

**Whose text.** ``level="region"``: each region's own ``TextEquiv`` (a region that has none, or an
empty one, is read as its lines' texts joined with ``\n``: many tools write text on lines only);
``level="line"``: the
``TextEquiv`` of each ``TextLine`` directly inside the region, in document order. Of several
``TextEquiv`` of one element the one read is: the one with the lowest ``@index`` (an integer;
ties: the first in document order); a ``TextEquiv`` without ``@index`` comes after every indexed
one; when none has an index, the one with the highest ``@conf`` (a number; ties: the first);
when none has either, the first. The text is the character data of its ``Unicode`` child,
exactly (no whitespace is trimmed; XML has already turned line breaks into ``\\n``). This is also
dinglehopper's rule.

**Empty text.** A region or line whose text is empty (no ``TextEquiv``, no ``Unicode``, or an empty
one) is not a segment: it adds nothing to the page text, not even a separator, and it is listed in
:attr:`Page.skipped` with reason "no text". A region without ``TextLine`` read at line level is
listed as "has no lines". Whitespace-only text is text.

**Dialect "dinglehopper"** (to reproduce dinglehopper 0.11's extraction exactly): the same, except
that at line level every line of a region is a segment, empty ones included (an empty line then
adds a separator), and a region is left out only when its lines joined by ``\\n`` are empty (no
lines, or a single empty one); and a region referred to twice is read twice.

Bounding box: from ``Coords/@points`` (``"x,y x,y ..."``; or the ``Point`` children of the 2009/2010
schemas), the smallest rectangle holding the polygon.
"""

from __future__ import annotations

from semcer.errors import InputError, quoted
from semcer.io.formats.detect import PAGE_NAMESPACE_PREFIX
from semcer.io.formats.page import (
    MISSING,
    NO_LINES,
    NO_TEXT,
    NOT_IN_ORDER,
    REFERRED_AGAIN,
    BBox,
    Page,
    Skipped,
    build_page,
)
from semcer.io.formats.tree import Node

__all__ = ["choose_textequiv", "read_page_xml"]

_ORDERED = ("OrderedGroup", "OrderedGroupIndexed")
_UNORDERED = ("UnorderedGroup", "UnorderedGroupIndexed")
_ORDERED_CHILDREN = ("RegionRefIndexed", "OrderedGroupIndexed", "UnorderedGroupIndexed")
_UNORDERED_CHILDREN = ("RegionRef", "OrderedGroup", "UnorderedGroup")

Piece = tuple[str | None, str, str, BBox | None, str | None, int, int]


def _at(name: str, node: Node) -> str:
    return f"{name}:{node.line}:{node.column}"


def _number(node: Node, attr: str, name: str, kind: type) -> float | int | None:
    raw = node.get(attr)
    if raw is None:
        return None
    try:
        return kind(raw.strip())
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise InputError(f"{_at(name, node)}: {node.name} has {attr}={raw!r}, not {what}; fix the attribute") from None


def choose_textequiv(equivs: list[Node], name: str) -> Node | None:
    """The ``TextEquiv`` that is read among ``equivs`` (rule in the module documentation)."""
    if len(equivs) <= 1:
        return equivs[0] if equivs else None
    indexed = [(idx, pos) for pos, te in enumerate(equivs) if (idx := _number(te, "index", name, int)) is not None]
    if indexed:
        return equivs[min(indexed)[1]]
    confs = [(conf, -pos) for pos, te in enumerate(equivs)
             if (conf := _number(te, "conf", name, float)) is not None and conf == conf]  # NaN is no confidence
    if confs:
        return equivs[-max(confs)[1]]
    return equivs[0]


def _text_of(element: Node, name: str) -> str:
    te = choose_textequiv(element.findall("TextEquiv"), name)
    if te is None:
        return ""
    uni = te.find("Unicode")
    return uni.text if uni is not None else ""


def _bbox(element: Node, name: str) -> BBox | None:
    coords = element.find("Coords")
    if coords is None:
        return None
    xs: list[float] = []
    ys: list[float] = []
    points = coords.get("points")
    try:
        if points is not None:
            for pair in points.split():
                x, y = pair.split(",")
                xs.append(float(x))
                ys.append(float(y))
        else:
            for pt in coords.findall("Point"):
                xs.append(float(pt.get("x", "")))  # type: ignore[arg-type]
                ys.append(float(pt.get("y", "")))  # type: ignore[arg-type]
    except ValueError:
        raise InputError(f"{_at(name, coords)}: Coords points={points!r} are not 'x,y x,y ...' pairs of numbers; "
                         "fix the coordinates") from None
    if not xs:
        return None
    return (min(xs), min(ys), max(xs), max(ys))


def _ordered_regions(order: Node, regions: dict[str, Node], others: set[str], name: str,
                     skipped: list[Skipped]) -> list[Node]:
    """Text regions in reading order (duplicates kept; the caller decides)."""
    out: list[Node] = []
    # An explicit stack of child lists: groups may nest deeply, Python's recursion may not.
    # Each list holds what is still to read, last item first.
    stack: list[list[Node]] = [[g for g in reversed(order.children) if g.name in _ORDERED + _UNORDERED]]
    while stack:
        todo = stack[-1]
        if not todo:
            stack.pop()
            continue
        node = todo.pop()
        if node.name in _ORDERED:
            kids = [c for c in node.children if c.name in _ORDERED_CHILDREN]
            keyed = []
            for pos, c in enumerate(kids):
                idx = _number(c, "index", name, int)
                if idx is None:
                    raise InputError(f"{_at(name, c)}: {c.name} in an {node.name} has no index; the schema requires "
                                     "one (index=\"0\", \"1\", ...)")
                keyed.append((idx, pos, c))
            stack.append([c for _, _, c in sorted(keyed, key=lambda k: (k[0], k[1]), reverse=True)])
        elif node.name in _UNORDERED:
            stack.append([c for c in reversed(node.children) if c.name in _UNORDERED_CHILDREN])
        else:  # RegionRef / RegionRefIndexed
            ref = node.get("regionRef")
            if ref is None:
                raise InputError(f"{_at(name, node)}: {node.name} has no regionRef; the schema requires one")
            region = regions.get(ref)
            if region is not None:
                out.append(region)
            elif ref not in others:
                skipped.append(Skipped(ref, node.name, MISSING, node.line, node.column))
    return out


def read_page_xml(root: Node, name: str, level: str, dialect: str) -> Page:
    """The page of a parsed PAGE-XML document (``level`` ``"region"`` or ``"line"``)."""
    if root.name != "PcGts" or not root.ns.startswith(PAGE_NAMESPACE_PREFIX):
        got = f"{{{root.ns}}}{root.name}" if root.ns else root.name
        raise InputError(f"{_at(name, root)}: root element {got} is not a PAGE PcGts element in the namespace "
                         f"{PAGE_NAMESPACE_PREFIX}<date>; this is not a PAGE-XML file")
    version = root.ns[len(PAGE_NAMESPACE_PREFIX):].rstrip("/")
    page_el = root.find("Page")
    if page_el is None:
        raise InputError(f"{_at(name, root)}: PcGts has no Page element; a PAGE-XML file needs one")
    skipped: list[Skipped] = []
    chosen = _chosen_regions(page_el, root.ns, name, dialect, skipped)
    pieces: list[Piece] = []
    for region in chosen:
        if level == "region":
            _region_piece(region, name, dialect, pieces, skipped)
        else:
            _line_pieces(region, name, dialect, pieces, skipped)
    return build_page(name, "page-xml", version, level, dialect, pieces, skipped, image=page_el.get("imageFilename"))


def _chosen_regions(page_el: Node, ns: str, name: str, dialect: str, skipped: list[Skipped]) -> list[Node]:
    """The text regions in reading order (document order without one); regions left out go to ``skipped``."""
    regions: dict[str, Node] = {}
    in_document_order: list[Node] = []
    others: set[str] = set()
    order: Node | None = None
    for node in page_el.iter():
        if node.ns != ns:
            continue
        if node.name == "TextRegion":
            rid = node.get("id")
            if rid is None:
                raise InputError(f"{_at(name, node)}: TextRegion has no id; the schema requires one")
            if rid in regions:
                first = regions[rid]
                raise InputError(f"{_at(name, node)}: duplicate region id {quoted(rid)} (first at line {first.line}); "
                                 "ids must be unique")
            regions[rid] = node
            in_document_order.append(node)
        elif node.name == "ReadingOrder" and order is None:
            order = node
        elif node.name.endswith("Region") and (oid := node.get("id")) is not None:
            others.add(oid)
    if order is None:
        return in_document_order
    seen: set[str] = set()
    chosen = []
    for region in _ordered_regions(order, regions, others, name, skipped):
        rid = region.get("id")
        assert rid is not None
        if rid in seen and dialect != "dinglehopper":
            skipped.append(Skipped(rid, "TextRegion", REFERRED_AGAIN, region.line, region.column))
            continue
        seen.add(rid)
        chosen.append(region)
    for region in in_document_order:
        if region.get("id") not in seen:
            skipped.append(Skipped(region.get("id"), "TextRegion", NOT_IN_ORDER, region.line, region.column))
    return chosen


def _region_piece(region: Node, name: str, dialect: str, pieces: list[Piece], skipped: list[Skipped]) -> None:
    """At region level: the region's text (in the semcer dialect its lines' when it has none)."""
    rid = region.get("id")
    text = _text_of(region, name)
    if not text and dialect == "semcer":  # no region text: its lines' texts, one per line
        text = "\n".join(t for t in (_text_of(line, name) for line in region.findall("TextLine")) if t)
    if text:
        pieces.append((rid, text, "TextRegion", _bbox(region, name), None, region.line, region.column))
    else:
        skipped.append(Skipped(rid, "TextRegion", NO_TEXT, region.line, region.column, None, _bbox(region, name)))


def _line_pieces(region: Node, name: str, dialect: str, pieces: list[Piece], skipped: list[Skipped]) -> None:
    """At line level: the region's lines (dinglehopper keeps empty lines of a region with any text)."""
    rid = region.get("id")
    lines = region.findall("TextLine")
    if not lines:
        skipped.append(Skipped(rid, "TextRegion", NO_LINES, region.line, region.column))
        return
    texts = [_text_of(line, name) for line in lines]
    if dialect == "dinglehopper":
        if "\n".join(texts) == "":
            skipped.append(Skipped(rid, "TextRegion", NO_TEXT, region.line, region.column))
            return
        for line, text in zip(lines, texts):
            pieces.append((line.get("id"), text, "TextLine", _bbox(line, name), rid, line.line, line.column))
        return
    for line, text in zip(lines, texts):
        if text:
            pieces.append((line.get("id"), text, "TextLine", _bbox(line, name), rid, line.line, line.column))
        else:
            skipped.append(Skipped(line.get("id"), "TextLine", NO_TEXT, line.line, line.column, rid,
                                   _bbox(line, name)))
