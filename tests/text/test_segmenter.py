"""The fast segmenter (ugrapheme) stands in for regex's \\X only where the two agree."""

import pytest
import regex
from helpers import TRICKY
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.text import scan as scan_mod
from semcer.text import units
from semcer.text.scan import JOINS, scan
from semcer.text.segmenter import fast_splitter, ugrapheme_gaps

INDIC = "\u0915\u0937\u0930\u0924\u094d\u093c\u093f\u0940\u0905\u0995\u09cd\u09b7\u09be\u200d\u200c a\u0301\u0c15\u0c4d"
indic_text = st.text(st.sampled_from(INDIC) | st.sampled_from(TRICKY), max_size=10)


@settings(max_examples=1500)
@given(st.lists(indic_text, min_size=1, max_size=5))
def test_fast_segmentation_equals_regex(texts):
    flags = scan(texts).tolist()
    split = fast_splitter()
    for t, f in zip(texts, flags):
        expected = regex.findall(r"\X", t)
        assert list(units.segment(t)) == expected, ascii(t)
        if split is not None and f & JOINS and not f & scan_mod.SLOW_SEGMENT:
            assert split(t) == expected, ascii(t)


def test_a_virama_trusted_only_right_after_a_consonant():
    if ugrapheme_gaps() is None or not ugrapheme_gaps().context_linkers:
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
