"""Provenance of edits: the page element (region or line) each side of an edit falls in.

An item read from a page file is either the whole page (its text the segments joined by
:data:`~semcer.io.formats.page.SEPARATOR`) or one of its segments (``--by-line``: id
``<page>#<element id>``). :class:`Provenance` knows, for each item id and each side, which: it is
built by :func:`semcer.io.pairing.pair_collections` from the two collections' pages and carried on
the :class:`semcer.io.pairing.Paired`, and :meth:`Provenance.attach` gives each judged edit its
``ref_element`` and ``hyp_element`` (:class:`semcer.store.judging.JudgedEdit`).

**A segment item**: every edit of it is in that element, on each side (the output side has none
when the output had no such item, ``--unmatched empty``).

**A whole page**: an edit's side is in the element its *original* code points are in, those of the
page text before the text policy changed it. The edit's unit position (``ref_pos``/``hyp_pos``, an
index into the policy-applied units) is taken back to the page text in the first way that applies:

1. the policy left the page text as it was (NFC text under ``nfc``, the usual case): the units'
   own offsets are the original ones;
2. each segment's text put through the policy on its own, joined by the separator, gives the
   policy-applied page text (every step that works within grapheme clusters, as ``nfc``,
   ``nfkc``, ``casefold``, ``dinglehopper`` and ``filter`` do, and ``strip-markdown`` on text
   without markup across lines): a unit comes from the segment whose policy-applied text holds it;
3. otherwise the policy's offset map (:meth:`semcer.text.policy.TextPolicy.offset_map`, per unit as
   :func:`semcer.alignment.edits.unit_spans` does; ``trim``, ``collapse-ws`` and ``remove-ws``,
   which change the separators or the segments' ends); a policy that has none for this text
   (``strip-markdown`` across lines) leaves that side without an element.

:func:`~semcer.io.formats.page.elements_in` then names the segment:

- a unit (the reference of a substitution or deletion, the output of a substitution or insertion):
  the segment holding it (the first, should a unit reach over two); none when the unit is the
  separator itself (a line break the output inserted, or one between two segments it lost);
- an empty side (the reference of an insertion, the output of a deletion) stands where the next
  unit starts (or at the end of the text): the segment holding that place, else the segment that
  ends there (an insertion at the end of a line goes to that line); none when it stands between
  two separators;
- but the empty side of a line break lost or inserted (the other side's unit is ``\n``) is in a
  segment only when it stands inside that segment's text: at a segment's start or end the break
  is between two elements (or at the page's edge), in neither, as the separator's own side is
  (a reference ``abc\n\ndef`` against an output of two paragraphs ``abc`` and ``def``: the blank
  line lost has no output element, wherever the aligner's tie puts it, after ``abc`` or before
  ``def``; a break lost inside one output paragraph, ``ab\ncd`` against ``abcd``, is that
  paragraph's).

A side whose text is not from a page file (JSONL, plain text) has no element. Which element is a
question of where, not of scoring: no number depends on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from semcer.alignment.edits import unit_spans
from semcer.io.formats.page import SEPARATOR, Page, Segment, Skipped, build_page, element_at, elements_in
from semcer.store.judging import JudgedEdit
from semcer.text.policy import TextPolicy
from semcer.text.units import Unit, segment

if TYPE_CHECKING:
    from semcer.store.judging import Element

__all__ = ["Provenance", "item_origins"]

#: Where one side of an item came from: its page (the item is the whole page) or its element.
Origin = Any


def item_origins(ids: Iterable[str], pages: Mapping[str, Page]) -> dict[str, Origin]:
    """Item id -> its :class:`Page` (an item that is a whole page: its id is the page's key) or its
    element (an item ``<key>#<element id>`` that is one segment, or a segment without text), for
    the items ``ids`` of a collection whose page files are ``pages`` (key -> page)."""
    if not pages:
        return {}
    have = set(ids)
    out: dict[str, Origin] = {}
    for key, page in pages.items():
        if key in have:
            out[key] = page
            continue
        elements: tuple[Segment | Skipped, ...] = (*page.segments, *page.skipped)
        for el in elements:
            if el.id is not None and (iid := f"{key}#{el.id}") in have:
                out.setdefault(iid, el)
    return out


@dataclass(frozen=True)
class Provenance:
    """Per item id, where its reference and its output came from (see the module documentation)."""

    refs: Mapping[str, Origin]
    hyps: Mapping[str, Origin]

    def __bool__(self) -> bool:
        return bool(self.refs or self.hyps)

    def attach(self, judged: Sequence[JudgedEdit], unit: Unit, policy: TextPolicy) -> list[JudgedEdit]:
        """``judged`` (a line's edits together, as in corpus order) with each edit's ``ref_element``
        and ``hyp_element``."""
        out = []
        line, r, h = None, None, None
        for j in judged:
            if j.line_id != line:
                line, r, h = j.line_id, self._side(self.refs, j.line_id, unit, policy), \
                    self._side(self.hyps, j.line_id, unit, policy)
            if r is None and h is None:
                out.append(j)
                continue
            out.append(JudgedEdit(j.line_id, j.doc, j.lang, j.edit, j.context, j.judgement, *_elements(r, h, j.edit)))
        return out

    def elements(self, line_id: str, edits: Sequence[Any], unit: Unit, policy: TextPolicy
                 ) -> list[tuple[Element | None, Element | None]]:
        """The (reference, output) element of each of one line's edits."""
        r, h = self._side(self.refs, line_id, unit, policy), self._side(self.hyps, line_id, unit, policy)
        return [_elements(r, h, e) for e in edits]

    @staticmethod
    def _side(origins: Mapping[str, Origin], line_id: str, unit: Unit, policy: TextPolicy) -> Any:
        origin = origins.get(line_id)
        if origin is None:
            return None
        if isinstance(origin, Page):
            return _PageUnits(origin, unit, policy)
        return _Fixed(origin)


def _elements(r: Any, h: Any, e: Any) -> tuple[Element | None, Element | None]:
    """The (reference, output) element of edit ``e`` from its sides' origins (None: no element)."""
    return (None if r is None else r.element(e.ref_pos, e.op != "I", e.ref_unit, e.op == "I" and e.hyp_unit == SEPARATOR),
            None if h is None else h.element(e.hyp_pos, e.op != "D", e.hyp_unit, e.op == "D" and e.ref_unit == SEPARATOR))


class _Fixed:
    """A segment item: every edit is in its element."""

    def __init__(self, element: Element) -> None:
        self._element = element

    def element(self, pos: int, has_unit: bool, unit: str, lost_break: bool = False) -> Element | None:
        return self._element


class _PageUnits:
    """A whole page: where each policy-applied unit is in the page text (or in a page made of the
    segments' policy-applied texts), and the page to look it up in (see the module documentation)."""

    def __init__(self, page: Page, unit: Unit, policy: TextPolicy) -> None:
        text = page.text
        applied = policy(text)
        self.units = segment(applied, unit)
        self.page: Page | None = page
        self.spans: list[tuple[int, int]] | None = None
        self.starts: list[int] | None = None  # each unit's offset in the text (None: unit k is at k)
        self.original: dict[int, Segment] = {}  # the page's segments by their stand-ins in self.page
        if applied != text:
            pieces = [(s.id, policy(s.text), s.kind, s.bbox, s.parent, s.line, s.column) for s in page.segments]
            if SEPARATOR.join(p[1] for p in pieces) == applied:  # each segment's units are its own
                self.page = build_page(page.file, page.format, page.version, page.level, page.dialect, pieces, [])
                self.original = dict(zip(map(id, self.page.segments), page.segments))
            else:
                cp_map = policy.offset_map(text)
                if cp_map is None:
                    self.page = None
                else:
                    self.spans = unit_spans(self.units, cp_map)
                return
        if type(self.units) is not str:
            self.starts = [0, *accumulate(map(len, self.units))]

    def _span(self, pos: int) -> tuple[int, int]:
        """The span of unit ``pos`` (``pos`` past the last unit: the empty span at the end)."""
        n = len(self.units)
        if self.spans is not None:  # as semcer.alignment.edits.with_spans places an empty side
            spans = self.spans
            if pos < n:
                return spans[pos]
            end = spans[-1][1] if spans else len(self.page.text) if self.page is not None else 0
            return (end, end)
        if self.starts is not None:
            at = self.starts
            return (at[pos], at[pos + 1]) if pos < n else (at[n], at[n])
        return (pos, pos + 1) if pos < n else (n, n)

    def element(self, pos: int, has_unit: bool, unit: str, lost_break: bool = False) -> Element | None:
        """The element of unit ``pos`` (``has_unit``, the unit ``unit``), or of the empty side standing
        before it; ``lost_break``: that empty side faces a line break on the other side, so it is in
        an element only strictly inside one (see the module documentation)."""
        page = self.page
        if page is None:
            return None
        if has_unit:
            if pos >= len(self.units) or self.units[pos] != unit:
                return None  # not the units that were aligned (cannot happen with the same text and policy)
            a, b = self._span(pos)
        else:
            a = b = self._span(pos)[0]
            if lost_break:
                inside = element_at(page, a)
                return None if inside is None or inside.start == a else self.original.get(id(inside), inside)
        found = elements_in(page, a, b)
        if not found:
            return None
        return self.original.get(id(found[0]), found[0])
