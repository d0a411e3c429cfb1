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
  entity that is not defined is refused too (never left out silently), in text and in attribute
  values alike (where expat, given an external DTD it does not read, would drop it without a word);
- XHTML's named entities, for XHTML hOCR only (``xhtml_entities``): in a document whose DOCTYPE
  names an XHTML DTD, ``&nbsp;``, ``&eacute;`` and the other HTML 4 entities
  (:data:`html.entities.name2codepoint`, the entity sets of XHTML 1.0) are read in text as their
  one character, from that fixed table: the DTD is not read and nothing is expanded (in attribute
  values they are refused: expat does not report them there);
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
HTML does not define (``&xxe;``; comments are not looked into). A character reference that
``html.unescape`` would silently turn into U+FFFD or drop (``&#0;``, ``&#xD800;``, ``&#x110000;``,
``&#1;``) is refused, as the XML parser refuses it. A file that ends inside an element other than
``html`` and ``head`` is cut short and refused (an hOCR file ends with ``</body></html>``), and so
is an element or text after the root element has closed. Void elements (``br``, ``meta``, ``img``,
...) have no children; an end tag closes the innermost open element of that name (and every
element opened after it); an end tag with no open element of its name is ignored. The same limits
apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from html.entities import name2codepoint
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
            "the limit (Python: max_bytes=; the command line has no such option) if you trust it"
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
                "split the file, or raise the limit (Python: max_elements=; the command line has no such option) if you "
                "trust it"
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


#: The start of the public id of every XHTML DTD (1.0 Strict/Transitional/Frameset, 1.1, Basic, +RDFa):
#: all of them define the HTML 4 entity sets, :data:`html.entities.name2codepoint`.
XHTML_PUBLIC_ID = "-//W3C//DTD XHTML"
_PREDEFINED = frozenset({"amp", "lt", "gt", "quot", "apos"})
#: An XML start tag (as expat accepted it: attribute values hold no ``<``) and an entity reference.
_START_TAG = re.compile(r"""<[^\s/>]+(?:\s+[^\s=]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/?>""")
_ENTITY_REF = re.compile(r"&([^#;\s&][^;\s&]*);")


def _byte_view(data: bytes) -> tuple[str, int]:
    """How to find ASCII marks in the bytes of an XML document: its codec for that, and its code-unit size."""
    if data[:2] in (b"\xff\xfe", b"<\x00"):
        return "utf-16-le", 2
    if data[:2] in (b"\xfe\xff", b"\x00<"):
        return "utf-16-be", 2
    return "latin-1", 1  # UTF-8 and the other encodings expat reads keep ASCII as it is


def _find_unit(data: bytes, mark: bytes, start: int, end: int, unit: int) -> int:
    """The first ``mark`` in ``data[start:end]`` on a code-unit boundary, or -1."""
    pos = data.find(mark, start, end)
    while pos >= 0 and (pos - start) % unit:
        pos = data.find(mark, pos + 1, end)
    return pos


class _XMLTree:
    """expat's handlers for one document: the builder's events and the guards of the module documentation."""

    def __init__(self, data: bytes, name: str, builder: _Builder, xhtml_entities: bool) -> None:
        self.data, self.name, self.builder = data, name, builder
        self.allow_xhtml = xhtml_entities
        self.xhtml = False  # a DOCTYPE names an XHTML DTD (and xhtml_entities is on)
        self.external = False  # a DOCTYPE names an external DTD: expat then drops undefined entities in attributes
        self.codec, self.unit = _byte_view(data)
        self.lt, self.amp = "<".encode(self.codec), "&".encode(self.codec)
        self.parser = parser = expat.ParserCreate(namespace_separator=" ")
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartElementHandler = self.start
        parser.EndElementHandler = lambda _qname: builder.end()
        parser.CharacterDataHandler = builder.data
        parser.StartDoctypeDeclHandler = self.doctype
        parser.EntityDeclHandler = self.entity_decl
        parser.UnparsedEntityDeclHandler = self.unparsed_decl
        parser.ExternalEntityRefHandler = self.external_ref
        parser.SkippedEntityHandler = self.skipped
        parser.buffer_text = True
        parser.ordered_attributes = False

    def where(self) -> str:
        return f"{self.name}:{self.parser.CurrentLineNumber}:{self.parser.CurrentColumnNumber + 1}"

    def start(self, qname: str, attrs: dict[str, str]) -> None:
        ns, local = _split(qname)
        if self.external:
            self.check_attributes(local)
        if attrs and any(" " in k for k in attrs):
            named = {}
            for key, value in attrs.items():
                a_ns, a_local = _split(key)
                named[f"{{{a_ns}}}{a_local}" if a_ns else a_local] = value
            attrs = named
        p = self.parser
        self.builder.start(ns, local, attrs, p.CurrentLineNumber, p.CurrentColumnNumber + 1)

    def check_attributes(self, local: str) -> None:
        """Refuse an entity reference in the attributes of this start tag: with an external DTD, which
        semcer does not read, expat leaves it out of the value without a word."""
        data, unit, index = self.data, self.unit, self.parser.CurrentByteIndex
        end = _find_unit(data, self.lt, index + unit, len(data), unit)
        end = len(data) if end < 0 else end
        if _find_unit(data, self.amp, index, end, unit) < 0:
            return
        tag = _START_TAG.match(data[index:end].decode(self.codec, "replace"))
        for ref in _ENTITY_REF.finditer(tag.group() if tag else ""):
            entity = ref.group(1)
            if entity in _PREDEFINED:
                continue
            if self.xhtml and entity in name2codepoint:
                raise InputError(f"{self.where()}: entity {ref.group()} in an attribute of <{local}>: semcer reads "
                                 "XHTML's named entities in text only: write the character itself or the character "
                                 f"reference &#{name2codepoint[entity]};")
            raise InputError(_undefined(self.where(), ref.group(), f"in an attribute of <{local}>; semcer reads no DTD"))

    def doctype(self, _name: str, system_id: str | None, public_id: str | None, _internal: bool) -> None:
        self.external = bool(system_id or public_id)
        self.xhtml = self.allow_xhtml and (public_id or "").startswith(XHTML_PUBLIC_ID)

    def entity_decl(self, entity: str, is_parameter: bool, value: str | None, base: str | None,
                    system_id: str | None, public_id: str | None, notation: str | None) -> None:
        raise InputError(_declared(self.where(), entity, is_parameter, bool(system_id or public_id)))

    def unparsed_decl(self, entity: str, *_: object) -> None:
        raise InputError(f"{self.where()}: the DTD declares an unparsed external entity {entity!r}; semcer reads no "
                         "external entities: remove the declaration")

    def external_ref(self, *_: object) -> int:
        raise InputError(f"{self.where()}: the document refers to an external entity; semcer reads nothing outside "
                         "the file: remove the reference")

    def skipped(self, entity: str, is_parameter: bool) -> None:
        if self.xhtml and not is_parameter and entity in name2codepoint:
            self.builder.data(chr(name2codepoint[entity]))  # one character from a fixed table: nothing is expanded
            return
        raise InputError(_undefined(self.where(), f"{'%' if is_parameter else '&'}{entity};", "semcer reads no DTD"))


def parse_xml(data: bytes, name: str, *, max_bytes: int = MAX_BYTES, max_elements: int = MAX_ELEMENTS,
              max_depth: int = MAX_DEPTH, xhtml_entities: bool = False) -> Node:
    """The root element of the XML document ``data`` (read from ``name``, for messages), parsed
    with the guards of the module documentation. ``xhtml_entities``: in a document whose DOCTYPE
    names an XHTML DTD (public id ``-//W3C//DTD XHTML ...``), a reference in text to one of the
    HTML named entities (``&nbsp;``, ``&eacute;``: :data:`html.entities.name2codepoint`, XHTML
    1.0's entity sets) is read as its character; the DTD is still not read. Raises InputError for
    anything refused."""
    check_size(len(data), name, max_bytes)
    builder = _Builder(name, max_elements, max_depth)
    tree = _XMLTree(data, name, builder, xhtml_entities)
    try:
        tree.parser.Parse(data, True)
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
        if not self.builder.stack:
            self._after_the_end(f"an element <{tag}>", line, col)
        self.builder.start("", tag, {k: v or "" for k, v in attrs}, line, col + 1)
        if tag in _VOID:
            self.builder.end()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line, col = self.getpos()
        if not self.builder.stack:
            self._after_the_end(f"an element <{tag}>", line, col)
        self.builder.start("", tag, {k: v or "" for k, v in attrs}, line, col + 1)
        self.builder.end()

    def handle_endtag(self, tag: str) -> None:
        stack = self.builder.stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i].name == tag:
                del stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if not self.builder.stack and data.strip():
            self._after_the_end("text", *self.getpos())
        self.builder.data(data)

    def _after_the_end(self, what: str, line: int, col: int) -> None:
        """Refuse what comes after the root element has closed (it would belong to no element: lost)."""
        root = self.builder.root
        if root is not None and not self.builder.stack:
            raise InputError(f"{self.builder.name}:{line}:{col + 1}: {what} after the end of the document (its "
                             f"<{root.name}> element is closed): an hOCR file is one HTML document; remove what "
                             "follows, or make it a file of its own")


