"""Word lists for the languages wordfreq lacks: the aspell list reader on hand-made bytes, the Thai
and Indic lookups where their packages are installed, Thai and Japanese word boundaries, and the
judges' identities naming the lists."""

from __future__ import annotations

import gzip
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.caches import clear_caches
from semcer.judges.compact import CompactJudge
from semcer.judges.rubric import RubricJudge, extra_lexicons, lexicon_store
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


# --- The lists as compact tables (issue 11: no Python dictionary of a list in a run) -------------


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty semcer cache folder: the tables are built there, from the installed sources."""
    monkeypatch.setenv("SEMCER_CACHE_DIR", str(tmp_path))
    clear_caches()
    yield tmp_path / "lexicons" / f"v{lexicon_store.FORMAT_VERSION}" / "xlex"
    clear_caches()


@pytest.mark.parametrize("lang", sorted(extra_lexicons.EXTRA_LANGS))
def test_tables_give_every_word_of_the_lists_its_zipf(fresh_cache, lang):
    if not extra_lexicons.available(lang):
        pytest.skip(f"no source installed for {lang}")
    words = extra_lexicons.word_zipfs(lang)  # the list read from its source, as a dictionary
    assert len(words) > 10_000
    table = extra_lexicons._table(lang)
    assert table is not None and len(table) == len(words)
    assert dict(table.items()) == {w: lexicon_store.value_of_zipf(z) for w, z in words.items()}
    for word, z in words.items():
        assert lexicon_store.zipf_of_value(table.get(word)) == z, word
    # through the public lookup, words as written (its key: NFC, no ZWJ/ZWNJ, case-folded) and non-words
    sample = list(words)[::97]
    for word in sample + [w + w[-1] * 3 for w in sample]:
        assert zipf(word, lang) == words.get(extra_lexicons._key(word), 0.0), word
    assert [p.name.split("-")[0] for p in fresh_cache.iterdir()] == [lang]


def test_a_table_is_keyed_by_the_hash_of_its_source(fresh_cache, tmp_path, monkeypatch):
    monkeypatch.setattr(extra_lexicons, "ASPELL_DIR", tmp_path / "aspell")
    source = tmp_path / "aspell" / "te.cwl.gz"
    source.parent.mkdir()
    source.write_bytes(gzip.compress(b"\x02\x00abc\x00xyz\x1f\xff"))
    assert (extra_lexicons.zipf("abc", "te"), extra_lexicons.zipf("xyz", "te")) == (DICTIONARY_ZIPF, DICTIONARY_ZIPF)
    assert extra_lexicons.zipf("def", "te") == 0.0
    first = sorted(p.name for p in fresh_cache.iterdir())
    source.write_bytes(gzip.compress(b"\x02\x00def\x1f\xff"))  # another list under the same name
    clear_caches()
    assert (extra_lexicons.zipf("abc", "te"), extra_lexicons.zipf("def", "te")) == (0.0, DICTIONARY_ZIPF)
    second = sorted(p.name for p in fresh_cache.iterdir())
    assert len(second) == 2 and first[0] in second  # a second table, named by the new hash

    def fail(lang):
        raise AssertionError("the list was read again instead of its table")

    monkeypatch.setattr(extra_lexicons, "word_zipfs", fail)
    clear_caches()
    assert extra_lexicons.zipf("def", "te") == DICTIONARY_ZIPF  # read from the table file


def _thai_lines() -> list[str]:
    """Every Thai text of the labelled data and of the example collections this checkout has."""
    from helpers import DATA, ROOT, read_jsonl

    lines = []
    for path in sorted(DATA.glob("*.jsonl")):
        for row in read_jsonl(path):
            if row.get("lang") == "th":
                lines += [row["ref"], row["hyp"], row["marked_ref"], row["marked_hyp"]]
    for folder in (ROOT / "examples", ROOT / "shared" / "data" / "examples"):
        for path in sorted(folder.rglob("*.jsonl")) if folder.is_dir() else ():
            lines += [row["text"] for row in read_jsonl(path) if row.get("lang") == "th"]
    return [line for line in lines if line]


@needs_thai
def test_thai_words_are_pythainlps_own_on_every_thai_line(fresh_cache):
    """A differential test: PyThaiNLP's newmm with its default dictionary (its trie of Python objects)
    against newmm reading the compact table, token for token."""
    from pythainlp.tokenize import word_dict_trie, word_tokenize

    lines = _thai_lines()
    assert len(lines) >= 4 * 150  # 150 labelled Thai edits
    trie = word_dict_trie()
    dictionary = extra_lexicons._newmm_dictionary()
    assert dictionary is not None and len(dictionary) == len(trie)
    for line in lines:
        expected = word_tokenize(line, engine="newmm", keep_whitespace=True)
        assert [line[a:b] for a, b in word_spans(line, "th")] == expected, line
        for start in range(len(line)):
            assert dictionary.prefixes(line, start) == trie.prefixes(line, start), (line, start)


_THAI = "กขคงจฉชซญดตถทนบปผพฟภมยรลวศษสหอฮะัาำิีึืุูเแโใไ่้๊๋็์ๆ "


@needs_thai
@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=_THAI + "abc1,.", max_size=60))
def test_thai_words_are_pythainlps_own_on_any_thai_text(text):
    from pythainlp.tokenize import word_tokenize

    assert [text[a:b] for a, b in word_spans(text, "th")] == (word_tokenize(text, engine="newmm") if text else [])


_NO_DICTIONARIES = textwrap.dedent("""
    import pythainlp.corpus.common as common
    from pythainlp.tokenize import word_dict_trie
    from semcer.judges.rubric import extra_lexicons
    extra_lexicons.word_zipfs = None  # reading a list into a dictionary would fail
    assert extra_lexicons.zipf("ไม่", "th") > 3 and extra_lexicons.word_spans("ไม่พบแฟ้ม", "th")
    print(word_dict_trie.cache_info().currsize, bool(common._THAI_WORDS))
""")


@needs_thai
def test_a_run_builds_no_thai_trie_and_reads_no_list(fresh_cache):
    assert extra_lexicons.zipf("ไม่", "th") > 3 and extra_lexicons.word_spans("ไม่", "th")  # the tables are built
    env = {**os.environ, "PYTHONPATH": str(Path(extra_lexicons.__file__).parents[3])}
    out = subprocess.run([sys.executable, "-c", _NO_DICTIONARIES], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "False"]  # no trie built, PyThaiNLP's word list never loaded
