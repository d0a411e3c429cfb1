"""ALTO (v1-v4) -> :class:`Page`.

**Order.** ALTO has no reading-order element that semcer reads: blocks and lines are read in
document order. Every ``TextLine`` of the file is read (those inside ``ComposedBlock`` too), each
belonging to the nearest ``TextBlock`` around it (its ``parent``). ``String`` elements outside any
``TextLine`` (the schema does not allow them, but files have them: a ``TextBlock`` of Strings) are
read all the same: the element that holds them is a line of them (its ID, name and box; in
document order of its first ``String``), read like a ``TextLine``. The dinglehopper dialect reads
``TextLine`` elements only, as dinglehopper does: such an element is listed in
:attr:`Page.skipped` instead (reason "has text outside its lines, not read").

**A line's text** is made of its ``String``, ``SP`` and ``HYP`` children in order: each ``String``
is a word, its ``@CONTENT`` exactly (a ``String`` with an empty ``CONTENT`` is no word; one
without ``CONTENT``, which the schema requires, is no word either, and it is listed in
:attr:`Page.skipped`, reason "has no CONTENT attribute", whatever it holds); consecutive words
are separated by one space, whether or not an ``SP`` stands between them
(``SP`` is a space; several ``SP`` in a row are one space; an ``SP`` at the start or end of the
line adds nothing). A ``HYP`` (the hyphen printed where a word is broken at the end of a line) is
read by ``hyphen``:

- ``"keep"`` (default): the text as printed: the ``HYP``'s ``@CONTENT`` is appended to the word
  before it, with no space (``Ver`` + ``HYP "-"`` -> ``Ver-``), and the next line starts with the
  word's second part;
- ``"join"``: the word is written whole where it starts, *when the file says what the word is*:
  where the ``String`` before the ``HYP`` has ``SUBS_TYPE="HypPart1"`` and a non-empty
  ``SUBS_CONTENT``, that ``SUBS_CONTENT`` replaces it, the ``HYP`` is dropped, and the first
  ``String`` of the next line is removed when it has ``SUBS_TYPE="HypPart2"`` (``Ver-``/``bindung``
  -> ``Verbindung`` on the first line, the second line without it); without that markup the line is
  read as with ``"keep"``;
- ``"drop"``: the ``HYP`` is ignored (``Ver`` / ``bindung``), which is what dinglehopper 0.11 does.

**Levels.** ``level="line"``: one segment per line. ``level="block"``: one segment per ``TextBlock``,
its text the texts of its lines joined by ``\\n``. Empty lines are not segments (listed in
:attr:`Page.skipped`, reason "no text"); a block whose lines are all empty is not either.

**Dialect "dinglehopper"** (dinglehopper 0.11's ``alto_extract``): a line's text is the
``@CONTENT`` of its ``String`` children joined by one space each (an empty or missing
``CONTENT`` still counts, so it can leave two spaces; a missing one is listed as above; ``SP`` is
not read; ``HYP`` is dropped, so ``hyphen`` must be left unset or ``"drop"``), and every line is a
segment, empty ones included.
At block level a block is a segment when it has at least one line, so the page text is the same
at both levels.

Bounding box: ``(HPOS, VPOS, HPOS + WIDTH, VPOS + HEIGHT)`` in the file's ``MeasurementUnit``
(:attr:`Page.coordinate_unit`; ``"pixel"`` when the file names none).
"""

from __future__ import annotations

from semcer.errors import InputError
from semcer.io.formats.detect import ALTO_NAMESPACES
from semcer.io.formats.page import NO_CONTENT, NO_TEXT, OUTSIDE_LINES, BBox, Page, Skipped, build_page
from semcer.io.formats.tree import Node

__all__ = ["HYPHEN_MODES", "read_alto"]

HYPHEN_MODES = ("keep", "join", "drop")

Piece = tuple[str | None, str, str, BBox | None, str | None, int, int]


