"""Word lists for the languages wordfreq has none for (Thai, Telugu, Kannada, Marathi), read offline
from packages made for the purpose, with the same meaning as :func:`semcer.judges.rubric.lexicon.zipf`.

========  =========================================================================================
language  source (read where it is installed; nothing is downloaded)
========  =========================================================================================
``th``    PyThaiNLP (``pip install 'semcer[thai]'``): the Thai National Corpus frequency list it
          ships (``corpus/tnc_freq.txt``, word and count) gives a Zipf frequency,
          ``log10(count / total * 1e9)``; a word of its dictionary (``thai_words()``) that the corpus
          list lacks counts :data:`DICTIONARY_ZIPF`. Its ``newmm`` tokenizer with that dictionary
          gives Thai word boundaries (:func:`word_spans`).
``te``    Debian's ``aspell-te`` word list (``/usr/share/aspell/te.cwl.gz``,
``kn``    ``aspell-kn``, ``aspell-mr``; ``apt-get install aspell-te aspell-kn aspell-mr``): a
``mr``    dictionary without frequencies, so a listed word counts :data:`DICTIONARY_ZIPF`.
========  =========================================================================================

Words are looked up in NFC with zero-width joiners and non-joiners removed (a ZWNJ after a virama
changes how a word is drawn, not which word it is), case-folded. A language whose source is not
installed has no lexicon (:func:`available` is False), exactly as before these lists existed.
:func:`version` names every source found (package version and a hash of the file read), so a judge
identity built on it changes whenever a list does.

The lists are read from their sources once per machine (:func:`word_zipfs`) and kept as the compact
tables of :mod:`.lexicon_store`, read in place (``xlex/<lang>-<hash>.lex`` under
:func:`~.lexicon_store.lexicon_dir`, keyed by the sha256 of the files read and :data:`TABLE_RULES`),
as wordfreq's lists are: no process holds them as Python dictionaries. PyThaiNLP's ``newmm``
dictionary is one too (:class:`NewmmDictionary`), in place of the trie of Python objects PyThaiNLP
builds, with the same tokens.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import re
import unicodedata
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _pkg_version
from pathlib import Path
from typing import Any

from semcer.caches import LINE_CACHE, cache
from semcer.judges.rubric.lexicon_store import Table, open_table, value_of_zipf, zipf_of_value

#: Languages served here (wordfreq has no list for them).
EXTRA_LANGS = frozenset({"th", "te", "kn", "mr"})
#: Zipf frequency given to a word a dictionary lists without a frequency: well above the judges'
#: "known" threshold (2.0), at the level of an ordinary word of a mid-sized list.
DICTIONARY_ZIPF = 3.0
#: Where Debian's aspell packages put their compressed word lists.
ASPELL_DIR = Path("/usr/share/aspell")
_ASPELL = {"te": "aspell-te", "kn": "aspell-kn", "mr": "aspell-mr"}
_STRIP = dict.fromkeys(map(ord, "\u200c\u200d"))


def _key(word: str) -> str:
    return unicodedata.normalize("NFC", word).translate(_STRIP).casefold()


def _thai_dir() -> Path | None:
    try:
        import pythainlp
    except ImportError:
        return None
    corpus = Path(pythainlp.__file__).parent / "corpus"
    return corpus if (corpus / "tnc_freq.txt").is_file() else None


def _source_file(lang: str) -> Path | None:
    """The file a language's list is read from, or None when its source is not installed."""
    if lang == "th":
        d = _thai_dir()
        return None if d is None else d / "tnc_freq.txt"
    if lang in _ASPELL:
        path = ASPELL_DIR / f"{lang}.cwl.gz"
        return path if path.is_file() else None
    return None


def available(lang: str) -> bool:
    """True when ``lang`` (a primary subtag) is served here and its source is installed."""
    return lang in EXTRA_LANGS and _source_file(lang) is not None


