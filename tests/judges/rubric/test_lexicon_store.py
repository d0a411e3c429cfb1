"""The compact lexicon tables (issue 15): lookups equal wordfreq's own ``zipf_frequency`` (the
independent reference) on list words and non-words in several scripts, damaged cache files are
rebuilt rather than read, an unwritable cache folder still works, and two processes share a file."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import textwrap
import zlib
from pathlib import Path

import pytest
import wordfreq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semcer.caches import clear_caches
from semcer.judges.rubric import lexicon, lexicon_store, wordfreq_tables
from semcer.judges.rubric.lexicon_store import decode_table, encode_table, open_table

LANGS = ("en", "de", "fr", "ar", "hi", "ru", "zh", "ja")
#: Letters of each test language's script, plus digits, an apostrophe, a hyphen and a mark, for
#: non-words that reach every branch (one token, several tokens, digits, marks removed).
ALPHABETS = {
    "en": "abcdefghijklmnopqrstuvwxyzABCXYZ'’-0123é\u0301",
    "de": "aeinrstuäöüßÄÖÜAEINRST'-019\u0308",
    "fr": "aeilnorstuéèàçœÉÀ'’-07\u0301",
    "ar": "ابتثجحخدذرسشصعلمنهوي\u064e\u064f\u0650\u0640٣1",
    "hi": "कखगचजतदनपबमयरलवसह\u093e\u093f\u0940\u094d\u0902१1",
    "ru": "абвгдеёжзиклмнопрстуфхцчшщыьэюяАБВЁ'-5",
    "zh": "的一是不了人我在有他这中大来上國學們说时要就出会可也你对生能而子那得于着下自之年过发后作里",
    "ja": "あいうえおかきくけこさしすせそたちつてとアイウエオカキクケコ日本語学生ー々1",
}
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """A fresh cache folder for this module's tables (built here from wordfreq's installed lists)."""
    folder = tmp_path_factory.mktemp("semcer-cache")
    old = os.environ.get("SEMCER_CACHE_DIR")
    os.environ["SEMCER_CACHE_DIR"] = str(folder)
    wordfreq_tables.table.cache_clear()
    yield folder
    wordfreq_tables.table.cache_clear()
    if old is None:
        del os.environ["SEMCER_CACHE_DIR"]
    else:
        os.environ["SEMCER_CACHE_DIR"] = old


def _list_word(lang: str, i: int) -> str:
    words = wordfreq.top_n_list(lang, 20000)
    return words[i % len(words)]


@pytest.mark.parametrize("lang", LANGS)
@SETTINGS
@given(data=st.data())
def test_zipf_equals_wordfreq(cache_dir, lang, data):
    i = data.draw(st.integers(0, 19999))
    word = _list_word(lang, i)
    variant = data.draw(st.sampled_from((str, str.title, str.upper)))(word)
    junk = data.draw(st.text(alphabet=ALPHABETS[lang], min_size=1, max_size=8))
    glued = data.draw(st.sampled_from(("", "-", "'", "1", " ")))
    for w in (word, variant, junk, word + glued + junk):
        assert wordfreq_tables.zipf(w, lang) == wordfreq.zipf_frequency(w, lang), (w, lang)


@pytest.mark.parametrize("lang", ("en", "de", "ar", "hi", "ru", "vi"))
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=12))
def test_the_ascii_shortcut_gives_the_token_of_the_full_steps(lang, word):
    """An ASCII word skips normalization, mark removal and the regex: the same token (or None)."""
    info = wordfreq.get_language_info(lang)
    assert wordfreq_tables.one_token(word, info) == wordfreq_tables.folded_token(word, info), (word, lang)


@pytest.mark.parametrize("lang", ("en", "ar", "zh", "ja"))
@SETTINGS
@given(data=st.data())
def test_entry_zipf_equals_the_frequency_dict(cache_dir, lang, data):
    freqs = wordfreq.get_frequency_dict(lang)  # the dictionary the lexicon used to load
    word = _list_word(lang, data.draw(st.integers(0, 19999)))
    junk = data.draw(st.text(alphabet=ALPHABETS[lang], min_size=1, max_size=4))
    for w in (word, junk, word + junk):
        f = freqs.get(w, 0.0)
        want = round(math.log10(f) + 9.0, 2) if f > 0 else 0.0
        assert wordfreq_tables.entry_zipf(w, lang) == want, (w, lang)


def test_lexicon_functions_read_the_tables(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMCER_CACHE_DIR", str(tmp_path))
    clear_caches()  # the lexicon's lookups and the open tables
    assert lexicon.zipf("Haus", "de") == wordfreq.zipf_frequency("Haus", "de") > 5
    assert lexicon.zipf("2097", "en") == wordfreq.zipf_frequency("2097", "en") > 0
    assert lexicon.dict_zipf("國家", "zh") == lexicon.dict_zipf("国家", "zh") > 4  # traditional -> simplified
    assert lexicon.lexicon_lang("de-CH") == "de" and lexicon.lexicon_lang("lo") is None  # Lao: no list anywhere
    folder = tmp_path / "lexicons" / f"v{lexicon_store.FORMAT_VERSION}" / f"wordfreq-{wordfreq_tables.wordfreq_version()}"
    assert sorted(p.name for p in folder.iterdir()) == ["de.lex", "en.lex", "zh.lex"]  # only the languages met
    clear_caches()


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=12), st.integers(0, 0xFFFF), max_size=300),
       st.lists(st.text(max_size=12), max_size=20))
def test_table_round_trip(entries, probes):
    table = decode_table(encode_table(entries, {"source": "test"}), {"source": "test"})
    assert table is not None and len(table) == len(entries)
    for word, value in entries.items():
        assert table.get(word) == value
    for word in probes:
        assert table.get(word) == entries.get(word, -1)
    assert dict(table.items()) == entries


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=12), st.integers(0, 0xFFFF), max_size=300),
       st.lists(st.text(max_size=12), max_size=20))
def test_file_table_round_trip(entries, probes):
    """The table read from its file (pread) answers as the table in memory does."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.lex"
        path.write_bytes(encode_table(entries, {"source": "test"}))
        table = lexicon_store._open_file(path, {"source": "test"})
        assert isinstance(table, lexicon_store.FileTable) and len(table) == len(entries)
        for lookup in (table.get, table._python_get):  # the C lookup (when built) and the Python one
            for word, value in entries.items():
                assert lookup(word) == value
            for word in probes:
                assert lookup(word) == entries.get(word, -1)
        assert dict(table.items()) == entries
        assert lexicon_store._open_file(path, {"source": "other"}) is None


