"""Pages -> semcer items (:class:`semcer.io.collections.Item`) for scoring.

**Granularity.** ``"page"``: one item per page, its text the page text (the segments joined by
``\\n``), its ``source`` the file name; an edit's original offsets then trace back to an element
with :func:`semcer.io.formats.element_at`. ``"segment"``: one item per segment (line or region),
its id ``<page id>#<element id>``, its ``source`` ``<file>:<element id>``. ``"auto"``
(:func:`paired_items`): per segment when the two pages have the same segment ids (every segment
has an id, no id twice, the same set on both sides, segments without text included), else per
page, with the reason.

Per segment, the segments without text (:attr:`Page.skipped`, reason "no text") are items too,
with an empty text, so that an output line the reference leaves empty (or the reverse) is seen;
a segment empty on both sides is left out (there is nothing to compare; the empty-reference
policy would otherwise stop on it).

**Documents.** Page items take ``doc`` (default None: each page its own document). Segment items
take ``doc`` too, and default to the page id: a page's lines make one document, so the document
mean is a mean over pages, as in dinglehopper's per-page CER.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from semcer.errors import InputError, quoted
from semcer.io.formats.page import LINE_KINDS, NO_TEXT, REGION_KINDS, Page

if TYPE_CHECKING:
    from semcer.io.collections import Item

__all__ = ["PairedItems", "page_items", "paired_items", "segment_texts"]

GRANULARITIES = ("page", "segment", "auto")


def _item(id_: str, text: str, doc: str | None, source: str) -> Item:
    from semcer.io.collections import Item  # here, not at import: io.collections may import this package

    return Item(id=id_, text=text, doc=doc, lang=None, source=source)


def segment_texts(page: Page) -> dict[str, str]:
    """Element id -> text of every segment of ``page`` with an id, segments without text included
    (with ``""``). Raises InputError when a segment has no id or an id appears twice."""
    out: dict[str, str] = {}
    entries = [(s.id, s.text, s.line, s.column) for s in page.segments]
    kinds = LINE_KINDS if page.level == "line" else REGION_KINDS
    entries += [(s.id, "", s.line, s.column) for s in page.skipped if s.reason == NO_TEXT and s.kind in kinds]
    for id_, text, line, column in entries:
        if id_ is None:
            raise InputError(f"{page.file}:{line}:{column}: a {page.level} has no id, so it cannot be matched line by "
                             "line; score the page as a whole")
        if id_ in out:
            raise InputError(f"{page.file}:{line}:{column}: id {quoted(id_)} is used twice; ids must be unique to "
                             "match line by line")
        out[id_] = text
    return out


def page_items(page: Page, *, id: str, doc: str | None = None, granularity: str = "page") -> list[Item]:
    """Items of one page: one (``granularity="page"``) or one per segment (``"segment"``, segments
    without text included with an empty text)."""
    if granularity == "page":
        return [_item(id, page.text, doc, page.file)]
    if granularity != "segment":
        raise InputError(f"unknown granularity {granularity!r}; choose 'page' or 'segment'")
    doc = doc if doc is not None else id
    return [_item(f"{id}#{sid}", text, doc, f"{page.file}:{sid}") for sid, text in segment_texts(page).items()]


@dataclass(frozen=True)
class PairedItems:
    """The items of a reference page and an output page, id for id."""

    refs: list[Item]
    hyps: list[Item]
    granularity: str  # "page" or "segment"
    reason: str  # why per page when per segment was possible to ask for ("" when per segment)


def paired_items(ref: Page, hyp: Page, *, id: str, doc: str | None = None, granularity: str = "auto") -> PairedItems:
    """Items of a reference page and its output (rules in the module documentation). With
    ``granularity="segment"`` the ids must match (an InputError names the first that does not)."""
    if granularity not in GRANULARITIES:
        raise InputError(f"unknown granularity {granularity!r}; choose one of {', '.join(GRANULARITIES)}")
    if granularity == "page":
        return PairedItems(page_items(ref, id=id, doc=doc), page_items(hyp, id=id, doc=doc), "page", "asked for")
    reason = ""
    try:
        rt, ht = segment_texts(ref), segment_texts(hyp)
    except InputError as exc:
        if granularity == "segment":
            raise
        rt = ht = {}
        reason = str(exc)
    if not reason:
        only_ref = [k for k in rt if k not in ht]
        only_hyp = [k for k in ht if k not in rt]
        if only_ref or only_hyp:
            first = (f"{only_ref[0]!r} only in {ref.file}" if only_ref else f"{only_hyp[0]!r} only in {hyp.file}")
            reason = (f"segment ids differ ({len(only_ref)} only in the reference, {len(only_hyp)} only in the output; "
                      f"first: {first})")
            if granularity == "segment":
                raise InputError(f"{ref.file}: cannot match {ref.level}s by id: {reason}")
        elif not rt:
            reason = "no segments"
    if reason:
        return PairedItems(page_items(ref, id=id, doc=doc), page_items(hyp, id=id, doc=doc), "page", reason)
    doc = doc if doc is not None else id
    refs, hyps = [], []
    for sid, rtext in rt.items():
        htext = ht[sid]
        if not rtext and not htext:
            continue
        refs.append(_item(f"{id}#{sid}", rtext, doc, f"{ref.file}:{sid}"))
        hyps.append(_item(f"{id}#{sid}", htext, doc, f"{hyp.file}:{sid}"))
    return PairedItems(refs, hyps, "segment", "")
