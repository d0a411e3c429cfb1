"""The per-edit facts the offline judges read: edit class, script, the word before and after the
edit and whether the lexicon knows it, digits and numbers, negation, how garbled the output is.

:func:`feature_tuple` computes them for one edit as an :class:`EditFeatures` of plain values; the
rubric's rule table (:mod:`semcer.judges.rubric.rules`) and the compact scorer's forest
(:mod:`semcer.judges.compact`) both read them. Deterministic, offline: wordfreq's lists, and
:mod:`~semcer.judges.rubric.extra_lexicons` where wordfreq has none (Thai and Japanese words are
found with a dictionary tokenizer there: :func:`_segmented`).
"""

from __future__ import annotations

import dataclasses
import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from itertools import repeat
from typing import Any, NamedTuple

import regex
from rapidfuzz.distance import Levenshtein

from semcer.alignment.context import EditContext
from semcer.caches import LINE_CACHE, cache
from semcer.judges.rubric import extra_lexicons
from semcer.judges.rubric.classes import edit_class, has_invisible, mark_change, unit_kind, visible
from semcer.judges.rubric.lexicon import (
    CJK_LANGS,
    NEGATION_INFIXES,
    NEGATIONS,
    Line,
    cjk_word,
    dict_zipf,
    is_negation,
    lexicon_lang,
    line_info,
    morpheme_tokenized,
    number_span,
    number_value,
    token_count,
    word_at,
    zipf,
)
from semcer.judges.rubric.lexicon import (
    number_implausible as number_implausible_,
)
from semcer.text.script import base_lang, unit_script

#: A word counts as known to the lexicon from this Zipf frequency on. The large wordfreq lists
#: reach down to Zipf 1 and hold common misspellings there; 2.0 keeps rare real words (about one
#: per 100 million words) and drops most typos.
KNOWN_ZIPF = 2.0
#: For Chinese and Japanese windows (2-3 characters looked up as one entry).
KNOWN_CJK_ZIPF = 2.0
#: A single Chinese/Japanese character of the reference counts as a word from this Zipf on.
CJK_CHAR_WORD_ZIPF = 5.0

_NOUN_CAPS = frozenset({"de", "lb"})  # languages that capitalise every noun
_WORD_RE = regex.compile(r"[\p{L}\p{M}\p{N}]+")
_SENTENCE_END = frozenset(".!?:;¿¡。！？：；\"“”«»„(（[【「『-–—•*")
_NUMBER_NEIGHBOUR_KINDS = frozenset({"punct", "symbol", "space", "digit"})
_DECIMAL_SEPS = frozenset({".", ",", "٫", "٬"})
_LOCAL_RADIUS = 5  # units on each side of the edit in the local window
_CJK_WORD_KINDS = frozenset({"letter", "ideograph"})


_similarity = Levenshtein.normalized_similarity


@cache(maxsize=256)
def _lang_info(tag: str) -> tuple[str, str | None, bool, bool]:
    """Language code, wordfreq code (None without a list), CJK or not, negation list or not."""
    lang, lex = base_lang(tag), lexicon_lang(tag)
    return lang, lex, lex is not None and lex in CJK_LANGS, lang in NEGATIONS or lang in NEGATION_INFIXES


@cache(maxsize=1 << 16)
def _unit_pair(ref_unit: str, hyp_unit: str) -> tuple[str, str, str, str, str]:
    """Edit class, both unit kinds, the script of an edit's units and how their marks differ."""
    return (edit_class(ref_unit, hyp_unit), unit_kind(ref_unit), unit_kind(hyp_unit), unit_script(ref_unit or hyp_unit),
            mark_change(ref_unit, hyp_unit))


@cache(maxsize=1 << 18)
def _lookup(word: str, lex: str | None) -> tuple[float, bool | None, str]:
    """Zipf frequency, known or not (None without a lexicon or word) and shape of a word."""
    if not word or lex is None:
        return 0.0, None, _shape(word)
    z = zipf(word, lex)
    return z, z >= KNOWN_ZIPF, _shape(word)