try:
    from semcer.judges.rubric import _lexicon_speedups
except ImportError:  # no C compiler at install time: the Python lookup alone is tested
    _lexicon_speedups = None


@pytest.mark.skipif(_lexicon_speedups is None, reason="_lexicon_speedups was not built")
@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=50))
def test_the_c_lookup_hashes_as_zlib_does(words):
    """The C lookup's crc32 is zlib's: a table of these words finds each of them, also when the
    slots are few (every word in one slot: the C loop over a slot's keys) and with surrogates."""
    entries = {w: i for i, w in enumerate(dict.fromkeys([*words, "ü" * 400])) if w}  # a slot of over 512 bytes too
    words += ["\udc80", "\ud800x", "é" * 300, "ü" * 400]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.lex"
        path.write_bytes(encode_table(entries, {"source": "test"}))
        table = lexicon_store._open_file(path, {"source": "test"})
        for word in words:
            assert table.get(word) == table._python_get(word) == entries.get(word, -1)


def test_a_table_cut_after_it_was_opened_is_an_error_not_an_answer(tmp_path):
    """Opening checks the file; if it is cut afterwards a lookup says so (OSError) in C and in
    Python alike, never a wrong value."""
    entries = {f"w{i}": i for i in range(2000)}
    path = tmp_path / "t.lex"
    path.write_bytes(encode_table(entries, {"source": "test"}))
    table = lexicon_store._open_file(path, {"source": "test"})
    assert table.get("w1999") == table._python_get("w1999") == 1999
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size // 2)
    for lookup in (table.get, table._python_get):
        with pytest.raises(OSError, match="the file ends"):
            for i in range(2000):  # some of these read past the cut
                lookup(f"w{i}")


