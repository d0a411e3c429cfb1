"""Lexicon checks: languages, words and numbers around an edit, negations."""

import pytest

from semcer.judges.rubric.lexicon import (
    cjk_word,
    is_negation,
    lexicon_lang,
    line_info,
    number_implausible,
    number_span,
    number_value,
    word_at,
    word_span,
)
from semcer.text.script import base_lang


@pytest.mark.parametrize("tag,expected", [("zh_CN", "zh"), ("pt-BR", "pt"), ("en", "en"), ("lo", None), ("iw", "he")])
def test_lexicon_language(tag, expected):
    assert lexicon_lang(tag) == expected
    assert base_lang("zh_CN") == "zh"


def test_word_and_number_spans():
    line = line_info("Total: 1,250.00 € (Zeile)")
    assert word_span(line, 1, False) == (0, 5)  # inside "Total"
    assert word_span(line, 5, False) == (0, 5)  # ":" takes the word on its left
    assert word_at(line, 5, False) == ((0, 5), "Total") and word_at(line, 5, True) == ((0, 5), "Total")
    assert word_at(line_info("a - b"), 2, False) == (None, "")  # no word touches the dash
    assert number_span(line, 9, False) == (7, 15)  # "," inside 1,250.00
    assert line.span(7, 15) == "1,250.00"
    gap = line_info("Debian 31")
    assert number_span(gap, 8, True) == (7, 9)
    assert number_value("6.0") == number_value("6.00") == "6"
    assert number_value("14/04/2024") == number_value("14/4/2024")
    assert number_value("1,250") != number_value("1,25")
    assert number_implausible("2024", "2824") and not number_implausible("2024", "2023")
    assert number_implausible("05/11/2023", "05/44/2023")
    assert number_implausible("08:35", "08:95") and not number_implausible("08:35", "08:36")


def test_cjk_words_use_attested_windows():
    line = line_info("无法打开文件")
    word, z = cjk_word(line, 4, "zh")  # 文 in 文件 (file)
    assert word == "文件" and z > 4
    bad = line_info("无法打开又件")
    word, z = cjk_word(bad, 4, "zh")  # 又件 is no word: the character alone comes back
    assert word == "又"


def test_negation_words():
    assert is_negation("nicht", "de") and is_negation("không", "vi") and is_negation("not", "en")
    assert not is_negation("night", "en")
    assert is_negation("않습니다", "ko")  # Korean: marker inside the word
