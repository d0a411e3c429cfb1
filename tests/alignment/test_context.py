"""The judge's view of an edit: the marked pair, whole on an ordinary line, a bounded window of
grapheme units around the edit on a long line or a page (issue 11: memory and the store grew with
edits x line length)."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.alignment import context
from semcer.alignment.context import DEFAULT_CONTEXT_WINDOW, MARK_CLOSE, MARK_OPEN, edit_contexts

letters = st.text(alphabet="abcdeé ấ", min_size=0, max_size=30)


def _contexts(ref: str, hyp: str, window: int):
    """The contexts of an alignment, built by the compiled builder when there is one; checked to be
    the same as the Python builder's (which the other tests then cover too)."""
    al = semcer.align(ref, hyp)
    built = edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="vi", window=window)
    with mock.patch.object(context, "_fast_contexts", lambda: None):
        assert edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="vi", window=window) == built
    return al, built


def _plain(marked: str) -> str:
    return marked.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")


def test_a_short_line_is_seen_whole():
    _, ctx = _contexts("Tấm Cám đấng", "Tám Cám đáng", DEFAULT_CONTEXT_WINDOW)
    assert [c.marked_ref for c in ctx] == ["T⟦ấ⟧m Cám đấng", "Tấm Cám đ⟦ấ⟧ng"]
    assert all(c.ref == "Tấm Cám đấng" and c.hyp == "Tám Cám đáng" and c.ref_start == 0 for c in ctx)


@given(letters, letters, st.integers(1, 12))
@settings(max_examples=300, deadline=None)
def test_every_window_is_bounded_and_consistent(ref, hyp, window):
    al, ctx = _contexts(ref, hyp, window)
    assert len(ctx) == len(al.edits)
    for e, c in zip(al.edits, ctx):
        ru, hu = list(semcer.align(c.ref, c.ref).ref_units), list(semcer.align(c.hyp, c.hyp).ref_units)
        assert len(ru) <= 2 * window + 1 and len(hu) <= 2 * window + 1
        assert _plain(c.marked_ref) == c.ref and _plain(c.marked_hyp) == c.hyp
        assert c.ref_start + c.ref_pos == e.ref_pos and c.hyp_start + c.hyp_pos == e.hyp_pos
        if e.op != "I":
            assert ru[c.ref_pos] == e.ref_unit and f"{MARK_OPEN}{e.ref_unit}{MARK_CLOSE}" in c.marked_ref
        if e.op != "D":
            assert hu[c.hyp_pos] == e.hyp_unit
        # the window is the line's units around the edit, nothing else
        assert "".join(al.ref_units[c.ref_start : c.ref_start + len(ru)]) == c.ref
        assert "".join(al.hyp_units[c.hyp_start : c.hyp_start + len(hu)]) == c.hyp


@given(letters, letters)
@settings(max_examples=200, deadline=None)
def test_a_window_at_least_the_line_length_changes_nothing(ref, hyp):
    al, ctx = _contexts(ref, hyp, max(len(ref), len(hyp), 1))
    _, wide = _contexts(ref, hyp, 10_000)
    assert ctx == wide
    assert all(c.ref == al.ref and c.hyp == al.hyp for c in ctx)


def test_a_page_stores_windows_not_pages(tmp_path):
    """50,000 graphemes with an edit every 50: each stored marked pair is at most 2 x window + 3 long."""
    ref = ("abcdefghij" * 5)[:49] + " "
    ref = ref * 1000
    hyp = "".join(c if k % 50 != 7 else "X" for k, c in enumerate(ref))
    store = tmp_path / "s.sqlite"
    ev = semcer.evaluate([ref], [hyp], judge="rubric", store=store, edits=True)
    assert ev.corpus.substitutions == 1000
    from semcer.store.sqlite import JudgedEditStore

    with JudgedEditStore(store, readonly=True) as opened:
        rows = opened.rows()
    assert rows  # (the text repeats every 50 graphemes: a few distinct windows)
    assert max(len(r[side]) for r in rows for side in ("marked_ref", "marked_hyp")) <= 2 * DEFAULT_CONTEXT_WINDOW + 3
    assert all(len(j.context.ref) <= 2 * DEFAULT_CONTEXT_WINDOW + 1 for j in ev.judged)
    assert "+ctx100" in ev.signature.judge


