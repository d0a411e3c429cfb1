"""The compact scorer's inputs: one row of numeric and one-hot columns per edit.

The compact built-in scorer is a small gradient-boosted forest over the rubric judge's features.
It ships inside the package (``semcer/data/compact_forest.npz`` with ``compact.json``), runs on
the CPU with numpy only, and predicts the five-level distribution of one edit. Its inputs are what
the rubric judge computes (:func:`~semcer.judges.rubric.features.feature_tuple`: edit class, unit kinds,
script, lexicon status and Zipf frequency of the word before and after the edit, digits and
numbers, negation, position, how garbled the output is around the edit), the rubric's own rule,
level and severity (stacked), the language, and a few character-level facts of the marked units.
Categorical values are one-hot columns, so the forest needs nothing but numeric ``<=`` splits;
missing values are a sentinel (-1), never NaN.

The forest is trained by ``tools/train_compact.py`` on the train split of ``data/severity/`` only
(LightGBM, soft labels; hyperparameters chosen by cross-validation grouped by reference line) and
compiled to flat arrays (:mod:`semcer.judges.compact.forest`). ``compact.json`` records the feature names,
the training data hash, the settings and the dev figures; :class:`CompactJudge` refuses an artifact
whose feature names differ from :data:`FEATURE_NAMES`.
"""

from __future__ import annotations

import struct
import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from semcer.alignment.context import EditContext
from semcer.caches import cache
from semcer.judges.rubric.classes import EDIT_CLASSES, MARK_CHANGES, UNIT_KINDS
from semcer.judges.rubric.features import EditFeatures, feature_tuple
from semcer.judges.rubric.lexicon import is_negation, line_info, number_span
from semcer.judges.rubric.rules import RULES, damage, expected_severities, rubric_rule

# --------------------------------------------------------------------------------------------
# Vocabularies of the one-hot groups. Fixed here (not learned) so that a column means the same
# thing in training and at inference. Every group ends with a column "?" for any value not listed
# (a language outside the labelled data, a script or a rubric value added later).

UNKNOWN = "?"
#: Languages of the labelled data (primary subtags as ``edit_features`` gives them).
LANGS: tuple[str, ...] = (
    "en", "de", "fr", "es", "vi", "zh", "hi", "ru", "ja", "ar", "th", "ko", "te", "ta", "bn", "mr",
    "el", "he", "kn",
)
SCRIPTS: tuple[str, ...] = (
    "Latin", "Common", "Han", "Devanagari", "Bengali", "Thai", "Kannada", "Telugu", "Tamil", "Arabic",
    "Greek", "Hangul", "Cyrillic", "Katakana", "Hiragana", "Hebrew", "",
)
OPS: tuple[str, ...] = ("S", "D", "I")
WORD_STATUS: tuple[str, ...] = ("same", "non-word", "real-word", "unknown-ref", "no-lexicon", "none")
SHAPES: tuple[str, ...] = ("lower", "title", "upper", "mixed", "numeric", "alnum", "other", "")
POS_IN_WORD: tuple[str, ...] = ("whole", "initial", "medial", "final", "edge", "none")
NEIGHBOUR_KINDS: tuple[str, ...] = UNIT_KINDS + ("start", "end")
NUMBER_PUNCT: tuple[str, ...] = ("", "merged", "split", "decimal")
NEGATION: tuple[str, ...] = ("", "lost", "gained", "partial", "swap")
RULE_IDS: tuple[str, ...] = tuple(r.id for r in RULES)

#: (feature, vocabulary) of each one-hot group, in column order after the numeric columns (each
#: group also has its "?" column, last).
_ONE_HOT: tuple[tuple[str, tuple[str, ...]], ...] = (
    # The edited units: edit class, unit kinds, script.
    ("edit_class", EDIT_CLASSES),
    ("ref_kind", UNIT_KINDS),
    ("hyp_kind", UNIT_KINDS),
    ("script", SCRIPTS),
    # The rest of edit_features, and the rubric's rule.
    ("lang", LANGS),
    ("op", OPS),
    ("word_status", WORD_STATUS),
    ("shape", SHAPES),
    ("hyp_shape", SHAPES),
    ("pos_in_word", POS_IN_WORD),
    ("left_kind", NEIGHBOUR_KINDS),
    ("right_kind", NEIGHBOUR_KINDS),
    ("number_punct", NUMBER_PUNCT),
    ("negation", NEGATION),
    ("rule", RULE_IDS),
    ("mark_change", MARK_CHANGES),
)

