"""Scripts and languages of text: the one place that says which script a character is written in,
which language a line without a ``lang`` is taken for, and how a language tag is normalised.

The script of a character is read from its Unicode name (``LATIN SMALL LETTER A`` -> ``Latin``,
``CJK UNIFIED IDEOGRAPH-4E00`` -> ``Han``): a cheap, deterministic proxy of the Script property,
used for letters, marks and decimal digits; everything else is ``Common``. The edit features of
the offline judges read it, so its values are part of those judges' identities.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

import regex

from semcer.caches import cache

_SCRIPT_ALIASES = {
    "CJK": "Han",
    "FULLWIDTH": "Common",
    "HALFWIDTH": "Common",
    "DIGIT": "Common",
    "COMBINING": "Inherited",
    "MODIFIER": "Common",
    "SUPERSCRIPT": "Common",
    "SUBSCRIPT": "Common",
}

#: Script -> language used when an item has no ``lang``. Latin text other than Vietnamese is
#: ``und`` (undetermined): its language cannot be told from the script, so judges use class rules only.
SCRIPT_LANGUAGES: dict[str, str] = {
    "Han": "zh", "Hiragana": "ja", "Katakana": "ja", "Hangul": "ko", "Thai": "th",
    "Devanagari": "hi", "Bengali": "bn", "Tamil": "ta", "Telugu": "te", "Kannada": "kn",
    "Malayalam": "ml", "Gujarati": "gu", "Gurmukhi": "pa", "Arabic": "ar", "Hebrew": "he",
    "Cyrillic": "ru", "Greek": "el", "Georgian": "ka", "Armenian": "hy", "Khmer": "km",
    "Lao": "lo", "Myanmar": "my", "Ethiopic": "am", "Sinhala": "si", "Latin": "und",
}
# Letters only Vietnamese uses among Latin-script languages (with their tone-marked forms).
_VIETNAMESE = regex.compile(r"[ơưăđƠƯĂĐ]|[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", regex.I)

#: Aliases of language subtags to the codes semcer's lexicons use.
_LANG_ALIASES = {"iw": "he", "in": "id", "no": "nb", "tl": "fil", "sr": "sh", "hr": "sh", "bs": "sh", "cmn": "zh", "yue": "zh"}


@cache(maxsize=1 << 16)
def name_word(ch: str) -> str:
    """The first word of the Unicode name of ``ch`` (``LATIN``, ``CJK``, ``COMMA``; '' when unnamed)."""
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else ""


@cache(maxsize=1 << 14)
def char_script(ch: str) -> str:
    """The script of one code point ('Latin', 'Han', 'Devanagari', ...; 'Common' for the rest)."""
    if ch.isascii():
        return "Latin" if ch.isalpha() else "Common"
    cat = unicodedata.category(ch)
    if cat[0] not in "LM" and cat != "Nd":
        return "Common"
    first = name_word(ch)
    if not first:
        return "Unknown"
    return _SCRIPT_ALIASES.get(first, first.title())


@cache(maxsize=1 << 14)
def unit_script(unit: str) -> str:
    """Script of the first code point of ``unit`` that has one ('' for an empty unit)."""
    for ch in unit:
        s = char_script(ch)
        if s not in ("Common", "Inherited"):
            return s
    return "Common" if unit else ""


def _letter_language(ch: str) -> str | None:
    script = char_script(ch)
    if script == "Common" and name_word(ch) in ("HALFWIDTH", "FULLWIDTH"):  # ｶﾀｶﾅ, ＬＡＴＩＮ
        parts = unicodedata.name(ch).split(" ")
        script = parts[1].title() if len(parts) > 1 else script
    return SCRIPT_LANGUAGES.get(script)


def detect_language(text: str) -> str:
    """A language tag from the dominant script of the letters of ``text`` (used when an item has no
    ``lang``): ``vi`` when a letter only Vietnamese uses is present; ``ja`` for Han mixed with kana;
    ``und`` for other Latin text and for text without letters."""
    if _VIETNAMESE.search(text):
        return "vi"
    counts: Counter[str] = Counter()
    for ch in text:
        if ch.isalpha():
            lang = _letter_language(ch)
            if lang is not None:
                counts[lang] += 1
    if not counts:
        return "und"
    if counts.get("ja") and counts.get("zh"):
        counts["ja"] += counts.pop("zh")
    return counts.most_common(1)[0][0]


@cache(maxsize=256)
def base_lang(tag: str) -> str:
    """Primary language subtag of ``tag``, lower-cased and aliased: ``zh_CN`` -> ``zh``, ``iw`` -> ``he``."""
    primary = tag.replace("-", "_").split("_", 1)[0].lower()
    return _LANG_ALIASES.get(primary, primary)


@cache(maxsize=1024)
def canonical_lang(tag: str) -> str:
    """The one spelling of a language tag, under which lines are grouped and shown: BCP 47's case
    conventions (RFC 5646, 2.1.1) with ``_`` read as ``-`` (a POSIX locale's spelling). The first
    subtag lower case, a two-letter subtag (a region) upper case, a four-letter one (a script) title
    case, every other lower case, and everything after a one-letter subtag (an extension ``u-...``
    or private use ``x-...``) lower case: ``EN`` -> ``en``, ``en_us`` -> ``en-US``, ``zh_hant_tw``
    -> ``zh-Hant-TW``, ``en-ca-X-CA`` -> ``en-CA-x-ca``. Only the spelling: ``en`` and ``en-US``
    stay two tags, and ``iw`` stays ``iw`` (what a judge reads of a tag is :func:`base_lang`'s)."""
    first, *rest = tag.replace("_", "-").lower().split("-")
    out, tail = [first], len(first) == 1  # x-... and i-... tags are lower case throughout
    for sub in rest:
        tail = tail or len(sub) == 1
        if not tail and sub.isascii() and sub.isalpha() and len(sub) in (2, 4):
            sub = sub.upper() if len(sub) == 2 else sub.title()
        out.append(sub)
    return "-".join(out)


def lang_group(tag: str | None) -> str:
    """The group (and the label) of a line's language: its tag's :func:`canonical_lang`, ``und``
    (undetermined) when it names none."""
    return canonical_lang(tag) if tag else "und"