@given(st.text(alphabet="ab e\u0301ấक\u093f", max_size=25), st.text(alphabet="ab e\u0301ấक\u093f", max_size=25))
@settings(max_examples=200, deadline=None)
def test_marked_pairs_of_short_lines_match_mark_on_the_units(ref, hyp):
    """The whole-line path marks by offsets into the joined line; the reference is :func:`mark` on
    the unit lists (multi-code-point clusters included)."""
    from semcer.alignment.context import mark

    al, ctx = _contexts(ref, hyp, DEFAULT_CONTEXT_WINDOW)
    ru, hu = list(al.ref_units), list(al.hyp_units)
    for e, c in zip(al.edits, ctx):
        assert c.marked_ref == mark(ru, e.ref_pos, e.op != "I")
        assert c.marked_hyp == mark(hu, e.hyp_pos, e.op != "D")


# Text with one-, two- and four-byte code points (Latin-1, BMP, astral), multi-code-point clusters
# (a combining acute, a Devanagari vowel sign, an emoji with a skin tone) and a character above the
# marks (U+3042), so that every kind a marked string can take is met.
mixed = st.text(alphabet="ab é\u0301क\u093f\U0001f44d\U0001f3fd\u3042\u00e9", max_size=40)


@given(mixed, mixed, st.integers(1, 12), st.sampled_from(["grapheme", "codepoint"]), st.sampled_from(["nfc", "raw"]))
@settings(max_examples=400, deadline=None)
def test_the_compiled_contexts_are_the_python_ones(ref, hyp, window, unit, policy):
    """``_speedups.contexts`` builds what :func:`_context` builds, field for field and type for type,
    on whole lines and windows; the marked pairs are also :func:`mark` on the window's units (an
    independent construction from the unit lists)."""
    from semcer.alignment.context import _context, _offsets, mark

    fast = context._fast_contexts()
    if fast is None:
        return  # not built here: the Python path is all there is (other tests run it)
    al = semcer.align(ref, hyp, unit=unit, policy=policy)
    ru, hu = list(al.ref_units), list(al.hyp_units)
    assert "".join(ru) == al.ref and "".join(hu) == al.hyp  # what line_contexts passes as ref=, hyp=
    ro, ho = _offsets(al.ref_units, al.ref), _offsets(al.hyp_units, al.hyp)
    built = edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="xx", line_id="l1", doc="d", window=window,
                          ref=al.ref, hyp=al.hyp)
    for e, c in zip(al.edits, built, strict=True):
        py = _context(e, al.ref, al.hyp, ro, ho, "xx", "l1", "d", "item", window)
        assert [(type(v), v) for v in (getattr(c, f) for f in c.__slots__)] == \
               [(type(v), v) for v in (getattr(py, f) for f in py.__slots__)]
        assert hash(c) == hash(py) and c.content_key() == py.content_key()
        if len(ru) <= window and len(hu) <= window:  # the whole line
            assert (c.ref, c.hyp, c.ref_start, c.hyp_start) == (al.ref, al.hyp, 0, 0)
            r_units, h_units = ru, hu
        else:
            r_units = ru[c.ref_start : e.ref_pos + window + (e.op != "I")]
            h_units = hu[c.hyp_start : e.hyp_pos + window + (e.op != "D")]
        assert c.marked_ref == mark(r_units, c.ref_pos, e.op != "I")
        assert c.marked_hyp == mark(h_units, c.hyp_pos, e.op != "D")


