"""Unicode-level classification of grapheme units and of one edit between them.

These are the surface facts a severity rule starts from: is the edit only a space, a case change,
a compatibility variant (full-width ``：`` vs ``:``), punctuation, a changed mark on the same base
letters (``ấ``/``á``, a Hindi vowel sign), a digit, a letter, an ideograph? No lexicon is used here.
"""

from __future__ import annotations

import re
import unicodedata

from semcer.caches import cache

#: Edit classes, in the order the classifier tries them.
EDIT_CLASSES: tuple[str, ...] = (
    "none",  # both sides equal (not an edit; kept so that the function is total)
    "invisible",  # equal once invisible characters are removed (ZWNJ/ZWJ after a virama, ZWSP, LRM, ...)
    "compat",  # NFKC-equal, e.g. full-width vs half-width
    "case",  # equal after case folding
    "homoglyph",  # letters of different scripts that look the same (Latin o, Greek ο, Cyrillic о)
    "digit",  # a digit on either side (digit<->digit, letter<->digit, digit inserted or deleted)
    "whitespace",  # only whitespace involved
    "punct",  # punctuation or symbols (and whitespace), no letter, mark or digit
    "mark",  # same base letters after removing marks (diacritics, tone marks, vowel signs)
    "ideograph",  # Han (or another ideographic script) involved
    "letter",  # letters (alphabets, abugidas, syllabaries, Hangul)
    "other",  # anything else (control or format characters, unassigned)
)

#: Kinds of a single unit.
UNIT_KINDS: tuple[str, ...] = (
    "empty", "space", "digit", "letter", "ideograph", "mark", "punct", "symbol", "other"
)

def _is_ideograph(ch: str) -> bool:
    o = ord(ch)
    return (
        0x4E00 <= o <= 0x9FFF
        or 0x3400 <= o <= 0x4DBF
        or 0x20000 <= o <= 0x3134F
        or 0xF900 <= o <= 0xFAFF
        or o == 0x3007  # 〇
    )


@cache(maxsize=1 << 16)
def unit_kind(unit: str) -> str:
    """Kind of one grapheme unit, decided by its first code point that is not a mark."""
    if not unit:
        return "empty"
    if unit.isspace():
        return "space"
    base = ""
    for ch in unit:
        if unicodedata.category(ch)[0] != "M":
            base = ch
            break
    if not base:
        return "mark"
    cat = unicodedata.category(base)
    if cat == "Nd":
        return "digit"
    if cat[0] == "L":
        return "ideograph" if _is_ideograph(base) else "letter"
    if cat[0] == "N":  # No/Nl: superscripts, fractions, Roman numerals, circled numbers
        return "digit" if any(unicodedata.category(c) == "Nd" for c in unicodedata.normalize("NFKC", unit)) else "symbol"
    if cat[0] == "P":
        return "punct"
    if cat[0] == "S":
        return "symbol"
    if cat[0] == "Z":
        return "space"
    return "other"


