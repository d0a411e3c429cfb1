"""Language-aware word lookups for the rubric judge: wordfreq frequencies, word spans, negations.

Everything is offline (wordfreq ships its word lists) and cached, because one line is shared by
all of its edits and the same words recur across a corpus.

Words are found on the grapheme sequence of a line: a word is a maximal run of letters, marks and
digits around the edited position. Chinese and Japanese do not separate words with spaces, so
there the "word" of an edited character is the best-attested dictionary word of two or three
characters of the line that contains it (see :func:`cjk_word`).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from semcer.caches import LINE_CACHE, cache
from semcer.judges.rubric import extra_lexicons, wordfreq_tables
from semcer.judges.rubric.classes import UNIT_KINDS, unit_kind
from semcer.speedups import compiled
from semcer.text.script import base_lang
from semcer.text.units import graphemes
from semcer.text.words import quiet_jieba

#: Languages whose words are not separated by spaces and that wordfreq covers.
CJK_LANGS = frozenset({"zh", "ja"})

#: Negation words (case-folded), per language: losing or gaining one says the opposite, fluently.
#: Korean and Thai mark negation inside longer words, so for them the markers are matched as
#: substrings (see :data:`NEGATION_INFIXES`).
NEGATIONS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "not no never none nothing nobody neither nor cannot without isn aren wasn weren don doesn "
        "didn won wouldn shouldn couldn hasn haven hadn mustn needn".split()
    ),
    "de": frozenset("nicht kein keine keinen keinem keiner keines nie niemals nichts niemand ohne weder".split()),
    "fr": frozenset("ne n pas non jamais aucun aucune rien ni sans".split()),
    "es": frozenset("no nunca jamás ni ningún ninguna ninguno nada nadie sin tampoco".split()),
    "pt": frozenset("não nunca jamais nem nenhum nenhuma nada ninguém sem".split()),
    "it": frozenset("non mai nessuno nessuna niente nulla senza né".split()),
    "nl": frozenset("niet geen nooit niets niemand zonder".split()),
    "vi": frozenset("không chưa chẳng chả đừng chớ".split()),
    # Chinese and Japanese: the edited character's best-attested word (lexicon.cjk_word), or the
    # character itself when no word around it is attested.
    "zh": frozenset(
        "不 没 沒 未 无 無 非 别 別 勿 莫 没有 沒有 无法 無法 不能 不会 不會 不是 不要 不可 不得 "
        "不再 不必 不用 未能 尚未 从未 從未 并非 並非 无需 無需 毫无 毫無".split()
    ),
    "ja": frozenset("ない ません ず 不 無 未 非 できない しない".split()),
    "hi": frozenset("नहीं न मत ना बिना".split()),
    "mr": frozenset("नाही नको न".split()),
    "bn": frozenset("না নয় নি নেই".split()),
    "ru": frozenset("не нет ни никогда без".split()),
    "uk": frozenset("не ні немає ніколи без".split()),
    "el": frozenset("δεν μη μην όχι ούτε χωρίς".split()),
    "he": frozenset("לא אין אל בלי ללא".split()),
    "ar": frozenset("لا لم لن ليس ليست غير بدون".split()),
    "ko": frozenset("안 못 아니".split()),
    "th": frozenset(),
}
NEGATION_INFIXES: dict[str, tuple[str, ...]] = {"ko": ("않", "없", "못"), "th": ("ไม่", "มิได้", "ห้าม")}


@cache(maxsize=1)
def _available() -> frozenset[str]:
    import wordfreq

    return frozenset(wordfreq.available_languages())


@cache(maxsize=256)
def lexicon_lang(tag: str) -> str | None:
    """wordfreq's code for the language of ``tag``, or None when wordfreq has no list for it.

    A language whose tokenizer cannot run here (Korean without MeCab, Chinese without jieba)
    counts as having no lexicon rather than failing on the first edit.
    """
    lang = base_lang(tag)
    if lang not in _available():
        return lang if extra_lexicons.available(lang) else None  # Thai, Telugu, ...: extra_lexicons
    try:
        _check_tokenizer(lang)
    except Exception:  # an optional tokenizer (the cjk extra) is missing
        return None
    return lang


def _check_tokenizer(lang: str) -> None:
    """Raise when wordfreq's tokenizer for ``lang`` cannot run here (jieba: it is installed; MeCab:
    it tokenizes), without importing jieba or setting its dictionary up (the judges look Chinese
    up by list entry, :func:`dict_zipf`, and never tokenize it)."""
    tokenizer = wordfreq_tables.table(lang).meta["info"]["tokenizer"]
    if tokenizer == "jieba":
        if importlib.util.find_spec("jieba") is None:
            raise ModuleNotFoundError("jieba")
    elif tokenizer != "regex":
        zipf("a", lang)


wordfreq_version = wordfreq_tables.wordfreq_version


@cache(maxsize=1 << 18)
def zipf(word: str, lang: str) -> float:
    """Zipf frequency of ``word`` in ``lang`` (0.0 when unknown, or when any token of it is)."""
    if not word:
        return 0.0
    if lang in extra_lexicons.EXTRA_LANGS:
        return extra_lexicons.zipf(word, lang)
    return wordfreq_tables.zipf(word, lang)


@cache(maxsize=64)
def morpheme_tokenized(lang: str) -> bool:
    """True when wordfreq splits a written word into morphemes for ``lang`` (Korean, via MeCab).

    There any string of known morphemes gets a frequency, so a word only counts as known when
    the edit did not split it into more pieces than the reference word had.
    """
    from wordfreq import get_language_info

    return get_language_info(lang).get("tokenizer") == "mecab" and lang not in CJK_LANGS


@cache(maxsize=1 << 16)
def token_count(word: str, lang: str) -> int:
    """Number of wordfreq tokens of ``word`` (1 for most words of spaced languages)."""
    from wordfreq import tokenize

    with quiet_jieba():
        return len(tokenize(word, lang))


@cache(maxsize=1 << 18)
def dict_zipf(word: str, lang: str) -> float:
    """Zipf frequency of ``word`` as one entry of the word list (no tokenization, no combining)."""
    if lang == "zh":
        word = _simplify(word)
    if lang in extra_lexicons.EXTRA_LANGS:
        return extra_lexicons.zipf(word, lang)
    return wordfreq_tables.entry_zipf(word.casefold(), lang)


def _simplify(text: str) -> str:
    return wordfreq_tables.simplify_chinese(text)


_NUM_PARTS = re.compile(r"\d+")

#: Separators that may stand inside a number when digits stand on both sides.
NUMBER_SEPARATORS = frozenset(".,:/-\u00a0\u202f'’٫٬")
_WORD_KINDS = frozenset({"letter", "digit", "ideograph", "mark"})


@dataclass(frozen=True, slots=True, eq=False)
class Line:
    """A line's units with its word runs and number runs precomputed (one line, many edits).

    ``word_run[i]``/``num_run[i]`` is the ``(start, end)`` span of the word/number that unit ``i``
    belongs to, or None. A number is a run of digits with inner separators (``1,250.00``).
    """

    text: str
    units: tuple[str, ...]
    kinds: tuple[str, ...]
    word_run: tuple[tuple[int, int] | None, ...]
    num_run: tuple[tuple[int, int] | None, ...]
    has_digit: bool
    offsets: tuple[int, ...]  # code point offset of each unit, plus the text length

    def span(self, start: int, end: int) -> str:
        """Text of units ``[start, end)`` (clamped to the line)."""
        n = len(self.units)
        start = 0 if start < 0 else n if start > n else start
        end = 0 if end < 0 else n if end > n else end
        return self.text[self.offsets[start] : self.offsets[end]]


#: One code character per unit kind (:func:`unit_codes`): a line's kinds as a string, which the
#: regular expressions below scan for word and number runs. A unit that may stand inside a number
#: (:data:`NUMBER_SEPARATORS`) gets its kind's code in upper case.
KIND_CODES: dict[str, str] = dict(zip(UNIT_KINDS, "ewdlimpso", strict=True))
_KIND_OF_CODE = {code: kind for kind, c in KIND_CODES.items() for code in (c, c.upper())}
_WORD_CODES = "".join(sorted(KIND_CODES[k] for k in _WORD_KINDS))
_WORD_RUN = re.compile(f"[{_WORD_CODES}{_WORD_CODES.upper()}]+")  # a run of units of _WORD_KINDS
_DIGIT = KIND_CODES["digit"] + KIND_CODES["digit"].upper()
_NUMBER_RUN = re.compile(f"[{_DIGIT}]+(?:[A-Z][{_DIGIT}]+)*")  # digits, single separators between digits
_MAX_CODES = 1 << 16  # entries of each code table before it starts over


class _UnitCodes(dict[str, str]):
    """Unit -> its code (:data:`KIND_CODES`), computed on first use."""

    def __missing__(self, unit: str) -> str:
        if len(self) >= _MAX_CODES:
            self.clear()
        code = KIND_CODES[unit_kind(unit)]
        if unit in NUMBER_SEPARATORS:
            code = code.upper()
        self[unit] = code
        return code


class _CharCodes(dict[int, str]):
    """Code point -> the code of that character as a unit of its own (a ``str.translate`` table)."""

    def __init__(self, units: _UnitCodes) -> None:
        super().__init__()
        self.units = units

    def __missing__(self, point: int) -> str:
        if len(self) >= _MAX_CODES:
            self.clear()
        code = self[point] = self.units[chr(point)]
        return code


@cache(maxsize=1)
def _code_tables() -> tuple[_UnitCodes, _CharCodes]:
    units = _UnitCodes()
    return units, _CharCodes(units)


def unit_codes(text: str, units: Sequence[str]) -> str:
    """One character of :data:`KIND_CODES` per unit of ``text`` (``units``, its clusters): the
    code of the unit's :func:`~semcer.judges.rubric.classes.unit_kind`, in upper case for a number
    separator. A line of one code point per unit is translated in one call."""
    by_unit, by_char = _code_tables()
    if len(text) == len(units):
        return text.translate(by_char)
    return "".join(map(by_unit.__getitem__, units))


def _runs(pattern: re.Pattern[str], codes: str) -> tuple[tuple[int, int] | None, ...]:
    """For each unit, the ``(start, end)`` of the match of ``pattern`` in ``codes`` holding it, or None."""
    out: list[tuple[int, int] | None] = [None] * len(codes)
    for m in pattern.finditer(codes):
        a, b = span = m.span()
        out[a:b] = (span,) * (b - a)
    return tuple(out)


@cache(maxsize=LINE_CACHE)
def line_info(text: str) -> Line:
    """The :class:`Line` of ``text`` (cached by the text: every edit of a line shares it).

    A number run is a maximal run of digits and of separators with a digit on both sides. The
    loops over the units run in C (``_lexicon_speedups.layout``) where that was built, else
    :func:`_python_layout`: the same values."""
    units = graphemes(text)
    codes = unit_codes(text, units)
    fast = _fast_layout()
    if fast is None:
        kinds, word_run, num_run, has_digit, offsets = _python_layout(text, units, codes)
    else:
        kinds, word_run, num_run, has_digit, offsets = fast(units, codes, _KIND_BY_ORD, _WORD_MASK)
    return Line(text, units, kinds, word_run, num_run, has_digit, offsets)


_Layout = tuple[tuple[str, ...], tuple[tuple[int, int] | None, ...], tuple[tuple[int, int] | None, ...], bool,
                tuple[int, ...]]


def _python_layout(text: str, units: tuple[str, ...], codes: str) -> _Layout:
    """The kinds, word runs, number runs, digit flag and offsets of a line's units, from their codes."""
    n = len(units)
    has_digit = _DIGIT[0] in codes or _DIGIT[1] in codes
    num_run = _runs(_NUMBER_RUN, codes) if has_digit else (None,) * n
    offsets = tuple(range(n + 1)) if len(text) == n else (0, *accumulate(map(len, units)))
    return tuple(map(_KIND_OF_CODE.__getitem__, codes)), _runs(_WORD_RUN, codes), num_run, has_digit, offsets