def test_a_slot_index_that_runs_backwards_is_refused_even_with_its_crc(tmp_path):
    """The lookups trust the slot index once the table is open: a file whose index decreases (or does
    not end at the records' end) is refused although its CRC was recomputed to match."""
    good = encode_table({f"w{i}": i for i in range(64)}, {"source": "test"})
    n_keys, n_slots, meta_len, _, start = lexicon_store._layout(good, len(good))
    index = bytearray(good[start : start + 4 * (n_slots + 1)])
    index[4:8], index[8:12] = index[8:12], index[4:8]  # slots 1 and 2 swapped: the index decreases
    forged = bytearray(good[:start] + bytes(index) + good[start + len(index):])
    body = bytes(forged[lexicon_store._HEADER.size:])
    forged[:lexicon_store._HEADER.size] = lexicon_store._HEADER.pack(
        lexicon_store.MAGIC, lexicon_store.FORMAT_VERSION, n_keys, n_slots, len(good) - start - len(index), meta_len,
        zlib.crc32(body))
    assert index != good[start : start + len(index)] and decode_table(bytes(forged), {"source": "test"}) is None
    (tmp_path / "t.lex").write_bytes(bytes(forged))
    assert lexicon_store._open_file(tmp_path / "t.lex", {"source": "test"}) is None
    (tmp_path / "t.lex").write_bytes(good)
    assert lexicon_store._open_file(tmp_path / "t.lex", {"source": "test"}).get("w63") == 63


def test_pure_python_turns_the_c_lookup_off(monkeypatch):
    monkeypatch.setenv("SEMCER_PURE_PYTHON", "1")
    lexicon_store._fast_get.cache_clear()
    try:
        assert lexicon_store._fast_get() is None
    finally:
        monkeypatch.delenv("SEMCER_PURE_PYTHON")
        lexicon_store._fast_get.cache_clear()
    assert (lexicon_store._fast_get() is None) == (_lexicon_speedups is None)