#: Numeric values collected per edit (see :func:`feature_columns`), in column order.
_RAW: tuple[str, ...] = (
    # From edit_features, as they are.
    "name_like", "word_len", "in_number", "number_changed", "number_malformed", "number_implausible",
    "line_sim", "local_sim", "rel_pos", "line_len", "equivalent",
    # From edit_features, with -1 where there is no lexicon or no word.
    "ref_zipf", "hyp_zipf", "ref_known", "hyp_known", "has_lexicon", "context_known",
    # The rubric judge's verdict (stacked).
    "rubric_level", "rubric_tilt",
    # Character level: the marked units and the words holding them (see _pair).
    "ref_unit_cps", "ref_unit_marks", "ref_unit_upper", "hyp_unit_cps", "hyp_unit_marks",
    "ref_word_chars", "hyp_word_chars", "ref_word_negation", "word_distance", "word_distance_norm",
    # Numbers: which digit of how long a number.
    "number_len", "digit_from_right",
    # The whole line: how much longer the output is.
    "line_len_diff",
)
#: Numeric columns: the values collected per edit (:data:`_RAW`), then columns derived from them
#: for the whole batch at once (:func:`_derived`).
_NUMERIC: tuple[str, ...] = _RAW + ("zipf_diff", "rubric_severity", "damage", "line_edits")

FEATURE_NAMES: tuple[str, ...] = _NUMERIC + tuple(
    f"{name}={v or '∅'}" for name, vocab in _ONE_HOT for v in (*vocab, UNKNOWN)
)
N_FEATURES = len(FEATURE_NAMES)
MISSING = -1.0  # sentinel for a value that does not exist (no lexicon, no word, no number)

_N_NUM = len(_NUMERIC)
_N_GROUPS = len(_ONE_HOT)
_levenshtein = Levenshtein.distance


class _Codes(dict):
    """Value -> its index in a one-hot group's vocabulary; any value not listed -> the "?" index."""

    def __init__(self, vocab: Sequence[str]) -> None:
        super().__init__((v, i) for i, v in enumerate(vocab))
        self.unknown = len(vocab)

    def __missing__(self, value: str) -> int:
        return self.unknown


_CODES = [_Codes(vocab) for _, vocab in _ONE_HOT]
# A value's index in its group is kept as one byte per edit (see feature_columns).
assert all(len(vocab) < 255 for _, vocab in _ONE_HOT)
GROUP_OF_COLUMN: list[int] = [-1] * _N_NUM  # per column: its group (-1: numeric), for the forest's shortcut
_GROUP_START: list[int] = []  # per group: its first column
for _g, (_, _vocab) in enumerate(_ONE_HOT):
    _GROUP_START.append(len(GROUP_OF_COLUMN))
    GROUP_OF_COLUMN += [_g] * (len(_vocab) + 1)
del _g, _vocab
_GROUP_START_ROW = np.array(_GROUP_START, np.int16)


def _marks(unit: str) -> int:
    if unit.isascii():
        return 0  # no combining mark is ASCII
    return sum(1 for ch in unit if unicodedata.category(ch)[0] == "M")


_pack_pair = struct.Struct(f"={_RAW.index('number_len') - _RAW.index('ref_unit_cps')}d").pack


@cache(maxsize=1 << 16)
def _pair(ref_unit: str, hyp_unit: str, ref_word: str, hyp_word: str, lang: str) -> bytes:
    """Character-level values of the edited units and words, as packed float64.

    One cached lookup per edit for everything that depends on the units and words only: their
    length, combining marks, case, a negation word, and the words' edit distance (more than one
    means the word holds other errors too).
    """
    d = _levenshtein(ref_word, hyp_word)
    return _pack_pair(
        len(ref_unit), _marks(ref_unit), ref_unit.isupper(), len(hyp_unit), _marks(hyp_unit),
        len(ref_word), len(hyp_word), bool(ref_word) and is_negation(ref_word, lang),
        d, d / max(1, len(ref_word), len(hyp_word)),
    )


def _number_position(ctx: EditContext) -> tuple[float, float]:
    """Digits of the reference number at the edit, and how many of them stand right of the edit.

    ``288.000`` -> ``238.000``: 6 digits, 4 to the right (the edit's place value). For an insertion
    the gap's position counts. Missing (-1) when the edit touches no number of the reference.
    """
    line = line_info(ctx.ref)
    gap = ctx.op == "I"
    span = number_span(line, ctx.ref_pos, gap)
    if not span:
        return MISSING, MISSING
    kinds = line.kinds
    start, end = span
    right_from = ctx.ref_pos if gap else ctx.ref_pos + 1
    digits = kinds[start:end].count("digit")
    right = kinds[max(start, right_from):end].count("digit")
    return float(digits), float(right)


_FIELD = {name: i for i, name in enumerate(EditFeatures._fields)}
_ROW = {name: i for i, name in enumerate(_NUMERIC)}
#: The first numeric columns: features as edit_features gives them.
_DIRECT = _RAW[: _RAW.index("ref_zipf")]
_LEXICAL = slice(_ROW["ref_zipf"], _ROW["context_known"] + 1)
_PAIR = slice(_ROW["ref_unit_cps"], _ROW["number_len"])
_NUMBER = slice(_ROW["number_len"], _ROW["digit_from_right"] + 1)
_RULE_LEVEL = {r.id: float(r.level) for r in RULES}
_KNOWN = {None: MISSING, False: 0.0, True: 1.0}
_CONTENT = frozenset({"letter", "mark", "ideograph"})
#: Per edit-class code: a letter, mark or ideograph edit (flagged ``no-lexicon`` without a lexicon).
_CONTENT_CLASS = np.array([c in _CONTENT for c in EDIT_CLASSES] + [False])
_CLASS_GROUP = [name for name, _ in _ONE_HOT].index("edit_class")