def prezip_words(data: bytes) -> Iterator[str]:
    """The words of an aspell ``.cwl`` list (prefix-delta "prezip" format, after gunzip).

    Format: ``0x02``, then lines of a prefix length (a byte ``0x00``-``0x1D``, or ``0x1E`` followed by
    ``0xFF`` bytes and a last byte, all added up) and the rest of the word (bytes above ``0x1F``;
    ``0x1F c`` stands for byte ``c - 0x20``), up to the end marker ``0x1F 0xFF``. The prefix is taken
    from the previous line's escaped bytes. An affix-flag suffix (``word/FLAGS``) is dropped.
    """
    if not data or data[0] != 2:
        raise ValueError("not an aspell prezip word list (no 0x02 header)")
    prev = b""
    for m in _PREZIP_LINE.finditer(data, 1):
        head, rest = m.group(1), m.group(2)
        keep = head[0] if head[0] != 0x1E else 0x1E + sum(head[1:])
        prev = prev[:keep] + rest
        word = _unescape(prev).decode("utf-8", "replace").split("/", 1)[0]
        if word:
            yield word


#: One line of a prezip list: its prefix length (one byte, or 0x1E, 0xFF bytes and a last byte) and
#: the rest of the word (bytes above 0x1F and 0x1F escapes); the end marker 0x1F 0xFF matches none.
_PREZIP_LINE = re.compile(rb"(\x1e\xff*[\x00-\xfe]|[\x00-\x1d])((?:[\x20-\xff]|\x1f[\x20-\x3f])*)", re.DOTALL)


def _unescape(raw: bytes) -> bytes:
    if 0x1F not in raw:
        return raw
    out, k = bytearray(), 0
    while k < len(raw):
        if raw[k] == 0x1F and k + 1 < len(raw):
            out.append(raw[k + 1] - 0x20)
            k += 2
        else:
            out.append(raw[k])
            k += 1
    return bytes(out)


def word_zipfs(lang: str) -> dict[str, float]:
    """Word (lookup key) -> Zipf frequency of ``lang``'s list, read from its source (seconds, and a
    Python dictionary of tens of megabytes): what the compact table of :func:`zipf` is built from.
    Empty when the source is not installed."""
    path = _source_file(lang)
    if path is None:
        return {}
    if lang == "th":
        return _thai_table(path)
    entries = prezip_words(gzip.decompress(path.read_bytes()))
    words = (w for entry in entries for w in entry.split() if not w.isdigit())  # a few entries hold tabs
    return dict.fromkeys(map(_key, words), DICTIONARY_ZIPF)


def _thai_table(path: Path) -> dict[str, float]:
    counts: dict[str, int] = {}
    for row in path.read_text(encoding="utf-8").splitlines():
        word, _, count = row.rpartition("\t")
        if word and count.isdigit():
            k = _key(word)
            counts[k] = counts.get(k, 0) + int(count)
    total = sum(counts.values()) or 1
    table = {w: round(math.log10(c / total * 1e9), 2) for w, c in counts.items()}
    from pythainlp.corpus import thai_words

    for w in thai_words():
        k = _key(w)
        if table.get(k, 0.0) < DICTIONARY_ZIPF:
            table[k] = max(table.get(k, 0.0), DICTIONARY_ZIPF)
    return table


#: Version of the rules that turn a source into a table (:func:`word_zipfs`, :func:`_newmm_entries`):
#: part of every table's meta, so that a change of rule rebuilds the tables instead of reading old ones.
TABLE_RULES = 1


@cache(maxsize=16)
def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _thai_words_file() -> Path | None:
    d = _thai_dir()
    return None if d is None or not (d / "words_th.txt").is_file() else d / "words_th.txt"


