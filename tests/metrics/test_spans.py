"""Error spans: a deleted word or a garbled name is one span of adjacent edits, for display and
ranking; scores still charge every grapheme edit."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.judges import FixedJudge
from semcer.metrics.spans import judged_spans, ranked_spans, span_groups

LEVEL4 = FixedJudge((0.0, 0.0, 0.0, 0.0, 1.0))


def _spans(ref: str, hyp: str, judge=LEVEL4):
    ev = semcer.evaluate([ref], [hyp], judge=judge, edits=True)
    return ev, list(judged_spans(ev.judged))


def test_a_deleted_word_is_one_span():
    ev, spans = _spans("Nicht verbunden", "verbunden")
    assert ev.corpus.deletions == 6 and len(spans) == 1
    (s,) = spans
    assert s.ref_text == "Nicht " and s.hyp_text == "" and len(s.edits) == 6
    assert s.severity == 6.0 and s.max_severity == 1.0
    assert s.marked_ref == "⟦Nicht ⟧verbunden" and s.marked_hyp == "⟦⟧verbunden"
    assert s.span_id == "1#0"


def test_separate_errors_are_separate_spans():
    _, spans = _spans("Tấm Cám 110-2", "Tám Cám 11O-2")
    assert [(s.ref_text, s.hyp_text) for s in spans] == [("ấ", "á"), ("0", "O")]
    assert [s.marked_hyp for s in spans] == ["T⟦á⟧m Cám 11O-2", "Tám Cám 11⟦O⟧-2"]


def test_a_garbled_name_mixing_operations_is_one_span():
    _, spans = _spans("Koprivnica town", "Kopnvnicca town")
    texts = [(s.ref_text, s.hyp_text) for s in spans]
    assert ("ri", "n") in texts or ("r", "n") in texts  # the aligner's tie rule decides the exact cut
    assert all(s.ref_text != s.hyp_text for s in spans)


@given(st.text(alphabet="abc ", max_size=18), st.text(alphabet="abc ", max_size=18))
@settings(max_examples=400, deadline=None)
def test_spans_and_matches_rebuild_both_lines(ref, hyp):
    al = semcer.align(ref, hyp, policy="raw")
    groups = span_groups(al.edits)
    assert [k for a, b in groups for k in range(a, b)] == list(range(len(al.edits)))  # a partition, in order
    # between two spans there is at least one matched unit; inside a span none
    for (_, b), (c, _) in itertools.pairwise(groups):
        last, nxt = al.edits[b - 1], al.edits[c]
        end = last.ref_pos if last.op == "I" else last.ref_pos + 1
        assert nxt.ref_pos > end
        assert al.ref_units[end:nxt.ref_pos] == al.hyp_units[nxt.hyp_pos - (nxt.ref_pos - end):nxt.hyp_pos]
    for a, b in groups:
        ed = al.edits[a:b]
        r0 = ed[0].ref_pos
        h0 = ed[0].hyp_pos
        ref_text = "".join(e.ref_unit for e in ed)
        hyp_text = "".join(e.hyp_unit for e in ed)
        assert "".join(al.ref_units[r0 : r0 + len(ref_text)]) == ref_text
        assert "".join(al.hyp_units[h0 : h0 + len(hyp_text)]) == hyp_text


def test_ranked_by_the_worst_edit_then_the_sum():
    judge = FixedJudge(fn=lambda c: (0.0, 0.0, 0.0, 0.0, 1.0) if c.hyp_unit == "7" else (0.0, 0.0, 1.0, 0.0, 0.0))
    _, spans = _spans("abcdef gh 12", "xyzdef gh 17", judge)  # 'abc' -> 'xyz': 3 x 0.5 = 1.5; '2' -> '7': 1.0
    assert [(s.hyp_text, s.severity) for s in ranked_spans(spans)] == [("7", 1.0), ("xyz", 1.5)]


def test_ranked_spans_most_severe_first_and_the_score_unchanged():
    judge = FixedJudge(fn=lambda c: (0.0, 0.0, 0.0, 0.0, 1.0) if c.hyp_unit.isdigit() else (1.0, 0.0, 0.0, 0.0, 0.0))
    ev, spans = _spans("ab cd 12", "xb cd 17", judge)
    ranked = ranked_spans(spans)
    assert [s.hyp_text for s in ranked] == ["7", "x"]
    assert ev.corpus.severity == 1.0  # every edit charged on its own, spans or not


@given(st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=1, max_size=8))
def test_span_key_is_its_definition_from_the_span_severities(sev):
    """(severity is None, -max_severity, -severity), from the span's own properties."""
    from types import SimpleNamespace

    from semcer.metrics.spans import JudgedSpan, span_key

    span = JudgedSpan("l#0", "l", "d", "en", tuple(SimpleNamespace(severity=x) for x in sev))  # type: ignore[arg-type]
    assert span_key(span) == (span.severity is None, -(span.max_severity or 0.0), -(span.severity or 0.0))
