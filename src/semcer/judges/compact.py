"""The compact built-in scorer: a small gradient-boosted forest over the rubric judge's features.

It ships inside the package (``semcer/data/compact_forest.npz`` with ``compact.json``), runs on
the CPU with numpy only, and predicts the five-level distribution of one edit. Its inputs are what
the rubric judge computes (:func:`~semcer.judges.rubric.edit_features`: edit class, unit kinds,
script, lexicon status and Zipf frequency of the word before and after the edit, digits and
numbers, negation, position, how garbled the output is around the edit), the rubric's own rule,
level and severity (stacked), the language, and a few character-level facts of the marked units.
Categorical values are one-hot columns, so the forest needs nothing but numeric ``<=`` splits;
missing values are a sentinel (-1), never NaN.

The forest is trained by ``tools/train_compact.py`` on the train split of ``data/severity/`` only
(LightGBM, soft labels; hyperparameters chosen by cross-validation grouped by reference line) and
compiled to flat arrays (:mod:`semcer.judges.forest`). ``compact.json`` records the feature names,
the training data hash, the settings and the dev figures; :class:`CompactJudge` refuses an artifact
whose feature names differ from :data:`FEATURE_NAMES`.
"""

from __future__ import annotations

import hashlib
import json
import struct
import unicodedata
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein

from ..errors import JudgeError
from .base import LEVELS, EditContext, Judgement
from .edit_class import EDIT_CLASSES, UNIT_KINDS
from .forest import Forest
from .lexicon import is_negation, line_info, number_span, wordfreq_version
from .rubric import MODE_MASS, RULES, EditFeatures, feature_tuple, rubric_rule

COMPACT_VERSION = "1.0"
FOREST_FILE = "compact_forest.npz"
META_FILE = "compact.json"

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
)