def feature_columns(contexts: Sequence[EditContext]) -> tuple[np.ndarray, np.ndarray, tuple[str, ...], np.ndarray]:
    """The numeric columns (n, len(_NUMERIC)), the one-hot column of each group (n, groups), the
    edit classes and the no-lexicon flags of a batch of edits.

    Only the features (:func:`~semcer.judges.rubric.feature_tuple`), the rubric's rule and the
    one-hot indices (:func:`_group_indices`, cached by the combination of values) are computed edit
    by edit; the numeric matrix is then filled a feature at a time, from the column of its values
    over the batch (one conversion per column, not per value). It is built column-major, one row
    per feature: the transpose returned is what the forest reads.
    """
    n = len(contexts)
    if not n:
        return np.zeros((0, _N_NUM)), np.zeros((0, _N_GROUPS), np.int16), (), np.zeros(0, bool)
    features = list(map(feature_tuple, contexts))
    rule_ids, tilts = zip(*map(rubric_rule, features))
    columns = list(zip(*features))

    def column(name: str) -> tuple[Any, ...]:
        return columns[_FIELD[name]]

    out = np.empty((_N_NUM, n))
    out[: len(_DIRECT)] = [column(name) for name in _DIRECT]
    # Lexicon values: -1 where there is no lexicon, or no word.
    has_lex = np.fromiter(map(bool, column("lexicon")), bool, n)
    out[_ROW["ref_zipf"]] = column("ref_zipf")
    out[_ROW["hyp_zipf"]] = column("hyp_zipf")
    out[_ROW["ref_known"]] = list(map(_KNOWN.__getitem__, column("ref_known")))
    out[_ROW["hyp_known"]] = list(map(_KNOWN.__getitem__, column("hyp_known")))
    out[_ROW["context_known"]] = [MISSING if v is None else v for v in column("context_known")]
    np.copyto(out[_LEXICAL], MISSING, where=~has_lex)
    out[_ROW["has_lexicon"]] = has_lex
    out[_ROW["rubric_level"]] = list(map(_RULE_LEVEL.__getitem__, rule_ids))
    out[_ROW["rubric_tilt"]] = tilts
    pairs = map(_pair, column("ref_unit"), column("hyp_unit"), column("ref_word"), column("hyp_word"), column("lang"))
    out[_PAIR] = np.frombuffer(b"".join(pairs), np.float64).reshape(n, -1).T
    out[_NUMBER] = MISSING
    for i in np.flatnonzero(out[_ROW["in_number"]]).tolist():
        out[_NUMBER, i] = _number_position(contexts[i])
    out[_ROW["line_len_diff"]] = [len(c.hyp) - len(c.ref) for c in contexts]
    _derived(out)

    # One-hot groups: the value's index in its vocabulary (a byte), plus the group's first column.
    values = zip(*(rule_ids if name == "rule" else column(name) for name, _ in _ONE_HOT))  # per edit, all groups
    index = np.frombuffer(b"".join(map(_group_indices, values)), np.uint8).reshape(n, _N_GROUPS)
    no_lex = _CONTENT_CLASS[index[:, _CLASS_GROUP]] & ~has_lex
    return out.T, index + _GROUP_START_ROW, column("edit_class"), no_lex


@cache(maxsize=1 << 14)
def _group_indices(values: tuple[str, ...]) -> bytes:
    """The index of each of an edit's one-hot values (one per group of :data:`_ONE_HOT`) in its
    group's vocabulary, one byte each; the same combinations recur across a corpus."""
    return bytes(map(_Codes.__getitem__, _CODES, values))


def _derived(out: np.ndarray) -> None:
    """Fill the numeric rows derived from the others (column-major: one row per feature)."""
    r = _ROW
    ref_z, hyp_z, has_lex = out[r["ref_zipf"]], out[r["hyp_zipf"]], out[r["has_lexicon"]]
    out[r["zipf_diff"]] = np.where(has_lex > 0, hyp_z - ref_z, 0.0)
    out[r["rubric_severity"]] = expected_severities(out[r["rubric_level"]], out[r["rubric_tilt"]])
    line_sim = out[r["line_sim"]]
    out[r["damage"]] = damage(line_sim, out[r["local_sim"]])
    out[r["line_edits"]] = (1.0 - line_sim) * out[r["line_len"]]


def dense_matrix(numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The dense feature matrix (columns :data:`FEATURE_NAMES`) from :func:`feature_columns`' matrices."""
    n = numeric.shape[0]
    X = np.zeros((n, N_FEATURES), np.float64)
    X[:, :_N_NUM] = numeric
    X[np.arange(n)[:, None], codes] = 1.0
    return X


def featurize(contexts: Sequence[EditContext]) -> tuple[np.ndarray, list[str]]:
    """The feature matrix (rows in ``contexts`` order, columns :data:`FEATURE_NAMES`) and edit classes."""
    numeric, codes, classes, _ = feature_columns(contexts)
    return dense_matrix(numeric, codes), list(classes)


