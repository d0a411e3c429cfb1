"""The shipped artifact of the compact scorer: its forest and its record, checked against the
features this semcer computes."""

from __future__ import annotations

import hashlib
import io
import json
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from semcer.caches import cache
from semcer.errors import JudgeError
from semcer.judges.compact.features import FEATURE_NAMES, GROUP_OF_COLUMN, N_FEATURES, dense_matrix
from semcer.judges.compact.forest import Forest
from semcer.judges.compact.table import TableForest, softmax
from semcer.judges.distribution import LEVELS

FOREST_FILE = "compact_forest.npz"
META_FILE = "compact.json"


class CompactModel:
    """The forest and its record (``compact.json``), read from ``directory`` (the package's data by default)."""

    def __init__(self, forest_bytes: bytes, meta: dict[str, Any], source: str) -> None:
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
        self._fast = TableForest(self.forest, GROUP_OF_COLUMN) if depth <= 3 else None

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Five-level distributions from a dense feature matrix, shape (n, 5)."""
        X = np.asarray(X, np.float64)
        return self._chunked(len(X), lambda a, b: self._scores_dense(X[a:b]))

    def predict_columns(self, numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Five-level distributions from the numeric columns and one-hot group columns that
        :func:`feature_columns` gives (no dense one-hot matrix)."""
        return self._chunked(len(numeric), lambda a, b: self._scores_columns(numeric[a:b], codes[a:b]))

    def _scores_dense(self, X: np.ndarray) -> np.ndarray:
        return self.forest.raw_scores(X) if self._fast is None else self._fast.raw_scores(X)

    def _scores_columns(self, numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
        if self._fast is None:
            return self.forest.raw_scores(dense_matrix(numeric, codes))
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


@cache(maxsize=4)
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