#: Left open at the end of an HTML file without anything lost: they hold no text of the page.
_OPEN_AT_END = frozenset({"html", "head"})


def _check_closed(builder: _Builder, text: str) -> None:
    """Refuse an HTML file that ends inside an element other than ``html`` and ``head``: it is cut short
    (every hOCR writer ends the file with ``</body></html>``), and what is missing would be missed silently."""
    open_ = [n for n in builder.stack if n.name not in _OPEN_AT_END]
    if not open_:
        return
    node = open_[-1]
    described = "".join(f" {k}={quoted(v)}" for k in ("class", "id") if (v := node.get(k)) is not None)
    raise InputError(f"{_where(text, len(text), builder.name)}: the HTML ends inside <{node.name}{described}> "
                     f"(opened at line {node.line}, column {node.column}): the file is cut short (an hOCR file ends "
                     "with </body></html>); write it again in full")


#: What :func:`_check_html_entities` looks at: a comment's start, an entity declaration (its
#: parameter sign, name and the rest), an entity reference, a character reference (as
#: ``html.unescape`` reads them: the ``;`` may be left out).
_HTML_ENTITY = re.compile(r"(?P<comment><!--)|<!ENTITY\s+(?P<pe>%\s*)?(?P<decl>[^\s>]*)(?P<rest>[^>]*)"
                          r"|&(?P<entity>[A-Za-z][A-Za-z0-9]*);|&#(?:[xX](?P<hex>[0-9A-Fa-f]+)|(?P<dec>[0-9]+));?",
                          re.IGNORECASE)
