"""WER against jiwer (whitespace words, Hypothesis) and dinglehopper (UAX #29 words, recorded on the page
fixtures); the bag-of-words error, document means, empty and undefined lines by hand."""

from __future__ import annotations

import json
from pathlib import Path

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.errors import InputError
from semcer.metrics.wer import bag_stats, wer, word_stats

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "dinglehopper_cer.json")
                     .read_text(encoding="utf-8"))

WORD = st.text(alphabet="abcd", min_size=1, max_size=3)
SENTENCE = st.lists(WORD, min_size=1, max_size=12).map(" ".join)
OUTPUT = st.lists(WORD, min_size=0, max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(SENTENCE, OUTPUT)
def test_line_wer_and_counts_equal_jiwer(ref, hyp):
    r = wer([ref], [hyp], tokenizer="whitespace")
    assert r.wer == jiwer.wer(ref, hyp)
    out = jiwer.process_words(ref, hyp)
    st_ = r.lines[0]
    assert (st_.substitutions, st_.deletions, st_.insertions, st_.words) == (
        out.substitutions, out.deletions, out.insertions, len(ref.split()))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SENTENCE, OUTPUT), min_size=1, max_size=8))
def test_corpus_wer_equals_jiwer_on_lists(pairs):
    refs, hyps = [p[0] for p in pairs], [p[1] for p in pairs]
    assert wer(refs, hyps, tokenizer="whitespace").wer == pytest.approx(jiwer.wer(refs, hyps), rel=1e-12)


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["id"])
def test_uax29_wer_equals_dinglehoppers_on_the_page_fixtures(case):
    r = wer([case["gt_text"]], [case["ocr_text"]], policy="raw")  # the fixture texts are dinglehopper's, normalised
    assert r.corpus.units == case["ref_words"]
    assert r.wer == case["wer"]


@settings(max_examples=300, deadline=None)
@given(OUTPUT, OUTPUT)
def test_bag_error_never_exceeds_the_word_edits_and_is_zero_exactly_for_equal_bags(ref, hyp):
    a, b = ref.split(), hyp.split()
    bag, ws = bag_stats(a, b), word_stats(a, b)
    assert bag.errors <= ws.edits
    assert (bag.errors == 0) == (sorted(a) == sorted(b))
    # the closed form: (Σ|c_r - c_h| + |N - M|) / 2
    diff = sum(abs(a.count(w) - b.count(w)) for w in set(a) | set(b))
    assert bag.errors * 2 == diff + abs(len(a) - len(b))


def test_bag_of_words_by_hand():
    assert bag_stats("a b c".split(), "c b a".split()) == (0, 0, 3, 3)  # order-free
    assert word_stats("a b c".split(), "c b a".split()).edits == 2
    assert bag_stats("a b c".split(), "a b".split()) == (1, 0, 3, 2)  # one missing: 1/3
    b = bag_stats("a a b".split(), "a b b".split())
    assert (b.missing, b.extra, b.errors, b.rate) == (1, 1, 1, 1 / 3)  # one a became a b: one error
    assert bag_stats([], ["x"]).rate is None


def test_the_bag_is_the_documents_so_words_moving_between_its_lines_are_no_error():
    r = wer(["alpha beta", "gamma delta"], ["alpha", "beta gamma delta"], tokenizer="whitespace", docs=["p", "p"])
    assert r.wer == 2 / 4  # beta deleted from line 1, inserted in line 2
    assert r.bag_error == 0.0 and r.bags["p"] == (0, 0, 4, 4)
    apart = wer(["alpha beta", "gamma delta"], ["alpha", "beta gamma delta"], tokenizer="whitespace")
    assert apart.bag_error == 2 / 4 and set(apart.bags) == {"1", "2"}  # each line its own bag


def test_document_mean_and_corpus_by_hand():
    refs = ["a b c d", "e f", "g h"]
    hyps = ["a b c x", "e", "g h"]
    r = wer(refs, hyps, tokenizer="whitespace", docs=["d1", "d2", "d2"])
    assert (r.corpus.edits, r.corpus.units) == (2, 8) and r.wer == 0.25
    assert r.document_mean == pytest.approx((1 / 4 + 1 / 4) / 2)  # d1: 1/4; d2: 1 of 4 words
    assert r.documents == 2


