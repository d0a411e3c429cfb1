"""The LLM judge's prompt: the rubric, the two lines, then the one edit; the answer is one label token.

The template is versioned: ``TEMPLATE_VERSION`` goes into the judge's identity (and so into every
store key), and a test pins a hash of the rendered text, so the wording cannot change without the
version changing. Everything the edits of one line share (the rubric, the language, both lines)
comes before the edit, so a server with prefix caching computes it once per line.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN, EditContext
from semcer.errors import JudgeError
from semcer.judges.distribution import LEVELS
from semcer.text.script import base_lang, name_word

#: Bump whenever the rendered text of any prompt changes.
TEMPLATE_VERSION = "2"  # 2: language tags aliased (iw -> Hebrew); lines are the judge's window

#: Named label sets: one short string per level, each meant to be a single token.
LABEL_SETS: dict[str, tuple[str, ...]] = {
    "digits": ("0", "1", "2", "3", "4"),
    "letters": ("A", "B", "C", "D", "E"),
}
DEFAULT_LABELS = "digits"

#: The rubric's five levels (data/severity/RUBRIC.md), each with a short example.
LEVEL_TEXTS = (
    "Cosmetic, fully recoverable: nothing changes in what a reader understands (a space, case, "
    "quote or dash style, a full-width vs half-width form, a trailing period). "
    'Example: "Paris" -> "PARIS".',
    "Non-word or obvious error, context recovers: the reader notices a typo or garbage and "
    'restores the intended text without effort. Example: "receive" -> "reoeive".',
    "Valid alternative, reader may notice: an acceptable or near-acceptable variant (a spelling "
    "or diacritic variant, a word of nearly the same meaning), or a slip most readers read past "
    'correctly. Example: "colour" -> "color".',
    "Recovery fails, but the error is detectable: the reader sees something is wrong but cannot "
    "tell what was meant (a garbled name or term, a broken number, an unreadable character in a "
    'short or rare word). Example: "Invoice 4471" -> "Invoice 44?1".',
    "Reads perfectly, is false, no signal: the output is fluent and plausible but says something "
    "different (another valid word, another digit in a number, another name, a lost negation). "
    'This is the worst case. Examples: "$1,250" -> "$1,750"; "is not valid" -> "is now valid"; '
    'Vietnamese "Tấm" -> "Tám" (a tone mark turns a name into another name).',
)

_INTRO = (
    "You rate how much one OCR error hurts a reader. You see a reference line (REF), the OCR output "
    "line (OUT) and one edit between them. Judge ONLY that edit, as a reader of OUT (who never sees "
    "REF) would experience it, in the context of OUT as it is; OUT may contain other errors too. "
    "Ask: if a reader read OUT, how much damage does THIS edit do to what they take away? "
    f"The edited unit is shown between {MARK_OPEN} {MARK_CLOSE} inside its word in REF and in OUT; an "
    f"empty {MARK_OPEN}{MARK_CLOSE} marks the place where a side has nothing. Invisible or look-alike "
    "units are also spelled out as Unicode code points."
)

LANGUAGE_NOTE = (
    "Consider the language: a wrong tone mark in Vietnamese or a wrong vowel sign in Hindi often "
    "makes another valid word; a Spanish missing accent is usually recoverable; in Chinese a wrong "
    "character is often another valid character. Digits in amounts, dates, IDs and codes carry no "
    "redundancy. Punctuation usually costs little unless it changes a number (1,250 vs 1.250) or "
    "the meaning. A visible non-word is a mild error; a change that still reads perfectly is the "
    "worst."
)

_LANGUAGES = {
    "ar": "Arabic", "bn": "Bengali", "de": "German", "el": "Greek", "en": "English", "es": "Spanish",
    "fa": "Persian", "fr": "French", "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi", "hy": "Armenian",
    "it": "Italian", "ja": "Japanese", "ka": "Georgian", "km": "Khmer", "kn": "Kannada", "ko": "Korean",
    "lo": "Lao", "ml": "Malayalam", "mr": "Marathi", "my": "Burmese", "nl": "Dutch", "pa": "Punjabi",
    "pl": "Polish", "pt": "Portuguese", "ru": "Russian", "si": "Sinhala", "sv": "Swedish", "ta": "Tamil",
    "te": "Telugu", "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese",
    "zh": "Chinese", "am": "Amharic",
}

#: Characters of a word shown on each side of the edit before the word is cut with "…"
#: (lines without spaces, such as Chinese, would otherwise show the whole line).
_WORD_REACH = 12

#: Unicode categories of units that are invisible or easily mistaken: their code points are listed.
_INVISIBLE = frozenset({"Mn", "Mc", "Me", "Zs", "Zl", "Zp", "Cc", "Cf", "Co", "Cn", "Cs"})

#: ASCII characters that OCR confuses with each other or with look-alikes of other scripts.
_CONFUSABLE_ASCII = frozenset("0Oo1lI|!5Ss2Zz8B6b9gqQ.,:;'`\"-_")


def resolve_labels(labels: str | Sequence[str]) -> tuple[str, ...]:
    """Five distinct, non-empty labels from a set name (``digits``, ``letters``) or a sequence."""
    if isinstance(labels, str):
        if labels in LABEL_SETS:
            return LABEL_SETS[labels]
        parts = tuple(x.strip() for x in labels.split(","))
    else:
        parts = tuple(labels)
    if len(parts) != LEVELS or len(set(parts)) != LEVELS or any(not p or p != p.strip() for p in parts):
        raise JudgeError(
            f"labels {labels!r}: need {LEVELS} distinct non-empty labels without spaces, one per level "
            f"(or a set name: {', '.join(LABEL_SETS)})"
        )
    return parts


@dataclass(frozen=True, slots=True)
class Prompt:
    """A rendered prompt: a system message (the same for every edit) and a user message.

    ``shared`` is the length of the user message's prefix shared by all edits of one line.
    """

    system: str
    user: str
    shared: int = 0

    def messages(self) -> list[dict[str, str]]:
        """Chat-completions messages."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    def plain(self) -> str:
        """A plain-text rendering for causal LMs without a chat template; the label comes next."""
        return f"{self.system}\n\n{self.user}\nAnswer:"


