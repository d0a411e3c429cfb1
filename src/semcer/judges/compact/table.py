"""Fast inference for shallow forests: every split condition tested once per batch, each tree's
seven node slots read as a 7-bit code into a table of its leaf values."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from semcer.judges.compact.forest import Forest


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
        group = (lambda f: -1) if one_hot is None else (lambda f: int(one_hot[f]))
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
        self._work = threading.local()  # per-thread work arrays (see _buffer)

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

    def _buffer(self, name: str, shape: tuple[int, ...], dtype: type) -> np.ndarray:
        """A C-contiguous work array of ``shape``: a prefix of this thread's buffer ``name``, grown as
        needed. Reusing them keeps the allocator from returning and re-faulting megabytes per batch."""
        size = int(np.prod(shape))
        buf = getattr(self._work, name, None)
        if buf is None or buf.size < size:
            buf = np.empty(size, dtype)
            setattr(self._work, name, buf)
        return buf[:size].reshape(shape)

    def _conditions(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The condition matrix (n_conditions + 2, n) as 0/1 bytes, its last two rows filled (0 and
        1), and a bool view of the rows still to fill."""
        rows = self._buffer("rows", (self.n_conditions + 2, n), np.uint8)
        rows[-2] = 0
        rows[-1] = 1
        return rows, rows[:-2].view(bool)

    def _scores(self, rows: np.ndarray, n: int) -> np.ndarray:
        # Every index is in range, so mode="wrap" takes the same values; with the default
        # mode ("raise") numpy gathers into a fresh copy of ``out`` and copies it back.
        bits = np.take(rows, self.slot_rows, axis=0, out=self._buffer("bits", (self.SLOTS * self.n_trees, n), np.uint8),
                       mode="wrap")
        bits = bits.reshape(self.SLOTS, self.n_trees, n)
        np.multiply(bits, self._bit_values, out=bits)  # slot s -> bit s (a multiply is faster than a shift)
        code = np.bitwise_or.reduce(bits, axis=0, out=self._buffer("code", (self.n_trees, n), np.uint8))
        index = self._buffer("index", (self.n_trees, n), np.intp)
        index[...] = code  # widened first, so that the add below needs no buffered cast
        np.add(index, self.offset, out=index)  # tree t's code + t * 128
        leaf = np.take(self.table, index, out=self._buffer("leaf", (self.n_trees, n), np.float64), mode="wrap")
        return leaf.reshape(-1, self.n_classes, n).sum(axis=0).T  # tree t adds to class t % n_classes

    _bit_values = (np.uint8(1) << np.arange(SLOTS, dtype=np.uint8))[:, None, None]


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax (in place on ``z``)."""
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


