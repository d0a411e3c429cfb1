"""The one-pass corpus scan: a line it passes as NFC is NFC, a line it passes as joiner-free is
its own cluster sequence, and the batched evaluation equals a plain line-by-line oracle."""

import unicodedata

import numpy as np
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

import semcer
from semcer import _nfc_suspects, units
from semcer import scan as scan_mod
from semcer.policy import get_policy
from semcer.scan import JOINS, NFC, nfc_tables, scan

# Characters around which NFC's quick check answers "maybe" or reorders, and their partners.
TRICKY = (
    "\u09c7\u09be\u09d7\u0995"  # Bengali: ে + া composes to ো; ৗ; a consonant
    "\u0bc6\u0bc7\u0bbe\u0bd7\u0b95"  # Tamil: ெ + ா composes to ொ
    "\u1100\u1161\u11a8\uac00\uac01"  # Hangul L, V, T, LV, LVT
    "\u094d\u093c\u0915\u0929"  # Devanagari virama (ccc 9), nukta (ccc 7), consonants
    "\u0e48\u0e38\u0e01"  # Thai tone mark (ccc 107), vowel sign u (ccc 103), consonant
    "\u0301\u0323\u0302\u0316ae\u00e9\u1ea1\u00d9\u1ec7"  # Latin marks (ccc 230, 220) and bases
    "\u0344\u0958\u2126\u212b"  # not NFC on their own
    "\u200d\u0903\u0600\U0001f1e6\U0001f600\r\n "
)
tricky_text = st.text(st.sampled_from(TRICKY) | st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=1500)
@given(st.lists(tricky_text, min_size=1, max_size=6))
def test_unflagged_lines_are_nfc_and_joiner_free(texts):
    flags = scan(texts)
    for t, f in zip(texts, flags.tolist()):
        if not f & NFC:
            assert unicodedata.is_normalized("NFC", t), ascii(t)
        assert bool(f & JOINS) == (not units.clusters_are_codepoints(t)), ascii(t)


def test_every_single_code_point():
    every = [chr(c) for c in (*range(0xD800), *range(0xE000, 0x110000))]
    flags = scan(every)
    missed = [c for c, f in zip(every, flags.tolist()) if not f & NFC and not unicodedata.is_normalized("NFC", c)]
    assert missed == []


def test_every_composable_first_before_every_pair_starter_and_mark():
    _, order, pair, composable, trailing = nfc_tables()
    firsts = sorted({a for a, _ in composable} | {c for c, _ in trailing[::3]} | {0x1100, 0x1112, 0xAC00, 0xD788})
    seconds = pair + order[::7]
    texts = [chr(a) + chr(b) for a in firsts for b in seconds]
    flags = scan(texts)
    missed = [t for t, f in zip(texts, flags.tolist()) if not f & NFC and not unicodedata.is_normalized("NFC", t)]
    assert missed == []


def test_marks_out_of_canonical_order_are_flagged():
    texts = ["\u0e01\u0e48\u0e38", "\u0e01\u0e38\u0e48", "\u09c7\u09be", "\u09be\u09c7", "a\u0323\u0301"]
    assert scan(texts).tolist() == [NFC | JOINS, JOINS, NFC | JOINS, JOINS, NFC | JOINS]
    assert [unicodedata.is_normalized("NFC", t) for t in texts] == [False, True, False, True, False]


def test_planes_without_decompositions():
    """nfc_tables skips planes 4-13 and 15-16: nothing there is assigned, or it is private use."""
    for c in range(0x40000, 0xE0000, 1):
        assert unicodedata.category(chr(c)) == "Cn"
    for c in range(0xF0000, 0x110000, 251):
        ch = chr(c)
        assert unicodedata.category(ch) in ("Co", "Cn") and not unicodedata.decomposition(ch)


def test_shipped_table_is_current():
    if _nfc_suspects.UNIDATA_VERSION != unicodedata.unidata_version:
        pytest.skip(f"table made for Unicode {_nfc_suspects.UNIDATA_VERSION}; computed at run time here")
    hard, order, pair, composable, trailing = nfc_tables()
    assert _nfc_suspects.HARD == tuple(scan_mod.ranges(hard))
    assert _nfc_suspects.ORDER == tuple(scan_mod.ranges(order))
    assert _nfc_suspects.PAIR == tuple(scan_mod.ranges(pair))
    assert _nfc_suspects.COMPOSABLE == tuple(composable)
    assert _nfc_suspects.TRAILING == tuple(trailing)