#: The C layout's tables: the kind of each ASCII code character (None for the others), and which
#: code characters are those of word units.
_KIND_BY_ORD = tuple(_KIND_OF_CODE.get(chr(i)) for i in range(128))
_WORD_MASK = bytes(chr(i).lower() in _WORD_CODES and chr(i).isalpha() for i in range(128))


@cache(maxsize=1)
def _fast_layout() -> Callable[..., _Layout] | None:
    """``_lexicon_speedups.layout`` (C), or None when it was not built or ``SEMCER_PURE_PYTHON=1``."""
    module = compiled("semcer.judges.rubric._lexicon_speedups")
    if module is None:
        return None
    layout: Callable[..., _Layout] = module.layout
    return layout


def word_span(line: Line, pos: int, gap: bool) -> tuple[int, int] | None:
    """Span ``[start, end)`` of the word at ``pos`` in ``line``, or None if no word is there.

    ``gap`` means ``pos`` is a position between units (the empty side of an insertion or
    deletion): the word is the run touching it from the left or the right (one run when both).
    A unit that is not part of a word (space, punctuation) takes the word touching it on the
    left, else the one on the right, so that a deleted space still knows its word.
    """
    return word_at(line, pos, gap)[0]


def word_at(line: Line, pos: int, gap: bool) -> tuple[tuple[int, int] | None, str]:
    """The span of the word at ``pos`` (:func:`word_span`) and its text ('' when there is none)."""
    runs = line.word_run
    n = len(runs)
    span = runs[pos] if not gap and 0 <= pos < n else None
    if span is None:
        left, right = pos - 1, (pos if gap else pos + 1)
        if 0 <= left < n and runs[left]:
            span = runs[left]
        elif 0 <= right < n and runs[right]:
            span = runs[right]
        else:
            return None, ""
    off = line.offsets
    return span, line.text[off[span[0]] : off[span[1]]]  # type: ignore[index]


