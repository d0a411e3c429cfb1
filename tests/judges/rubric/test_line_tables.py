"""The per-line tables the features are read from, against direct definitions: unit codes, word and
number runs, token runs of a segmented line, the invisible-character scan, the local window."""

import sys
from itertools import pairwise
from unittest import mock

import pytest
from helpers import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.io.labels import load_labelled
from semcer.judges.rubric import extra_lexicons, features
from semcer.judges.rubric.classes import has_invisible, unit_kind, visible
from semcer.judges.rubric.features import _local_sim, _similarity, _window, feature_tuple
from semcer.judges.rubric.lexicon import KIND_CODES, NUMBER_SEPARATORS, line_info, unit_codes
from semcer.judges.rubric.rules import _BASE, DAMAGE_WEIGHT, _clip, damage, rubric_rule
from semcer.text.units import graphemes

DEV = load_labelled(DATA / "dev.jsonl")[0]
#: Letters, marks, digits of several scripts, every number separator, spaces, symbols, invisibles.
ALPHABET = "ab Z1,.-:/'’\u00a0\u202f٫٬٣e\u0301क\u093f\u094d国ไม่\u200c\u200b\u00ad²①$%\t"


def _runs(flags):
    """For each position, the (start, end) of the run of true flags holding it, or None."""
    out = []
    for i, f in enumerate(flags):
        if not f:
            out.append(None)
            continue
        a, b = i, i
        while a > 0 and flags[a - 1]:
            a -= 1
        while b < len(flags) and flags[b]:
            b += 1
        out.append((a, b))
    return tuple(out)


@given(st.text(alphabet=ALPHABET, max_size=40))
@settings(max_examples=400, deadline=None)
def test_unit_codes_and_runs_against_the_units(text):
    """Unit codes, word runs, number runs and unit offsets of line_info, against a direct scan of its units."""
    units = graphemes(text)
    codes = unit_codes(text, units)
    expected = [KIND_CODES[unit_kind(u)] for u in units]
    assert codes == "".join(c.upper() if u in NUMBER_SEPARATORS else c for c, u in zip(expected, units))
    line = line_info(text)
    kinds = tuple(map(unit_kind, units))
    assert line.units == units and line.kinds == kinds
    assert [line.text[line.offsets[i] : line.offsets[i + 1]] for i in range(len(units))] == list(units)
    assert line.word_run == _runs([k in ("letter", "digit", "ideograph", "mark") for k in kinds])
    digit = [k == "digit" for k in kinds]
    n = len(units)
    in_num = [d or (0 < i < n - 1 and units[i] in NUMBER_SEPARATORS and digit[i - 1] and digit[i + 1])
              for i, d in enumerate(digit)]
    assert line.has_digit == any(digit)
    assert line.num_run == (_runs(in_num) if any(digit) else (None,) * n)


@st.composite
def _tokenized(draw):
    """A text and token spans over it: consecutive pieces between cut points (code point offsets,
    so a token may end inside a cluster), some dropped (uncovered), some empty."""
    text = draw(st.text(alphabet=ALPHABET, max_size=30))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    points = [0, *cuts, len(text)]
    spans = [(a, b) for a, b in pairwise(points) if draw(st.booleans()) or a == b]
    return text, tuple(spans)


@given(_tokenized())
@settings(max_examples=400, deadline=None)
def test_segmented_runs_against_a_per_unit_scan(case):
    """Each unit belongs to the token holding its first code point; a word run is cut wherever the
    token changes, and a word unit no token covers is a word of its own."""
    text, spans = case
    line = line_info(text)
    with mock.patch.object(extra_lexicons, "word_spans", lambda t, lang: spans):
        runs = features._segmented.__wrapped__(text, "th").word_run
    if not spans:
        assert runs == line.word_run
        return
    token = []
    for k in range(len(line.units)):
        off = line.offsets[k]
        holding = [t for t, (a, b) in enumerate(spans) if a <= off < b]
        token.append(holding[0] if holding else -1 - k)
    expected = []
    for i, run in enumerate(line.word_run):
        if run is None:
            expected.append(None)
            continue
        a, b = i, i + 1
        while a > run[0] and token[a - 1] == token[i]:
            a -= 1
        while b < run[1] and token[b] == token[i]:
            b += 1
        expected.append((a, b))
    assert runs == tuple(expected)


@given(st.text(alphabet=ALPHABET + "\u200d\u2060\ufe0f\ufeff\u061c\U000e0101x", max_size=30))
@settings(max_examples=300, deadline=None)
def test_has_invisible_is_whether_visible_changes_the_text(text):
    assert has_invisible(text) == (visible(text) != text)


def test_no_code_point_is_both_a_letter_and_a_digit():
    """_line_words skips the digit scan of a word of letters only."""
    assert not [c for c in map(chr, range(sys.maxunicode + 1)) if c.isalpha() and c.isdigit()]


@given(st.text(alphabet=ALPHABET, max_size=30), st.text(alphabet=ALPHABET, max_size=30),
       st.integers(-8, 40), st.integers(-8, 40))
@settings(max_examples=300, deadline=None)
def test_local_sim_is_the_similarity_of_the_two_windows(ref, hyp, rpos, hpos):
    r, h = line_info(ref), line_info(hyp)
    assert _local_sim(r, h, rpos, hpos) == _similarity(_window(r, rpos), _window(h, hpos))


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
@settings(max_examples=200, deadline=None)
def test_rubric_tilt_adds_the_damage_around_the_edit(line_sim, local_sim):
    """A non-word letter edit (or a garbled one): the rule's base plus DAMAGE_WEIGHT x damage()."""
    f = feature_tuple(next(c for c in DEV if c.lang == "de" and c.op == "S"))
    f = f._replace(edit_class="letter", negation="", equivalent=False, word_status="non-word",
                   line_sim=line_sim, local_sim=local_sim)
    rule_id, tilt = rubric_rule(f)
    assert rule_id == ("garbled" if local_sim < 0.6 else "non-word")
    assert tilt == _clip(_BASE[rule_id] + DAMAGE_WEIGHT * damage(line_sim, local_sim))


def test_japanese_output_words_are_never_read():
    """For Chinese and Japanese the output line is not segmented: the features are the same as
    with its word boundaries from the tokenizer."""
    if not features._lang_info("ja")[2]:
        pytest.skip("no Japanese lexicon here (the cjk extra): the output line is segmented like any other")
    japanese = [c for c in DEV if c.lang.startswith("ja")]
    assert len(japanese) > 20

    real = features._lines.__wrapped__

    def with_segmented_output(ref, hyp, tag):
        out = real(ref, hyp, tag)
        return (out[0], features._segmented(hyp, features._lang_info(tag)[0]), *out[2:])

    plain = [feature_tuple(c) for c in japanese]
    with mock.patch.object(features, "_lines", with_segmented_output):
        segmented = [feature_tuple(c) for c in japanese]
    assert plain == segmented
    if extra_lexicons.word_spans("日本語のテキストです", "ja"):  # MeCab installed: the output really was cut
        assert any(features._segmented(c.hyp, "ja").word_run != line_info(c.hyp).word_run for c in japanese)
