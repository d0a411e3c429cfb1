"""Which markup format a document is, from its start (no parsing, never raises): the one rule
for a single file (:func:`semcer.io.collections.detect_format`), a file of a directory and
:func:`semcer.io.formats.parse_page`.

Rules, on the text of the first bytes (UTF-8, or UTF-16 with a byte-order mark; a leading BOM,
the XML declaration, comments, processing instructions and a DOCTYPE are skipped to reach the
root element). Only the root element's start tag is looked at (its name and the namespace it
declares for itself), never text further on, so a page whose text mentions another format's
namespace keeps its own format:

- ``"page-xml"``: the root element is ``PcGts``, or it is in a PAGE namespace
  (``http://schema.primaresearch.org/PAGE/gts/pagecontent/<date>``: 2013-07-15, 2019-07-15, and the
  older 2009-03-16, 2010-01-12, 2010-03-19, 2017-07-15, 2018-07-15);
- ``"alto"``: the root element is ``alto``, or it is in an ALTO namespace
  (``http://www.loc.gov/standards/alto/ns-v2#``, ``ns-v3#``, ``ns-v4#``, ``http://www.loc.gov/standards/alto/``
  for v1 drafts, ``http://schema.ccs-gmbh.com/ALTO``);
- (``PcGts`` and ``alto`` are matched in any case, so that the page reader names a miscased root);
- ``"hocr"``: the root element is ``html`` (or the document declares ``<!DOCTYPE html``) and
  the head holds a tag whose ``class`` has an hOCR class (``ocr_page``, ``ocr_carea``, ``ocr_par``,
  ``ocr_line``, ``ocrx_word``, ...: any ``ocr_``/``ocrx_`` class, possibly among other classes) or a
  ``<meta name="ocr-system">`` (or ``ocr-capabilities``), as Tesseract writes them;
- ``"html"``: other HTML; ``"xml"``: any other root element, or an XML declaration or DOCTYPE
  with no root element after it;
- ``None``: not markup (text not starting with ``<`` and an element name: ``<3``, ``{"id": ...}``).

Pass at least the first 64 KiB: Tesseract's first hOCR class comes after a head of about
600 bytes, but other producers write longer heads.
"""

from __future__ import annotations

import re

__all__ = ["ALTO_NAMESPACES", "PAGE_FORMATS", "PAGE_NAMESPACE_PREFIX", "detect_markup", "detect_xml_format"]

PAGE_NAMESPACE_PREFIX = "http://schema.primaresearch.org/PAGE/gts/pagecontent/"
#: ALTO namespace -> major version.
ALTO_NAMESPACES = {
    "http://www.loc.gov/standards/alto/ns-v2#": "2",
    "http://www.loc.gov/standards/alto/ns-v3#": "3",
    "http://www.loc.gov/standards/alto/ns-v4#": "4",
    "http://www.loc.gov/standards/alto/": "1",
    "http://schema.ccs-gmbh.com/ALTO": "1",
}
#: The markup formats read as pages.
PAGE_FORMATS = ("page-xml", "alto", "hocr")
_HEAD = 1 << 20  # the most that detection looks at

_PROLOG = re.compile(r"(?:\s+|<\?.*?\?>|<!--.*?-->|<!doctype\b[^>\[]*(?:\[.*?\])?\s*>)*", re.S | re.I)
_ROOT = re.compile(r"<([A-Za-z_][\w.\-]*)(?::([A-Za-z_][\w.\-]*))?")
# each pattern is anchored at white space or ``<`` and stops at its delimiter, so that a hostile head
# (a megabyte of one tag's attributes, unclosed) is scanned in linear time
_XMLNS = re.compile(r"""\sxmlns(?::([A-Za-z_][\w.\-]*))?\s*=\s*(?:"([^"<]*)"|'([^'<]*)')""")
_DECLARED = re.compile(r"<(?:\?xml\b|!doctype\b)", re.I)
_DOCTYPE_HTML = re.compile(r"<!doctype\s+html\b", re.I)
_TAG = re.compile(r"<[A-Za-z][^<>]*")  # a start tag, not escaped text (``&lt;span class="ocr_line"``)
_CLASS = re.compile(r"""\sclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>=`]+))""", re.I)
_HOCR_CLASS = re.compile(r"(?:^|\s)ocrx?_\w")
_HOCR_META = re.compile(r"""<meta\b[^<>]*?\sname\s*=\s*["']?ocr-(?:system|capabilities)\b""", re.I)


def _decode(head: bytes) -> str:
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", "replace")
    return head.decode("utf-8", "replace")


def detect_xml_format(first_bytes: bytes) -> str | None:
    """``"page-xml"``, ``"alto"``, ``"hocr"`` or None for the first bytes of a file (rules above)."""
    found = detect_markup(_decode(first_bytes[:_HEAD]))
    return found if found in PAGE_FORMATS else None


def detect_markup(text: str) -> str | None:
    """``"page-xml"``, ``"alto"``, ``"hocr"``, ``"html"``, ``"xml"`` or None (not markup) for the
    decoded start of a document (rules above; a leading BOM is skipped)."""
    text = text[:_HEAD].lstrip("\ufeff")
    prolog = _PROLOG.match(text)
    end = prolog.end() if prolog else 0
    m = _ROOT.match(text, end)
    html_doctype = _DOCTYPE_HTML.search(text, 0, end) is not None
    if m is None:
        if not _DECLARED.match(text.lstrip()):
            return None  # "<3", "< 5", text: not markup
        return "html" if html_doctype else "xml"
    prefix, local = (m.group(1), m.group(2)) if m.group(2) else (None, m.group(1))
    close = text.find(">", m.end())
    ns = _namespace(text, m.end(), close if close >= 0 else len(text), prefix)
    if local.lower() == "pcgts" or ns.startswith(PAGE_NAMESPACE_PREFIX):
        return "page-xml"
    if local.lower() == "alto" or ns in ALTO_NAMESPACES:
        return "alto"
    if local.lower() == "html" or html_doctype:
        return "hocr" if _has_hocr_class(text) or _HOCR_META.search(text) else "html"
    return "xml"


def _namespace(text: str, start: int, end: int, prefix: str | None) -> str:
    """The namespace the root tag ``text[start:end]`` declares for its own prefix (or the default one)."""
    for a in _XMLNS.finditer(text, start, end):
        if a.group(1) == prefix:
            return a.group(2) if a.group(2) is not None else a.group(3)
    return ""


def _has_hocr_class(text: str) -> bool:
    """Whether a start tag of ``text`` has an hOCR class (``ocr_*``, ``ocrx_*``) among its classes."""
    if "ocr" not in text:
        return False
    for tag in _TAG.finditer(text):
        if text.find("ocr", tag.start(), tag.end()) < 0:
            continue
        for a in _CLASS.finditer(text, tag.start(), tag.end()):
            if _HOCR_CLASS.search(a.group(1) or a.group(2) or a.group(3) or ""):
                return True
    return False
