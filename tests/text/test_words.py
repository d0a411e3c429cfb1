"""Word tokenizers: ``uax29`` against dinglehopper's words (recorded), ``whitespace`` against jiwer's word
lists, ``auto`` (jieba, MeCab, undefined for Thai) against the tokenizers' own output, by hand."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

from semcer.errors import SemcerError
from semcer.text.words import TOKENIZERS, tokenize, tokenizer_identity

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "dinglehopper_cer.json")
                     .read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", FIXTURE["words"], ids=lambda c: c["text"][:24] or "empty")
def test_uax29_gives_dinglehoppers_words(case):
    # dinglehopper's words_normalized applies NFC first; semcer's tokenizer leaves that to the policy
    assert tokenize(unicodedata.normalize("NFC", case["text"]), "uax29") == case["words"]


@pytest.mark.parametrize(("text", "words"), [
    ("Ende. Anfang,", ["Ende", "Anfang"]),
    ("don't 3.14 1,000 U.S.A.", ["don't", "3.14", "1,000", "U.S.A"]),
    ("-- ... !!! — «»", []),
    ("a\ue72bb", ["a", "\ue72b", "b"]),  # a private-use character is no letter (UAX #29)
    ("e\u0301t\u00e9", ["e\u0301t\u00e9"]),  # a combining mark stays in its word
    ("", []),
    ("x\u200by", ["x", "y"]),  # ZERO WIDTH SPACE (Cf) is a boundary, and dropped
])
def test_uax29_by_hand(text, words):
    assert tokenize(text) == words


def test_whitespace_keeps_punctuation_and_splits_on_unicode_whitespace():
    assert tokenize("Ende. a\tb\u00a0c\u3000d  e\n", "whitespace") == ["Ende.", "a", "b", "c", "d", "e"]
    assert tokenize("   ", "whitespace") == []


@given(st.lists(st.text(alphabet="abc.,'-", min_size=1, max_size=4), max_size=8),
       st.lists(st.sampled_from([" ", "  ", " \n ", "\t\t", "\n\n"]), min_size=9, max_size=9))
def test_whitespace_words_are_jiwers_words(words, gaps):
    # (jiwer joins two words across a lone tab or line break, so the gaps are spaces or runs of two)
    text = gaps[0].lstrip() + "".join(w + g for w, g in zip(words, gaps[1:]))
    expected = jiwer.wer_default(text)[0] if text.strip() else []  # jiwer's own transform of one sentence
    assert tokenize(text, "whitespace") == expected


def test_auto_uses_a_dictionary_for_chinese_and_japanese():
    # jieba with wordfreq's dictionary, as wordfreq.tokenize(text, "zh") gives it (the full stop dropped)
    assert tokenize("我们在北京大学读书。", "auto", "zh") == ["我们", "在", "北京大学", "读书"]
    # MeCab/ipadic surface forms, as MeCab's own parse gives them
    assert tokenize("東京大学で勉強しています。", "auto", "ja") == ["東京大学", "で", "勉強", "し", "て", "い", "ます"]
    # the language is detected when the line has none; the text is not normalised (full-width stays)
    assert tokenize("我们在北京大学读书。", "auto") == ["我们", "在", "北京大学", "读书"]
    assert tokenize("東京大学でＡＢＣ", "auto", "ja-JP") == ["東京大学", "で", "ＡＢＣ"]


def test_auto_is_undefined_for_thai_and_uax29_elsewhere():
    assert tokenize("สวัสดีครับ ขอบคุณมาก", "auto", "th") is None
    assert tokenize("สวัสดีครับ ขอบคุณมาก", "auto") is None  # detected as Thai
    assert tokenize("Straße und Weg.", "auto", "de") == ["Straße", "und", "Weg"]
    assert tokenize("Straße und Weg.", "auto") == ["Straße", "und", "Weg"]


def test_names_and_identities():
    assert TOKENIZERS == ("uax29", "whitespace", "auto")
    assert tokenizer_identity("uax29").startswith("uax29@seg-")
    assert tokenizer_identity("whitespace") == "whitespace"
    ident = tokenizer_identity("auto")
    assert ident.startswith("auto@seg-") and "+jieba-" in ident and "+wordfreq-" in ident
    with pytest.raises(SemcerError, match="unknown tokenizer 'spacy'"):
        tokenize("x", "spacy")