def number_span(line: Line, pos: int, gap: bool) -> tuple[int, int] | None:
    """Span of the number at ``pos`` in ``line``, or None.

    For a gap or a unit that is not part of a number, the numbers touching it on either side are
    joined across it, so a deleted decimal point still finds ``3.1`` and a letter read in place of
    a digit (``11O-2``) finds the digits around it.
    """
    if not line.has_digit:
        return None
    runs, n = line.num_run, len(line.units)
    if not gap and 0 <= pos < n and runs[pos]:
        return runs[pos]
    left, right = pos - 1, (pos if gap else pos + 1)
    lr = runs[left] if 0 <= left < n else None
    rr = runs[right] if 0 <= right < n else None
    if lr and rr:
        return lr[0], rr[1]
    return lr or rr


@cache(maxsize=1 << 16)
def number_value(text: str) -> str:
    """A canonical form of a number string, so that ``6.0``/``6.00`` and ``14/04``/``14/4`` match.

    A lone ``.`` or ``,`` is read as a decimal separator (trailing zeros after it dropped) unless
    three digits follow it (``1,250`` may group thousands, so it is kept as written); otherwise each
    digit group is compared as an integer (leading zeros dropped) with the separators kept, so dates
    and codes compare group by group.
    """
    groups = _NUM_PARTS.findall(text)
    seps = _NUM_PARTS.split(text)[1:-1]
    if len(seps) == 1 and seps[0] in ".," and len(groups[1]) != 3:
        frac = groups[1].rstrip("0")
        whole = str(int(groups[0]))
        return f"{whole}.{frac}" if frac else whole
    out = [str(int(groups[0]))] if groups else []
    for sep, g in zip(seps, groups[1:]):
        out.append(sep)
        out.append(str(int(g)))
    return "".join(out)