def test_a_line_without_reference_words_counts_its_insertions_in_the_corpus_only():
    r = wer(["", "— !", "a"], ["x", "y", "a"], tokenizer="uax29", empty_ref="insertions")
    assert [s.wer if s else "undefined" for s in r.lines] == [None, None, 0.0]
    assert (r.corpus.edits, r.corpus.units) == (2, 1)
    assert r.document_mean == 0.0 and r.documents == 1


def test_undefined_words_are_left_out_and_listed():
    r = wer(["สวัสดีครับ", "a b"], ["สวัสดี", "a c"], tokenizer="auto", ids=["th1", "en1"])
    assert r.undefined == ("th1",) and r.lines[0] is None
    assert (r.corpus.edits, r.corpus.units) == (1, 2)
    with pytest.raises(InputError, match="no line has defined words"):
        wer(["สวัสดีครับ"], ["สวัสดี"], tokenizer="auto")


def test_auto_segments_chinese_into_words():
    # jieba: 我们在北京大学读书 -> 我们|在|北京大学|读书, 我们北京大学看书 -> 我们|北京大学|看书:
    # 在 deleted, 读书 -> 看书 substituted: one D, one S over 4 words (uax29 would count characters)
    r = wer(["我们在北京大学读书"], ["我们北京大学看书"], tokenizer="auto", langs="zh")
    assert (r.corpus.substitutions, r.corpus.deletions, r.corpus.insertions, r.corpus.units) == (1, 1, 0, 4)


def test_the_policy_is_applied_before_tokenizing_and_named_in_the_signature():
    gone = wer(["Straße WEG"], ["strasse weg"], tokenizer="whitespace", policy="casefold")  # removes whitespace
    assert (gone.wer, gone.corpus.units) == (0.0, 1)  # strasseweg, one word on each side
    r = wer(["Straße WEG"], ["strasse weg"], tokenizer="whitespace", policy="nfkc+casefold")
    assert r.wer == 0.0
    sig = str(r.signature)
    assert sig.startswith("unit:word|policy:nfkc+casefold#") and "|tokenizer:whitespace|" in sig
    assert "|tokenizer:uax29@seg-" in str(wer(["a"], ["a"]).signature)


def test_to_dict_and_input_errors():
    d = wer(["a b"], ["a"], tokenizer="whitespace").to_dict()
    assert d["corpus"] == {"wer": 0.5, "edits": 1, "substitutions": 0, "deletions": 1, "insertions": 0, "words": 2,
                           "lines": 1}
    assert d["document_mean"] == {"wer": 0.5, "documents": 1, "left_out": 0}
    assert d["no_reference_words"] == {"rule": "error", "lines": 0, "ids": []}
    assert d["bag_of_words"] == {"error": 0.5, "document_mean": 0.5, "missing": 1, "extra": 0}
    with pytest.raises(InputError, match="2 references but 1 outputs"):
        wer(["a", "b"], ["a"])
    with pytest.raises(InputError, match="docs has 1 entries for 2 lines"):
        wer(["a", "b"], ["a", "b"], docs=["x"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(SENTENCE, OUTPUT, st.sampled_from(["a", "b", "c"])), min_size=1, max_size=10))
def test_a_document_bag_kept_line_by_line_is_the_bag_of_all_its_words(lines):
    """The tally keeps each document's bag as the words its sides differ by, a line at a time, in any
    order of documents: equal to counting the document's words all at once (Counter subtraction)."""
    refs, hyps, docs = zip(*lines)
    r = wer(list(refs), list(hyps), tokenizer="whitespace", docs=list(docs))
    for doc in set(docs):
        ref_words = [w for ref, d in zip(refs, docs) if d == doc for w in ref.split()]
        hyp_words = [w for hyp, d in zip(hyps, docs) if d == doc for w in hyp.split()]
        assert r.bags[doc] == bag_stats(ref_words, hyp_words)