def _built_from(lang: str, path: Path) -> dict[str, Any]:
    """What a table of ``lang`` is built from (its files' hashes, the rules): the meta it must carry."""
    files = [path] + ([f] if lang == "th" and (f := _thai_words_file()) is not None else [])
    digest = hashlib.sha256("|".join(_file_digest(f) for f in files).encode()).hexdigest()
    return {"source": "xlex", "lang": lang, "rules": TABLE_RULES, "dictionary_zipf": DICTIONARY_ZIPF,
            "sha256": digest}


@cache(maxsize=8)
def _table(lang: str) -> Table | None:
    """The compact table of ``lang``'s list (:mod:`.lexicon_store`: built once into the cache folder,
    keyed by the hash of its source files, then read in place), or None when the source is not installed."""
    path = _source_file(lang)
    if path is None:
        return None
    expect = _built_from(lang, path)
    return open_table(f"xlex/{lang}-{str(expect['sha256'])[:16]}", expect,
                      lambda: ({w: value_of_zipf(z) for w, z in word_zipfs(lang).items()}, {}))


@cache(maxsize=1 << 18)
def zipf(word: str, lang: str) -> float:
    """Zipf frequency of ``word`` in ``lang`` from its list (0.0 when unknown or no list)."""
    if not word:
        return 0.0
    table = _table(lang)
    if table is None:
        return 0.0
    value = table.get(_key(word))
    return 0.0 if value < 0 else zipf_of_value(value)


class NewmmDictionary:
    """PyThaiNLP's default ``newmm`` dictionary (``Trie(thai_words())``) over a compact table.

    ``newmm`` reads its dictionary only through ``prefixes(text, start)``: the words of the trie that
    ``text[start:]`` begins with, shortest first. The table holds every prefix of every word (each
    word stripped, as ``Trie.add`` does), marked 1 where the prefix is itself a word and 0 where it is
    only a prefix, so the walk below stops exactly where the trie's walk stops and returns the same
    list: tokens are PyThaiNLP's own, without its trie of Python objects (some 60 MB). A bounded memo
    of the prefixes looked up keeps the walk near the trie's speed.
    """

    __slots__ = ("_get", "_memo", "_words")

    #: Entries of the memo before it is emptied (a few megabytes).
    MEMO = 1 << 16

    def __init__(self, table: Table, words: int) -> None:
        self._get = table.get
        self._memo: dict[str, int] = {}
        self._words = words

    def __len__(self) -> int:  # newmm takes an empty dictionary for "none given"
        return self._words

    def prefixes(self, text: str, start: int = 0) -> list[str]:
        """The dictionary's words that ``text[start:]`` begins with, shortest first (``Trie.prefixes``)."""
        memo = self._memo
        if len(memo) >= self.MEMO:
            memo.clear()
        seen = memo.get
        found = []
        for end in range(start + 1, len(text) + 1):
            piece = text[start:end]
            value = seen(piece)
            if value is None:
                value = memo[piece] = self._get(piece)
            if value < 0:
                break
            if value:
                found.append(piece)
        return found


def _newmm_entries() -> dict[str, int]:
    """Every prefix of every word of ``thai_words()`` (stripped; empty ones dropped): 1 for a word, 0 for
    a prefix only."""
    from pythainlp.corpus import thai_words

    words = {w.strip() for w in thai_words()} - {""}
    entries = {w[:n]: 0 for w in words for n in range(1, len(w))}
    entries.update(dict.fromkeys(words, 1))
    return entries


@cache(maxsize=1)
def _newmm_dictionary() -> NewmmDictionary | None:
    """The default newmm dictionary as a compact table (built once into the cache folder, keyed by the
    hash of PyThaiNLP's word list), or None without PyThaiNLP."""
    if _thai_dir() is None:
        return None
    words = _thai_words_file()
    digest = "?" if words is None else _file_digest(words)
    expect = {"source": "pythainlp-newmm", "version": _package_version("pythainlp"), "rules": TABLE_RULES,
              "sha256": digest}

    def build() -> tuple[dict[str, int], dict[str, Any]]:
        entries = _newmm_entries()
        return entries, {"words": sum(entries.values())}

    table = open_table(f"xlex/th-newmm-{digest[:16]}", expect, build)
    return NewmmDictionary(table, table.meta["words"])


