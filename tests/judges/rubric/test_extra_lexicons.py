"""Word lists for the languages wordfreq lacks: the aspell list reader on hand-made bytes, the Thai
and Indic lookups where their packages are installed, Thai and Japanese word boundaries, and the
judges' identities naming the lists."""

from __future__ import annotations

import gzip
import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.judges.compact import CompactJudge
from semcer.judges.rubric import RubricJudge, extra_lexicons
from semcer.judges.rubric.extra_lexicons import DICTIONARY_ZIPF, prezip_words, word_spans
from semcer.judges.rubric.lexicon import lexicon_lang, zipf

HAS_THAI = importlib.util.find_spec("pythainlp") is not None
needs_thai = pytest.mark.skipif(not HAS_THAI, reason="PyThaiNLP is not installed (pip install 'semcer[thai]')")


def _aspell(lang: str) -> pytest.MarkDecorator:
    path = extra_lexicons.ASPELL_DIR / f"{lang}.cwl.gz"
    return pytest.mark.skipif(not path.is_file(), reason=f"{path} missing (apt-get install aspell-{lang})")


# --- The aspell "prezip" reader, on bytes written by hand from the format's grammar -------------


def test_prezip_words_by_hand():
    # 0x02, then (prefix length, rest): "cat"; keep 2 of "cat" + "r" -> "car"; keep 3 + "t" -> "cart";
    # keep 0 + "dog"; then the end marker 0x1F 0xFF.
    data = b"\x02" + b"\x00cat" + b"\x02r" + b"\x03t" + b"\x00dog" + b"\x1f\xff"
    assert list(prezip_words(data)) == ["cat", "car", "cart", "dog"]


def test_prezip_escape_long_prefix_and_flags():
    long_word = "a" * 40
    # A 0x1F escape stands for the byte minus 0x20 (a tab here); a prefix of 40 is 0x1E then 40 - 30;
    # affix flags after "/" are dropped.
    data = (b"\x02" + b"\x00x\x1f\x29y" + b"\x00" + long_word.encode() + b"\x1e\x0ab/F" + b"\x1f\xff")
    assert list(prezip_words(data)) == ["x\ty", long_word, long_word + "b"]


def test_prezip_rejects_other_bytes():
    with pytest.raises(ValueError, match="prezip"):
        list(prezip_words(b"cat\ndog\n"))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(st.characters(min_codepoint=0x0C00, max_codepoint=0x0C7F), min_size=1, max_size=12),
                min_size=1, max_size=30))
def test_prezip_round_trip(words):
    # An encoder written here from the grammar (shared prefix in bytes, capped at 29), against the reader.
    out, prev = bytearray(b"\x02"), b""
    for w in words:
        b = w.encode("utf-8")
        keep = 0
        while keep < min(len(prev), len(b), 29) and prev[keep] == b[keep]:
            keep += 1
        out += bytes([keep]) + b[keep:]
        prev = b
    out += b"\x1f\xff"
    assert list(prezip_words(bytes(out))) == words


# --- Lookups -------------------------------------------------------------------------------------


@needs_thai
def test_thai_lookup():
    assert lexicon_lang("th") == "th"
    # "not" is among the most frequent Thai words, "wood" a common one, a garbled syllable none.
    assert zipf("ไม่", "th") > zipf("ไม้", "th") >= 2.0
    assert zipf("ไมใ", "th") == 0.0


@needs_thai
def test_thai_word_boundaries():
    text = "ไม่พบแฟ้ม บางที"
    assert [text[a:b] for a, b in word_spans(text, "th")] == ["ไม่", "พบ", "แฟ้ม", " ", "บางที"]


def test_japanese_word_boundaries():
    text = "ファイルを作成"
    pieces = [text[a:b] for a, b in word_spans(text, "ja")]
    assert "".join(pieces) == text and pieces[0] == "ファイル" and "を" in pieces


@_aspell("te")
def test_telugu_lookup_ignores_zero_width_non_joiner():
    assert lexicon_lang("te") == "te"
    assert zipf("రిపబ్లిక్", "te") == DICTIONARY_ZIPF
    assert zipf("రిపబ్లిక్\u200c", "te") == DICTIONARY_ZIPF  # ZWNJ after the virama: the same word
    assert zipf("రిపబ్లిక్క్క", "te") == 0.0


@_aspell("kn")
@_aspell("mr")
def test_kannada_and_marathi_lookup():
    assert zipf("ಮೆಮೊರಿ", "kn") == DICTIONARY_ZIPF and zipf("आवश्यक", "mr") == DICTIONARY_ZIPF
    assert zipf("आवश्\u200dयक", "mr") == DICTIONARY_ZIPF  # a ZWJ inside the conjunct


def test_no_source_no_lexicon(monkeypatch, tmp_path):
    monkeypatch.setattr(extra_lexicons, "ASPELL_DIR", tmp_path)
    assert extra_lexicons._source_file("te") is None and not extra_lexicons.available("te")
    (tmp_path / "te.cwl.gz").write_bytes(gzip.compress(b"\x02\x00abc\x1f\xff"))
    assert extra_lexicons.available("te")
    assert not extra_lexicons.available("xx")


def test_identities_name_the_lists():
    version = extra_lexicons.version()
    assert version.startswith("xlex-") and (version == "xlex-none") == (not extra_lexicons.sources())
    for judge in (RubricJudge(), CompactJudge()):
        assert f"+{version}+ctx" in judge.identity
    for source in extra_lexicons.sources():
        lang, _, rest = source.partition("=")
        assert lang in extra_lexicons.EXTRA_LANGS and "@" in rest