@cache(maxsize=1 << 16)
def _word_pair(ref_w: str, hyp_w: str, lang: str, lex: str | None
               ) -> tuple[float, bool | None, str, float, bool | None, str, str, bool]:
    """What the lexicon says about the words holding an edit (spaced languages), in one lookup:
    Zipf frequency, known or not, and shape of each word, the word status, and whether exactly
    one of them is a negation word. The same word pairs recur across a corpus (an OCR error on a
    frequent word), so this is cached as a whole."""
    ref_z, ref_known, shape = _lookup(ref_w, lex)
    hyp_z, hyp_known, hyp_shape = _lookup(hyp_w, lex)
    if hyp_known and ref_w and morpheme_tokenized(lex):  # type: ignore[arg-type]
        hyp_known = token_count(hyp_w, lex) <= token_count(ref_w, lex)  # type: ignore[arg-type]
    if not ref_w:
        shape = hyp_shape
    status = _word_status(lex, ref_w, hyp_w, ref_known, hyp_known)
    return ref_z, ref_known, shape, hyp_z, hyp_known, hyp_shape, status, is_negation(ref_w, lang) != is_negation(hyp_w, lang)


@cache(maxsize=LINE_CACHE)
def _line_words(text: str, lex: str) -> tuple[int, int, dict[str, bool]]:
    """Words of a line (letters only, two units or more): how many, how many the lexicon knows, and
    whether it knows each distinct one."""
    # A word of letters only holds no digit (no code point is both alphabetic and a digit).
    words = [w for w in _WORD_RE.findall(text) if len(w) > 1 and (w.isalpha() or not any(map(str.isdigit, w)))]
    known = [z >= KNOWN_ZIPF for z in map(zipf, words, repeat(lex))]
    return len(words), sum(known), dict(zip(words, known))


@cache(maxsize=LINE_CACHE)
def _lines(
    ref: str, hyp: str, tag: str
) -> tuple[Line, Line, float, str, str | None, bool, bool, tuple[int, int, dict[str, bool]] | None, bool]:
    """What an edit's lines and language give, once per line pair (all of its edits share it).

    Both lines analysed (for Thai, with dictionary word boundaries: :func:`_segmented`; for
    Japanese the reference only, as the output's words are never read there: its word is the
    best-attested run of characters, :func:`_cjk_words`), their similarity (the whole line's share
    of intact text), the language (:func:`_lang_info`) and the words of the output line with what
    the lexicon knows of them (:func:`_line_words`; None without a lexicon and for Chinese and Japanese),
    and whether either line holds text that compatibility normalisation or dropping invisible
    characters changes (else no edit can be :func:`_equivalent`).
    """
    lang, lex, cjk, neg_lang = _lang_info(tag)
    words = None if lex is None or cjk else _line_words(hyp, lex)
    if lang in _SEGMENTED:
        ref_line, hyp_line = _segmented(ref, lang), line_info(hyp) if cjk else _segmented(hyp, lang)
    else:
        ref_line, hyp_line = line_info(ref), line_info(hyp)
    foldable = not (unicodedata.is_normalized("NFKC", ref) and unicodedata.is_normalized("NFKC", hyp)
                    and not has_invisible(ref) and not has_invisible(hyp))
    return ref_line, hyp_line, _similarity(ref, hyp), lang, lex, cjk, neg_lang, words, foldable


#: Languages written without spaces whose words come from a dictionary tokenizer (not wordfreq's).
_SEGMENTED = frozenset({"th", "ja"})