def test_the_compiled_contexts_refuse_what_is_not_a_line():
    from semcer.alignment.edits import Edit

    fast = context._fast_contexts()
    if fast is None:
        return
    with pytest.raises(IndexError):
        fast([Edit("S", 3, 0, "x", "y")], "abc", "xyz", None, None, "en", "", "", "item", 100)
    with pytest.raises(ValueError):
        fast([Edit("S", 0, 0, "ab", "y")], "abc", "xyz", [0, 5], None, "en", "", "", "item", 100)
    with pytest.raises(TypeError):
        fast([("S", 0)], "abc", "xyz", None, None, "en", "", "", "item", 100)


def test_a_window_wider_than_any_line_is_the_whole_line():
    """A window beyond what a C integer holds sees the lines whole, as a window of their length does."""
    al = semcer.align("Tấm Cám đấng", "Tám Cám đáng")
    huge = edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="vi", window=10**30)
    assert huge == edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="vi", window=12)
    assert all(c.ref == al.ref and c.ref_start == 0 for c in huge)


@given(st.lists(st.sampled_from(["a", "é", "e\u0301", "क\u093f", "\U0001f44d\U0001f3fd", "\u3042"]), max_size=30),
       st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_compiled_offsets_are_accumulated_lengths(clusters, as_ids):
    """``_speedups.offsets`` of a list of clusters, or of the same as an id string with names (an id
    that names lack counts as itself, as ``Clusters`` reads it), is the running sum of the lengths."""
    from itertools import accumulate

    from semcer.alignment.context import _fast_offsets
    from semcer.text.cluster_ids import RESERVED, Clusters

    fast = _fast_offsets()
    if fast is None:
        return
    expected = list(accumulate(map(len, clusters), initial=0))
    text = "".join(clusters)
    if not as_ids:
        assert fast(list(clusters), text, Clusters, *RESERVED) == expected
        return
    id_of: dict[str, str] = {}  # a longer cluster's id, as cluster_ids hands them out
    for c in clusters:
        if len(c) > 1:
            id_of.setdefault(c, chr(RESERVED[0] + len(id_of)))
    ids = "".join(id_of.get(c, c) for c in clusters)
    names = {i: c for c, i in id_of.items()}
    lost = chr(RESERVED[0] + 500)  # a reserved id with no name: Clusters reads it as itself
    units = Clusters(ids + lost, names)
    assert list(units)[: len(clusters)] == clusters
    assert fast(units, text + lost, Clusters, *RESERVED) == list(accumulate(map(len, units), initial=0))
    assert fast(units, text + lost, Clusters, *RESERVED)[:-1] == expected


@given(st.text(alphabet="ab é\u0101\u3042\U0001f44d", min_size=1, max_size=12), st.integers(0, 11))
@settings(max_examples=200, deadline=None)
def test_the_compiled_marked_strings_take_the_narrowest_kind(text, pos):
    """With marks of any width (here ASCII brackets), a marked string built in C is stored as Python
    stores the same text (the narrowest kind, the ASCII flag): equal, same hash, same size, same
    ``isascii``. Restores the real marks after."""
    import sys
    from dataclasses import fields

    from semcer.alignment.context import EditContext, _fast_contexts
    from semcer.alignment.edits import Edit

    if _fast_contexts() is None:
        return
    from semcer.alignment import _speedups

    pos = pos % len(text)
    names = tuple(f.name for f in fields(EditContext))
    descrs = tuple(EditContext.__dict__[n] for n in names)
    try:
        _speedups.setup_contexts(EditContext, descrs, names, "[", "]")
        (c,) = _speedups.contexts([Edit("S", pos, pos, text[pos], text[pos])], text, text, None, None,
                                  "en", "", "", "item", 100)
    finally:
        _speedups.setup_contexts(EditContext, descrs, names, MARK_OPEN, MARK_CLOSE)
    expected = f"{text[:pos]}[{text[pos]}]{text[pos + 1:]}"
    assert c.marked_ref == expected and hash(c.marked_ref) == hash(expected)
    assert sys.getsizeof(c.marked_ref) == sys.getsizeof(expected) and c.marked_ref.isascii() == expected.isascii()
