"""The edit classes and features the twelve smaller languages' labels called for: invisible units,
cross-script look-alikes, compatibility-equal stretches split differently into units, mark changes,
and the rubric rules over them (each case from a labelled edit's kind, with its level by hand)."""

from __future__ import annotations

import pytest
from helpers import one_edit_context

from semcer.alignment.context import EditContext
from semcer.judges.rubric import RubricJudge
from semcer.judges.rubric.classes import edit_class, mark_change, visible
from semcer.judges.rubric.features import feature_tuple

JUDGE = RubricJudge()


@pytest.mark.parametrize("ref,hyp", [
    ("ఫ్", "ఫ్\u200c"),  # Telugu: ZWNJ after a virama
    ("श्य", "श्\u200dय"),  # Marathi: ZWJ inside a conjunct
    ("", "\u200b"),  # a zero-width space inserted
    ("", "\u200e"),  # a left-to-right mark inserted (Arabic line)
    ("a\u00ad", "a"),  # a soft hyphen dropped
])
def test_invisible(ref, hyp):
    assert edit_class(ref, hyp) == "invisible"


def test_visible_keeps_visible_text():
    assert visible("ఫ్\u200c") == "ఫ్" and visible("abc") == "abc" and visible("ما") == "ما"
    assert edit_class("ఫ్", "ఫ") != "invisible"  # the virama itself is visible


@pytest.mark.parametrize("ref,hyp", [
    ("e", "ε"), ("k", "к"), ("Y", "У"), ("Г", "Γ"),  # Latin/Greek/Cyrillic look-alikes
    ("׳", "'"), ("״", '"'),  # Hebrew geresh and gershayim as ASCII quotes
    ("ト", "卜"), ("ー", "一"), ("ロ", "口"),  # katakana read as the kanji drawn alike
])
def test_homoglyph(ref, hyp):
    assert edit_class(ref, hyp) == "homoglyph" and edit_class(hyp, ref) == "homoglyph"


def test_not_homoglyphs():
    assert edit_class("η", "n") == "letter" and edit_class("в", "e") == "letter"


def test_micro_sign_is_compat():
    assert edit_class("µ", "μ") == "compat"


@pytest.mark.parametrize("ref,hyp,kind", [
    ("وّ", "و", "optional"),  # Arabic shadda dropped
    ("בָּ", "ב", "optional"),  # Hebrew niqqud and dagesh dropped
    ("আঁ", "আ", "nasal"),  # Bengali chandrabindu
    ("यं", "य", "nasal"),  # Marathi anusvara
    ("स्", "स", "virama"),
    ("ड़", "ड", "nukta"),
    ("ấ", "â", "tone"),  # Vietnamese: the acute (a tone) dropped, the circumflex kept
    ("ấ", "á", "other"),  # the circumflex (a vowel's shape, not a tone) dropped
    ("ไม่", "ไม้", "tone"),  # Thai mai ek -> mai tho
    ("कि", "की", "vowel"),  # Hindi short i -> long i
    ("a", "b", ""),
    ("ê", "e", "other"),
    ("ö", "o", "other"),
])
def test_mark_change(ref, hyp, kind):
    assert mark_change(ref, hyp) == kind


def _edit(lang, op, ru, hu, rp, hp, ref, hyp):
    return EditContext(lang, op, ru, hu, rp, hp, ref, hyp, ref, hyp)


def test_thai_sara_am_split_is_equivalent():
    # กำลัง with sara am (one unit, U+0E33) read as nikhahit + sara aa (U+0E4D U+0E32, two units):
    # NFKC-equal, so both edits of the split are cosmetic (the labels: about 0.04).
    ref, hyp = "กำลัง", "ก\u0e4d\u0e32ลัง"
    sub = _edit("th", "S", "กำ", "ก\u0e4d", 0, 0, ref, hyp)
    ins = _edit("th", "I", "", "\u0e32", 1, 1, ref, hyp)
    for c in (sub, ins):
        f = feature_tuple(c)
        assert f.equivalent and f.edit_class not in ("compat", "invisible")
        j = JUDGE.judge([c])[0]
        assert j.mode == 0 and "rule:compat-split" in j.flags


def test_a_real_change_is_not_equivalent():
    c = one_edit_context("th", "ภาษาที่ยังไม่กำหนด", "ภาษาที่ยังไม้กำหนด")
    assert not feature_tuple(c).equivalent
    dup = _edit("en", "I", "", "a", 2, 2, "xay", "xaay")  # a doubled letter: equal windows do not count
    assert not feature_tuple(dup).equivalent


@pytest.mark.parametrize("lang,ref,hyp,rule", [
    ("te", "రిపబ్లిక్ ఆఫ్ మాల్టా", "రిపబ్లిక్ ఆఫ్\u200c మాల్టా", "invisible"),
    ("el", "10 µm", "10 μm", "compat"),
    ("ru", "Ошибка в файле", "Ошибкa в файле", "homoglyph"),  # Latin a for Cyrillic а
    ("ar", "قطعة مشوّهة في الرسم", "قطعة مشوهة في الرسم", "mark-optional"),
])
def test_cosmetic_rules(lang, ref, hyp, rule):
    j = JUDGE.judge([one_edit_context(lang, ref, hyp)])[0]
    assert j.mode == 0 and f"rule:{rule}" in j.flags


def test_thai_real_word_with_word_boundaries():
    # ไม่ ("not") -> ไม้ ("wood"): with Thai word boundaries the edited word is ไม่, not the whole line.
    pytest.importorskip("pythainlp", reason="PyThaiNLP is not installed (pip install 'semcer[thai]')")
    f = feature_tuple(one_edit_context("th", "ภาษาที่ยังไม่กำหนดรหัส", "ภาษาที่ยังไม้กำหนดรหัส"))
    assert (f.ref_word, f.hyp_word) == ("ไม่", "ไม้")
    assert f.word_status == "real-word" and f.mark_change == "tone"


def test_units_no_token_covers_are_words_of_their_own(monkeypatch):
    """A tokenizer that leaves a gap or a trailing space uncovered (MeCab drops a final space) must
    not break the line: on a 100k-line corpus this raised IndexError before."""
    from semcer.judges.rubric import extra_lexicons, features

    monkeypatch.setattr(extra_lexicons, "word_spans", lambda text, lang: ((0, 2), (4, 6)))
    runs = features._segmented("abc de \u3000", "ja").word_run  # a text no other test caches
    assert runs[0] == runs[1] == (0, 2)  # "ab": one token
    assert runs[2] == (2, 3)  # "c": no token covers it, a word of its own
    assert runs[4] == runs[5] == (4, 6)  # "de"
    assert runs[3] is None and runs[6] is None and runs[7] is None  # spaces are no words
