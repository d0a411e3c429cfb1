"""Words: the tokenizers WER and the bag-of-words error count with, each named (the name goes into a signature).

=============  ==========================================================================================
tokenizer      what a word is
=============  ==========================================================================================
``uax29``      (default) OCR-D's and dinglehopper's definition: the text is split at the default word
               boundaries of Unicode Standard Annex #29 (``regex``'s ``\\b`` with the WORD flag), and the
               pieces made only of whitespace, punctuation, symbols, marks, controls and format
               characters (general categories Z*, P*, S*, M*, Cc, Cf) are dropped. A private-use
               character (MUFI, eMOP) is, as UAX #29 says, no letter: ``w\\ue72bber`` is three words
               (dinglehopper 0.11 means to count it as a letter, but with uniseg 0.10 its patch has no
               effect, so its words are these too: tested). Words keep their punctuation inside
               (``don't``, ``3.14``, ``U.S.A``), not at their ends (``Ende.`` -> ``Ende``). Chinese and
               Japanese kanji/hiragana, written without spaces, come out one character per word, Thai as
               whole runs between spaces: see ``auto``.
``whitespace`` the runs of characters between Unicode White_Space (``str.split`` on ``\\p{White_Space}``);
               punctuation stays attached (``Ende.``). What jiwer counts where words are separated by
               spaces (jiwer splits on ``" "`` after turning each run of two or more whitespace
               characters into one space, so a lone tab or line break does not separate words there).
``auto``       by the language of the line (its ``lang``, or :func:`semcer.text.script.detect_language`
               of the text when it has none): Chinese (``zh``) by jieba with wordfreq's dictionary
               (wordfreq's own Chinese tokenizer, without its lower-casing and normalisation: the
               tokens are spans of the original text), Japanese (``ja``) by MeCab with the ipadic
               dictionary wordfreq installs (surface forms, line by line); then the same filter as
               ``uax29``. Languages written without spaces for which semcer has no dictionary (Thai
               ``th``, Lao ``lo``, Khmer ``km``, Burmese ``my``, Tibetan ``bo``): **undefined** —
               :func:`tokenize` returns None and WER leaves the line out (and counts it). Every other
               language: ``uax29``.
=============  ==========================================================================================

Tokens are compared exactly (after the text policy, which the caller applies first): no case
folding here.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import unicodedata
from collections.abc import Callable, Iterator
from importlib.metadata import PackageNotFoundError, version

import regex

from semcer.caches import cache
from semcer.errors import SemcerError
from semcer.text.script import base_lang, detect_language
from semcer.text.units import unicode_versions

__all__ = ["NO_DICTIONARY", "TOKENIZERS", "tokenize", "tokenizer_identity", "words_uax29", "words_whitespace"]

_BOUNDARY = regex.compile(r"(?wV1)\b")
_WS = regex.compile(r"\p{White_Space}+")
_UNWANTED_MAJOR = frozenset("ZPSM")
_UNWANTED_MINOR = frozenset(("Cc", "Cf"))

#: Languages written without spaces that semcer has no dictionary for: WER is undefined there with ``auto``.
NO_DICTIONARY = frozenset({"th", "lo", "km", "my", "bo"})


def _wanted(token: str) -> bool:
    for c in token:
        cat = unicodedata.category(c)
        if cat[0] not in _UNWANTED_MAJOR and cat not in _UNWANTED_MINOR:
            return True
    return False


def words_uax29(text: str) -> list[str]:
    """UAX #29 words without the pieces that hold no letter, number or other wanted character."""
    if not text:
        return []
    cuts = [m.start() for m in _BOUNDARY.finditer(text)]
    out = []
    for a, b in itertools.pairwise(cuts):
        piece = text[a:b]
        if piece and _wanted(piece):
            out.append(piece)
    return out


def words_whitespace(text: str) -> list[str]:
    """The runs of characters between Unicode whitespace."""
    return [w for w in _WS.split(text) if w]


def _drop_chatter(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.WARNING


@contextlib.contextmanager
def quiet_jieba() -> Iterator[None]:
    """jieba (Chinese) announces its dictionary on stderr when it first loads it; keep the terminal
    clean, for the block only. (jieba resets its logger's level when imported, so a filter is used
    instead of a level.)"""
    logger = logging.getLogger("jieba")
    logger.addFilter(_drop_chatter)
    try:
        yield
    finally:
        logger.removeFilter(_drop_chatter)


def _words_zh(text: str) -> list[str]:
    from wordfreq.chinese import jieba_tokenize

    with quiet_jieba():
        return [t for t in jieba_tokenize(text) if _wanted(t)]


@cache(maxsize=1)
def _mecab() -> object:
    from wordfreq.mecab import make_mecab_analyzer

    return make_mecab_analyzer("ja")


def _words_ja(text: str) -> list[str]:
    analyzer = _mecab()
    out: list[str] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        parsed = analyzer.parse(line)  # type: ignore[attr-defined]
        for row in parsed.split("\n"):
            if row and row != "EOS":
                surface = row.split("\t", 1)[0]
                if surface and _wanted(surface):
                    out.append(surface)
    return out


def _auto(text: str, lang: str | None) -> list[str] | None:
    code = base_lang(lang) if lang else detect_language(text)
    if code == "zh":
        return _words_zh(text)
    if code == "ja":
        return _words_ja(text)
    if code in NO_DICTIONARY:
        return None
    return words_uax29(text)


_TOKENIZERS: dict[str, Callable[[str, str | None], list[str] | None]] = {
    "uax29": lambda text, lang: words_uax29(text),
    "whitespace": lambda text, lang: words_whitespace(text),
    "auto": _auto,
}
TOKENIZERS = tuple(_TOKENIZERS)


def check_tokenizer(name: str) -> str:
    if name not in _TOKENIZERS:
        raise SemcerError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    return name


def tokenize(text: str, tokenizer: str = "uax29", lang: str | None = None) -> list[str] | None:
    """The words of ``text`` by ``tokenizer`` (table above); None where words are undefined (``auto``
    on Thai and the other languages listed in :data:`NO_DICTIONARY`)."""
    return _TOKENIZERS[check_tokenizer(tokenizer)](text, lang)


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:  # pragma: no cover - installed with semcer
        return "absent"


def tokenizer_identity(tokenizer: str) -> str:
    """What the tokenizer's output depends on, for a signature: ``uax29@seg-18.0``, ``whitespace``,
    ``auto@seg-18.0+jieba-0.42.1+mecab-1.0.12+ipadic-1.0.0+wordfreq-3.1.1``."""
    check_tokenizer(tokenizer)
    seg = f"seg-{unicode_versions()['segmenter']}"
    if tokenizer == "uax29":
        return f"uax29@{seg}"
    if tokenizer == "whitespace":
        return "whitespace"
    parts = [seg] + [f"{short}-{_version(pkg)}" for short, pkg in
                     (("jieba", "jieba"), ("mecab", "mecab-python3"), ("ipadic", "ipadic"), ("wordfreq", "wordfreq"))]
    return "auto@" + "+".join(parts)
