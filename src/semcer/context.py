"""What a judge sees for one edit: the marked pair, the language, both full lines.

One judged item per grapheme edit, as in the paper: the edit is marked with ⟦ ⟧ in both lines
(an empty ⟦⟧ on the side where nothing stands) and every other edit of the line stays as it is.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import regex

from .align import Edit
from .judges.base import MARK_CLOSE, MARK_OPEN, EditContext

# Script -> language used when an item has no `lang`. Latin text other than Vietnamese is "und"
# (undetermined): its language cannot be told from the script, so judges use class rules only.
_SCRIPTS: tuple[tuple[str, str], ...] = (
    ("Han", "zh"), ("Hiragana", "ja"), ("Katakana", "ja"), ("Hangul", "ko"), ("Thai", "th"),
    ("Devanagari", "hi"), ("Bengali", "bn"), ("Tamil", "ta"), ("Telugu", "te"), ("Kannada", "kn"),
    ("Malayalam", "ml"), ("Gujarati", "gu"), ("Gurmukhi", "pa"), ("Arabic", "ar"), ("Hebrew", "he"),
    ("Cyrillic", "ru"), ("Greek", "el"), ("Georgian", "ka"), ("Armenian", "hy"), ("Khmer", "km"),
    ("Lao", "lo"), ("Myanmar", "my"), ("Ethiopic", "am"), ("Sinhala", "si"), ("Latin", "und"),
)
_SCRIPT_RE = {name: regex.compile(rf"\p{{Script={name}}}") for name, _ in _SCRIPTS}
# Letters only Vietnamese uses among Latin-script languages (with their tone-marked forms).
_VIETNAMESE = regex.compile(r"[ơưăđƠƯĂĐ]|[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", regex.I)


def detect_language(text: str) -> str:
    """A language tag from the dominant script of ``text`` (documented fallback when no `lang`)."""
    if _VIETNAMESE.search(text):
        return "vi"
    counts: Counter[str] = Counter()
    for ch in text:
        if ch.isalpha():
            for name, lang in _SCRIPTS:
                if _SCRIPT_RE[name].match(ch):
                    counts["ja" if lang == "zh" and counts["ja"] else lang] += 1
                    break
    if not counts:
        return "und"
    if counts.get("ja") and counts.get("zh"):
        counts["ja"] += counts.pop("zh")
    return counts.most_common(1)[0][0]


def mark(units: Sequence[str], pos: int, present: bool) -> str:
    """The line with unit ``pos`` between ⟦ ⟧, or an empty ⟦⟧ before unit ``pos``."""
    head = "".join(units[:pos])
    if present:
        return f"{head}{MARK_OPEN}{units[pos]}{MARK_CLOSE}{''.join(units[pos + 1:])}"
    return f"{head}{MARK_OPEN}{MARK_CLOSE}{''.join(units[pos:])}"


def edit_contexts(
    edits: Sequence[Edit],
    ref_units: Sequence[str],
    hyp_units: Sequence[str],
    *,
    lang: str | None,
    line_id: str = "",
    doc: str = "",
) -> list[EditContext]:
    """One judge context per edit of a line."""
    ref = "".join(ref_units)
    hyp = "".join(hyp_units)
    lang_source = "item"
    if not lang:
        lang, lang_source = detect_language(ref or hyp), "script"
    return [
        EditContext(
            lang=lang,
            op=e.op,
            ref_unit=e.ref_unit,
            hyp_unit=e.hyp_unit,
            ref_pos=e.ref_pos,
            hyp_pos=e.hyp_pos,
            ref=ref,
            hyp=hyp,
            marked_ref=mark(ref_units, e.ref_pos, e.op != "I"),
            marked_hyp=mark(hyp_units, e.hyp_pos, e.op != "D"),
            line_id=line_id,
            doc=doc,
            lang_source=lang_source,
        )
        for e in edits
    ]