#: Numeric values collected per edit (see :func:`_columns`), in column order.
_RAW: tuple[str, ...] = (
    # From edit_features, as they are.
    "name_like", "word_len", "in_number", "number_changed", "number_malformed", "number_implausible",
    "line_sim", "local_sim", "rel_pos", "line_len",
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
# A value's index in its group is kept as one byte per edit (see _columns).
assert all(len(vocab) < 255 for _, vocab in _ONE_HOT)
_GROUP_OF_COLUMN: list[int] = [-1] * _N_NUM  # per column: its group (-1: numeric), for the forest's shortcut
_GROUP_START: list[int] = []  # per group: its first column
for _g, (_, _vocab) in enumerate(_ONE_HOT):
    _GROUP_START.append(len(_GROUP_OF_COLUMN))
    _GROUP_OF_COLUMN += [_g] * (len(_vocab) + 1)
del _g, _vocab
_GROUP_START_COLUMN = np.array(_GROUP_START, np.int16)[:, None]


def _marks(unit: str) -> int:
    return sum(1 for ch in unit if unicodedata.category(ch)[0] == "M")


_pack_pair = struct.Struct(f"={_RAW.index('number_len') - _RAW.index('ref_unit_cps')}d").pack


@lru_cache(maxsize=1 << 16)
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
    digits = sum(1 for k in kinds[start:end] if k == "digit")
    right = sum(1 for k in kinds[max(start, right_from):end] if k == "digit")
    return float(digits), float(right)


_FIELD = {name: i for i, name in enumerate(EditFeatures._fields)}
_ROW = {name: i for i, name in enumerate(_NUMERIC)}
#: The first numeric columns: features as edit_features gives them.
_DIRECT = _RAW[: _RAW.index("ref_zipf")]
_LEXICAL = slice(_ROW["ref_zipf"], _ROW["context_known"] + 1)
_PAIR = slice(_ROW["ref_unit_cps"], _ROW["number_len"])
_NUMBER = slice(_ROW["number_len"], _ROW["digit_from_right"] + 1)
_RULE_LEVEL = {r.id: float(r.level) for r in RULES}
_REST = 1.0 - MODE_MASS
_KNOWN = {None: MISSING, False: 0.0, True: 1.0}
_CONTENT = frozenset({"letter", "mark", "ideograph"})
#: Per edit-class code: a letter, mark or ideograph edit (flagged ``no-lexicon`` without a lexicon).
_CONTENT_CLASS = np.array([c in _CONTENT for c in EDIT_CLASSES] + [False])
_CLASS_GROUP = [name for name, _ in _ONE_HOT].index("edit_class")


def _columns(contexts: Sequence[EditContext]) -> tuple[np.ndarray, np.ndarray, tuple[str, ...], np.ndarray]:
    """The numeric columns (n, len(_NUMERIC)), the one-hot column of each group (n, groups), the
    edit classes and the no-lexicon flags of a batch of edits.

    Only the features (:func:`~semcer.judges.rubric.feature_tuple`) and the rubric's rule are
    computed edit by edit; the matrices are then filled a feature at a time, from the column of
    its values over the batch (one conversion per column, not per value). They are built
    column-major, one row per feature: the transposes returned are what the forest reads.
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
    values = [rule_ids if name == "rule" else column(name) for name, _ in _ONE_HOT]
    index = np.frombuffer(b"".join(bytes(map(codes.__getitem__, v)) for codes, v in zip(_CODES, values)), np.uint8)
    index = index.reshape(_N_GROUPS, n)
    no_lex = _CONTENT_CLASS[index[_CLASS_GROUP]] & ~has_lex
    return out.T, (index + _GROUP_START_COLUMN).T, column("edit_class"), no_lex


def _derived(out: np.ndarray) -> None:
    """Fill the numeric rows derived from the others (column-major: one row per feature)."""
    r = _ROW
    ref_z, hyp_z, has_lex = out[r["ref_zipf"]], out[r["hyp_zipf"]], out[r["has_lexicon"]]
    out[r["zipf_diff"]] = np.where(has_lex > 0, hyp_z - ref_z, 0.0)
    # The rubric's expected rating: MODE_MASS on its level, the rest on the neighbours by the tilt.
    level, tilt = out[r["rubric_level"]], out[r["rubric_tilt"]]
    up = np.where(level < 4, _REST * tilt, 0.0)
    down = np.where(level > 0, _REST * (1.0 - tilt), 0.0)
    out[r["rubric_severity"]] = level / 4 + (up - down) / 4
    # The rubric's damage: how garbled the output around the edit is.
    line_sim = out[r["line_sim"]]
    out[r["damage"]] = np.clip((0.95 - (line_sim + out[r["local_sim"]]) / 2) * 3, 0.0, 1.0)
    out[r["line_edits"]] = (1.0 - line_sim) * out[r["line_len"]]


def _matrix(numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The dense feature matrix (columns :data:`FEATURE_NAMES`) from :func:`_columns`' matrices."""
    n = numeric.shape[0]
    X = np.zeros((n, N_FEATURES), np.float64)
    X[:, :_N_NUM] = numeric
    X[np.arange(n)[:, None], codes] = 1.0
    return X


def featurize(contexts: Sequence[EditContext]) -> tuple[np.ndarray, list[str]]:
    """The feature matrix (rows in ``contexts`` order, columns :data:`FEATURE_NAMES`) and edit classes."""
    numeric, codes, classes, _ = _columns(contexts)
    return _matrix(numeric, codes), list(classes)


# --------------------------------------------------------------------------------------------
# Fast inference for shallow forests.


class TableForest:
    """A forest of trees of depth <= 3, evaluated without walking the trees.

    Every distinct split condition (feature, threshold) is tested once for the whole batch; each
    tree's seven heap-ordered node slots are read as a 7-bit code, and a per-tree table of 128
    entries (built once, by walking the tree for every code) gives the leaf value. The result is
    the forest's sum of leaf values exactly (same values, added in the same order); it costs a few
    byte operations per tree and edit instead of a dependent gather per tree level.

    ``one_hot[f] = g`` declares column ``f`` a one-hot column of group ``g`` (-1: numeric), so that
    :meth:`raw_scores_parts` can test its conditions on the group's code, without a dense matrix:
    on a 0/1 column, ``x <= t`` is "not set" for ``0 <= t < 1``, and a constant otherwise.
    """

    SLOTS = 7

    def __init__(self, forest: Forest, one_hot: Sequence[int] | None = None) -> None:
        if forest.depth > 3:
            raise ValueError(f"TableForest needs trees of depth <= 3, got {forest.depth}")
        feature, left, right = forest.feature.tolist(), forest.left.tolist(), forest.right.tolist()
        threshold = forest.threshold.tolist()
        n_trees = forest.roots.size
        keys: set[tuple[int, float]] = set()  # distinct conditions
        heaps = []
        for root in forest.roots.tolist():
            heap = {0: root}  # heap slot -> node; slot s has children 2s+1 (left) and 2s+2 (right)
            for s in range(self.SLOTS):
                k = heap.get(s)
                if k is not None and feature[k] >= 0:
                    heap[2 * s + 1], heap[2 * s + 2] = left[k], right[k]
                    keys.add((feature[k], threshold[k]))
            heaps.append(heap)
        group = (lambda f: -1) if one_hot is None else (lambda f: int(one_hot[f]))  # noqa: E731
        # Rows of the condition matrix: numeric conditions, then "one-hot column not set" ones,
        # then a row of zeros (unused slots, and one-hot conditions that never hold) and a row of
        # ones (one-hot conditions that always hold).
        numeric = sorted(key for key in keys if group(key[0]) < 0)
        hot = sorted(key for key in keys if group(key[0]) >= 0 and 0.0 <= key[1] < 1.0)
        n_cond = len(numeric) + len(hot)
        zero_row, one_row = n_cond, n_cond + 1
        row = {key: u for u, key in enumerate(numeric + hot)}
        for key in keys - row.keys():  # one-hot conditions with a threshold outside [0, 1)
            row[key] = one_row if key[1] >= 1.0 else zero_row
        slots = np.full((self.SLOTS, n_trees), zero_row, np.intp)
        table = np.zeros((n_trees, 1 << self.SLOTS))
        for t, heap in enumerate(heaps):
            for s in range(self.SLOTS):
                k = heap.get(s)
                if k is not None and feature[k] >= 0:
                    slots[s, t] = row[(feature[k], threshold[k])]
            for code in range(1 << self.SLOTS):
                s = 0
                while feature[heap[s]] >= 0:
                    s = 2 * s + 1 if code >> s & 1 else 2 * s + 2
                table[t, code] = forest.value[heap[s]]
        # Dense path: every evaluated condition as (column, threshold).
        self.cond_feature = np.array([f for f, _ in numeric + hot], np.intp)
        self.cond_threshold = np.array([t for _, t in numeric + hot], np.float64)[:, None]
        self.n_numeric = len(numeric)
        # Split path: the one-hot conditions as (group, column); codes are compared as int16
        # when every column number fits.
        self.hot_group = np.array([group(f) for f, _ in hot], np.intp)
        self.code_dtype = np.int16 if one_hot is None or len(one_hot) <= 2**15 else np.intp
        self.hot_column = np.array([f for f, _ in hot], self.code_dtype)[:, None]
        self.slot_rows = slots.ravel()  # the condition row of slot s of tree t, at s * n_trees + t
        self.table = table.ravel()
        self.offset = (np.arange(n_trees, dtype=np.intp) << self.SLOTS)[:, None]  # tree t's code c: t * 128 + c
        self.n_trees, self.n_classes, self.n_conditions = n_trees, forest.n_classes, n_cond

    def raw_scores(self, X: np.ndarray) -> np.ndarray:
        """Summed leaf values per class for a dense feature matrix, shape (n, n_classes)."""
        n = X.shape[0]
        rows, cond = self._conditions(n)
        XT = np.ascontiguousarray(np.asarray(X, np.float64).T)
        np.less_equal(XT[self.cond_feature], self.cond_threshold, out=cond)
        return self._scores(rows, n)

    def raw_scores_parts(self, numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Like :meth:`raw_scores`, from the numeric columns (n, k) and one column per one-hot group (n, g)."""
        n = numeric.shape[0]
        rows, cond = self._conditions(n)
        m = self.n_numeric
        np.less_equal(np.ascontiguousarray(numeric.T)[self.cond_feature[:m]], self.cond_threshold[:m], out=cond[:m])
        if self.n_conditions > m:
            codes_t = np.ascontiguousarray(codes.T, self.code_dtype)
            np.not_equal(codes_t[self.hot_group], self.hot_column, out=cond[m:])
        return self._scores(rows, n)

    def _conditions(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The condition matrix (n_conditions + 2, n) as 0/1 bytes, its last two rows filled (0 and
        1), and a bool view of the rows still to fill."""
        rows = np.empty((self.n_conditions + 2, n), np.uint8)
        rows[-2] = 0
        rows[-1] = 1
        return rows, rows[:-2].view(bool)

    def _scores(self, rows: np.ndarray, n: int) -> np.ndarray:
        bits = np.take(rows, self.slot_rows, axis=0).reshape(self.SLOTS, self.n_trees, n)
        np.multiply(bits, self._bit_values, out=bits)  # slot s -> bit s (a multiply is faster than a shift)
        index = np.bitwise_or.reduce(bits, axis=0).astype(np.intp)  # (n_trees, n): each tree's code
        index += self.offset
        leaf = np.take(self.table, index)
        return leaf.reshape(-1, self.n_classes, n).sum(axis=0).T  # tree t adds to class t % n_classes

    _bit_values = (np.uint8(1) << np.arange(SLOTS, dtype=np.uint8))[:, None, None]


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax (in place on ``z``)."""
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


# --------------------------------------------------------------------------------------------
# The shipped artifact and the judge.


class CompactModel:
    """The forest and its record (``compact.json``), read from ``directory`` (the package's data by default)."""

    def __init__(self, forest_bytes: bytes, meta: dict[str, Any], source: str) -> None:
        import io

        names = tuple(meta.get("feature_names", ()))
        if names != FEATURE_NAMES:
            raise JudgeError(
                f"the compact model in {source} was trained on other features than this semcer computes "
                f"({len(names)} vs {N_FEATURES}); rebuild it with `python tools/train_compact.py`"
            )
        self.sha256 = hashlib.sha256(forest_bytes).hexdigest()
        with np.load(io.BytesIO(forest_bytes)) as z:
            n_classes, depth = (int(x) for x in z["meta"])
            self.forest = Forest(z["feature"], z["threshold"], z["left"], z["right"], z["value"], z["roots"], n_classes, depth)
        if self.forest.n_classes != LEVELS:
            raise JudgeError(f"the compact model in {source} predicts {self.forest.n_classes} levels, not {LEVELS}")
        self.meta = meta
        self.size = len(forest_bytes)
        self._fast = TableForest(self.forest, _GROUP_OF_COLUMN) if depth <= 3 else None

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Five-level distributions from a dense feature matrix, shape (n, 5)."""
        X = np.asarray(X, np.float64)
        return self._chunked(len(X), lambda a, b: self._scores_dense(X[a:b]))

    def predict_columns(self, numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Five-level distributions from the numeric columns and one-hot group columns that
        :func:`_columns` gives (no dense one-hot matrix)."""
        return self._chunked(len(numeric), lambda a, b: self._scores_columns(numeric[a:b], codes[a:b]))

    def _scores_dense(self, X: np.ndarray) -> np.ndarray:
        return self.forest.raw_scores(X) if self._fast is None else self._fast.raw_scores(X)

    def _scores_columns(self, numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
        if self._fast is None:
            return self.forest.raw_scores(_matrix(numeric, codes))
        return self._fast.raw_scores_parts(numeric, codes)

    @staticmethod
    def _chunked(n: int, scores: Any) -> np.ndarray:
        """Softmax of raw scores computed ``CHUNK`` edits at a time: the forest's temporaries (a few
        hundred bytes per tree and edit) stay small and in cache, however large the batch."""
        out = np.empty((n, LEVELS))
        for a in range(0, n, CHUNK):
            out[a : a + CHUNK] = softmax(scores(a, min(n, a + CHUNK)))
        return out


#: Edits per forest call, and per pass of feature extraction inside one judge() batch.
CHUNK = 256


@lru_cache(maxsize=4)
def load_model(directory: str | None = None) -> CompactModel:
    """The compact model from ``directory`` (``compact_forest.npz`` + ``compact.json``), default: shipped."""
    try:
        if directory is None:
            base = resources.files("semcer") / "data"
            forest_bytes = (base / FOREST_FILE).read_bytes()
            meta_text = (base / META_FILE).read_text(encoding="utf-8")
            source = "the semcer package"
        else:
            forest_bytes = (Path(directory) / FOREST_FILE).read_bytes()
            meta_text = (Path(directory) / META_FILE).read_text(encoding="utf-8")
            source = directory
    except OSError as e:
        raise JudgeError(
            f"cannot read the compact model ({e.filename or FOREST_FILE}): {e.strerror or e}; "
            "reinstall semcer or rebuild it with `python tools/train_compact.py`"
        ) from e
    return CompactModel(forest_bytes, json.loads(meta_text), source)


_FLAGS_BY_NO_LEXICON: tuple[tuple[str, ...], tuple[str, ...]] = ((), ("no-lexicon",))


class CompactJudge:
    """The compact built-in scorer: a small forest over the rubric's features, numpy only.

    ``identity`` is ``compact-<version>+<first 10 hex of the forest file's sha256>+wordfreq-<version>``.
    ``judge()`` computes the features of up to ``CHUNK`` edits (the rubric's cached line and word
    lookups), then runs the forest once for them, until the batch is done. Flags: ``no-lexicon`` marks a letter, mark or ideograph
    edit in a language wordfreq has no list for.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.model = load_model(None if directory is None else str(directory))

    @property
    def identity(self) -> str:
        return f"compact-{COMPACT_VERSION}+{self.model.sha256[:10]}+wordfreq-{wordfreq_version()}"

    def predict_proba(self, contexts: Sequence[EditContext]) -> np.ndarray:
        """Five-level distributions of a batch of edits, shape (n, 5)."""
        out = np.empty((len(contexts), LEVELS))
        for a in range(0, len(contexts), CHUNK):
            numeric, codes, _, _ = _columns(contexts[a : a + CHUNK])
            out[a : a + CHUNK] = self.model.predict_columns(numeric, codes)
        return out

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        """Judge a batch of edits: features and the forest's vectorised pass ``CHUNK`` edits at a
        time, so that a large batch keeps no more than that many edits' features alive."""
        judgements: list[Judgement] = []
        for a in range(0, len(contexts), CHUNK):
            numeric, codes, classes, no_lex = _columns(contexts[a : a + CHUNK])
            P = self.model.predict_columns(numeric, codes)
            distributions = zip(*P.T.tolist())  # one tuple of five floats per edit
            flags = map(_FLAGS_BY_NO_LEXICON.__getitem__, no_lex.tolist())
            judgements += map(Judgement, distributions, classes, flags)
        return judgements