@cache(maxsize=LINE_CACHE)
def _segmented(text: str, lang: str) -> Line:
    """The :class:`Line` of ``text`` with its word runs cut at the tokenizer's word boundaries
    (:func:`~semcer.judges.rubric.extra_lexicons.word_spans`: Thai, Japanese); as
    :func:`line_info` gives it when there is no tokenizer.

    A unit belongs to the token holding its first code point; a word run is cut wherever that
    token changes, and a unit of a word that no token covers is a word of its own."""
    line = line_info(text)
    spans = extra_lexicons.word_spans(text, lang)
    if not spans:
        return line
    n, words, offsets = len(line.units), line.word_run, line.offsets
    runs: list[tuple[int, int] | None] = [None] * n
    done = 0  # units before this one are placed
    for start, end in spans:
        lo, hi = bisect_left(offsets, start, done, n), bisect_left(offsets, end, done, n)
        _singletons(words, runs, done, lo)  # units no token covers
        i = lo
        while i < hi:  # the pieces of word runs inside the token
            run = words[i]
            if run is None:
                i += 1
                continue
            j = run[1] if run[1] < hi else hi
            runs[i:j] = ((i, j),) * (j - i)
            i = j
        done = hi
    _singletons(words, runs, done, n)
    return dataclasses.replace(line, word_run=tuple(runs))


def _singletons(words: Sequence[tuple[int, int] | None], runs: list[tuple[int, int] | None], lo: int, hi: int) -> None:
    """Each word unit in ``[lo, hi)`` a run of its own (units that no token covers)."""
    for k in range(lo, hi):
        if words[k] is not None:
            runs[k] = (k, k + 1)


def _fold(text: str) -> str:
    return visible(unicodedata.normalize("NFKC", text))


@cache(maxsize=1 << 16)
def _folds(unit: str) -> bool:
    """True when compatibility normalisation or dropping invisible characters changes ``unit``."""
    return _fold(unit) != unit


def _equivalent(ref: Line, hyp: Line, rpos: int, hpos: int, op: str) -> bool:
    """True when a few units around the edit read the same on both sides after compatibility
    normalisation without invisible characters: Thai sara am (one unit) read as nikhahit + sara aa
    (two units), a ligature read as its letters, a ZWSP inserted. Windows of the edit's units and up
    to one unit more on each side of each line are compared; windows equal as written do not count."""
    r_lo, r_hi = rpos, rpos + (op != "I")
    h_lo, h_hi = hpos, hpos + (op != "D")
    near = ref.units[max(0, r_lo - 1) : r_hi + 1] + hyp.units[max(0, h_lo - 1) : h_hi + 1]
    if not any(map(_folds, near)):
        return False  # no unit of any window changes: the windows are equal folded only if they are as written
    hyp_windows: dict[str, list[str]] = {}
    for c in (0, 1):
        for d in (0, 1):
            hs = hyp.span(h_lo - c, h_hi + d)
            hyp_windows.setdefault(_fold(hs), []).append(hs)
    for a in (0, 1):
        for b in (0, 1):
            rs = ref.span(r_lo - a, r_hi + b)
            if any(hs != rs for hs in hyp_windows.get(_fold(rs), ())):
                return True
    return False


def _context_known(words: tuple[int, int, dict[str, bool]] | None, skip: str) -> float | None:
    """Share of the output line's words (:func:`_line_words`) other than ``skip`` that the lexicon
    knows; None without a lexicon."""
    if words is None:
        return None
    n, k, known = words
    skipped = known.get(skip)
    if skipped is not None:
        n, k = n - 1, k - skipped
    return k / n if n else None


@cache(maxsize=LINE_CACHE)
def _negation_count(text: str, lang: str) -> int:
    """Negation words in a line (negation characters for Chinese and Japanese)."""
    if lang in CJK_LANGS:
        return sum(is_negation(c, lang) for c in text)
    return sum(is_negation(w, lang) for w in _WORD_RE.findall(text))