def _bbox(node: Node, name: str) -> BBox | None:
    vals = [node.get(a) for a in ("HPOS", "VPOS", "WIDTH", "HEIGHT")]
    if any(v is None for v in vals):
        return None
    try:
        x, y, w, h = (float(v) for v in vals)  # type: ignore[arg-type]
    except ValueError:
        raise InputError(f"{name}:{node.line}:{node.column}: {node.name} has HPOS/VPOS/WIDTH/HEIGHT that are not "
                         f"numbers ({', '.join(map(repr, vals))}); fix the coordinates") from None
    return (x, y, x + w, y + h)


def _lines_with_blocks(layout: Node, ns: str) -> list[tuple[Node, Node | None]]:
    """Every line in document order with its nearest TextBlock (None outside any): each TextLine, and
    each other element that holds ``String`` children itself (the "line" of Strings outside any
    TextLine; in document order of its first String)."""
    out: list[tuple[tuple[int, int], Node, Node | None]] = []
    stack: list[tuple[Node, Node | None]] = [(layout, None)]
    while stack:
        node, block = stack.pop()
        if node.ns == ns and node.name == "TextLine":
            out.append(((node.line, node.column), node, block))
            continue
        if node.ns == ns and node.name == "TextBlock":
            block = node
        first = next((c for c in node.children if c.name == "String"), None)
        if first is not None:
            out.append(((first.line, first.column), node, block))
        stack.extend((c, block) for c in reversed(node.children))
    out.sort(key=lambda x: x[0])
    return [(line, block) for _, line, block in out]


def _semcer_line(line: Node, hyphen: str, drop_first: bool) -> tuple[str, bool]:
    """The text of one line, and whether the next line's first String is a HypPart2 to remove."""
    words: list[str] = []
    strings = [c for c in line.children if c.name in ("String", "SP", "HYP")]
    carry = False
    first_string = True
    for i, node in enumerate(strings):
        if node.name == "String":
            if first_string and drop_first and node.get("SUBS_TYPE") == "HypPart2":
                first_string = False
                continue
            first_string = False
            content = node.get("CONTENT") or ""
            if hyphen == "join" and node.get("SUBS_TYPE") == "HypPart1" and node.get("SUBS_CONTENT") and any(
                    n.name == "HYP" for n in strings[i + 1:]):
                content = node.get("SUBS_CONTENT") or ""
                carry = True
            if content:
                words.append(content)
        # keep: the hyphen as printed; join: so too, unless it follows a HypPart1 with SUBS_CONTENT
        elif node.name == "HYP" and (hyphen == "keep" or (hyphen == "join" and not carry)):
            mark = node.get("CONTENT") or ""
            if words:
                words[-1] += mark
            elif mark:
                words.append(mark)
    return " ".join(words), carry


def _dinglehopper_line(line: Node) -> str:
    return " ".join(s.get("CONTENT") or "" for s in line.children if s.name == "String")


