"""Units: the no-segmentation shortcut is exact, and segmentation follows regex's \\X."""

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.text import units
from semcer.text.segmenter import chars
from semcer.text.tables.joiners import RANGES, REGEX_VERSION


def test_joiner_set_in_use_equals_regex_class():
    """Whether shipped (same regex release) or computed (another release), the set is exact."""
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    expected = set(units._JOINER.findall(every))
    no_joiner = chars(units.joiner_ranges()).isdisjoint
    assert all(not no_joiner(c) for c in expected)
    others = [c for c in every if c not in expected]
    assert all(no_joiner(c) for c in others[::97])
    if regex.__version__ == REGEX_VERSION:
        assert {c for a, b in RANGES for c in range(a, b + 1)} == {ord(c) for c in expected}


mixed = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@settings(max_examples=500)
@given(mixed)
def test_shortcut_is_exact(text):
    if units.clusters_are_codepoints(text):
        assert len(regex.findall(r"\X", text)) == len(text)
    assert list(units.segment(text)) == regex.findall(r"\X", text)


def test_cr_lf_is_one_grapheme():
    assert list(units.segment("a\r\nb")) == ["a", "\r\n", "b"]
    assert units.graphemes("a\r\nb") == ("a", "\r\n", "b")  # an ASCII line too (it was cut in two here)


@settings(max_examples=500)
@given(st.one_of(mixed, st.text(st.sampled_from("ab \r\n"), max_size=12)))
def test_graphemes_are_the_alignment_units(text):
    # the judges' line layout (graphemes) and the alignment (segment) must count the same units
    units.graphemes.cache_clear()
    assert units.graphemes(text) == tuple(regex.findall(r"\X", text)) == tuple(units.segment(text))


def test_alignable_pair_aligns_clusters_as_atoms():
    ref, hyp = "\U000f0000e\u0301", "e\u0301\U000f0000"
    a, b, _ru, _hu = units.alignable_pair(ref, hyp, "grapheme")
    assert a == ["\U000f0000", "e\u0301"] and b == ["e\u0301", "\U000f0000"]
    a, b, _, _ = units.alignable_pair("abc", "abd", "grapheme")
    assert a == "abc" and b == "abd"


def test_unicode_versions_reported():
    v = units.unicode_versions()
    assert v["normalizer"].count(".") == 2 and v["segmenter"][0].isdigit()