def system_message(labels: Sequence[str]) -> str:
    """The rubric with the labels to answer with (shared by every edit)."""
    levels = "\n".join(f"{label} = level {k}: {text}" for k, (label, text) in enumerate(zip(labels, LEVEL_TEXTS)))
    choices = ", ".join(labels)
    return (
        f"{_INTRO}\n\nLevels (label = level: meaning):\n{levels}\n\n{LANGUAGE_NOTE}\n\n"
        f"Answer with the label of one level only, one of: {choices}. Write nothing before or after it."
    )


def build_prompt(ctx: EditContext, labels: Sequence[str]) -> Prompt:
    """The prompt that asks for the severity level of the edit ``ctx``."""
    shared = line_section(ctx)
    return Prompt(system_message(labels), shared + edit_section(ctx), len(shared))


def language_name(lang: str, source: str = "item") -> str:
    """``vi (Vietnamese)``; ``und`` when the language could not be told from the script."""
    if not lang or lang == "und":
        return "undetermined"
    name = _LANGUAGES.get(base_lang(lang))
    text = f"{lang} ({name})" if name else lang
    return f"{text}, guessed from the script" if source == "script" else text


def line_section(ctx: EditContext) -> str:
    """The part shared by every edit of one line: the language and both full lines."""
    return (
        f"Language: {language_name(ctx.lang, ctx.lang_source)}\n"
        f"REF: {_line(ctx.ref)}\n"
        f"OUT: {_line(ctx.hyp)}\n\n"
    )


