"""The rubric's rule table: an edit's features -> the first matching rule, which fixes the level.

Keep in step with ``docs/rubric.md`` (one row per rule). :func:`rubric_rule` also gives a tilt in
[0, 1] toward the next level up, and :func:`level_distribution` turns (level, tilt) into the
five-level distribution the rubric judge returns.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from semcer.caches import cache
from semcer.judges.distribution import LEVELS
from semcer.judges.rubric.features import CJK_CHAR_WORD_ZIPF, KNOWN_CJK_ZIPF, KNOWN_ZIPF, EditFeatures


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the rule table: the level it assigns, its order inside the level, its meaning.

    ``base`` is where the rule's edits start inside the level (0 = low end, 1 = high end); the
    damage around the edit and, for real-word errors, the plausibility of the new word move them
    up from there (see :func:`rubric_rule`).
    """

    id: str
    level: int
    base: float
    meaning: str
    example: str


RULES: tuple[Rule, ...] = (
    # In the order they are tried (see _rule_id); the first that matches decides the level.
    # Negation: losing one says the opposite, fluently.
    Rule("negation", 4, 0.5, "a negation word lost or gained", "not found -> found"),
    Rule("negation-swap", 2, 0.5, "a negation word becomes another real word, or the reverse", "没有 -> 设有, nicht -> dicht"),
    Rule("negation-partial", 1, 0.9, "half of a two-part negation lost, the other half still there", "n'est pas en -> n'est en"),
    # Cosmetic.
    Rule("invisible", 0, 0.0, "only an invisible character differs (zero-width joiner, non-joiner, space)", "ఫ్ -> ఫ్ + ZWNJ"),
    Rule("compat", 0, 0.0, "Unicode compatibility variant (NFKC-equal)", "： -> :"),
    Rule("compat-split", 0, 0.0, "part of a stretch that reads the same after NFKC, split differently into units",
         "กำ -> กํ + า"),
    Rule("homoglyph", 0, 0.0, "a letter of another script that prints the same", "Greek ο -> Latin o"),
    Rule("case-symbol", 1, 0.5, "case of a one-letter token (option, unit, variable), where case is meaning", "-l -> -L"),
    Rule("case", 0, 0.0, "case only", "o si -> O si"),
    # Punctuation and spaces.
    Rule("number-space", 2, 0.5, "a space that splits or joins a number", "1500 -> 1 500"),
    Rule("number-punct", 4, 0.5, "punctuation lost or added inside a number, merging or splitting it", "3.1 -> 31"),
    Rule("decimal-punct", 3, 0.5, "decimal and grouping separator swapped inside a number", "1,250 -> 1.250"),
    Rule("punct-prefix", 1, 0.5, "a symbol leading a word (option, sign, format code) lost or changed", "-f -> f, %z -> ~z"),
    Rule("whitespace", 0, 0.05, "space inserted, deleted or changed", "12 号 -> 12号"),
    Rule("punct", 0, 0.1, "punctuation or symbol, no number involved", "'deb-src' -> ‘deb-src'"),
    # Digits: no redundancy.
    Rule("digit-letter-code", 2, 0.5, "digit read as a letter or back, inside a code or acronym", "KRB5 -> KRBS"),
    Rule("digit-letter", 1, 0.5, "digit read as a letter or back in a word or number: visibly wrong", "110-2 -> 11O-2"),
    Rule("digit-broken", 3, 0.5, "a digit replaced by punctuation or a space, or the reverse", "0.5 -> 0 5"),
    Rule("number-same", 1, 0.5, "a digit edit that leaves the number's value unchanged", "6.0 -> 6.00"),
    Rule("number-implausible", 3, 0.5, "a number changed into an impossible year, date or time", "2024 -> 2824"),
    Rule("number-changed", 4, 0.5, "a number changed into another plausible number", "288.000 đ -> 238.000 đ"),
    # Letters, marks, ideographs.
    Rule("mark-optional", 0, 0.6, "only an Arabic or Hebrew vowel point (usually unwritten) added or dropped", "مشوّهة -> مشوهة"),
    Rule("garbled", 3, 0.0, "letter, mark or character edit in a garbled stretch of output", "प्रका⟦र⟧ -> उका⟦प⟧"),
    Rule("ideograph-word", 1, 0.4, "a character that forms another attested word", "大于 -> 小于"),
    Rule("ideograph", 1, 0.1, "a character that forms no attested word", "文件 -> 又件"),
    Rule("name-to-word", 2, 0.5, "a name (capitalised, not sentence-initial) becomes another known word", "cô Tấm -> cô Tám"),
    Rule("mark-real-word", 1, 0.2, "a changed mark that gives another real word", "đấng -> đáng"),
    Rule("real-word", 1, 0.4, "a word becomes another real word (context usually recovers it)", "werden -> werten"),
    Rule("rare-word", 1, 0.3, "an edit in a word the lexicon does not know (term, rare word)", "Koprivnica -> Koprivniea"),
    Rule("no-lexicon", 1, 0.1, "letter or mark edit in a language without a lexicon", "สาม⟦า⟧รถ -> สาม⟦ร⟧รถ"),
    Rule("non-word", 1, 0.0, "a word becomes a non-word", "Zeile -> Zeie"),
    Rule("other", 1, 0.5, "anything else", "a control or format character"),
)
RULES_BY_ID = {r.id: r for r in RULES}
_BASE = {r.id: r.base for r in RULES}
LEVEL = {r.id: r.level for r in RULES}