@cache(maxsize=1 << 16)
def _shape(word: str) -> str:
    """Case and content shape of a word: lower, title, upper, mixed, numeric, alnum, other."""
    if not word:
        return ""
    if any(map(str.isdigit, word)):
        return "alnum" if any(map(str.isalpha, word)) else "numeric"
    if word.islower():
        return "lower"
    if word.isupper():
        return "upper" if len(word) > 1 else "title"
    if word[0].isupper() and (len(word) == 1 or word[1:].islower()):
        return "title"
    if any(map(str.isupper, word)):
        return "mixed"
    return "other"  # caseless scripts


def _sentence_initial(units: Sequence[str], start: int) -> bool:
    i = start - 1
    while i >= 0 and units[i].isspace():
        i -= 1
    return i < 0 or units[i] in _SENTENCE_END


def _window(line: Line, pos: int, radius: int = _LOCAL_RADIUS) -> str:
    """Text of the units within ``radius`` of ``pos`` (clamped to the line)."""
    off = line.offsets
    n = len(off) - 1
    a, b = pos - radius, pos + radius + 1
    a = 0 if a < 0 else n if a > n else a
    b = 0 if b < 0 else n if b > n else b
    return line.text[off[a] : off[b]]


def _local_sim(ref: Line, hyp: Line, rpos: int, hpos: int) -> float:
    """Similarity of the :func:`_window` of the edit in each line (the 11 units around it)."""
    r, n = _LOCAL_RADIUS, len(ref.offsets) - 1
    a, b = rpos - r, rpos + r + 1
    a = 0 if a < 0 else n if a > n else a
    b = 0 if b < 0 else n if b > n else b
    off = ref.offsets
    ref_window = ref.text[off[a] : off[b]]
    n = len(hyp.offsets) - 1
    a, b = hpos - r, hpos + r + 1
    a = 0 if a < 0 else n if a > n else a
    b = 0 if b < 0 else n if b > n else b
    off = hyp.offsets
    return _similarity(ref_window, hyp.text[off[a] : off[b]])


def _span_text(line: Line, span: tuple[int, int] | None) -> str:
    return line.text[line.offsets[span[0]] : line.offsets[span[1]]] if span else ""


def _negation_change(ctx: EditContext, lang: str, ref_w: str, hyp_w: str, hyp_line: Line) -> str:
    """How the edit changes negation: 'lost', 'gained', 'partial', 'swap' or ''.

    'lost'/'gained': a negation word disappears/appears (the count in the line changes).
    'partial': lost, but another negation word stands close by (French ``ne ... pas``).
    'swap': a negation word is substituted by another word or the reverse (``not`` -> ``nut``).
    """
    ref_neg, hyp_neg = is_negation(ref_w, lang), is_negation(hyp_w, lang)
    if ref_neg == hyp_neg:
        return ""
    count_ref, count_hyp = _negation_count(ctx.ref, lang), _negation_count(ctx.hyp, lang)
    if (ref_neg and count_hyp >= count_ref) or (hyp_neg and count_ref >= count_hyp):
        return ""  # the edit moved a negation, it did not remove or add one
    if ctx.op == "S" and unit_kind(ctx.ref_unit) != "space" and unit_kind(ctx.hyp_unit) != "space":
        return "swap"
    if ref_neg:
        near = _WORD_RE.findall(_window(hyp_line, ctx.hyp_pos, 12))
        if any(is_negation(w, lang) for w in near):
            return "partial"  # French ne ... pas: one half is still there
        return "lost"
    return "gained"


def _pos_in_word(span: tuple[int, int] | None, pos: int, gap: bool) -> str:
    if not span:
        return "none"
    start, end = span
    if not gap and start <= pos < end:
        first, last = pos == start, pos == end - 1
        return "whole" if first and last else "initial" if first else "final" if last else "medial"
    if gap and start < pos < end:
        return "medial"
    return "edge"


