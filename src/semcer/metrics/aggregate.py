"""The one aggregation rule: lines -> documents -> corpus totals and document means.

Corpus CER = Σ edits / Σ units over every line (long documents weigh more). Document-mean CER =
mean over documents of (document edits / document units), a document's lines or pages summed
first; a document with no reference units has no CER and is left out of the mean (and counted).
semCER is aggregated the same way, over the same documents; but where a judge failed on an edit,
that line's severity is unknown, and then its document's semCER, the corpus semCER and the
document-mean semCER are undefined (``None``): a failure is never averaged away or charged as 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import NamedTuple

import numpy as np

from semcer.alignment.line import LineStats
from semcer.alignment.table import OWN_DOC, LineTable, TableColumns
from semcer.metrics.rows import ExactSum, Totals, merge, total


class DocumentResult(NamedTuple):
    """A document's summed statistics (its pages or lines combined)."""

    doc: str
    totals: Totals


@dataclass(frozen=True)
class Aggregation:
    """Documents, corpus and document means of a set of lines.

    ``documents`` is None when every line is its own document (the per-document totals are then
    the lines' own, built on demand). ``documents_defined`` counts the documents with reference
    units (those in the means); ``documents_failed`` those among them whose semCER is unknown
    because a judge failed on one of their edits.
    """

    documents: tuple[DocumentResult, ...] | None
    corpus: Totals
    document_mean_cer: float | None
    document_mean_semcer: float | None
    documents_defined: int
    documents_failed: int


def aggregate(stats: Sequence[LineStats], docs: Sequence[str], *, judged: bool) -> Aggregation:
    """Aggregate the lines ``stats`` (with their document ids ``docs``); semCER only when ``judged``."""
    documents: tuple[DocumentResult, ...] | None = None
    per_doc: Sequence[LineStats] | Sequence[Totals]
    if len(set(docs)) == len(docs):  # every line its own document: nothing to group or sum
        per_doc = stats
    else:
        groups: dict[str, list[LineStats]] = {}
        for d, st in zip(docs, stats):
            acc = groups.get(d)
            if acc is None:
                groups[d] = [st]
            else:
                acc.append(st)
        totals = [total(st) for st in groups.values()]
        documents = tuple(map(tuple.__new__, repeat(DocumentResult), zip(groups, totals)))
        per_doc = totals
    dm_cer, n_def, dm_sem, n_failed = document_means(per_doc, judged=judged)
    return Aggregation(documents, total(stats if isinstance(stats, list) else list(stats)), dm_cer, dm_sem, n_def, n_failed)


def document_means(per_doc: Sequence[LineStats] | Sequence[Totals], *, judged: bool
                   ) -> tuple[float | None, int, float | None, int]:
    """``(mean CER, documents in it, mean semCER, documents whose semCER is unknown)`` over the
    documents with reference units; the semCER mean is None unless ``judged`` and every such
    document's severity is known."""
    if not per_doc:
        return None, 0, None, 0
    columns = list(zip(*per_doc))  # C speed: per_doc is one tuple per document
    s, d, i, u = columns[:4]
    sev = columns[4 if isinstance(per_doc[0], LineStats) else 5]  # LineStats or Totals
    units = np.asarray(u, dtype=np.int64)
    defined = units > 0
    n_def = int(defined.sum())
    if not n_def:
        return None, 0, None, 0
    edits = np.asarray(s, dtype=np.int64) + np.asarray(d, dtype=np.int64) + np.asarray(i, dtype=np.int64)
    dm_cer = math.fsum((edits[defined] / units[defined]).tolist()) / n_def
    if not judged:
        return dm_cer, n_def, None, 0
    kept = [(x, n) for x, n, ok in zip(sev, u, defined.tolist()) if ok]
    failed = sum(1 for x, _ in kept if x is None)
    dm_sem = None if failed else math.fsum(x / n for x, n in kept if x is not None) / n_def
    return dm_cer, n_def, dm_sem, failed


def aggregate_table(table: LineTable, *, judged: bool) -> Aggregation:
    """:func:`aggregate` of the lines of ``table``, equal to it bit for bit, from its columns."""
    return _of_documents(table_documents(table), len(table), judged=judged)