_CJK_WINDOW_KINDS = frozenset({"letter", "ideograph"})


def cjk_word(line: Line, pos: int, lang: str) -> tuple[str, float]:
    """The best-attested word of 2-3 characters of ``line`` covering ``pos``, with its zipf.

    Windows are the bigrams and trigrams of the line that contain ``pos`` and consist of letters
    or ideographs only; each is looked up as one entry of wordfreq's list (no re-tokenization,
    which would accept any string). The longest attested window wins, then the most frequent;
    when none is attested the single character is returned with its own zipf.
    """
    units, kinds, n = line.units, line.kinds, len(line.units)
    if not (0 <= pos < n):
        return "", 0.0
    if kinds[pos] not in _CJK_WINDOW_KINDS:
        return units[pos], 0.0
    lo = pos
    while lo > pos - 2 and lo > 0 and kinds[lo - 1] in _CJK_WINDOW_KINDS:
        lo -= 1
    hi = pos + 1
    while hi < pos + 3 and hi < n and kinds[hi] in _CJK_WINDOW_KINDS:
        hi += 1
    best, best_z = "", 0.0
    text, off = line.text, line.offsets
    for size in (3, 2):
        for start in range(max(lo, pos - size + 1), min(pos, hi - size) + 1):
            window = text[off[start] : off[start + size]]  # lo <= start < start + size <= hi
            z = dict_zipf(window, lang)
            if z > best_z:
                best, best_z = window, z
        if best:
            return best, best_z
    return units[pos], dict_zipf(units[pos], lang)


@cache(maxsize=1 << 16)
def is_negation(word: str, lang: str) -> bool:
    """True when ``word`` is (or, for Korean and Thai, contains) a negation marker of ``lang``."""
    w = word.casefold()
    if w in NEGATIONS.get(lang, ()):
        return True
    return any(m in w for m in NEGATION_INFIXES.get(lang, ()))


def number_implausible(ref_num: str, hyp_num: str) -> bool:
    """True when an edit turns a plausible year, date or time into an impossible one.

    A reader catches ``2824`` for a year or ``05/44/2023`` for a date; such a changed number is
    detectable (level 3) rather than silently false (level 4).
    """
    if not ref_num or not hyp_num:
        return False
    rp, hp = _NUM_PARTS.findall(ref_num), _NUM_PARTS.findall(hyp_num)
    if len(rp) != len(hp):
        return False
    for r, h in zip(rp, hp):
        if r != h and len(r) == 4 and 1900 <= int(r) <= 2099 and not 1800 <= int(h) <= 2100:
            return True
    seps = "".join(c for c in ref_num if not c.isdigit())
    if len(rp) == 3 and len(set(seps)) == 1 and seps[0] in "./-" and len(rp[2]) in (2, 4):
        def ok(parts: list[str]) -> bool:
            a, b = int(parts[0]), int(parts[1])
            return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)

        if ok(rp) and not ok(hp):
            return True
    is_time = len(rp) == 2 and seps == ":" and len(rp[1]) == 2
    return is_time and int(rp[0]) <= 23 and int(rp[1]) <= 59 and (int(hp[0]) > 23 or int(hp[1]) > 59)
