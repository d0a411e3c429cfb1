"""The ranked outputs of a streamed run, with bounded memory.

:class:`TopList` keeps the ``n`` most severe items seen so far (edits or error spans), ties in
corpus order: what sorting every item and keeping the first ``n`` gives, holding only ``n``.
:class:`EditSpill` writes each chunk's edits, ranked, to a file of its own as the chunk is judged;
at the end the files are merged (a k-way merge, stable: a tie goes to the earlier chunk) into the
``--edits`` file, which is then in exactly the order :func:`semcer.io.edits.ranked` gives the
whole corpus.
"""

from __future__ import annotations

import heapq
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from semcer.atomic import atomic_write
from semcer.io.edits import ranked_rows, write_edit_rows
from semcer.metrics.signature import Signature
from semcer.metrics.spans import span_key


def edit_rank(j: Any) -> tuple[bool, float]:
    """The sort key of :func:`semcer.io.edits.ranked` (most severe first, failed edits last)."""
    return (j.severity is None, -(j.severity or 0.0))


def span_rank(s: Any) -> tuple[bool, float, float]:
    """The sort key of :func:`semcer.metrics.spans.ranked_spans`."""
    return span_key(s)


def _row_rank(r: dict[str, Any]) -> tuple[bool, float]:
    return (r["severity"] is None, -(r["severity"] or 0.0))


class TopList:
    """The ``n`` smallest items by ``key`` of everything offered, ties in the order offered."""

    def __init__(self, n: int, key: Callable[[Any], Any]) -> None:
        self.n, self._key = n, key
        self._best: list[tuple[Any, int, Any]] = []
        self._seq = itertools.count()

    def offer(self, items: Iterable[Any]) -> None:
        if self.n <= 0:
            return
        new = ((self._key(it), next(self._seq), it) for it in items)
        self._best = heapq.nsmallest(self.n, itertools.chain(self._best, new), key=lambda t: (t[0], t[1]))

    def items(self) -> list[Any]:
        return [t[2] for t in self._best]


class EditSpill:
    """Each chunk's edits, ranked, in a JSON Lines file of ``folder``; merged into one edit list at the end."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def path(self, index: int) -> Path:
        return self.folder / f"edits-{index:06d}.jsonl"

    def write(self, index: int, judged: Iterable[Any]) -> None:
        with atomic_write(self.path(index)) as fh:
            for row in ranked_rows(list(judged)):
                fh.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")

    def merge_into(self, target: str | Path, chunks: int, *, signature: Signature | None = None) -> int:
        """Write the edits of chunks ``0..chunks-1`` to ``target``, most severe first; returns how many.
        ``signature``: the run's, kept in a Parquet file's metadata (:func:`semcer.io.edits.write_edit_rows`)."""
        with ExitStack() as stack:
            runs = [_rows(stack.enter_context(open(self.path(k), encoding="utf-8"))) for k in range(chunks)]
            return write_edit_rows(target, heapq.merge(*runs, key=_row_rank), signature=signature)


def _rows(fh: Any) -> Iterator[dict[str, Any]]:
    for line in fh:
        yield json.loads(line)
