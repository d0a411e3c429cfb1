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
    edits = np.asarray(s, dtype=np.int64) + np.asarray(d, dtype=np.int64) + np.asarray(i, dtype=np.int64)
    severity = np.array([math.nan if x is None else x for x in sev], dtype=np.float64) if judged else None
    return _means(edits, np.asarray(u, dtype=np.int64), severity)


def _means(edits: np.ndarray, units: np.ndarray, severity: np.ndarray | None
           ) -> tuple[float | None, int, float | None, int]:
    """:func:`document_means` of the documents' edits, units and severities (NaN: unknown; None:
    not judged), as arrays."""
    defined = units > 0
    n_def = int(defined.sum())
    if not n_def:
        return None, 0, None, 0
    kept_units = units[defined]
    dm_cer = math.fsum((edits[defined] / kept_units).tolist()) / n_def
    if severity is None:
        return dm_cer, n_def, None, 0
    kept = severity[defined]
    failed = int(np.isnan(kept).sum())
    dm_sem = None if failed else math.fsum((kept / kept_units).tolist()) / n_def
    return dm_cer, n_def, dm_sem, failed


def aggregate_table(table: LineTable, *, judged: bool) -> Aggregation:
    """:func:`aggregate` of the lines of ``table``, from its columns: equal to it bit for bit, without
    building a row per line (documents are grouped by code, their sums taken by numpy)."""
    cols = table.columns()
    counts = np.frombuffer(cols.counts, dtype=np.uint32).reshape(-1, 4)
    severity = np.frombuffer(cols.severity, dtype=np.float64)
    codes, names = _doc_codes(cols)
    n = len(codes)
    if not n:
        return aggregate([], [], judged=judged)
    first = np.unique(codes, return_index=True)[1]
    if len(first) == n:  # every line its own document
        edits = counts[:, :3].sum(axis=1, dtype=np.int64)
        dm_cer, n_def, dm_sem, failed = _means(edits, counts[:, 3].astype(np.int64), severity if judged else None)
        return Aggregation(None, _total_of(counts, severity), dm_cer, dm_sem, n_def, failed)
    per_doc = _document_totals(codes, counts, severity)
    documents = tuple(tuple.__new__(DocumentResult, (names[codes[k]], per_doc[g]))
                      for g, k in sorted(enumerate(first.tolist()), key=lambda gk: gk[1]))
    ordered = [d.totals for d in documents]
    dm_cer, n_def, dm_sem, failed = document_means(ordered, judged=judged)
    return Aggregation(documents, merge(ordered), dm_cer, dm_sem, n_def, failed)


def _doc_codes(cols: TableColumns) -> tuple[np.ndarray, list[str]]:
    """A document code per line (equal codes: equal documents) and the document of each code: a line
    that is its own document gets the code of that document's name when another line names it."""
    codes = np.frombuffer(cols.doc_of, dtype=np.int32).astype(np.int64)
    names = list(cols.docs)
    own = np.flatnonzero(codes == OWN_DOC)
    if own.size:
        known = {d: k for k, d in enumerate(names)}
        new = []
        for line_id in cols.table.ids_of(own.tolist()):
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


def _total_of(counts: np.ndarray, severity: np.ndarray) -> Totals:
    """:func:`total` of every line, from the columns."""
    n = len(severity)
    s, d, i, u = (int(x) for x in counts.sum(axis=0, dtype=np.int64))
    if n == 1:
        x = float(severity[0])
        return Totals(s, d, i, u, 1, None if x != x else x, None)
    if np.isnan(severity).any():
        return Totals(s, d, i, u, n, None, None)
    exact = ExactSum.of(severity.tolist())
    return Totals(s, d, i, u, n, exact.value, exact)


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
        documents = aggregate_table(table, judged=False).documents
        if documents is None:  # every line of the chunk its own document
            new = tuple.__new__
            documents = tuple(new(DocumentResult, (r[1], new(Totals, (st[0], st[1], st[2], st[3], 1, st[4], None))))
                              for r in table for st in (r[3],))
        for name, totals in documents:
            old = docs.get(name)
            docs[name] = totals if old is None else merge((old, totals))
        self._lines += len(table)

    def aggregation(self, *, judged: bool) -> Aggregation:
        per_doc = list(self._docs.values())
        documents = (None if len(per_doc) == self._lines
                     else tuple(map(tuple.__new__, repeat(DocumentResult), self._docs.items())))
        dm_cer, n_def, dm_sem, failed = document_means(per_doc, judged=judged)
        return Aggregation(documents, merge(per_doc), dm_cer, dm_sem, n_def, failed)