def _name_like(lang: str, line: Line, span: tuple[int, int] | None, word: str, shape: str) -> bool:
    """A capitalised word that is not at a sentence start, or an acronym: probably a name/term.

    A sentence-initial capital counts when the next word is capitalised too (``Tấm Cám``).
    Languages that capitalise every noun (German) only count acronyms.
    """
    if not word or not span:
        return False
    if shape == "upper":
        return len(word) > 1
    if shape != "title" or lang in _NOUN_CAPS:
        return False
    if not _sentence_initial(line.units, span[0]):
        return True
    end = span[1]
    if end + 1 < len(line.units) and line.units[end].isspace():
        nxt = line.word_run[end + 1]
        return bool(nxt) and _shape(_span_text(line, nxt)) == "title"
    return False


class EditFeatures(NamedTuple):
    """The per-edit features the rubric rules (and a learned scorer) read; plain Python values.

    A tuple with named fields rather than a dict: it is built once per judged edit, and a tuple of
    this size costs a fraction of a dict. :func:`edit_features` gives the same values as a dict.
    """

    lang: str  # primary language subtag
    lexicon: str  # wordfreq code, '' when none
    op: str
    edit_class: str
    ref_unit: str
    hyp_unit: str
    ref_kind: str  # unit kinds
    hyp_kind: str
    script: str
    ref_word: str  # the word holding the edit on each side
    hyp_word: str
    ref_zipf: float
    hyp_zipf: float
    ref_known: bool | None  # None without a lexicon
    hyp_known: bool | None
    word_status: str
    shape: str
    hyp_shape: str
    name_like: bool
    word_len: int
    pos_in_word: str
    left_kind: str  # reference units beside the edit, 'start'/'end' at the line ends
    right_kind: str
    in_number: bool
    number_changed: bool
    number_malformed: bool
    number_implausible: bool
    number_punct: str
    negation: str
    line_sim: float  # whole line
    local_sim: float  # 11 units around the edit
    context_known: float | None  # share of known words in the output line
    rel_pos: float
    line_len: int
    equivalent: bool  # a few units around the edit are equal after NFKC without invisible characters
    mark_change: str  # which combining marks differ (classes.mark_change)


_new_features = tuple.__new__  # EditFeatures from a tuple in field order, without the keyword-capable __new__


def edit_features(ctx: EditContext) -> dict[str, Any]:
    """Per-edit features the rubric rules (and a learned scorer) read, as a dict of plain values.

    Keys: the fields of :class:`EditFeatures` (``lang``, ``lexicon`` (wordfreq code, '' when
    none), ``op``, ``ref_unit``/``hyp_unit``, ``edit_class``, ``ref_kind``/``hyp_kind`` (unit
    kinds), ``script``, ``ref_word``/``hyp_word`` (the word holding the edit on each side),
    ``ref_zipf``/``hyp_zipf``, ``ref_known``/``hyp_known`` (None without a lexicon),
    ``word_status``, ``shape``/``hyp_shape``, ``name_like``, ``word_len``, ``pos_in_word``,
    ``left_kind``/``right_kind`` (reference units beside the edit, 'start'/'end' at the line ends),
    ``in_number``, ``number_changed``, ``number_malformed``, ``number_implausible``,
    ``number_punct``, ``negation``, ``line_sim`` (whole line), ``local_sim`` (11 units around the
    edit), ``context_known`` (share of known words in the output line), ``rel_pos``, ``line_len``,
    ``equivalent`` (a few units around the edit read the same after NFKC, invisible characters dropped),
    ``mark_change`` (:func:`~semcer.judges.rubric.classes.mark_change`)).
    """
    return feature_tuple(ctx)._asdict()