def _of_documents(documents: tuple[DocumentResult, ...], lines: int, *, judged: bool) -> Aggregation:
    """The Aggregation of ``lines`` lines whose documents (in order of first appearance) are
    ``documents``: :func:`aggregate`'s, since merged totals equal one-pass ones bit for bit."""
    per_doc = [d.totals for d in documents]
    dm_cer, n_def, dm_sem, failed = document_means(per_doc, judged=judged)
    return Aggregation(None if len(per_doc) == lines else documents, merge(per_doc), dm_cer, dm_sem, n_def, failed)


def table_documents(table: LineTable) -> tuple[DocumentResult, ...]:
    """The documents of ``table``'s lines in order of first appearance, each with :func:`total` of its
    lines (grouped by code, summed by numpy: no row is built per line)."""
    cols = table.columns()
    if not len(table):
        return ()
    codes, names = _doc_codes(table, cols)
    first = np.unique(codes, return_index=True)[1]
    per_doc = _document_totals(codes, np.frombuffer(cols.counts, dtype=np.uint32).reshape(-1, 4),
                               np.frombuffer(cols.severity, dtype=np.float64))
    return tuple(tuple.__new__(DocumentResult, (names[codes[k]], per_doc[g]))
                 for g, k in sorted(enumerate(first.tolist()), key=lambda gk: gk[1]))


def _doc_codes(table: LineTable, cols: TableColumns) -> tuple[np.ndarray, list[str]]:
    """A document code per line (equal codes: equal documents) and the document of each code: a line
    that is its own document gets the code of that document's name when another line names it."""
    codes = np.frombuffer(cols.doc_of, dtype=np.int32).astype(np.int64)
    names = list(cols.docs)
    own = np.flatnonzero(codes == OWN_DOC)
    if own.size:
        known = {d: k for k, d in enumerate(names)}
        new = []
        for line_id in table.ids_of(own.tolist()):
            code = known.get(line_id)
            if code is None:
                known[line_id] = code = len(names)
                names.append(line_id)
            new.append(code)
        codes[own] = new
    return codes, names


def _document_totals(codes: np.ndarray, counts: np.ndarray, severity: np.ndarray) -> list[Totals]:
    """:func:`total` of each document's lines, in order of code."""
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    sums = [np.add.reduceat(counts[order, j], starts, dtype=np.int64).tolist() for j in range(4)]
    sev = severity[order]
    unknown = np.add.reduceat(np.isnan(sev), starts, dtype=np.int64).tolist()
    ends = np.r_[starts[1:], len(codes)].tolist()
    out = []
    for g, (a, b) in enumerate(zip(starts.tolist(), ends)):
        s, d, i, u = sums[0][g], sums[1][g], sums[2][g], sums[3][g]
        if b - a == 1:
            x = float(sev[a])
            out.append(Totals(s, d, i, u, 1, None if x != x else x, None))
        elif unknown[g]:
            out.append(Totals(s, d, i, u, b - a, None, None))
        else:
            exact = ExactSum.of(sev[a:b].tolist())
            out.append(Totals(s, d, i, u, b - a, exact.value, exact))
    return out


class DocumentFold:
    """The documents of lines that come in chunks, in order: :meth:`aggregation` is :func:`aggregate`
    of every line folded, bit for bit (a document's chunks are merged exactly, :func:`merge`), while
    only one :class:`Totals` per document is kept, not the lines."""

    def __init__(self) -> None:
        self._docs: dict[str, Totals] = {}
        self._lines = 0

    def fold(self, table: LineTable) -> None:
        """Add the lines of ``table``, which come after every line folded so far."""
        docs = self._docs
        for name, totals in table_documents(table):
            old = docs.get(name)
            docs[name] = totals if old is None else merge((old, totals))
        self._lines += len(table)

    def aggregation(self, *, judged: bool) -> Aggregation:
        documents = tuple(map(tuple.__new__, repeat(DocumentResult), self._docs.items()))
        return _of_documents(documents, self._lines, judged=judged)