#: Local similarity (window of 11 units around the edit) below which the stretch is garbled.
GARBLED_LOCAL_SIM = 0.6
#: How much the damage around an edit moves it up inside its level.
DAMAGE_WEIGHT = 0.5
#: How fast a real-word error moves up as the new word gets as frequent as the old one: a rare
#: word replaced by a common one reads naturally, a common one replaced by a rare one stands out.
PLAUSIBILITY_SLOPE = 0.15
#: Mass the distribution keeps on the rule's level; the rest goes to the neighbouring levels.
MODE_MASS = 0.8

CONTENT = frozenset({"letter", "mark", "ideograph"})
_WORD_KINDS = frozenset({"letter", "digit", "ideograph", "mark"})
#: Symbols that carry syntax when they lead a word: options (-f), signs (+34), format codes (%z).
_PREFIX_SYMBOLS = frozenset("-+%$#@~/\\.&*=<>^|_")
_BREAKS = frozenset({"punct", "space", "symbol"})
_REAL_WORD_RULES = frozenset({"real-word", "mark-real-word", "ideograph-word", "name-to-word"})


def _clip(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def damage(line_sim: Any, local_sim: Any) -> Any:
    """How garbled the output around an edit is, from the similarity of the whole line and of the 11
    units around the edit: 0 when intact, 1 when mostly wrong. Floats or numpy arrays (elementwise)."""
    x = (0.95 - (line_sim + local_sim) / 2) * 3
    return np.clip(x, 0.0, 1.0) if isinstance(x, np.ndarray) else _clip(x)


def _rule_id(f: EditFeatures) -> str:
    """The first rule of the table (in the order of docs/rubric.md) that matches the features."""
    cls = f.edit_class
    neg = f.negation
    if neg:
        return {"lost": "negation", "gained": "negation", "swap": "negation-swap"}.get(neg, "negation-partial")
    if cls == "case" and f.pos_in_word == "whole":
        return "case-symbol"
    if cls in ("invisible", "compat", "homoglyph", "case"):
        return cls
    if f.equivalent:
        return "compat-split"
    if cls in ("whitespace", "punct"):
        np_ = f.number_punct
        if np_ in ("merged", "split"):
            return "number-space" if cls == "whitespace" else "number-punct"
        if np_ == "decimal":
            return "decimal-punct"
        if (
            f.op != "I"
            and f.ref_unit in _PREFIX_SYMBOLS
            and f.left_kind in ("space", "start")
            and f.right_kind in _WORD_KINDS
        ):
            return "punct-prefix"
        return cls
    if cls == "digit":
        if f.number_malformed:
            return "digit-letter-code" if f.shape in ("upper", "alnum") else "digit-letter"
        if f.ref_kind in _BREAKS or f.hyp_kind in _BREAKS:
            return "digit-broken"
        if f.in_number and not f.number_changed:
            return "number-same"
        return "number-implausible" if f.number_implausible else "number-changed"
    if cls in CONTENT:
        if cls == "mark" and f.mark_change == "optional":
            return "mark-optional"
        if f.local_sim < GARBLED_LOCAL_SIM:
            return "garbled"
        status = f.word_status
        if cls == "ideograph":
            return "ideograph-word" if status == "real-word" else "ideograph"
        if status == "real-word":
            if f.name_like and f.hyp_shape == f.shape:
                return "name-to-word"
            return "mark-real-word" if cls == "mark" else "real-word"
        if status == "unknown-ref":
            return "rare-word"
        if status == "no-lexicon":
            return "no-lexicon"
        return "non-word"
    return "other"


def rubric_rule(f: EditFeatures | Mapping[str, Any]) -> tuple[str, float]:
    """The rule for an edit's features and its tilt in [0, 1] toward the next level up.

    ``f`` is an :class:`EditFeatures` or the dict :func:`edit_features` gives. The tilt orders
    edits inside one level only: the rule's base, plus the damage around the edit (a garbled
    neighbourhood makes recovery harder), plus for real-word errors the plausibility of the new
    word. The level itself is always the rule's.
    """
    if not isinstance(f, EditFeatures):
        f = EditFeatures(*(f[k] for k in EditFeatures._fields))
    rule_id = _rule_id(f)
    tilt = _BASE[rule_id]
    if rule_id in _REAL_WORD_RULES:
        dz = f.hyp_zipf - f.ref_zipf
        tilt += (1.0 - tilt) * _clip(0.5 + PLAUSIBILITY_SLOPE * (dz + 1.5))
    elif f.edit_class in CONTENT or rule_id in ("punct", "digit-letter"):
        x = (0.95 - (f.line_sim + f.local_sim) / 2) * 3  # damage(), for two floats
        tilt += DAMAGE_WEIGHT * (0.0 if x < 0.0 else 1.0 if x > 1.0 else x)
    if rule_id == "punct" and f.op == "D":
        tilt += 0.2  # a lost mark of punctuation is missed more often than an extra one
    return rule_id, _clip(tilt)


def level_distribution(level: int, tilt: float, mode_mass: float = MODE_MASS) -> tuple[float, ...]:
    """A distribution with ``mode_mass`` on ``level`` and the rest on its neighbours by ``tilt``.

    At the ends of the scale the share that has no neighbour stays on ``level``.
    """
    rest = 1.0 - mode_mass
    up = rest * tilt if level < LEVELS - 1 else 0.0
    down = rest - rest * tilt if level > 0 else 0.0
    p = [0.0, 0.0, 0.0, 0.0, 0.0]
    p[level] = 1.0 - up - down
    if up:
        p[level + 1] = up
    if down:
        p[level - 1] = down
    return tuple(p)


def expected_severities(levels: np.ndarray, tilts: np.ndarray, mode_mass: float = MODE_MASS) -> np.ndarray:
    """The expected rating of :func:`level_distribution` for arrays of levels and tilts at once
    (``level/4`` moved by the share sent up minus the share sent down, a quarter each); equal to
    ``expected_rating(level_distribution(level, tilt))`` up to float rounding (tested)."""
    rest = 1.0 - mode_mass
    up = np.where(levels < LEVELS - 1, rest * tilts, 0.0)
    down = np.where(levels > 0, rest * (1.0 - tilts), 0.0)
    return levels / 4 + (up - down) / 4


@cache(maxsize=1)
def table_hash() -> str:
    """Hash of everything that decides the output besides the code: rules, thresholds, word lists
    (the extra lexicons installed among them: :func:`~semcer.judges.rubric.extra_lexicons.version`)."""
    from semcer.judges.rubric import classes as _ec
    from semcer.judges.rubric import extra_lexicons
    from semcer.judges.rubric import lexicon as _lx

    text = repr(
        (
            RULES,
            KNOWN_ZIPF,
            KNOWN_CJK_ZIPF,
            CJK_CHAR_WORD_ZIPF,
            GARBLED_LOCAL_SIM,
            DAMAGE_WEIGHT,
            PLAUSIBILITY_SLOPE,
            MODE_MASS,
            sorted((k, sorted(v)) for k, v in _lx.NEGATIONS.items()),
            sorted(_lx.NEGATION_INFIXES.items()),
            sorted(_ec._HOMOGLYPHS.items()),
            sorted(_ec._INVISIBLE),
            _ec.MARK_CHANGES,
            sorted(_ec._OPTIONAL_MARKS | _ec._NASAL_MARKS | _ec._VIRAMAS | _ec._NUKTAS | _ec._TONE_MARKS),
            extra_lexicons.DICTIONARY_ZIPF,
            extra_lexicons.version(),
        )
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