def edit_section(ctx: EditContext) -> str:
    """The single edit: what happened, the units inside their words, code points where needed."""
    ref_unit, hyp_unit = _quoted(ctx.ref_unit), _quoted(ctx.hyp_unit)
    if ctx.op == "S":
        what = f"substitution: the REF unit {ref_unit} was read as {hyp_unit}"
    elif ctx.op == "D":
        what = f"deletion: the REF unit {ref_unit} is missing from OUT"
    elif ctx.op == "I":
        what = f"insertion: OUT has the unit {hyp_unit}, which is not in REF"
    else:
        raise JudgeError(f"edit operation {ctx.op!r} is not S, D or I")
    lines = [
        f"Edit: {what}",
        f"In REF: {_word_of(ctx.marked_ref)}",
        f"In OUT: {_word_of(ctx.marked_hyp)}",
    ]
    if needs_code_points(ctx.ref_unit, ctx.hyp_unit):
        for side, unit in (("REF", ctx.ref_unit), ("OUT", ctx.hyp_unit)):
            if unit:
                lines.append(f"{side} unit code points: {code_points(unit)}")
    return "\n".join(lines) + "\n"


def _line(text: str) -> str:
    return text if text else "(empty line)"


def _quoted(unit: str) -> str:
    return f"{MARK_OPEN}{unit}{MARK_CLOSE}"


def code_points(unit: str) -> str:
    """``U+0061 LATIN SMALL LETTER A, U+0301 COMBINING ACUTE ACCENT``."""
    return ", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}" for ch in unit)


def needs_code_points(ref_unit: str, hyp_unit: str) -> bool:
    """Whether a unit is invisible or easily mistaken, so that its code points must be spelled out.

    True for combining marks, spaces, format and control characters (ZWJ, soft hyphen), clusters
    of several code points, units that differ only after NFKC and case folding (full-width forms,
    ligatures) or only in their marks (``ấ``/``á``), units of different scripts (Latin ``o`` vs
    Cyrillic ``о``), and ASCII look-alikes (``0``/``O``, ``1``/``l``).
    """
    units = [u for u in (ref_unit, hyp_unit) if u]
    for unit in units:
        if len(unit) > 1 or any(unicodedata.category(ch) in _INVISIBLE for ch in unit):
            return True
    if len(units) < 2:
        return bool(units) and units[0] in _CONFUSABLE_ASCII
    a, b = units
    if unicodedata.normalize("NFKC", a).casefold() == unicodedata.normalize("NFKC", b).casefold():
        return True
    if _script(a) != _script(b) or _base(a) == _base(b):
        return True
    return a in _CONFUSABLE_ASCII and b in _CONFUSABLE_ASCII


def _base(unit: str) -> str:
    """The unit without its combining marks: ``ấ`` and ``á`` share the base ``a``."""
    return "".join(ch for ch in unicodedata.normalize("NFD", unit) if not unicodedata.combining(ch))


def _script(unit: str) -> str:
    """The first word of the Unicode name of the unit's first code point (LATIN, CYRILLIC, CJK,
    COMMA, ...): two units with different name families are spelled out."""
    return name_word(unit[0])


def _word_of(marked: str) -> str:
    """The word around the marked unit, with the marks, between « »; cut with … after a reach."""
    start = marked.find(MARK_OPEN)
    end = marked.find(MARK_CLOSE, start + 1)
    if start < 0 or end < 0:
        raise JudgeError(f"marked line {marked!r} has no {MARK_OPEN} {MARK_CLOSE} marks")
    left = start
    while left > 0 and not marked[left - 1].isspace() and start - left < _WORD_REACH:
        left -= 1
    right = end + 1
    while right < len(marked) and not marked[right].isspace() and right - end - 1 < _WORD_REACH:
        right += 1
    head = "…" if left > 0 and not marked[left - 1].isspace() else ""
    tail = "…" if right < len(marked) and not marked[right].isspace() else ""
    word = marked[left:right]
    note = _occurrence(marked, left, word)
    return f"«{head}{word}{tail}»{note}"


def _occurrence(marked: str, left: int, word: str) -> str:
    """Which occurrence of the word this is, when the plain word occurs more than once in the line."""
    plain_line = marked.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")
    plain_word = word.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")
    if not plain_word.strip():
        return ""
    positions = []
    at = plain_line.find(plain_word)
    while at >= 0:
        positions.append(at)
        at = plain_line.find(plain_word, at + 1)
    if len(positions) < 2:
        return ""
    index = sum(1 for p in positions if p < left) + 1
    return f" (occurrence {index} of {len(positions)} in the line)"
