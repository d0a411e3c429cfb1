"""The judge's view of an edit: the marked pair, whole on an ordinary line, a bounded window of
grapheme units around the edit on a long line or a page (issue 11: memory and the store grew with
edits x line length)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.alignment.context import DEFAULT_CONTEXT_WINDOW, MARK_CLOSE, MARK_OPEN, edit_contexts

letters = st.text(alphabet="abcdeé ấ", min_size=0, max_size=30)


def _contexts(ref: str, hyp: str, window: int):
    al = semcer.align(ref, hyp)
    return al, edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="vi", window=window)


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
