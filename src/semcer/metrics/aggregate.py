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
from semcer.metrics.rows import Totals, total


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