def read_alto(root: Node, name: str, level: str, dialect: str, hyphen: str | None = None) -> Page:
    """The page of a parsed ALTO document (``level`` ``"block"`` or ``"line"``)."""
    if root.name != "alto":
        raise InputError(f"{name}:{root.line}:{root.column}: root element {root.name!r} is not 'alto'; this is not an "
                         "ALTO file")
    if dialect == "dinglehopper" and hyphen not in (None, "drop"):
        raise InputError(f"{name}: the dinglehopper dialect reads HYP as dinglehopper does (dropped); leave hyphen "
                         f"unset, not {hyphen!r}")
    mode = hyphen or ("drop" if dialect == "dinglehopper" else "keep")
    if mode not in HYPHEN_MODES:
        raise InputError(f"unknown hyphen mode {mode!r}; choose one of {', '.join(HYPHEN_MODES)}")
    version = ALTO_NAMESPACES.get(root.ns, "")
    unit, image = _description(root)
    layout = root.find("Layout")
    lines = _lines_with_blocks(layout, root.ns) if layout is not None else []
    left_out: list[Skipped] = []
    if dialect == "dinglehopper":  # dinglehopper reads TextLine elements only
        left_out = [_left_out(n, OUTSIDE_LINES, b, name) for n, b in lines if n.name != "TextLine"]
        lines = [(n, b) for n, b in lines if n.name == "TextLine"]
    # (block, [(line node, text)]) in document order
    groups: list[tuple[Node | None, list[tuple[Node, str]]]] = []
    drop_first = False
    for line, block in lines:
        if dialect == "dinglehopper":
            text = _dinglehopper_line(line)
        else:
            text, drop_first = _semcer_line(line, mode, drop_first)
        left_out += [_left_out(s, NO_CONTENT, line, name) for s in line.children
                     if s.name == "String" and s.get("CONTENT") is None]
        if not groups or groups[-1][0] is not block or block is None:
            groups.append((block, []))
        groups[-1][1].append((line, text))
    pieces, skipped = _pieces(groups, name, level, dialect)
    skipped += sorted(left_out, key=lambda k: (k.line, k.column))
    return build_page(name, "alto", version, level, dialect, pieces, skipped, image=image, coordinate_unit=unit,
                      hyphen=_hyphen_read(mode, dialect, lines))


def _left_out(node: Node, reason: str, parent: Node | None, name: str) -> Skipped:
    return Skipped(node.get("ID"), node.name, reason, node.line, node.column,
                   parent.get("ID") if parent is not None and parent is not node else None, _bbox(node, name))


def _description(root: Node) -> tuple[str, str | None]:
    """The ``Description``'s measurement unit (``"pixel"`` when it names none) and source image file name."""
    unit = "pixel"
    image = None
    desc = root.find("Description")
    if desc is not None:
        mu = desc.find("MeasurementUnit")
        if mu is not None and mu.text.strip():
            unit = mu.text.strip()
        src = desc.find("sourceImageInformation")
        fn = src.find("fileName") if src is not None else None
        if fn is not None and fn.text.strip():
            image = fn.text.strip()
    return unit, image


def _pieces(groups: list[tuple[Node | None, list[tuple[Node, str]]]], name: str, level: str,
            dialect: str) -> tuple[list[Piece], list[Skipped]]:
    """The segments of the page at ``level`` from its lines grouped by block, and the lines or blocks
    skipped (no text)."""
    skipped: list[Skipped] = []
    pieces: list[Piece] = []
    for block, members in groups:
        bid = block.get("ID") if block is not None else None
        keep_empty = dialect == "dinglehopper"
        for line, text in members:
            if not text and not keep_empty:
                skipped.append(_left_out(line, NO_TEXT, block, name))
            elif level == "line":
                pieces.append((line.get("ID"), text, line.name, _bbox(line, name), bid if block is not line else None,
                               line.line, line.column))
        if level == "line":
            continue
        texts = [t for _, t in members] if keep_empty else [t for _, t in members if t]
        holder = block if block is not None else members[0][0]
        if texts:
            pieces.append((holder.get("ID"), "\n".join(texts), holder.name, _bbox(holder, name), None, holder.line,
                           holder.column))
        elif holder is not members[0][0] or len(members) > 1:
            skipped.append(Skipped(holder.get("ID"), holder.name, NO_TEXT, holder.line, holder.column))
    return pieces, skipped


def _hyphen_read(mode: str, dialect: str, lines: list[tuple[Node, Node | None]]) -> str | None:
    """:attr:`Page.hyphen`: ``mode`` when it is not semcer's default (the text as printed) and a
    line has a ``HYP`` (``"join"`` reads one without ``SUBS_CONTENT`` as printed, but says so all the
    same); None otherwise. The dinglehopper dialect drops ``HYP`` as its own rule."""
    if dialect != "semcer" or mode == "keep":
        return None
    return mode if any(c.name == "HYP" for line, _ in lines for c in line.children) else None
