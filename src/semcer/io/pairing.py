"""Pair reference and output collections by id, under the ``unmatched`` policy."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from semcer.alignment.engine import Pair
from semcer.errors import QUOTE_LIMIT, InputError, quoted
from semcer.io.collections import Collection, Item, check_unique, text_page
from semcer.io.formats.provenance import Provenance, item_origins
from semcer.text.script import canonical_lang

__all__ = ["UNMATCHED_POLICIES", "Paired", "SidesDisagree", "check_unmatched", "pair_collections", "pair_fields",
           "reading_fields"]

#: What an id present on one side only does.
UNMATCHED_POLICIES: dict[str, str] = {
    "error": "default: stop with an error listing the ids present on one side only",
    "drop": "drop them and report how many were dropped on each side",
    "empty": "score a reference without an output as an empty output, an empty output file included (all "
    "deletions: a system that returned nothing must not look better by being dropped); outputs without a reference are "
    "dropped and counted",
}

_SHOW_IDS = 5  # how many unmatched ids an error message lists per side


@dataclass(frozen=True)
class Paired:
    """Matched pairs in reference order, plus the ids dropped for having no partner, and, when a side
    was read from page files, where each pair's texts came from (their pages or elements:
    :class:`semcer.io.formats.provenance.Provenance`; None otherwise). ``unmatched`` and ``reading``
    are what the signature records of the pairing and the reading (:func:`reading_fields`)."""

    pairs: tuple[Pair, ...]
    dropped_refs: tuple[str, ...]  # ids only in the references (unmatched="drop")
    dropped_hyps: tuple[str, ...]  # ids only in the outputs (unmatched="drop" or "empty")
    empty_hyps: tuple[str, ...] = ()  # references scored against an empty output (unmatched="empty")
    provenance: Provenance | None = None
    unmatched: str = "error"  # the policy the ids were paired under
    reading: tuple[tuple[str, str], ...] = ()



def pair_collections(refs: Collection, hyps: Collection, *, unmatched: str = "error") -> Paired:
    """Match each reference with the output of the same id, in reference order.

    Ids present on one side only are an error by default (a missing output would otherwise be
    silently ignored); ``unmatched="drop"`` drops them and records their ids, so the caller can
    report how many were dropped; ``unmatched="empty"`` scores a reference that has no output against
    an empty output (and drops outputs without a reference), an empty output collection included
    (a system that returned nothing), while an empty reference collection is always an error. A
    pair's doc and lang are :func:`pair_fields`'s: the same id with a different doc or lang on the
    two sides is an error.

    Two single files pair as one page where one of them is a page file read one item per page
    (:func:`_one_page_each`). Pages read one item per element (``--by-line``) pair their elements by
    id: a page on both sides whose elements share no id is refused under every policy, naming both
    sides' ids (element ids are each file's own: ALTO and hOCR of one Tesseract run share none).
    """
    check_unmatched(unmatched)
    refs, hyps = _one_page_each(refs, hyps)
    _check_not_empty(refs, hyps, unmatched)  # after: a .txt file read as a page's text is a page (empty or not)
    _check_elements(refs, hyps)
    ref_by_id = _index(refs)
    hyp_by_id = _index(hyps)
    only_refs = tuple(i for i in ref_by_id if i not in hyp_by_id)
    only_hyps = tuple(i for i in hyp_by_id if i not in ref_by_id)
    if (only_refs or only_hyps) and unmatched == "error":
        raise InputError(_unmatched_message(refs, hyps, only_refs, only_hyps))
    pairs = []
    get = hyp_by_id.get
    empty = unmatched == "empty"
    for id_, ref in ref_by_id.items():
        hyp = get(id_)
        if hyp is None:
            if empty:
                pairs.append(Pair(id_, ref.text, "", *pair_fields(id_, ref.doc, ref.lang, None, None)))
            continue
        try:
            doc, lang = pair_fields(id_, ref.doc, ref.lang, hyp.doc, hyp.lang)
        except SidesDisagree as exc:
            raise InputError(
                f"{ref.source or refs.path}: id {quoted(id_)} has {exc.key} {quoted(exc.ref)} in the references but "
                f"{quoted(exc.hyp)} in the outputs ({hyp.source or hyps.path}); the two sides must agree"
            ) from None
        pairs.append(Pair(id_, ref.text, hyp.text, doc, lang))
    if not pairs:
        why = _layout_hint(refs, hyps) or _forms_hint(only_refs, only_hyps)[0]
        raise InputError(
            f"{refs.path} vs {hyps.path}: no id appears in both references and outputs; "
            f"nothing to score (first reference ids: {_show(only_refs)}; "
            f"first output ids: {_show(only_hyps)}){'.' + why if why else ''}"
        )
    prov, reading = _provenance(refs, hyps), reading_fields(refs, hyps)
    if empty:
        return Paired(tuple(pairs), (), only_hyps, only_refs, prov, unmatched, reading)
    return Paired(tuple(pairs), only_refs, only_hyps, (), prov, unmatched, reading)


class SidesDisagree(Exception):
    """The reference and the output of one id give two values of one field (``key``: doc or lang)."""

    def __init__(self, key: str, ref: str, hyp: str) -> None:
        super().__init__(key, ref, hyp)
        self.key, self.ref, self.hyp = key, ref, hyp


def pair_fields(id_: str, ref_doc: str | None, ref_lang: str | None, hyp_doc: str | None, hyp_lang: str | None,
                lang: str | None = None) -> tuple[str, str | None]:
    """The doc and lang of the pair of ``id_`` from its reference's and its output's (None where a
    side names none): the one rule of every reader that pairs (:func:`pair_collections`, and the
    streamed reader of :mod:`semcer.scale.reading`). Each is the reference's if given, else the
    output's; then the doc defaults to the id (a line without a doc is its own document) and the
    lang to ``lang`` (the default language: ``--lang``). Two docs that differ, or two langs that are
    not spellings of one tag (:func:`semcer.text.script.canonical_lang`: ``en_US`` and ``en-us`` are
    one), raise :class:`SidesDisagree`. The lang is returned in its one spelling
    (:func:`~semcer.text.script.canonical_lang`: ``EN`` and ``en`` are ``en``), so that every later
    step (the judge, its store's keys, the reports) sees one tag for one language."""
    if hyp_doc is not None and ref_doc is not None and hyp_doc != ref_doc:
        raise SidesDisagree("doc", ref_doc, hyp_doc)
    if (hyp_lang is not None and ref_lang is not None and hyp_lang != ref_lang
            and canonical_lang(hyp_lang) != canonical_lang(ref_lang)):
        raise SidesDisagree("lang", ref_lang, hyp_lang)
    chosen = ref_lang or hyp_lang or lang
    return ref_doc or hyp_doc or id_, canonical_lang(chosen) if chosen else None


def check_unmatched(unmatched: str) -> None:
    """Raise InputError unless ``unmatched`` is one of :data:`UNMATCHED_POLICIES`."""
    if unmatched not in UNMATCHED_POLICIES:
        raise InputError(f"unknown unmatched policy {unmatched!r}; expected one of {', '.join(UNMATCHED_POLICIES)}")


def reading_fields(*collections: Collection) -> tuple[tuple[str, str], ...]:
    """The signature's fields of how the page files of ``collections`` were read, each only where
    a page departs from the default reading, since each changes the text scored: ``level:line``
    (lines read, not regions), ``dialect:dinglehopper`` (its extraction rules),
    ``hyphen:join``/``hyphen:drop`` (an ALTO file with ``HYP`` not read as printed:
    :attr:`semcer.io.formats.page.Page.hyphen`) and ``granularity:segment`` (each region or line its
    own item, ``--by-line``). Values that differ between pages are joined by ``+``, sorted. No page
    files (JSONL, text, a directory of ``.txt``): no fields."""
    found: dict[str, set[str]] = {"level": set(), "dialect": set(), "hyphen": set(), "granularity": set()}
    for coll in collections:
        pages = coll.pages.values()
        if pages and coll.granularity != "page":
            found["granularity"].add(coll.granularity)
        for page in pages:
            if page.level == "line" and page.format != "text":  # a text page has nothing but lines
                found["level"].add(page.level)
            if page.dialect != "semcer":
                found["dialect"].add(page.dialect)
            if page.hyphen is not None:
                found["hyphen"].add(page.hyphen)
    return tuple((key, "+".join(sorted(values))) for key, values in found.items() if values)


def _provenance(refs: Collection, hyps: Collection) -> Provenance | None:
    """Where the items of page files came from, or None when neither side was read from one."""
    if not refs.pages and not hyps.pages:
        return None
    prov = Provenance(item_origins((i.id for i in refs.items), refs.pages),
                      item_origins((i.id for i in hyps.items), hyps.pages))
    return prov if prov else None


def _one_page_each(refs: Collection, hyps: Collection) -> tuple[Collection, Collection]:
    """Two single files, at least one of them a page file: one page file against another pairs
    whatever their names (the output takes the reference page's key: ``gt.xml`` and
    ``tesseract.hocr``); a plain-text file against a page file read one item per page is the text of
    that page, by the rule of a directory's ``.txt`` page (:func:`semcer.io.collections.text_page`:
    ``p1.gt.txt`` against ``p1.hocr``, as ``gt/p1.gt.txt`` against ``ocr/p1.hocr``), keyed as the page.
    A text file against any other input stays line-aligned (ids '1', '2', ...)."""
    if refs.single_page and hyps.single_page:
        return refs, _rekeyed(hyps, next(iter(hyps.pages)), next(iter(refs.pages)))
    if refs.format == "text" and _whole_page(hyps):
        return _page_text(refs, hyps), hyps
    if hyps.format == "text" and _whole_page(refs):
        return refs, _page_text(hyps, refs)
    return refs, hyps


def _whole_page(coll: Collection) -> bool:
    return coll.single_page and coll.granularity == "page"


def _page_text(text: Collection, page: Collection) -> Collection:
    """The lines of a plain-text file read as the text of the single page of ``page``."""
    item = text_page((i.text for i in text.items), next(iter(page.pages)), None, text.path)
    return Collection((item,), text.path, text.format)


def _check_not_empty(refs: Collection, hyps: Collection, unmatched: str) -> None:
    """An empty reference collection is an error; so is an empty output collection, unless
    ``unmatched="empty"`` scores every reference against an empty output."""
    if not refs.items:
        raise InputError(refs.empty or f"{refs.path}: no items")
    if not hyps.items and unmatched != "empty":
        raise InputError(f"{hyps.empty or hyps.path + ': no items'}. To score every reference against an empty output "
                         "(a system that returned nothing), pass unmatched='empty' (command line: --unmatched empty)")


#: How messages name the page formats.
_FORMAT_NAMES = {"page-xml": "PAGE-XML", "alto": "ALTO", "hocr": "hOCR"}


def _check_elements(refs: Collection, hyps: Collection) -> None:
    """Pages read one item per element on both sides: each page on both sides with elements on
    both shares at least one element id, or nothing of it could pair (and under
    ``unmatched="empty"`` every reference line would be scored against nothing)."""
    if refs.granularity != "segment" or hyps.granularity != "segment":
        return
    ref_els, hyp_els = _elements_by_page(refs), _elements_by_page(hyps)
    apart = [k for k, r in ref_els.items() if r and hyp_els.get(k) and not set(r).intersection(hyp_els[k])]
    if not apart:
        return
    key = apart[0]
    more = f" (and {len(apart) - 1} more page(s))" if len(apart) > 1 else ""
    raise InputError(
        f"{refs.path} vs {hyps.path}: read one item per element (granularity 'segment', command line: --by-line), "
        f"elements pair by their id, and page {quoted(key)}{more} has no element id on both sides: the reference "
        f"{_id_scheme(refs.pages[key], ref_els[key])}, the output {_id_scheme(hyps.pages[key], hyp_els[key])}. Element "
        "ids are each file's own: they differ between formats (Tesseract's ALTO and hOCR of one page share none) and "
        "between the tools that wrote them, and semcer pairs elements by id only, never by position. Score the pages "
        "whole instead (without --by-line: each page one item, its text aligned as a whole, every edit still naming "
        "the element it falls in on each side), or give both sides in one format from one tool.")


def _id_scheme(page: Any, ids: list[str]) -> str:
    return f"{page.file} ({_FORMAT_NAMES.get(page.format, page.format)}) has {_show(tuple(ids))}"


def _elements_by_page(coll: Collection) -> dict[str, list[str]]:
    """The element ids of the items of each page of a collection read one item per element (item
    ``<key>#<element id>``), by page key."""
    out: dict[str, list[str]] = {key: [] for key in coll.pages}
    for item in coll.items:
        key, sep, _ = item.id.rpartition("#")
        while sep and key not in out:  # a page key may hold a '#' itself
            key, sep, _ = key.rpartition("#")
        if sep:
            out[key].append(item.id[len(key) + 1:])
    return out


def _rekeyed(coll: Collection, old: str, new: str) -> Collection:
    """One page file against another: the output's items take the reference page's key, so that
    ``gt.xml`` and ``tesseract.hocr`` pair (a directory of pages pairs by file name instead)."""
    if old == new:
        return coll
    items = tuple(i._replace(id=new + i.id[len(old):]) for i in coll.items)
    return Collection(items, coll.path, coll.format, {new: coll.pages[old]}, True, coll.failures, coll.granularity,
                      coll.empty)


def _index(coll: Collection) -> dict[str, Item]:
    """Items by id; a collection built in memory may not have been checked for duplicates."""
    by_id = {item.id: item for item in coll.items}
    if len(by_id) != len(coll.items):
        check_unique(coll.items, coll.path)  # raises, naming the duplicate
    return by_id


def _show(ids: tuple[str, ...]) -> str:
    if not ids:
        return "none"
    shown = ", ".join(quoted(i) for i in ids[:_SHOW_IDS])
    return shown + (", ..." if len(ids) > _SHOW_IDS else "")


def _unmatched_message(refs: Collection, hyps: Collection,
                       only_refs: tuple[str, ...], only_hyps: tuple[str, ...]) -> str:
    parts = []
    if only_refs:
        parts.append(f"{len(only_refs)} reference id(s) have no output ({_show(only_refs)})")
    if only_hyps:
        parts.append(f"{len(only_hyps)} output id(s) have no reference ({_show(only_hyps)})")
    head = f"{refs.path} vs {hyps.path}: {' and '.join(parts)}."
    layout = _layout_hint(refs, hyps)
    if layout:  # dropping would leave nothing to score
        return head + layout
    forms, all_forms = _forms_hint(only_refs, only_hyps)
    if (refs.format == "text") != (hyps.format == "text") and "text" in (refs.format, hyps.format):
        return head + forms + _text_hint(hyps if refs.format == "text" else refs)
    drop = "" if all_forms else (" To score only the ids present on both sides, pass unmatched='drop' (command "
                                 "line: --unmatched drop).")
    return head + forms + drop


def _text_hint(other: Collection) -> str:
    """Why a line-aligned text file and ``other`` (ids of another kind) did not pair. Dropping the
    unmatched ids is not offered: it would pair whatever line numbers the other side happens to use
    as ids (ids numbered from 0 would pair each line with the item after it)."""
    ids = [i.id for i in other.items]
    hint = (" A plain-text file is line-aligned: its ids are its line numbers ('1', '2', ...), and they pair with the "
            f"ids of {other.path} only where those are the same line numbers")
    if set(ids) == {str(k) for k in range(len(ids))}:
        hint += f"; the ids of {other.path} are numbered from 0, a text file's lines from 1"
    return hint + (". Give both sides in a format with ids (JSONL, TSV/CSV with an id column), or number the items "
                   "'1', '2', ... in the text file's line order.")


def _layout_hint(refs: Collection, hyps: Collection) -> str:
    """Where one side is a line-aligned text file and the other one page file read one item per
    element (``--by-line``; a page read whole takes the text file as its text: :func:`_one_page_each`):
    why they cannot pair, or ``""``."""
    if refs.format == "text" and hyps.single_page:
        text, page = refs, hyps
    elif hyps.format == "text" and refs.single_page:
        text, page = hyps, refs
    else:
        return ""
    return (f" {text.path} is plain text, read line by line (ids '1', '2', ...), and {page.path} one item per element "
            f"(granularity 'segment', command line: --by-line; ids {_show(tuple(i.id for i in page.items))}): a "
            "plain-text file has no element ids to pair with them. Score the page whole instead (without --by-line): "
            "the text file is then read as the text of that page.")


def _forms_hint(only_refs: tuple[str, ...], only_hyps: tuple[str, ...]) -> tuple[str, bool]:
    """A sentence for ids of the two sides that differ only in Unicode normalisation (``é`` as one
    code point, NFC, against ``e`` and a combining accent, NFD, as macOS writes file names), or
    ``""``; and whether that explains every unmatched id."""
    if not only_refs or not only_hyps:
        return "", False
    by_form = {unicodedata.normalize("NFC", i): i for i in only_hyps}
    same = [(r, by_form[n]) for r in only_refs if (n := unicodedata.normalize("NFC", r)) in by_form]
    if not same:
        return "", False
    r, h = same[0]
    text = (f" Of these, {len(same)} reference id(s) differ from an output id only in Unicode normalisation (NFC vs "
            f"NFD): reference {_form(r)} against output {_form(h)}; normalise the ids of one side to the other's "
            "form (file names: convmv -r --nfc --notest DIR).")
    return text, len(same) == len(only_refs) == len(only_hyps)


def _form(id_: str) -> str:
    """An id quoted, with its normalisation form and its code points escaped (the two forms look alike)."""
    form = next((f for f in ("NFC", "NFD") if unicodedata.is_normalized(f, id_)), "neither NFC nor NFD")
    more = "…" if len(id_) > QUOTE_LIMIT else ""
    return f"{quoted(id_)} ({form}: {id_[:QUOTE_LIMIT]!a}{more})"