def feature_tuple(ctx: EditContext) -> EditFeatures:
    """The features of one edit (:class:`EditFeatures`); what the judges call, once per edit."""
    ref, hyp, line_sim, lang, lex, cjk, neg_lang, hyp_words, foldable = _lines(ctx.ref, ctx.hyp, ctx.lang)
    rpos, hpos, op = ctx.ref_pos, ctx.hyp_pos, ctx.op
    ref_unit, hyp_unit = ctx.ref_unit, ctx.hyp_unit
    cls, ref_kind, hyp_kind, script, marks = _unit_pair(ref_unit, hyp_unit)
    ref_gap, hyp_gap = op == "I", op == "D"

    # The word holding the edit on each side, and what the lexicon says about it.
    ref_span, ref_w = word_at(ref, rpos, ref_gap)
    if cjk:  # the word is the best-attested run of characters around the edit instead
        ref_w, hyp_w, word_len, words = _cjk_words(ref, hyp, rpos, hpos, ref_gap, hyp_gap, lang, lex, neg_lang)  # type: ignore[arg-type]
    else:
        hyp_w = word_at(hyp, hpos, hyp_gap)[1]
        words = _word_pair(ref_w, hyp_w, lang, lex)
        word_len = (ref_span[1] - ref_span[0]) if ref_span else 0
    ref_z, ref_known, shape, hyp_z, hyp_known, hyp_shape, word_status, negation_changed = words

    # Numbers: the digit run (with inner separators) at the edit on each side.
    numbers = _NO_NUMBER
    if ref.has_digit or hyp.has_digit:
        numbers = _numbers(ctx, ref, hyp, cls, ref_kind if ref_unit else hyp_kind)

    # Neighbours of the edit in the reference (for an insertion: of the gap).
    kinds = ref.kinds
    n_ref = len(kinds)
    left_kind = kinds[rpos - 1] if 0 < rpos <= n_ref else "start"
    right_i = rpos if ref_gap else rpos + 1
    right_kind = kinds[right_i] if 0 <= right_i < n_ref else "end"

    negation = ""
    if negation_changed:
        negation = _negation_change(ctx, lang, ref_w, hyp_w, hyp)
        if negation == "swap" and not hyp_known:
            negation = ""  # a garbled negation word is a non-word: the letter rules judge it

    in_number, number_changed, number_implausible, number_punct = numbers
    return _new_features(EditFeatures, (  # in field order
        lang, lex or "", op, cls, ref_unit, hyp_unit, ref_kind, hyp_kind, script,
        ref_w, hyp_w, ref_z, hyp_z, ref_known, hyp_known, word_status, shape, hyp_shape,
        (shape == "upper" or shape == "title") and _name_like(lang, ref, ref_span, ref_w, shape),  # name_like
        word_len, _pos_in_word(ref_span, rpos, ref_gap),
        left_kind, right_kind, in_number, number_changed,
        cls == "digit" and (ref_kind == "letter" or hyp_kind == "letter"),  # number_malformed
        number_implausible, number_punct, negation, line_sim,
        _local_sim(ref, hyp, rpos, hpos),
        _context_known(hyp_words, hyp_w), rpos / (n_ref or 1), n_ref,  # context_known, rel_pos, line_len
        foldable and _equivalent(ref, hyp, rpos, hpos, op), marks,
    ))


_NO_NUMBER = (False, False, False, "")  # in_number, number_changed, number_implausible, number_punct


def _cjk_words(ref: Line, hyp: Line, rpos: int, hpos: int, ref_gap: bool, hyp_gap: bool, lang: str, lex: str,
               neg_lang: bool) -> tuple[str, str, int, tuple[float, bool | None, str, float, bool | None, str, str, bool]]:
    """Chinese and Japanese: the best-attested run of characters around the edit on each side, its
    length, and the lexicon values in :func:`_word_pair`'s order."""
    ref_w, ref_z = _cjk_side(ref, rpos, ref_gap, lex)
    hyp_w, hyp_z = _cjk_side(hyp, hpos, hyp_gap, lex)
    # A single character is nearly always some word, so it is no evidence for the output;
    # for the reference a very frequent one-character word (的, 是) counts as known.
    ref_known = bool(ref_w) and ref_z >= (KNOWN_CJK_ZIPF if len(ref_w) > 1 else CJK_CHAR_WORD_ZIPF)
    hyp_known = len(hyp_w) > 1 and hyp_z >= KNOWN_CJK_ZIPF
    status = _word_status(lex, ref_w, hyp_w, ref_known, hyp_known)
    negation_changed = neg_lang and is_negation(ref_w, lang) != is_negation(hyp_w, lang)
    words = (ref_z, ref_known, _shape(ref_w or hyp_w), hyp_z, hyp_known, _shape(hyp_w), status, negation_changed)
    return ref_w, hyp_w, len(ref_w), words


