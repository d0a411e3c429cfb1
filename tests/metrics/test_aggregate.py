"""The one aggregation rule: corpus and document means of CER and semCER, sums that merge exactly."""

import itertools

import pytest
from helpers import TableJudge, distribution_with_rating
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.alignment.line import LineStats
from semcer.judges.base import FixedJudge
from semcer.metrics.aggregate import aggregate
from semcer.metrics.rows import merge, total

text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)
ref_text = text.map(str.strip).filter(bool)
hyp_text = text.map(str.strip)


def test_corpus_and_document_mean_by_hand():
    # doc A: 1 edit / 4 units and 3 edits / 4 units -> 4/8; doc B: 1 edit / 2 units
    refs = ["abcd", "efgh", "ij"]
    hyps = ["abcx", "e", "i"]
    ev = semcer.evaluate(refs, hyps, docs=["A", "A", "B"], unit="codepoint")
    assert ev.corpus.edits == 5 and ev.corpus.units == 10
    assert ev.corpus.cer == pytest.approx(0.5)
    assert ev.document_mean_cer == pytest.approx((4 / 8 + 1 / 2) / 2)
    d = {x.doc: x.totals for x in ev.documents}
    assert d["A"].lines == 2 and d["A"].cer == pytest.approx(0.5)


@settings(max_examples=100)
@given(st.lists(st.tuples(ref_text, hyp_text, st.sampled_from("abc")), min_size=1, max_size=15))
def test_statistics_sum_exactly(rows):
    refs, hyps, docs = zip(*rows)
    ev = semcer.evaluate(list(refs), list(hyps), docs=list(docs))
    assert ev.corpus.edits == sum(line.stats.edits for line in ev.lines)
    assert ev.corpus.units == sum(line.stats.units for line in ev.lines)
    assert sum(d.totals.edits for d in ev.documents) == ev.corpus.edits
    # a split into two halves merges back to the same corpus numbers
    k = len(refs) // 2
    if k > 0:
        a = semcer.evaluate(list(refs[:k]), list(hyps[:k]))
        b = semcer.evaluate(list(refs[k:]), list(hyps[k:]))
        assert a.corpus.edits + b.corpus.edits == ev.corpus.edits
        assert a.corpus.units + b.corpus.units == ev.corpus.units


def test_paper_figure_2_arithmetic():
    """Six edits over 35 graphemes give CER 0.171; severities summing to 1.90 give semCER 0.054."""
    ref = "The quick brown fox jumps over dogs"  # 35 graphemes
    hyp = "Thé quick brovn fax jumps ovr dog5!"  # é, v, a, 5 substituted; e deleted; ! inserted
    assert len(ref) == 35
    al = semcer.align(ref, hyp)
    assert (al.stats.substitutions, al.stats.deletions, al.stats.insertions) == (4, 1, 1)
    charges = {"é": 0.25, "v": 0.75, "a": 0.25, "5": 0.5, "e": 0.15, "!": 0.0}  # sum 1.90
    judge = TableJudge({k: distribution_with_rating(v) for k, v in charges.items()})
    ev = semcer.evaluate([ref], [hyp], judge=judge)
    assert len(judge.calls) == 6
    assert round(ev.corpus.cer, 3) == 0.171
    assert ev.corpus.severity == pytest.approx(1.90)
    assert round(ev.corpus.semcer, 3) == 0.054


def test_semcer_aggregates_like_cer():
    judge = FixedJudge((0, 0, 1, 0, 0))  # every edit 0.5
    ev = semcer.evaluate(["abcd", "efgh", "ij"], ["abcx", "e", "i"], docs=["A", "A", "B"], judge=judge)
    assert ev.corpus.severity == pytest.approx(0.5 * ev.corpus.edits)
    assert ev.corpus.semcer == pytest.approx(0.5 * ev.corpus.cer)
    assert ev.document_mean_semcer == pytest.approx(0.5 * ev.document_mean_cer)
    d = ev.to_dict()
    assert d["corpus"]["semcer"] == pytest.approx(0.25) and d["document_mean"]["semcer"] == pytest.approx(0.25)
    assert d["signature_fields"]["judge"] == judge.identity and "judge:" in d["signature"]
    assert all("semcer" in doc for doc in d["documents"])


