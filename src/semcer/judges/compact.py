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
import unicodedata
from functools import lru_cache
from importlib import resources
from operator import itemgetter
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein

from ..errors import JudgeError
from .base import LEVELS, EditContext, Judgement
from .edit_class import EDIT_CLASSES, UNIT_KINDS, edit_class, unit_kind, unit_script
from .forest import Forest
from .lexicon import is_negation, line_info, number_span, wordfreq_version
from .rubric import MODE_MASS, RULES, edit_features, rubric_rule

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
    # Functions of the edited units alone (cached with them, see _pair).
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

#: Numeric values collected per edit (see :func:`_row`), in column order.
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
#: for the whole batch at once (:func:`_numeric`).
_NUMERIC: tuple[str, ...] = _RAW + ("zipf_diff", "rubric_severity", "damage", "line_edits")

FEATURE_NAMES: tuple[str, ...] = _NUMERIC + tuple(
    f"{name}={v or '∅'}" for name, vocab in _ONE_HOT for v in (*vocab, UNKNOWN)
)
N_FEATURES = len(FEATURE_NAMES)
MISSING = -1.0  # sentinel for a value that does not exist (no lexicon, no word, no number)

_N_RAW = len(_RAW)
_N_NUM = len(_NUMERIC)
_levenshtein = Levenshtein.distance
_CODES: list[dict[str, int]] = []  # per group: value -> column
_LAST: list[int] = []  # per group: its "?" column
_GROUP_OF_COLUMN: list[int] = [-1] * _N_NUM  # per column: its group (-1: numeric), for the forest's shortcut
for _g, (_, _vocab) in enumerate(_ONE_HOT):
    _CODES.append({v: len(_GROUP_OF_COLUMN) + i for i, v in enumerate(_vocab)})
    _LAST.append(len(_GROUP_OF_COLUMN) + len(_vocab))
    _GROUP_OF_COLUMN += [_g] * (len(_vocab) + 1)
del _g, _vocab


def _marks(unit: str) -> int:
    return sum(1 for ch in unit if unicodedata.category(ch)[0] == "M")


@lru_cache(maxsize=1 << 16)
def _pair(ref_unit: str, hyp_unit: str, ref_word: str, hyp_word: str, lang: str) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """Character-level values of the edited units and words, and the one-hot columns of the units.

    One cached lookup per edit for everything that depends on the units and words only: their
    length, combining marks, case, a negation word, and the words' edit distance (more than one
    means the word holds other errors too). The unit columns (class, kinds, script) are the same
    functions of the units that ``edit_features`` applies.
    """
    d = _levenshtein(ref_word, hyp_word)
    nums = (
        len(ref_unit), _marks(ref_unit), ref_unit.isupper(), len(hyp_unit), _marks(hyp_unit),
        len(ref_word), len(hyp_word), bool(ref_word) and is_negation(ref_word, lang),
        d, d / max(1, len(ref_word), len(hyp_word)),
    )
    values = (edit_class(ref_unit, hyp_unit), unit_kind(ref_unit), unit_kind(hyp_unit), unit_script(ref_unit or hyp_unit))
    cols = tuple(codes.get(v, last) for codes, last, v in zip(_CODES[:4], _LAST[:4], values))
    return nums, cols


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


@lru_cache(maxsize=1 << 16)
def _one_hot_columns(values: tuple[str, ...]) -> tuple[int, ...]:
    """Columns of the groups after the unit groups (the group's "?" column for an unlisted value)."""
    return tuple(codes.get(v, last) for codes, last, v in zip(_CODES[4:], _LAST[4:], values))


_direct = itemgetter(*_RAW[:10])
_categorical = itemgetter(
    "lang", "op", "word_status", "shape", "hyp_shape", "pos_in_word", "left_kind", "right_kind", "number_punct", "negation",
)
_RULE_LEVEL = {r.id: r.level for r in RULES}
_REST = 1.0 - MODE_MASS
_NO_NUMBER = (MISSING, MISSING)
_NO_LEXICON = (MISSING, MISSING, MISSING, MISSING, False, MISSING)
_CONTENT = frozenset({"letter", "mark", "ideograph"})