_EXTERNAL = re.compile(r"\s*(SYSTEM|PUBLIC)\b", re.IGNORECASE)


def _bad_character(m: re.Match[str]) -> str | None:
    """Why the character reference ``m`` is refused (``html.unescape`` would silently make it U+FFFD
    or drop it), or None."""
    digits = m.group("hex") or m.group("dec")
    num = int(digits, 16 if m.group("hex") else 10) if len(digits.lstrip("0")) <= 8 else 0x110000
    if num == 0:
        return "the NUL character (U+0000), which is not text (HTML would read it as U+FFFD)"
    if 0xD800 <= num <= 0xDFFF:
        return f"a lone surrogate (U+{num:04X}), not valid Unicode text (HTML would read it as U+FFFD)"
    if num > 0x10FFFF:
        return "beyond Unicode, whose last code point is U+10FFFF (HTML would read it as U+FFFD)"
    if not unescape(f"&#{num};"):
        return f"U+{num:04X}, a character that HTML does not allow in a document (HTML would drop it)"
    return None


def _check_html_entities(text: str, name: str) -> None:
    """Refuse, outside comments, an entity declaration and a reference ``&name;`` that HTML does not
    define (``html.unescape`` leaves it as it is): ``html.parser`` would keep either as literal text,
    silently changing what the page says; and a character reference that ``html.unescape`` would
    turn into U+FFFD or drop (:func:`_bad_character`)."""
    checked: dict[str, bool] = {}
    pos = 0
    while (m := _HTML_ENTITY.search(text, pos)) is not None:
        pos = m.end()
        if m.group("comment"):
            end = text.find("-->", pos)
            if end < 0:
                return
            pos = end + 3
        elif m.group("decl") is not None:
            external = _EXTERNAL.match(m.group("rest")) is not None
            raise InputError(_declared(_where(text, m.start(), name), m.group("decl"), bool(m.group("pe")), external))
        elif m.group("entity") is not None:
            if not checked.setdefault(m.group(), unescape(m.group()) != m.group()):
                raise InputError(_undefined(_where(text, m.start(), name), m.group(),
                                            "HTML has no such entity, and semcer reads no DTD"))
        elif m.group() not in checked:
            if (why := _bad_character(m)) is not None:
                raise InputError(f"{_where(text, m.start(), name)}: character reference {_name(m.group())} is {why}: "
                                 "remove it, or write the character it stands for")
            checked[m.group()] = True


def _where(text: str, offset: int, name: str) -> str:
    """``name:line:column`` (both 1-based) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return f"{name}:{line}:{column}"


def parse_html(text: str, name: str, *, max_elements: int = MAX_ELEMENTS, max_depth: int = MAX_DEPTH) -> Node:
    """The root element of an HTML document (the outermost element; ``<html>`` in an hOCR file).
    Element names are lower-case, as ``html.parser`` reports them. Entity declarations, undefined
    entity references and character references to no character are refused first
    (:func:`_check_html_entities`); a document that ends inside an element (other than ``html`` and
    ``head``) or goes on after its root element closes is refused."""
    _check_html_entities(text, name)
    builder = _Builder(name, max_elements, max_depth)
    tree = _HTMLTree(builder)
    tree.feed(text)
    tree.close()
    if builder.root is None:
        raise InputError(f"{name}: no HTML element found; an hOCR file is an HTML page")
    _check_closed(builder, text)
    return builder.root