@cache(maxsize=1 << 16)
def strip_marks(text: str) -> str:
    """``text`` case-folded, decomposed, with every combining mark removed (the base letters)."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in decomposed if unicodedata.category(ch)[0] != "M")


@cache(maxsize=1 << 16)
def edit_class(ref_unit: str, hyp_unit: str) -> str:
    """Class of the edit ``ref_unit`` -> ``hyp_unit`` (one side may be empty: a deletion/insertion).

    The first matching class of :data:`EDIT_CLASSES` wins, so a full-width digit read as an ASCII
    digit is ``compat``, and ``O``/``0`` is ``digit``.
    """
    if ref_unit == hyp_unit:
        return "none"
    if visible(ref_unit) == visible(hyp_unit):
        return "invisible"
    if ref_unit and hyp_unit:
        if unicodedata.normalize("NFKC", ref_unit) == unicodedata.normalize("NFKC", hyp_unit):
            return "compat"
        if ref_unit.casefold() == hyp_unit.casefold():
            return "case"
        if _skeleton(ref_unit) == _skeleton(hyp_unit):
            return "homoglyph"
    kinds = {unit_kind(ref_unit), unit_kind(hyp_unit)} - {"empty"}
    if "digit" in kinds:
        return "digit"
    if kinds <= {"space"}:
        return "whitespace"
    if kinds <= {"space", "punct", "symbol"}:
        return "punct"
    if ref_unit and hyp_unit and strip_marks(ref_unit) == strip_marks(hyp_unit):
        return "mark"
    if kinds == {"mark"}:  # a lone combining mark inserted or deleted
        return "mark"
    if "ideograph" in kinds:
        return "ideograph"
    if "letter" in kinds or "mark" in kinds:
        return "letter"
    return "other"


# Latin, Greek and Cyrillic letters that print (nearly) alike, mapped to one skeleton (Latin where
# there is one); a small hand-made subset of Unicode's confusables (UTS #39) covering what OCR
# actually swaps, and the Hebrew geresh and gershayim read as ASCII quotes.
_HOMOGLYPHS = {
    "a": "аα", "c": "сϲ", "d": "ԁ", "e": "еε", "i": "іι", "j": "ј", "k": "κк", "h": "һ", "l": "ӏ",
    "o": "оο", "p": "рρ", "q": "ԛ", "s": "ѕ", "u": "υ", "v": "ν", "w": "ԝ", "x": "хχ", "y": "у",
    "A": "АΑ", "B": "ВΒ", "C": "СϹ", "E": "ЕΕ", "H": "НΗ", "I": "ІΙӀ", "J": "Ј", "K": "КΚ",
    "M": "МΜ", "N": "Ν", "O": "ОΟ", "P": "РΡ", "S": "Ѕ", "T": "ТΤ", "X": "ХΧ", "Y": "ΥҮУ", "Z": "Ζ",
    "Г": "Γ", "П": "Π", "Ф": "Φ", "'": "׳", '"': "״",
    # Katakana read as the kanji or hiragana it is drawn like.
    "ト": "卜", "ー": "一", "ロ": "口", "エ": "工", "カ": "力", "タ": "夕", "ニ": "二", "ハ": "八", "ヘ": "へ",
    "ベ": "べ", "ペ": "ぺ", "リ": "り",
}
_SKELETON_OF = {ch: latin for latin, others in _HOMOGLYPHS.items() for ch in others}


def _skeleton(unit: str) -> str:
    return "".join(_SKELETON_OF.get(ch, ch) for ch in unit)


#: Default-ignorable code points that OCR inserts or drops without a visible trace: soft hyphen,
#: combining grapheme joiner, Arabic letter mark, zero-width space/non-joiner/joiner, direction
#: marks and embeddings, word joiner and invisible operators, variation selectors, BOM.
_INVISIBLE = frozenset(
    [0x00AD, 0x034F, 0x061C, 0x180E, 0xFEFF, *range(0x200B, 0x2010), *range(0x202A, 0x202F),
     *range(0x2060, 0x2070), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]
)
_DROP_INVISIBLE = dict.fromkeys(_INVISIBLE)


def _char_class(points: frozenset[int]) -> str:
    """A regular expression class of ``points``, consecutive code points as ranges."""
    ranges: list[list[int]] = []
    for p in sorted(points):
        if ranges and p == ranges[-1][1] + 1:
            ranges[-1][1] = p
        else:
            ranges.append([p, p])
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


_INVISIBLE_RE = re.compile(f"[{_char_class(_INVISIBLE)}]")


def has_invisible(text: str) -> bool:
    """True when ``text`` holds an invisible character (``visible(text) != text``), in one scan."""
    return _INVISIBLE_RE.search(text) is not None


@cache(maxsize=1 << 16)
def visible(unit: str) -> str:
    """``unit`` without its invisible (default-ignorable) characters."""
    if unit.isascii():
        return unit
    return unit.translate(_DROP_INVISIBLE)


#: Kinds of a change of combining marks between two units (:func:`mark_change`).
MARK_CHANGES: tuple[str, ...] = ("", "optional", "nasal", "virama", "tone", "vowel", "nukta", "other")
#: Vowel points that ordinary Arabic and Hebrew text leaves out (harakat, shadda, sukun, dagger alif;
#: niqqud, dagesh, shin/sin dots, meteg).
_OPTIONAL_MARKS = frozenset([*range(0x064B, 0x0653), 0x0670, *range(0x05B0, 0x05C3), 0x05C7])
#: Nasalisation marks of the Indic scripts: candrabindu and anusvara.
_NASAL_MARKS = frozenset([0x0901, 0x0902, 0x0981, 0x0982, 0x0A01, 0x0A02, 0x0A70, 0x0A81, 0x0A82, 0x0B01, 0x0B02,
                          0x0B82, 0x0C00, 0x0C01, 0x0C02, 0x0C80, 0x0C81, 0x0C82, 0x0D00, 0x0D02, 0x0E4D])
_VIRAMAS = frozenset([0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D4D, 0x0E3A, 0x0E4C])
_NUKTAS = frozenset([0x093C, 0x09BC, 0x0A3C, 0x0ABC, 0x0B3C, 0x0CBC])
#: Tone marks: the Vietnamese ones (grave, acute, tilde, hook above, dot below) and Thai's four.
_TONE_MARKS = frozenset([0x0300, 0x0301, 0x0303, 0x0309, 0x0323, *range(0x0E48, 0x0E4C)])


@cache(maxsize=1 << 16)
def mark_change(ref_unit: str, hyp_unit: str) -> str:
    """Which combining marks differ between the units (decomposed): '' when none does, else
    'optional' (only vowel points Arabic and Hebrew usually leave out), 'nasal' (an Indic
    candrabindu/anusvara, Thai nikhahit), 'virama', 'nukta', 'tone' (a mark that is a tone mark in
    Vietnamese, grave, acute, tilde, hook above or dot below, or in Thai), 'vowel' (another mark of an
    Indic or Thai vowel sign), or 'other'. The first that applies, in that order."""
    ref, hyp = unicodedata.normalize("NFD", ref_unit), unicodedata.normalize("NFD", hyp_unit)
    diff = [ord(c) for c in set(ref) ^ set(hyp) if unicodedata.category(c)[0] == "M"]
    if not diff:
        return ""
    if all(c in _OPTIONAL_MARKS for c in diff):
        return "optional"
    for kind, marks in (("nasal", _NASAL_MARKS), ("virama", _VIRAMAS), ("nukta", _NUKTAS), ("tone", _TONE_MARKS)):
        if any(c in marks for c in diff):
            return kind
    if any(0x0900 <= c < 0x0E80 for c in diff):
        return "vowel"
    return "other"


def is_word_unit(unit: str) -> bool:
    """True for units that belong to a word: letters, marks, digits, ideographs."""
    return unit_kind(unit) in ("letter", "digit", "ideograph", "mark")