def _resident_kb(name: str) -> int:
    """Resident kilobytes of this process's mappings of files called ``name`` (/proc/self/smaps)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            if line[:1] in "0123456789abcdef" and "-" in line.split(" ", 1)[0]:
                inside = line.rstrip().endswith(name)
            elif inside and line.startswith("Rss:"):
                total += int(line.split()[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux /proc")
def test_lookups_keep_no_page_of_a_table_in_the_process(cache_dir):
    """A memory-mapped table puts every page a lookup touches (and 64 kB around it) into the process's
    resident memory: a few hundred lookups held most of a 14 MB table. Read in place, none."""
    table = wordfreq_tables.table("de")
    assert isinstance(table, lexicon_store.FileTable)
    words = wordfreq.top_n_list("de", 5000)
    assert sum(table.get(w) >= 0 for w in words) > 4900
    name = f"wordfreq-{wordfreq_tables.wordfreq_version()}/de.lex"
    assert _resident_kb(name) == 0
    assert name not in Path("/proc/self/maps").read_text()  # not mapped at all


def _small(calls: list[int]):
    def build():
        calls.append(1)
        return {"rouge": 310, "vert": 320, "été": 400}, {"info": "x"}
    return build


def test_damaged_files_are_rebuilt_never_read(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMCER_CACHE_DIR", str(tmp_path))
    calls: list[int] = []
    expect = {"source": "test", "version": "1"}
    assert open_table("t/fr", expect, _small(calls)).get("été") == 400 and len(calls) == 1
    assert open_table("t/fr", expect, _small(calls)).get("vert") == 320 and len(calls) == 1  # mapped, not rebuilt
    path = lexicon_store.lexicon_dir() / "t" / "fr.lex"
    good = path.read_bytes()
    damaged = [good[:-3], good[:40], b"", good[:-6] + bytes([good[-6] ^ 1]) + good[-5:]]  # truncated; flipped bit
    damaged.append(good.replace(b"rouge", b"rougf"))  # a changed key: the CRC catches it
    for i, bad in enumerate(damaged, start=2):
        path.write_bytes(bad)
        table = open_table("t/fr", expect, _small(calls))
        assert len(calls) == i, "a damaged file was read"
        assert (table.get("rouge"), table.get("vert"), table.get("été"), table.get("rougf")) == (310, 320, 400, -1)
        assert path.read_bytes() == good  # and rewritten
    open_table("t/fr", {"source": "test", "version": "2"}, _small(calls))  # another build of the source
    assert len(calls) == len(damaged) + 2


def test_unwritable_cache_folder_builds_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SEMCER_CACHE_DIR", str(blocker / "cache"))
    calls: list[int] = []
    table = open_table("t/fr", {"source": "test"}, _small(calls))
    assert table.get("rouge") == 310 and table.get("bleu") == -1 and len(calls) == 1


def test_cache_folder_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("SEMCER_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert lexicon_store.cache_root() == tmp_path / "xdg" / "semcer"
    monkeypatch.setenv("SEMCER_CACHE_DIR", str(tmp_path / "mine"))
    assert lexicon_store.lexicon_dir() == tmp_path / "mine" / "lexicons" / f"v{lexicon_store.FORMAT_VERSION}"


_READER = textwrap.dedent("""
    import sys, time
    from semcer.judges.rubric.lexicon_store import open_table
    def build():
        raise SystemExit("rebuilt instead of mapped")
    t = open_table("t/fr", {"source": "test"}, build)
    print(t.get("rouge"), t.get("vert"), t.get("été"), t.get("bleu"), flush=True)
    sys.stdin.readline()  # keep the mapping open until the other process has read too
    print(t.get("vert"), flush=True)
""")


def test_two_processes_map_the_same_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMCER_CACHE_DIR", str(tmp_path))
    open_table("t/fr", {"source": "test"}, _small([]))
    env = {**os.environ, "PYTHONPATH": str(Path(lexicon_store.__file__).parents[3])}
    procs = [subprocess.Popen([sys.executable, "-c", _READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    first = [p.stdout.readline().split() for p in procs]  # type: ignore[union-attr]
    outs = [p.communicate("\n", timeout=60) for p in procs]
    assert first == [["310", "320", "400", "-1"]] * 2, outs
    assert [o[0].split() for o in outs] == [["320"]] * 2 and all(p.returncode == 0 for p in procs)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=ALPHABETS["zh"] + "國學們說時會對過發後裡ABCabc1", max_size=10))
def test_simplify_chinese_equals_wordfreq(text):
    from wordfreq.chinese import simplify_chinese

    assert wordfreq_tables.simplify_chinese(text) == simplify_chinese(text)


@given(st.integers(0, 0xFFFF))
def test_zipf_values_round_trip(value):
    z = lexicon_store.zipf_of_value(value)
    assert lexicon_store.value_of_zipf(z) == value
    assert abs(z - (9 - value / 100)) < 1e-9  # Zipf 9 is a frequency of 1; 1 cB = 0.01 Zipf


def test_zipf_outside_the_table_is_refused():
    with pytest.raises(ValueError, match="outside"):
        lexicon_store.value_of_zipf(9.5)
    assert lexicon_store.value_of_zipf(wordfreq.zipf_frequency("the", "en")) == round((9 - 7.73) * 100)


@settings(max_examples=25, deadline=None)
@given(lang=st.sampled_from(["en", "de", "vi", "ru", "ar", "hi", "ko", "zh"]), n=st.integers(0, 30_000))
def test_top_words_are_wordfreqs_top_n_list(lang, n):
    """The head of wordfreq's list read without decoding the rest gives wordfreq's own ``top_n_list``
    (digit sequences left out, bands in their order), for any length."""
    assert wordfreq_tables.top_words(lang, n) == wordfreq.top_n_list(lang, n)