@cache(maxsize=LINE_CACHE)
def word_spans(text: str, lang: str) -> tuple[tuple[int, int], ...]:
    """Code point spans ``[start, end)`` of the words of a line of a language written without
    spaces: Thai by PyThaiNLP's ``newmm`` (dictionary maximal matching over Thai character clusters,
    its default dictionary read from :class:`NewmmDictionary`), Japanese by MeCab with the ipadic
    dictionary wordfreq uses (the ``cjk`` extra). Spaces and punctuation come out as pieces of their
    own or are skipped. Empty without the tokenizer."""
    if not text:
        return ()
    if lang == "th":
        dictionary = _newmm_dictionary()
        if dictionary is None:
            return ()
        from pythainlp.tokenize import word_tokenize

        tokens: list[str] | None = word_tokenize(text, custom_dict=dictionary,  # type: ignore[arg-type]
                                                 engine="newmm", keep_whitespace=True)
    elif lang == "ja":
        tokens = _mecab_tokens(text)
    else:
        tokens = None
    if tokens is None:
        return ()
    spans, at = [], 0
    for token in tokens:
        start = text.find(token, at)
        if start < 0:
            return ()
        spans.append((start, start + len(token)))
        at = start + len(token)
    return tuple(spans)


def _mecab_tokens(text: str) -> list[str] | None:
    try:
        analyzer = _mecab()
    except Exception:  # the cjk extra (MeCab, ipadic) is missing
        return None
    rows = analyzer.parse(text.replace("\n", " ")).split("\n")  # type: ignore[attr-defined]
    return [row.split("\t", 1)[0] for row in rows if row and row != "EOS" and row.split("\t", 1)[0]]


@cache(maxsize=1)
def _mecab() -> object:
    """wordfreq's own MeCab analyzer for Japanese (the one its tokenizer uses, built if it is not yet):
    one analyzer maps the ipadic dictionary (49 MB) once, where two would each keep what they read of it."""
    from wordfreq import mecab

    analyzers = getattr(mecab, "MECAB_ANALYZERS", None)  # wordfreq's cache of analyzers (3.x)
    if not isinstance(analyzers, dict):
        return mecab.make_mecab_analyzer("ja")
    if "ja" not in analyzers:
        analyzers["ja"] = mecab.make_mecab_analyzer("ja")
    return analyzers["ja"]


def _package_version(name: str) -> str:
    try:
        return _pkg_version(name)
    except PackageNotFoundError:
        return "?"


def _debian_version(package: str) -> str:
    status = Path("/var/lib/dpkg/status")
    try:
        text = status.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "?"
    for block in text.split("\n\n"):
        if f"Package: {package}\n" in block + "\n":
            for line in block.splitlines():
                if line.startswith("Version: "):
                    return line.removeprefix("Version: ")
    return "?"


@cache(maxsize=1)
def sources() -> tuple[str, ...]:
    """``lang=package-version@sha256[:8]`` of every source installed, sorted by language."""
    out = []
    for lang in sorted(EXTRA_LANGS):
        path = _source_file(lang)
        if path is None:
            continue
        package = "pythainlp" if lang == "th" else _ASPELL[lang]
        ver = _package_version(package) if lang == "th" else _debian_version(package)
        digest = _file_digest(path)[:8]
        out.append(f"{lang}={package}-{ver}@{digest}")
    return tuple(out)


@cache(maxsize=1)
def version() -> str:
    """A short name of the extra lexicons installed: ``xlex-<8 hex of their sources>``, or ``xlex-none``."""
    found = sources()
    if not found:
        return "xlex-none"
    return "xlex-" + hashlib.sha256("|".join(found).encode("utf-8")).hexdigest()[:8]
