"""A small, hardened element tree for the page formats: XML through expat, HTML through ``html.parser``.

Why not ``xml.etree`` or lxml: semcer needs the line and column of every element (so that a
mistake in a 5,000-line PAGE file is named where it is), and it needs the parser to refuse what a
hostile file can ask of it. This module gives both with the standard library only.

**XML** (:func:`parse_xml`) is parsed by expat with these guards, the ones ``defusedxml`` sets:

- no entity declarations: a document whose DTD declares an entity (general or parameter,
  internal or external: ``<!ENTITY lol "...">``, ``<!ENTITY xxe SYSTEM "file:///etc/passwd">``)
  is refused at the declaration, before anything is expanded: no billion laughs, no file read,
  no network;
- no external entities and no external DTD: parameter-entity parsing is off and an external
  entity reference is refused, so ``<!DOCTYPE x SYSTEM "...">`` is never fetched; a reference to an
  entity that is not defined is refused too (never left out silently);
- limits: at most :data:`MAX_BYTES` bytes (checked before parsing), :data:`MAX_ELEMENTS`
  elements and :data:`MAX_DEPTH` levels of nesting (checked while parsing, so memory stays
  bounded: a tree of a million elements is about half a GiB).

A file that is not well-formed is one :class:`~semcer.errors.InputError`,
``file:line:column: not well-formed XML (<expat's reason>); ...``.

**HTML** (:func:`parse_html`, for hOCR written as HTML rather than XHTML) is parsed by the standard
library's lenient ``html.parser``: it reads no DTD and expands only HTML's own character
references, so nothing outside the file is ever read. What it would leave in the text as written,
though the file means an entity, is refused with the XML guards' messages: an entity declaration
(``<!DOCTYPE html [<!ENTITY xxe SYSTEM "...">]>``) and a reference ``&name;`` to an entity that
HTML does not define (``&xxe;``; comments are not looked into). Void elements (``br``, ``meta``, ``img``,
...) have no children; an end tag closes the innermost open element of that name (and every
element opened after it); an end tag with no open element of its name is ignored. The same limits
apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from html.parser import HTMLParser
from xml.parsers import expat

from semcer.errors import QUOTE_LIMIT, InputError, quoted

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_ELEMENTS", "Node", "check_size", "parse_html", "parse_xml"]

#: The largest file read (bytes). A newspaper page with glyph-level PAGE-XML is tens of MiB.
MAX_BYTES = 256 << 20
#: The most elements one file may hold.
MAX_ELEMENTS = 1_000_000
#: The deepest nesting of elements (PAGE, ALTO and hOCR files nest about ten levels deep).
MAX_DEPTH = 1_000

_NO_ATTRIB: dict[str, str] = {}


class Node:
    """One element: namespace (``""`` when none), local name, attributes (namespaced attribute
    names are ``"{ns}name"``), mixed content (strings and child nodes in document order) and the
    1-based line and column where its start tag begins."""

    __slots__ = ("attrib", "column", "content", "line", "name", "ns")

    def __init__(self, ns: str, name: str, attrib: dict[str, str], line: int, column: int) -> None:
        self.ns = ns
        self.name = name
        self.attrib = attrib
        self.line = line
        self.column = column
        self.content: list[str | Node] | None = None

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<Node {self.name} at {self.line}:{self.column}>"

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.attrib.get(key, default)

    @property
    def children(self) -> list[Node]:
        """The child elements, in document order."""
        return [c for c in self.content if type(c) is Node] if self.content else []

    def find(self, name: str) -> Node | None:
        """The first child element of local name ``name`` (in this element's namespace)."""
        for c in self.content or ():
            if type(c) is Node and c.name == name and c.ns == self.ns:
                return c
        return None

    def findall(self, name: str) -> list[Node]:
        """The child elements of local name ``name`` (in this element's namespace)."""
        return [c for c in self.content or () if type(c) is Node and c.name == name and c.ns == self.ns]

    def iter(self) -> Iterator[Node]:
        """This element and every element below it, in document order (pre-order; no recursion)."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.content:
                stack.extend(reversed([c for c in node.content if type(c) is Node]))

    @property
    def text(self) -> str:
        """The character data directly inside this element (not inside its children)."""
        return "".join(c for c in self.content if type(c) is str) if self.content else ""

    def itertext(self) -> str:
        """All character data inside this element, its children's included, in document order."""
        out: list[str] = []
        stack: list[str | Node] = [self]
        while stack:
            item = stack.pop()
            if type(item) is str:
                out.append(item)
            elif item.content:  # type: ignore[union-attr]
                stack.extend(reversed(item.content))  # type: ignore[union-attr]
        return "".join(out)


def check_size(size: int, name: str, max_bytes: int = MAX_BYTES) -> None:
    """Refuse a file larger than ``max_bytes``."""
    if size > max_bytes:
        raise InputError(
            f"{name}: {size:,} bytes, more than the limit of {max_bytes:,} for a page file; split the file, or raise "
            "the limit (max_bytes=) if you trust it"
        )


class _Builder:
    """Collects nodes from parser events, enforcing the element and depth limits."""

    def __init__(self, name: str, max_elements: int, max_depth: int) -> None:
        self.name = name
        self.max_elements = max_elements
        self.max_depth = max_depth
        self.count = 0
        self.stack: list[Node] = []
        self.root: Node | None = None
        self._ws: dict[str, str] = {}  # indentation strings are shared, not copied per element

    def start(self, ns: str, local: str, attrib: dict[str, str], line: int, column: int) -> None:
        self.count += 1
        if self.count > self.max_elements:
            raise InputError(
                f"{self.name}:{line}:{column}: more than {self.max_elements:,} elements, the limit for a page file; "
                "split the file, or raise the limit (max_elements=) if you trust it"
            )
        if len(self.stack) >= self.max_depth:
            raise InputError(
                f"{self.name}:{line}:{column}: elements nested more than {self.max_depth:,} deep, the limit for a "
                "page file; this is not a PAGE, ALTO or hOCR page"
            )
        node = Node(ns, local, attrib or _NO_ATTRIB, line, column)
        if self.stack:
            parent = self.stack[-1]
            if parent.content is None:
                parent.content = [node]
            else:
                parent.content.append(node)
        elif self.root is None:
            self.root = node
        self.stack.append(node)

    def end(self) -> None:
        self.stack.pop()

    def data(self, text: str) -> None:
        if not self.stack:
            return
        if text.isspace() and len(text) < 64:
            text = self._ws.setdefault(text, text)
        parent = self.stack[-1]
        if parent.content is None:
            parent.content = [text]
        else:
            parent.content.append(text)


def _declared(where: str, entity: str, is_parameter: bool, external: bool) -> str:
    """The refusal of an entity declaration (XML and HTML alike)."""
    return (f"{where}: the DTD declares {'an external' if external else 'an'} entity "
            f"{('%' if is_parameter else '&') + _name(entity) + ';'}; semcer expands no entities (they can read "
            "files or blow up memory): replace it by the text it stands for")


def _undefined(where: str, reference: str, why: str) -> str:
    """The refusal of a reference to an entity that is not defined (XML and HTML alike)."""
    return (f"{where}: entity {_name(reference)} is not defined ({why}): write the character itself or a "
            "character reference such as &#160;")


def _name(name: str) -> str:
    """An entity name as a message shows it: as written, or cut like :func:`semcer.errors.quoted`."""
    return name if len(name) <= QUOTE_LIMIT else quoted(name)


# ----------------------------------------------------------------------------------------------
# XML


def _split(qname: str) -> tuple[str, str]:
    ns, sep, local = qname.rpartition(" ")
    return (ns, local) if sep else ("", qname)


def parse_xml(data: bytes, name: str, *, max_bytes: int = MAX_BYTES, max_elements: int = MAX_ELEMENTS,
              max_depth: int = MAX_DEPTH) -> Node:
    """The root element of the XML document ``data`` (read from ``name``, for messages), parsed
    with the guards of the module documentation. Raises InputError for anything refused."""
    check_size(len(data), name, max_bytes)
    parser = expat.ParserCreate(namespace_separator=" ")
    builder = _Builder(name, max_elements, max_depth)

    def where() -> str:
        return f"{name}:{parser.CurrentLineNumber}:{parser.CurrentColumnNumber + 1}"

    def start(qname: str, attrs: dict[str, str]) -> None:
        ns, local = _split(qname)
        if attrs and any(" " in k for k in attrs):
            named = {}
            for key, value in attrs.items():
                a_ns, a_local = _split(key)
                named[f"{{{a_ns}}}{a_local}" if a_ns else a_local] = value
            attrs = named
        builder.start(ns, local, attrs, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)

    def entity_decl(entity: str, is_parameter: bool, value: str | None, base: str | None, system_id: str | None,
                    public_id: str | None, notation: str | None) -> None:
        raise InputError(_declared(where(), entity, is_parameter, bool(system_id or public_id)))

    def unparsed_decl(entity: str, *_: object) -> None:
        raise InputError(f"{where()}: the DTD declares an unparsed external entity {entity!r}; semcer reads no "
                         "external entities: remove the declaration")

    def external_ref(*_: object) -> int:
        raise InputError(f"{where()}: the document refers to an external entity; semcer reads nothing outside the "
                         "file: remove the reference")

    def skipped(entity: str, is_parameter: bool) -> None:
        raise InputError(_undefined(where(), f"{'%' if is_parameter else '&'}{entity};", "semcer reads no DTD"))

    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler = start
    parser.EndElementHandler = lambda _qname: builder.end()
    parser.CharacterDataHandler = builder.data
    parser.EntityDeclHandler = entity_decl
    parser.UnparsedEntityDeclHandler = unparsed_decl
    parser.ExternalEntityRefHandler = external_ref
    parser.SkippedEntityHandler = skipped
    parser.buffer_text = True
    parser.ordered_attributes = False
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        reason = expat.ErrorString(exc.code) if exc.code is not None else str(exc)
        raise InputError(
            f"{name}:{exc.lineno}:{(exc.offset or 0) + 1}: not well-formed XML ({reason}); fix the file at that "
            "place (xmllint --noout shows the same error)"
        ) from None
    except RecursionError:  # pragma: no cover - expat does not recurse; a guard, not an expected path
        raise InputError(f"{name}: nested too deeply to read") from None
    if builder.root is None:  # pragma: no cover - expat reports "no element found" first
        raise InputError(f"{name}: no root element")
    return builder.root


# ----------------------------------------------------------------------------------------------
# HTML

_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


class _HTMLTree(HTMLParser):
    def __init__(self, builder: _Builder) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = builder

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line, col = self.getpos()
        self.builder.start("", tag, {k: v or "" for k, v in attrs}, line, col + 1)
        if tag in _VOID:
            self.builder.end()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line, col = self.getpos()
        self.builder.start("", tag, {k: v or "" for k, v in attrs}, line, col + 1)
        self.builder.end()

    def handle_endtag(self, tag: str) -> None:
        stack = self.builder.stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i].name == tag:
                del stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.builder.data(data)


