"""Which page format a file is, from its first bytes (no parsing, never raises).

Rules, on the text of the first bytes (UTF-8, or UTF-16 with a byte-order mark; a leading BOM,
the XML declaration, comments, processing instructions and a DOCTYPE are skipped to reach the
root element):

- ``"page-xml"``: the root element is ``PcGts``, or it is in a PAGE namespace
  (``http://schema.primaresearch.org/PAGE/gts/pagecontent/<date>``: 2013-07-15, 2019-07-15, and the
  older 2009-03-16, 2010-01-12, 2010-03-19, 2017-07-15, 2018-07-15);
- ``"alto"``: the root element is ``alto``, or it is in an ALTO namespace
  (``http://www.loc.gov/standards/alto/ns-v2#``, ``ns-v3#``, ``ns-v4#``, ``http://www.loc.gov/standards/alto/``
  for v1 drafts, ``http://schema.ccs-gmbh.com/ALTO``);
- ``"hocr"``: the root element is ``html`` (or the document declares ``<!DOCTYPE html``) and
  the bytes hold ``class="ocr_page"`` (any quotes, possibly among other classes) or a
  ``<meta name="ocr-system">``, as Tesseract writes them;
- ``None`` for anything else (other XML, HTML that is not hOCR, text, binary data).

Pass at least the first 64 KiB: Tesseract's ``ocr_page`` element comes after a head of about
600 bytes, but other producers write longer heads.
"""

from __future__ import annotations

import re

__all__ = ["ALTO_NAMESPACES", "PAGE_NAMESPACE_PREFIX", "detect_xml_format"]

PAGE_NAMESPACE_PREFIX = "http://schema.primaresearch.org/PAGE/gts/pagecontent/"
#: ALTO namespace -> major version.
ALTO_NAMESPACES = {
    "http://www.loc.gov/standards/alto/ns-v2#": "2",
    "http://www.loc.gov/standards/alto/ns-v3#": "3",
    "http://www.loc.gov/standards/alto/ns-v4#": "4",
    "http://www.loc.gov/standards/alto/": "1",
    "http://schema.ccs-gmbh.com/ALTO": "1",
}

_PROLOG = re.compile(r"(?:\s+|<\?.*?\?>|<!--.*?-->|<!doctype\b[^>\[]*(?:\[.*?\])?\s*>)*", re.S | re.I)
_ROOT = re.compile(r"<([A-Za-z_][\w.\-]*)(?::([A-Za-z_][\w.\-]*))?")
_ATTR = re.compile(r"([^\s=>/]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_DOCTYPE_HTML = re.compile(r"<!doctype\s+html\b", re.I)
_HOCR_CLASS = re.compile(r"""\bclass\s*=\s*(?:"[^"]*\bocr_page\b[^"]*"|'[^']*\bocr_page\b[^']*')""")
_HOCR_META = re.compile(r"""<meta\b[^>]*\bname\s*=\s*["']ocr-system["']""", re.I)


def _decode(head: bytes) -> str:
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", "replace")
    return head.decode("utf-8", "replace")


def detect_xml_format(first_bytes: bytes) -> str | None:
    """``"page-xml"``, ``"alto"``, ``"hocr"`` or None for the first bytes of a file (rules above)."""
    text = _decode(first_bytes[: 1 << 20])
    prolog = _PROLOG.match(text)
    rest = text[prolog.end():] if prolog else text
    m = _ROOT.match(rest)
    if m is None:
        return None
    prefix, local = (m.group(1), m.group(2)) if m.group(2) else (None, m.group(1))
    close = rest.find(">", m.end())
    tag = rest[m.end(): close if close >= 0 else len(rest)]
    attrs = {a.group(1): a.group(2) if a.group(2) is not None else a.group(3) for a in _ATTR.finditer(tag)}
    ns = attrs.get(f"xmlns:{prefix}" if prefix else "xmlns", "")
    if local == "PcGts" or ns.startswith(PAGE_NAMESPACE_PREFIX):
        return "page-xml"
    if local == "alto" or ns in ALTO_NAMESPACES:
        return "alto"
    is_html = local.lower() == "html" or (prolog is not None and _DOCTYPE_HTML.search(text, 0, prolog.end()) is not None)
    if is_html and (_HOCR_CLASS.search(text) or _HOCR_META.search(text)):
        return "hocr"
    return None