def test_a_line_without_severity_makes_the_group_undefined():
    t = total([LineStats(1, 0, 0, 4, 0.25), LineStats(0, 1, 0, 3, None)])
    assert (t.edits, t.units, t.lines) == (2, 7, 2) and t.severity is None and t.semcer is None
    assert merge([t, total([LineStats(1, 0, 0, 2, 0.5)])]).severity is None


def test_aggregate_by_hand():
    stats = [LineStats(1, 0, 0, 4, 0.25), LineStats(0, 2, 1, 4, 1.5), LineStats(0, 0, 1, 0, 1.0)]
    agg = aggregate(stats, ["A", "A", "B"], judged=True)
    assert (agg.corpus.edits, agg.corpus.units) == (5, 8)
    assert agg.corpus.semcer == pytest.approx(2.75 / 8)
    assert agg.document_mean_cer == pytest.approx(4 / 8) and agg.documents_defined == 1  # B has no units
    assert agg.document_mean_semcer == pytest.approx(1.75 / 8)
    assert [d.doc for d in agg.documents] == ["A", "B"]
    plain = aggregate(stats, ["A", "A", "B"], judged=False)
    assert plain.document_mean_semcer is None and plain.document_mean_cer == agg.document_mean_cer


_sev = st.none() | st.floats(min_value=0, max_value=50, allow_nan=False) | st.sampled_from([0.0, 1 / 3, 0.1, 5e-324])


@st.composite
def _line(draw):
    from semcer.alignment.line import LineResult

    line_id = draw(st.sampled_from(["a", "b", "c", "d", "x1", "x2", "é"]))  # duplicate ids allowed, as in pairs
    doc = draw(st.sampled_from([line_id, line_id, "a", "D", "E", "é"]))  # own document, or a name another line has
    counts = draw(st.tuples(*[st.integers(0, 40)] * 3, st.integers(0, 60) | st.just(0)))
    return LineResult(line_id, doc, None, LineStats(*counts, draw(_sev)))


@settings(max_examples=400, deadline=None)
@given(st.lists(_line(), max_size=25) | st.lists(_line(), max_size=25, unique_by=lambda r: r.id).map(
    lambda rs: [r._replace(doc=r.id) for r in rs]), st.booleans())
def test_the_column_aggregation_equals_the_rule_bit_for_bit(lines, judged):
    """aggregate_table (a streamed run's) against aggregate over the same rows: documents in order,
    totals and exact sums, means; floats compared by repr, so -0.0 or one ulp would show."""
    from semcer.alignment.table import LineTable
    from semcer.metrics.aggregate import aggregate_table

    want = aggregate([r.stats for r in lines], [r.doc for r in lines], judged=judged)
    got = aggregate_table(LineTable(lines), judged=judged)
    assert got == want
    assert repr(got) == repr(want)


@settings(max_examples=300, deadline=None)
@given(st.lists(_line(), max_size=30) | st.lists(_line(), max_size=25, unique_by=lambda r: r.id).map(
    lambda rs: [r._replace(doc=r.id) for r in rs]), st.lists(st.integers(0, 30), max_size=6), st.booleans())
def test_documents_folded_chunk_by_chunk_equal_the_rule_bit_for_bit(lines, cuts, judged):
    """A streamed run's fold: the lines in chunks cut anywhere (a document split across chunks, a
    line that is its own document in one chunk and named by a line of another) give aggregate's
    Aggregation over all of them, repr for repr."""
    from semcer.alignment.table import LineTable
    from semcer.metrics.aggregate import DocumentFold

    fold = DocumentFold()
    bounds = [0, *sorted(c for c in cuts if c <= len(lines)), len(lines)]
    for a, b in itertools.pairwise(bounds):
        fold.fold(LineTable(lines[a:b]))
    want = aggregate([r.stats for r in lines], [r.doc for r in lines], judged=judged)
    got = fold.aggregation(judged=judged)
    assert got == want
    assert repr(got) == repr(want)