def _row(ctx: EditContext) -> tuple[list[Any], tuple[int, ...], str, bool]:
    """Raw numeric values (:data:`_RAW`), one-hot columns, edit class and no-lexicon flag of one edit.

    Written for speed (it runs once per judged edit): values are fetched in groups, the unit- and
    word-level ones from one cache, booleans stay booleans (numpy reads them as 0/1), and the
    arithmetic on them is left to :func:`_numeric`, once per batch.
    """
    f = edit_features(ctx)
    rule_id, tilt = rubric_rule(f)
    cls = f["edit_class"]
    if f["lexicon"]:
        ck = f["context_known"]
        lexical = (f["ref_zipf"], f["hyp_zipf"], _KNOWN[f["ref_known"]], _KNOWN[f["hyp_known"]], True,
                   MISSING if ck is None else ck)
        no_lex = False
    else:
        lexical, no_lex = _NO_LEXICON, cls in _CONTENT
    pair_nums, pair_cols = _pair(ctx.ref_unit, ctx.hyp_unit, f["ref_word"], f["hyp_word"], f["lang"])
    nums = [
        *_direct(f), *lexical, _RULE_LEVEL[rule_id], tilt, *pair_nums,
        *(_number_position(ctx) if f["in_number"] else _NO_NUMBER), len(ctx.hyp) - len(ctx.ref),
    ]
    return nums, pair_cols + _one_hot_columns(_categorical(f) + (rule_id,)), cls, no_lex


_KNOWN = {None: MISSING, False: 0.0, True: 1.0}
_COL = {name: i for i, name in enumerate(_NUMERIC)}


def _numeric(raw: np.ndarray) -> np.ndarray:
    """The numeric columns (:data:`_NUMERIC`) of a batch from its raw values, shape (n, len(_NUMERIC))."""
    n = raw.shape[0]
    out = np.empty((n, _N_NUM), np.float64)
    out[:, :_N_RAW] = raw
    c = _COL
    ref_z, hyp_z, has_lex = raw[:, c["ref_zipf"]], raw[:, c["hyp_zipf"]], raw[:, c["has_lexicon"]]
    out[:, c["zipf_diff"]] = np.where(has_lex > 0, hyp_z - ref_z, 0.0)
    # The rubric's expected rating: MODE_MASS on its level, the rest on the neighbours by the tilt.
    level, tilt = raw[:, c["rubric_level"]], raw[:, c["rubric_tilt"]]
    up = np.where(level < 4, _REST * tilt, 0.0)
    down = np.where(level > 0, _REST * (1.0 - tilt), 0.0)
    out[:, c["rubric_severity"]] = level / 4 + (up - down) / 4
    # The rubric's damage: how garbled the output around the edit is.
    line_sim = raw[:, c["line_sim"]]
    out[:, c["damage"]] = np.clip((0.95 - (line_sim + raw[:, c["local_sim"]]) / 2) * 3, 0.0, 1.0)
    out[:, c["line_edits"]] = (1.0 - line_sim) * raw[:, c["line_len"]]
    return out


def _raw(rows: list[tuple[list[Any], tuple[int, ...], str, bool]]) -> tuple[np.ndarray, np.ndarray]:
    """Numeric columns and one-hot codes (one column per group) of a batch of :func:`_row` results."""
    if not rows:
        return np.zeros((0, _N_NUM)), np.zeros((0, len(_ONE_HOT)), np.intp)
    return _numeric(np.array([r[0] for r in rows], np.float64)), np.array([r[1] for r in rows], np.intp)


def _matrix(rows: list[tuple[list[Any], tuple[int, ...], str, bool]]) -> np.ndarray:
    """The dense feature matrix (columns :data:`FEATURE_NAMES`) of a batch of :func:`_row` results."""
    numeric, codes = _raw(rows)
    n = len(rows)
    X = np.zeros((n, N_FEATURES), np.float64)
    X[:, :_N_NUM] = numeric
    X[np.arange(n)[:, None], codes] = 1.0
    return X


def featurize(contexts: Sequence[EditContext]) -> tuple[np.ndarray, list[str]]:
    """The feature matrix (rows in ``contexts`` order, columns :data:`FEATURE_NAMES`) and edit classes."""
    rows = [_row(c) for c in contexts]
    return _matrix(rows), [r[2] for r in rows]


# --------------------------------------------------------------------------------------------
# Fast inference for shallow forests.


