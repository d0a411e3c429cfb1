"""Edit classes and unit kinds: what kind of change an edit is, from its two units alone."""

import pytest

from semcer.judges.rubric.classes import edit_class, strip_marks, unit_kind
from semcer.text.units import graphemes


@pytest.mark.parametrize(
    "ref_unit,hyp_unit,expected",
    [
        (" ", "", "whitespace"),
        ("", " ", "whitespace"),
        ("a", "A", "case"),
        (":", "：", "compat"),  # full-width vs half-width
        ("Ａ", "A", "compat"),
        ("０", "0", "compat"),
        (",", ".", "punct"),
        ("'", "’", "punct"),
        ("", "“", "punct"),
        (" ", ".", "punct"),
        ("ấ", "á", "mark"),  # đấng -> đáng
        ("É", "e", "mark"),
        ("सि", "सी", "mark"),  # Hindi vowel sign
        ("र्डे", "र्ड", "mark"),
        ("0", "O", "digit"),
        ("5", "S", "digit"),
        ("", "7", "digit"),
        ("२", "3", "digit"),
        ("l", "i", "letter"),
        ("e", "¡", "letter"),
        ("ऑ", "आ", "letter"),
        ("文", "又", "ideograph"),
        ("", "件", "ideograph"),
        ("ο", "o", "homoglyph"),  # Greek omicron vs Latin o
        ("а", "a", "homoglyph"),  # Cyrillic a
        ("x", "x", "none"),
    ],
)
def test_edit_class(ref_unit, hyp_unit, expected):
    assert edit_class(ref_unit, hyp_unit) == expected


def test_unit_kinds_and_marks():
    assert [unit_kind(u) for u in ("", " ", "7", "a", "文", "\u0301", ",", "€")] == [
        "empty", "space", "digit", "letter", "ideograph", "mark", "punct", "symbol"
    ]
    assert strip_marks("Đấng") == "đang"  # đ is a letter of its own, not d with a mark
    assert graphemes("đấng") == ("đ", "ấ", "n", "g")
    assert graphemes("e\u0301") == ("e\u0301",)