def test_chunks_empty_strings_and_lone_surrogates(monkeypatch):
    texts = ["", "a\u0301", "", "", "क्ष", "abc", "\ud800", "", "e\u0301"]
    whole = scan(texts).tolist()
    monkeypatch.setattr(scan_mod, "CHUNK", 2)
    assert scan(texts).tolist() == whole
    assert whole[0] == whole[2] == whole[3] == whole[7] == 0
    assert whole[1] & NFC and whole[8] & NFC and whole[4] & JOINS and whole[5] == 0


# ---- the batched evaluation against a line-by-line oracle ---------------------------------


def oracle(ref, hyp, unit, policy):
    pol = get_policy(policy)
    r, h = pol(ref), pol(hyp)
    ru = list(r) if unit == "codepoint" else regex.findall(r"\X", r)
    hu = list(h) if unit == "codepoint" else regex.findall(r"\X", h)
    return [(("S" if t == "replace" else "D" if t == "delete" else "I"), i, j)
            for t, i, j in Levenshtein.editops(ru, hu).as_list()], len(ru)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(tricky_text.filter(bool), tricky_text), min_size=1, max_size=8),
       st.sampled_from(["grapheme", "codepoint"]), st.sampled_from(["nfc", "raw", "casefold"]))
def test_batched_evaluation_equals_line_by_line_oracle(pairs, unit, policy):
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    pol = get_policy(policy)
    if any(not pol(r) for r in refs):
        return
    ev = semcer.evaluate(refs, hyps, unit=unit, policy=policy, edits=True)
    for line, (r, h) in zip(ev.lines, pairs):
        ops, n = oracle(r, h, unit, policy)
        assert [(e.op, e.ref_pos, e.hyp_pos) for e in line.edits] == ops
        assert line.stats.units == n
        al = line.alignment
        assert all(e.ref_unit == (al.ref_units[e.ref_pos] if e.op != "I" else "") for e in line.edits)
        assert all(e.hyp_unit == (al.hyp_units[e.hyp_pos] if e.op != "D" else "") for e in line.edits)
    assert ev.corpus.units == sum(oracle(r, h, unit, policy)[1] for r, h in pairs)


def test_batched_evaluation_on_the_example_corpus(example_pairs):
    refs = [r["text"] for r in example_pairs[0]]
    hyps = [h["text"] for h in example_pairs[2]]
    ev = semcer.evaluate(refs, hyps, edits=True)
    for line, r, h in zip(ev.lines, refs, hyps):
        ops, n = oracle(r, h, "grapheme", "nfc")
        assert [(e.op, e.ref_pos, e.hyp_pos) for e in line.edits] == ops and line.stats.units == n
    assert np.isclose(ev.corpus.cer, sum(len(oracle(r, h, "grapheme", "nfc")[0]) for r, h in zip(refs, hyps))
                      / sum(oracle(r, h, "grapheme", "nfc")[1] for r, h in zip(refs, hyps)))


# ---- the fast segmenter stands in for \X only where they agree --------------------------------

INDIC = "\u0915\u0937\u0930\u0924\u094d\u093c\u093f\u0940\u0905\u0995\u09cd\u09b7\u09be\u200d\u200c a\u0301\u0c15\u0c4d"
indic_text = st.text(st.sampled_from(INDIC) | st.sampled_from(TRICKY), max_size=10)


@settings(max_examples=1500)
@given(st.lists(indic_text, min_size=1, max_size=5))
def test_fast_segmentation_equals_regex(texts):
    flags = scan(texts).tolist()
    split = units.fast_splitter()
    for t, f in zip(texts, flags):
        expected = regex.findall(r"\X", t)
        assert list(units.segment(t)) == expected, ascii(t)
        if split is not None and f & JOINS and not f & scan_mod.SLOW_SEGMENT:
            assert split(t) == expected, ascii(t)


def test_a_virama_trusted_only_right_after_a_consonant():
    if units.ugrapheme_gaps() is None or not units.ugrapheme_gaps().context_linkers:
        pytest.skip("no fast segmenter table with context linkers for these releases")
    slow = scan_mod.SLOW_SEGMENT
    got = scan(["\u0915\u094d\u0937", "a\u094d\u0915", "\u0915", "\u094d\u0915", "\u0915\u093c\u094d\u0937"]).tolist()
    assert [bool(f & slow) for f in got] == [False, True, False, True, True]
    assert len(regex.findall(r"\X", "a\u094d\u0915")) == 1  # Unicode 18.0's GB9c, which ugrapheme lacks


def test_lone_surrogates_are_segmented_by_regex():
    texts = ["a\ud800\u0301", "\u0915\ud800\u094d\u0915", "\udc00\u200d\U0001f600"]
    flags = scan(texts).tolist()
    assert all(f & JOINS and f & scan_mod.SLOW_SEGMENT for f in flags)
    for t in texts:
        assert list(units.segment(t)) == regex.findall(r"\X", t)