def _numbers(ctx: EditContext, ref: Line, hyp: Line, cls: str, main_kind: str) -> tuple[bool, bool, bool, str]:
    """``(in_number, number_changed, number_implausible, number_punct)`` of an edit on lines with digits."""
    rpos, hpos = ctx.ref_pos, ctx.hyp_pos
    ref_num = _span_text(ref, number_span(ref, rpos, ctx.op == "I"))
    hyp_num = _span_text(hyp, number_span(hyp, hpos, ctx.op == "D"))
    in_number = bool(ref_num or hyp_num) and (cls == "digit" or main_kind in _NUMBER_NEIGHBOUR_KINDS)
    changed = implausible = False
    if in_number:
        changed = number_value(ref_num) != number_value(hyp_num)
        implausible = changed and number_implausible_(ref_num, hyp_num)
    punct = _number_punct(ctx, ref, hyp) if cls in ("punct", "whitespace") else ""
    return in_number, changed, implausible, punct


def _digit_at(line: Line, i: int) -> bool:
    return 0 <= i < len(line.kinds) and line.kinds[i] == "digit"


def _number_punct(ctx: EditContext, ref: Line, hyp: Line) -> str:
    """How a punctuation or space edit changes a number: 'merged', 'split', 'decimal' or ''.

    ``3.1`` -> ``31`` merges two digit runs, ``12`` -> ``1.2`` splits one, ``1,250`` -> ``1.250``
    swaps a decimal and a grouping separator; a dash style between two years changes nothing.
    """
    rp, hp = ctx.ref_pos, ctx.hyp_pos
    ref_between = _digit_at(ref, rp - 1) and _digit_at(ref, rp if ctx.op == "I" else rp + 1)
    hyp_between = _digit_at(hyp, hp - 1) and _digit_at(hyp, hp if ctx.op == "D" else hp + 1)
    if not (ref_between and hyp_between):
        return ""
    if ctx.op == "D":
        return "merged"
    if ctx.op == "I":
        return "split"
    if ctx.ref_unit in _DECIMAL_SEPS and ctx.hyp_unit in _DECIMAL_SEPS:
        return "decimal"
    return ""


def _cjk_side(line: Line, pos: int, gap: bool, lang: str) -> tuple[str, float]:
    """Chinese/Japanese word at ``pos``; for a gap, the best window joined across it."""
    if not gap:
        return cjk_word(line, pos, lang)
    n, kinds, best, best_z = len(line.units), line.kinds, "", 0.0
    for start, end in ((pos - 1, pos + 1), (pos - 2, pos + 1), (pos - 1, pos + 2)):
        if start < 0 or end > n:
            continue
        if _CJK_WORD_KINDS.issuperset(kinds[start:end]):
            text = line.span(start, end)
            z = dict_zipf(text, lang)
            if z > best_z:
                best, best_z = text, z
    return best, best_z


def _word_status(lex: str | None, ref_w: str, hyp_w: str, ref_known: bool | None, hyp_known: bool | None) -> str:
    """What the edit does to its word: same, non-word, real-word, unknown-ref, none, no-lexicon."""
    if not ref_w and not hyp_w:
        return "none"
    if ref_w.casefold() == hyp_w.casefold():
        return "same"
    if lex is None:
        return "no-lexicon"
    if ref_w and not ref_known:
        return "unknown-ref"
    if hyp_known:
        return "real-word"
    return "non-word"


