"""The typed result of an evaluation, and its documented dictionary shape (no JSON text here).

Undefined values are ``None`` (``null`` in JSON), never Infinity or NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from semcer.alignment.line import LineResult
from semcer.metrics.aggregate import Aggregation, DocumentResult
from semcer.metrics.breakdown import Group, breakdown
from semcer.metrics.rows import Totals
from semcer.metrics.signature import Signature
from semcer.store.judging import JudgedEdit, JudgeRun


@dataclass(frozen=True)
class Unmatched:
    """Ids present on one side only: dropped (``unmatched="drop"``), or references scored against an
    empty output (``unmatched="empty"``); ``policy`` is the policy the ids were paired under (it goes
    into the signature)."""

    dropped_refs: tuple[str, ...] = ()
    dropped_hyps: tuple[str, ...] = ()
    empty_hyps: tuple[str, ...] = ()
    policy: str = "error"


class SkippedElement(NamedTuple):
    """A region or line of a page file that its reader left out of the page text, and why (one of
    :attr:`semcer.io.formats.page.Page.skipped`): ``side`` is ``"references"`` or ``"outputs"``,
    ``page`` the file, ``line``/``column`` where the element starts in it."""

    side: str
    page: str
    id: str | None
    kind: str
    reason: str
    line: int
    column: int


class ReadFailure(NamedTuple):
    """A file of a directory that could not be read and was left out (``keep_going``): ``side`` is
    ``"references"`` or ``"outputs"``, ``reason`` the error it raised."""

    side: str
    path: str
    reason: str


@dataclass(frozen=True)
class LeftOut:
    """What reading the inputs left out of the texts scored: page elements a reader skipped
    (``skipped.page_elements`` in JSON) and files that could not be read (``read_failures``)."""

    elements: tuple[SkippedElement, ...] = ()
    failures: tuple[ReadFailure, ...] = ()


@dataclass(frozen=True)
class Evaluation:
    """A corpus evaluation: statistics per line, per document, corpus and document mean."""

    signature: Signature
    lines: Sequence[LineResult]  # a tuple; a streamed run's: semcer.scale.lines.SpilledLines
    aggregation: Aggregation
    skipped_empty: tuple[str, ...] = ()
    judged: tuple[JudgedEdit, ...] | None = None  # every judged edit, when a judge ran
    judge_run: JudgeRun | None = None
    unmatched: Unmatched = Unmatched()
    left_out: LeftOut = LeftOut()  # what reading the inputs left out (page elements, unreadable files)

    @property
    def corpus(self) -> Totals:
        return self.aggregation.corpus

    @property
    def document_mean_cer(self) -> float | None:
        return self.aggregation.document_mean_cer

    @property
    def document_mean_semcer(self) -> float | None:
        return self.aggregation.document_mean_semcer

    @property
    def documents_defined(self) -> int:
        return self.aggregation.documents_defined

    @property
    def judge_summary(self) -> dict[str, Any]:
        """What the judging pass did (edits, distinct, cache hits, judged, failures), as a dict."""
        if self.judge_run is None:
            return {}
        out = self.judge_run.to_dict()
        del out["identity"]
        return out

    @property
    def documents(self) -> tuple[DocumentResult, ...]:
        """Summed statistics per document, in order of first appearance."""
        docs = self.aggregation.documents
        if docs is None:
            new = tuple.__new__
            docs = tuple(new(DocumentResult, (r[1], new(Totals, (st[0], st[1], st[2], st[3], 1, st[4], None))))
                         for r in self.lines for st in (r[3],))
            object.__setattr__(self, "aggregation", _with_documents(self.aggregation, docs))
        return docs

    def to_dict(self, *, lines: bool = False, by: tuple[str, ...] = ()) -> dict[str, Any]:
        """The JSON shape documented in the README (undefined values are None); ``by`` adds a
        breakdown per group (``"lang"``: ``by_lang``, ``"doc"``: ``by_doc``), each group scored like
        the corpus. ``skipped.page_elements`` lists every element a page reader left out of the text
        and ``read_failures`` every file that could not be read (``keep_going``), each with its side
        (:class:`LeftOut`)."""
        judged = bool(self.signature.judge)
        out: dict[str, Any] = {
            "signature": str(self.signature),
            "signature_fields": self.signature.fields(),
            "corpus": _corpus_dict(self.corpus, len(self.documents), judged),
            "document_mean": _mean_dict(self.aggregation, judged),
            "documents": [_document_dict(d, judged) for d in self.documents],
        }
        inputs = self.inputs_dict()
        out["skipped"] = inputs["skipped"]
        if judged:
            out["judge"] = {"identity": self.signature.judge, **self.judge_summary}
        for key in by:
            out[f"by_{key}"] = [_group_dict(key, g, judged) for g in breakdown(self.lines, key, judged=judged)]
        if lines:
            out["lines"] = [_line_dict(line, judged) for line in self.lines]
        out["unmatched"], out["read_failures"] = inputs["unmatched"], inputs["read_failures"]
        return out

    def inputs_dict(self) -> dict[str, Any]:
        """What the inputs left out, as :meth:`to_dict` lists it: ``skipped`` (empty references,
        page elements), ``unmatched`` (ids dropped on each side, references scored as empty
        outputs) and ``read_failures``."""
        unmatched = {"dropped_refs": len(self.unmatched.dropped_refs), "dropped_hyps": len(self.unmatched.dropped_hyps)}
        if self.unmatched.empty_hyps:
            unmatched["empty_hyps"] = len(self.unmatched.empty_hyps)
        return {"skipped": {"empty_references": len(self.skipped_empty), "ids": list(self.skipped_empty),
                            "page_elements": [e._asdict() for e in self.left_out.elements]},
                "unmatched": unmatched, "read_failures": [f._asdict() for f in self.left_out.failures]}


def _with_documents(agg: Aggregation, docs: tuple[DocumentResult, ...]) -> Aggregation:
    return Aggregation(docs, agg.corpus, agg.document_mean_cer, agg.document_mean_semcer, agg.documents_defined,
                       agg.documents_failed)


def _corpus_dict(c: Totals, documents: int, judged: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "cer": c.cer, "edits": c.edits, "substitutions": c.substitutions, "deletions": c.deletions,
        "insertions": c.insertions, "units": c.units, "lines": c.lines, "documents": documents,
    }
    if judged:
        out["semcer"] = c.semcer
        out["severity"] = c.severity
    return out


def _mean_dict(agg: Aggregation, judged: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"cer": agg.document_mean_cer, "documents": agg.documents_defined}
    if judged:
        out["semcer"] = agg.document_mean_semcer
        if agg.documents_failed:
            out["documents_failed"] = agg.documents_failed
    return out


def _document_dict(d: DocumentResult, judged: bool) -> dict[str, Any]:
    t = d.totals
    row: dict[str, Any] = {"doc": d.doc, "cer": t.cer, "edits": t.edits, "units": t.units, "lines": t.lines}
    if judged:
        row["semcer"] = t.semcer
        row["severity"] = t.severity
    return row


def _group_dict(key: str, g: Group, judged: bool) -> dict[str, Any]:
    documents = g.lines if g.aggregation.documents is None else len(g.aggregation.documents)
    return {key: g.key, **_corpus_dict(g.aggregation.corpus, documents, judged),
            "document_mean": _mean_dict(g.aggregation, judged)}


def _line_dict(line: LineResult, judged: bool) -> dict[str, Any]:
    st = line.stats
    row: dict[str, Any] = {"id": line.id, "doc": line.doc, "lang": line.lang, "cer": st.cer,
                           "substitutions": st.substitutions, "deletions": st.deletions,
                           "insertions": st.insertions, "units": st.units}
    if judged:
        row["semcer"] = st.semcer
        row["severity"] = st.severity
    return row
