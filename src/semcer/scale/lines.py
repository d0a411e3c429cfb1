"""Every line of a streamed run, with memory bounded by a block, not by the corpus.

The parent of a run keeps what it needs of each line (:class:`semcer.alignment.table.LineTable`: an
id, a document, a language and five numbers, about 50 bytes) for the outputs that list lines (``--lines``, the
breakdowns, the report's line view); the corpus and document sums are folded as chunks land
(:class:`semcer.metrics.aggregate.DocumentFold`). :class:`SpilledLines` holds the last
:data:`BLOCK_LINES` lines in memory and writes each full block to its own temporary folder, so a run
over 3 million lines holds what a run over 300,000 does. It is a read-only sequence of
:class:`semcer.alignment.line.LineResult` like the table: iterating reads the blocks in turn;
indexing reads (and keeps) the one block that has the line. The folder goes when the object does.
"""

from __future__ import annotations

import pickle
import tempfile
import weakref
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from pathlib import Path

from semcer.alignment.line import LineResult
from semcer.alignment.table import LineRows, LineTable
from semcer.errors import SemcerError

#: Lines kept in memory before a block is written (about 13 MB of table).
BLOCK_LINES = 1 << 18


class SpilledLines(LineRows):
    """The lines of a run, grown by :meth:`extend`, full blocks of ``block`` lines (default
    :data:`BLOCK_LINES`) on disk."""

    def __init__(self, block: int | None = None) -> None:
        self._block = BLOCK_LINES if block is None else block
        self._tail = LineTable()
        self._ends: list[int] = []  # the line count after each written block
        self._folder: Path | None = None
        self._cached: tuple[int, LineTable] | None = None

    def extend(self, rows: Iterable[LineResult]) -> None:
        """Append ``rows`` (a chunk's table)."""
        self._tail.extend(rows)
        if len(self._tail) >= self._block:
            self._write()

    def _write(self) -> None:
        try:
            if self._folder is None:
                tmp = tempfile.TemporaryDirectory(prefix="semcer-lines-")
                self._folder = Path(tmp.name)
                weakref.finalize(self, tmp.cleanup)
            with open(self._path(len(self._ends)), "wb") as fh:
                pickle.dump(self._tail, fh, protocol=pickle.HIGHEST_PROTOCOL)
        except OSError as exc:
            where = self._folder or tempfile.gettempdir()
            raise SemcerError(f"cannot keep the run's lines in the temporary folder {where}: {exc.strerror or exc}; "
                              "set TMPDIR to a folder with room (about 50 bytes a line)") from None
        self._ends.append(self._written + len(self._tail))
        self._tail = LineTable()

    @property
    def _written(self) -> int:
        return self._ends[-1] if self._ends else 0

    @property
    def blocks_written(self) -> int:
        return len(self._ends)

    def _path(self, k: int) -> Path:
        assert self._folder is not None
        return self._folder / f"lines-{k:06d}.pkl"

    def _load(self, k: int) -> LineTable:
        if k == len(self._ends):
            return self._tail
        if self._cached is not None and self._cached[0] == k:
            return self._cached[1]
        try:
            with open(self._path(k), "rb") as fh:
                table: LineTable = pickle.load(fh)  # our own file, in our own temporary folder
        except OSError as exc:
            raise SemcerError(f"the run's lines kept in {self._folder} cannot be read back: {exc.strerror or exc}") from None
        self._cached = (k, table)
        return table

    def __len__(self) -> int:
        return self._written + len(self._tail)

    def _row(self, k: int) -> LineResult:
        block = bisect_right(self._ends, k)
        return self._load(block)[k - (self._ends[block - 1] if block else 0)]

    def __iter__(self) -> Iterator[LineResult]:
        for k in range(len(self._ends) + 1):
            yield from self._load(k)

    def __repr__(self) -> str:
        return f"SpilledLines({len(self)} lines, {len(self._ends)} blocks on disk)"