class TableForest:
    """A forest of trees of depth <= 3, evaluated without walking the trees.

    Every distinct split condition (feature, threshold) is tested once for the whole batch; each
    tree's seven heap-ordered node slots are read as a 7-bit code, and a per-tree table of 128
    entries (built once, by walking the tree for every code) gives the leaf value. The result is
    the forest's sum of leaf values exactly; it costs a few byte operations per tree and edit
    instead of a dependent gather per tree level.

    ``one_hot[f] = g`` declares column ``f`` a one-hot column of group ``g`` (-1: numeric), so that
    :meth:`raw_scores_parts` can test its conditions on the group's code, without a dense matrix.
    """

    SLOTS = 7

    def __init__(self, forest: Forest, one_hot: Sequence[int] | None = None) -> None:
        if forest.depth > 3:
            raise ValueError(f"TableForest needs trees of depth <= 3, got {forest.depth}")
        feature, left, right = forest.feature.tolist(), forest.left.tolist(), forest.right.tolist()
        threshold = forest.threshold.tolist()
        n_trees = forest.roots.size
        keys: dict[tuple[int, float], tuple[int, int]] = {}  # condition -> (tree, slot) of first use
        heaps = []
        for t, root in enumerate(forest.roots.tolist()):
            heap = {0: root}  # heap slot -> node; slot s has children 2s+1 (left) and 2s+2 (right)
            for s in range(self.SLOTS):
                k = heap.get(s)
                if k is not None and feature[k] >= 0:
                    heap[2 * s + 1], heap[2 * s + 2] = left[k], right[k]
                    keys.setdefault((feature[k], threshold[k]), (t, s))
            heaps.append(heap)
        group = (lambda f: -1) if one_hot is None else (lambda f: int(one_hot[f]))  # noqa: E731
        # Numeric conditions first, then one-hot ones (the split path fills them separately).
        conditions = sorted(keys, key=lambda key: (group(key[0]) >= 0, key))
        index = {key: u for u, key in enumerate(conditions)}
        n_cond = len(conditions)
        slots = np.full((self.SLOTS, n_trees), n_cond, np.intp)  # row n_cond is all zeros
        table = np.zeros((n_trees, 1 << self.SLOTS))
        for t, heap in enumerate(heaps):
            for s in range(self.SLOTS):
                k = heap.get(s)
                if k is not None and feature[k] >= 0:
                    slots[s, t] = index[(feature[k], threshold[k])]
            for code in range(1 << self.SLOTS):
                s = 0
                while feature[heap[s]] >= 0:
                    s = 2 * s + 1 if code >> s & 1 else 2 * s + 2
                table[t, code] = forest.value[heap[s]]
        self.cond_feature = np.array([f for f, _ in conditions], np.intp)
        self.cond_threshold = np.array([t for _, t in conditions], np.float64)[:, None]
        n_num = sum(1 for f, _ in conditions if group(f) < 0)
        hot = conditions[n_num:]
        self.n_numeric = n_num
        self.hot_group = np.array([group(f) for f, _ in hot], np.intp)
        self.hot_column = np.array([f for f, _ in hot], np.intp)[:, None]
        self.hot_if_set = np.array([1.0 <= t for _, t in hot], bool)[:, None]
        self.hot_if_unset = np.array([0.0 <= t for _, t in hot], bool)[:, None]
        # Row j * (n_cond + 1) + u of the stacked condition matrix holds condition u shifted by j.
        self.gather = (slots + (np.arange(self.SLOTS) * (n_cond + 1))[:, None]).ravel()
        self.table = table.ravel()
        self.offset = (np.arange(n_trees, dtype=np.intp) << self.SLOTS)[:, None]
        self.n_trees, self.n_classes, self.n_conditions = n_trees, forest.n_classes, n_cond

    def raw_scores(self, X: np.ndarray) -> np.ndarray:
        """Summed leaf values per class for a dense feature matrix, shape (n, n_classes)."""
        n = X.shape[0]
        stacked, first = self._conditions(n)
        XT = np.ascontiguousarray(np.asarray(X, np.float64).T)
        np.less_equal(XT[self.cond_feature], self.cond_threshold, out=first[:-1])
        return self._scores(stacked, n)

    def raw_scores_parts(self, numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Like :meth:`raw_scores`, from the numeric columns (n, k) and one column per one-hot group (n, g)."""
        n = numeric.shape[0]
        stacked, first = self._conditions(n)
        m = self.n_numeric
        np.less_equal(np.ascontiguousarray(numeric.T)[self.cond_feature[:m]], self.cond_threshold[:m], out=first[:m])
        if self.n_conditions > m:
            is_set = np.ascontiguousarray(codes.T)[self.hot_group] == self.hot_column
            np.copyto(first[m:-1], np.where(is_set, self.hot_if_set, self.hot_if_unset))
        return self._scores(stacked, n)

    def _conditions(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The stacked condition matrix (uninitialised but for the all-zero row) and its first layer as bool."""
        stacked = np.empty((self.SLOTS, self.n_conditions + 1, n), np.uint8)
        stacked[:, -1] = 0
        return stacked, stacked[0].view(bool)

    def _scores(self, stacked: np.ndarray, n: int) -> np.ndarray:
        for j in range(1, self.SLOTS):
            np.multiply(stacked[0], self._weights[j], out=stacked[j])  # bit j (a multiply is faster than a shift)
        bits = stacked.reshape(-1, n)[self.gather].reshape(self.SLOTS, self.n_trees, n)
        code = np.bitwise_or.reduce(bits, axis=0).astype(np.intp)
        code += self.offset
        leaf = self.table[code]  # (n_trees, n); tree t adds to class t % n_classes
        return leaf.reshape(-1, self.n_classes, n).sum(axis=0).T

    _weights = tuple(np.uint8(1 << j) for j in range(SLOTS))


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

    def predict_rows(self, rows: list[tuple[list[Any], tuple[int, ...], str, bool]]) -> np.ndarray:
        """Five-level distributions from :func:`_row` results (no dense one-hot matrix)."""
        return self._chunked(len(rows), lambda a, b: self._scores_rows(rows[a:b]))

    def _scores_dense(self, X: np.ndarray) -> np.ndarray:
        return self.forest.raw_scores(X) if self._fast is None else self._fast.raw_scores(X)

    def _scores_rows(self, rows: list[tuple[list[Any], tuple[int, ...], str, bool]]) -> np.ndarray:
        if self._fast is None:
            return self.forest.raw_scores(_matrix(rows))
        return self._fast.raw_scores_parts(*_raw(rows))

    @staticmethod
    def _chunked(n: int, scores: Any) -> np.ndarray:
        """Softmax of raw scores computed ``CHUNK`` edits at a time: the forest's temporaries (a few
        hundred bytes per tree and edit) stay small and in cache, however large the batch."""
        out = np.empty((n, LEVELS))
        for a in range(0, n, CHUNK):
            out[a : a + CHUNK] = softmax(scores(a, min(n, a + CHUNK)))
        return out


#: Edits per forest call inside one judge() batch.
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


_FLAGS: tuple[str, ...] = ()
_FLAGS_NO_LEXICON = ("no-lexicon",)


class CompactJudge:
    """The compact built-in scorer: a small forest over the rubric's features, numpy only.

    ``identity`` is ``compact-<version>+<first 10 hex of the forest file's sha256>+wordfreq-<version>``.
    ``judge()`` computes the features of the whole batch (the rubric's cached line and word lookups),
    then runs the forest once for the batch. Flags: ``no-lexicon`` marks a letter, mark or ideograph
    edit in a language wordfreq has no list for.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.model = load_model(None if directory is None else str(directory))

    @property
    def identity(self) -> str:
        return f"compact-{COMPACT_VERSION}+{self.model.sha256[:10]}+wordfreq-{wordfreq_version()}"

    def predict_proba(self, contexts: Sequence[EditContext]) -> np.ndarray:
        """Five-level distributions of a batch of edits, shape (n, 5)."""
        return self.model.predict_rows([_row(c) for c in contexts])

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        """Judge a batch of edits with one vectorised forest call."""
        if not contexts:
            return []
        rows = [_row(c) for c in contexts]
        P = self.model.predict_rows(rows).tolist()
        return [
            Judgement(tuple(p), cls, _FLAGS_NO_LEXICON if no_lex else _FLAGS)  # type: ignore[arg-type]
            for p, (_, _, cls, no_lex) in zip(P, rows)
        ]