#: What :func:`_check_html_entities` looks at: a comment's start, an entity declaration (its
#: parameter sign, name and the rest), an entity reference.
_HTML_ENTITY = re.compile(r"<!--|<!ENTITY\s+(%\s*)?([^\s>]*)([^>]*)|&([A-Za-z][A-Za-z0-9]*);", re.IGNORECASE)
_EXTERNAL = re.compile(r"\s*(SYSTEM|PUBLIC)\b", re.IGNORECASE)


def _check_html_entities(text: str, name: str) -> None:
    """Refuse, outside comments, an entity declaration and a reference ``&name;`` that HTML does not
    define (``html.unescape`` leaves it as it is): ``html.parser`` would keep either as literal text,
    silently changing what the page says."""
    defined: dict[str, bool] = {}
    pos = 0
    while (m := _HTML_ENTITY.search(text, pos)) is not None:
        pos = m.end()
        if m.group() == "<!--":
            end = text.find("-->", pos)
            if end < 0:
                return
            pos = end + 3
        elif m.group(4) is None:
            external = _EXTERNAL.match(m.group(3)) is not None
            raise InputError(_declared(_where(text, m.start(), name), m.group(2), bool(m.group(1)), external))
        elif not defined.setdefault(m.group(), unescape(m.group()) != m.group()):
            raise InputError(_undefined(_where(text, m.start(), name), m.group(),
                                        "HTML has no such entity, and semcer reads no DTD"))


def _where(text: str, offset: int, name: str) -> str:
    """``name:line:column`` (both 1-based) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return f"{name}:{line}:{column}"


def parse_html(text: str, name: str, *, max_elements: int = MAX_ELEMENTS, max_depth: int = MAX_DEPTH) -> Node:
    """The root element of an HTML document (the outermost element; ``<html>`` in an hOCR file).
    Element names are lower-case, as ``html.parser`` reports them. Entity declarations and undefined
    entity references are refused first (:func:`_check_html_entities`)."""
    _check_html_entities(text, name)
    builder = _Builder(name, max_elements, max_depth)
    tree = _HTMLTree(builder)
    tree.feed(text)
    tree.close()
    if builder.root is None:
        raise InputError(f"{name}: no HTML element found; an hOCR file is an HTML page")
    return builder.root
