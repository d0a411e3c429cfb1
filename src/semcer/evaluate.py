"""The Python API: ``cer``, ``align`` and corpus-level ``evaluate``. The CLI is a thin layer over it."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Sequence

from rapidfuzz.distance import Levenshtein

from .align import Edit, count_ops, editops, to_edits, unit_spans, with_spans
from .errors import EmptyReferenceError, InputError, SemcerError
from .policy import TextPolicy, get_policy
from .signature import Signature
from .stats import LineStats, Totals, mean_defined, total
from .units import Unit, alignable_pair, check_unit

EMPTY_REF_POLICIES: dict[str, str] = {
    "error": "default: stop with an error naming the first line whose reference is empty after the policy",
    "skip": "leave such lines out of every number; how many were skipped is reported",
    "insertions": "count their insertions in the corpus numerator (0 units in the denominator); "
    "their line CER is undefined (null) and a document with no reference units is left out of the document mean",
}


class Alignment(NamedTuple):
    """The alignment of one reference with one output, after the policy."""

    ref: str
    hyp: str
    ref_units: Sequence[str]
    hyp_units: Sequence[str]
    edits: tuple[Edit, ...]
    stats: LineStats
    offsets: bool  # whether ref_span/hyp_span of the edits are available

    @property
    def cer(self) -> float | None:
        return self.stats.cer


class LineResult(NamedTuple):
    """One scored line: its statistics and, when asked for, its edits and alignment."""

    id: str
    doc: str
    lang: str | None
    stats: LineStats
    edits: tuple[Edit, ...] | None = None
    alignment: Alignment | None = None


class DocumentResult(NamedTuple):
    """A document's summed statistics (its pages or lines combined)."""

    doc: str
    totals: Totals


@dataclass(frozen=True)
class Evaluation:
    """A corpus evaluation: statistics per line, per document, corpus and document mean."""

    signature: Signature
    lines: tuple[LineResult, ...]
    documents: tuple[DocumentResult, ...]
    corpus: Totals
    document_mean_cer: float | None
    document_mean_semcer: float | None
    documents_defined: int
    skipped_empty: tuple[str, ...] = ()
    judged: list[Any] | None = None  # JudgedEdit rows when a judge ran
    judge_summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, *, lines: bool = False) -> dict[str, Any]:
        """The JSON shape documented in the README (no Infinity, no NaN: undefined is null)."""
        c = self.corpus
        corpus = {
            "cer": c.cer, "edits": c.edits, "substitutions": c.substitutions,
            "deletions": c.deletions, "insertions": c.insertions, "units": c.units,
            "lines": c.lines, "documents": len(self.documents),
        }
        dm: dict[str, Any] = {"cer": self.document_mean_cer, "documents": self.documents_defined}
        docs = []
        for d in self.documents:
            row = {"doc": d.doc, "cer": d.totals.cer, "edits": d.totals.edits,
                   "units": d.totals.units, "lines": d.totals.lines}
            if self.signature.judge:
                row["semcer"] = d.totals.semcer
                row["severity"] = d.totals.severity
            docs.append(row)
        if self.signature.judge:
            corpus["semcer"] = c.semcer
            corpus["severity"] = c.severity
            dm["semcer"] = self.document_mean_semcer
        out: dict[str, Any] = {
            "signature": str(self.signature),
            "signature_fields": self.signature.fields(),
            "corpus": corpus,
            "document_mean": dm,
            "documents": docs,
            "skipped": {"empty_references": len(self.skipped_empty), "ids": list(self.skipped_empty)},
        }
        if self.signature.judge:
            out["judge"] = {"identity": self.signature.judge, **self.judge_summary}
        if lines:
            out["lines"] = [
                {"id": l.id, "doc": l.doc, "lang": l.lang, "cer": l.stats.cer,
                 "substitutions": l.stats.substitutions, "deletions": l.stats.deletions,
                 "insertions": l.stats.insertions, "units": l.stats.units,
                 **({"semcer": l.stats.semcer, "severity": l.stats.severity} if self.signature.judge else {})}
                for l in self.lines
            ]
        return out


class _Pair(NamedTuple):
    id: str
    ref: str
    hyp: str
    doc: str
    lang: str | None


def align(
    reference: str,
    hypothesis: str,
    *,
    unit: Unit = "grapheme",
    policy: str | TextPolicy | None = None,
    offsets: bool = True,
) -> Alignment:
    """Align one reference with one output and return typed edits with their original offsets."""
    check_unit(unit)
    pol = get_policy(policy)
    return _align_one(reference, hypothesis, unit, pol, edits=True, offsets=offsets)


def cer(
    reference: str | Sequence[str],
    hypothesis: str | Sequence[str],
    *,
    unit: Unit = "grapheme",
    policy: str | TextPolicy | None = None,
    empty_ref: str = "error",
) -> float:
    """CER of one line, or corpus CER (Σ edits / Σ reference units) of two equal-length lists."""
    if isinstance(reference, str) != isinstance(hypothesis, str):
        raise InputError("pass two strings or two lists of strings")
    if isinstance(reference, str):
        check_unit(unit)
        if empty_ref not in EMPTY_REF_POLICIES:
            raise SemcerError(f"unknown empty-reference policy {empty_ref!r}; choose one of: {', '.join(EMPTY_REF_POLICIES)}")
        stats = _align_one(reference, hypothesis, unit, get_policy(policy), edits=False, offsets=False).stats  # type: ignore[arg-type]
        if stats.units:
            return stats.edits / stats.units
        reference, hypothesis = [reference], [hypothesis]  # type: ignore[list-item]  # the error path
    result = evaluate(reference, hypothesis, unit=unit, policy=policy, empty_ref=empty_ref)
    if result.corpus.cer is None:
        raise EmptyReferenceError("CER is undefined: every reference is empty after the policy")
    return result.corpus.cer


def _align_one(ref: str, hyp: str, unit: Unit, pol: TextPolicy, *, edits: bool, offsets: bool) -> Alignment:
    r, h = pol(ref), pol(hyp)
    a, b, ru, hu = alignable_pair(r, h, unit)
    ops = editops(a, b)
    s, d, i = count_ops(ops)
    stats = tuple.__new__(LineStats, (s, d, i, len(ru), None))
    ed = to_edits(ops, ru, hu) if edits else []
    have_offsets = False
    if edits and offsets:
        rmap = _identity_map(ref) if pol.is_identity else pol.offset_map(ref)
        hmap = _identity_map(hyp) if pol.is_identity else pol.offset_map(hyp)
        rs, hs = unit_spans(ru, rmap), unit_spans(hu, hmap)
        if rs is not None and hs is not None:
            ed = with_spans(ed, rs, hs, len(ref), len(hyp))
            have_offsets = True
    return tuple.__new__(Alignment, (r, h, ru, hu, tuple(ed), stats, have_offsets))


def _identity_map(text: str) -> list[tuple[int, int]]:
    return [(k, k + 1) for k in range(len(text))]


def _as_pairs(references: Any, hypotheses: Any, docs: Sequence[str] | Mapping[str, str] | None) -> list[_Pair]:
    from .readers import Collection, Paired, pair_collections

    if isinstance(references, Paired):
        return list(references.pairs)  # Pair has _Pair's fields in the same order
    if isinstance(references, Collection) and isinstance(hypotheses, Collection):
        return list(pair_collections(references, hypotheses).pairs)
    if isinstance(references, Mapping) and isinstance(hypotheses, Mapping):
        missing = [k for k in references if k not in hypotheses]
        extra = [k for k in hypotheses if k not in references]
        if missing or extra:
            raise InputError(
                f"ids differ: {len(missing)} only in references (e.g. {missing[:3]}), "
                f"{len(extra)} only in outputs (e.g. {extra[:3]})"
            )
        ids = [str(k) for k in references]
        refs = [references[k] for k in references]
        hyps = [hypotheses[k] for k in references]
    else:
        if isinstance(references, str) or isinstance(hypotheses, str):
            raise InputError("references and outputs must both be lists (or both dicts) of strings")
        refs, hyps = list(references), list(hypotheses)
        if len(refs) != len(hyps):
            raise InputError(f"{len(refs)} references but {len(hyps)} outputs")
        ids = [str(k + 1) for k in range(len(refs))]
    for k, (r, h) in enumerate(zip(refs, hyps)):
        if not isinstance(r, str) or not isinstance(h, str):
            raise InputError(f"item {ids[k]}: texts must be str, got {type(r).__name__} and {type(h).__name__}")
    if docs is None:
        doc_of = ids
    elif isinstance(docs, Mapping):
        doc_of = [str(docs.get(i, i)) for i in ids]
    else:
        doc_of = [str(d) for d in docs]
        if len(doc_of) != len(ids):
            raise InputError(f"{len(doc_of)} document ids for {len(ids)} lines")
    return [_Pair(i, r, h, d, None) for i, r, h, d in zip(ids, refs, hyps, doc_of)]


def evaluate(
    references: Any,
    hypotheses: Any = None,
    *,
    unit: Unit = "grapheme",
    policy: str | TextPolicy | None = None,
    empty_ref: str = "error",
    docs: Sequence[str] | Mapping[str, str] | None = None,
    edits: bool = False,
    offsets: bool = False,
    judge: Any = None,
    store: Any = None,
    progress: bool = False,
) -> Evaluation:
    """Score a corpus: per line, per document, corpus CER and document-mean CER (and semCER with a judge).

    ``references``/``hypotheses`` are two lists of strings (ids 1..n; each line is its own document
    unless ``docs`` says otherwise), two dicts id → text, two :class:`semcer.readers.Collection`, or a
    :class:`semcer.readers.Paired` alone. With ``judge`` (a :class:`semcer.judges.base.Judge`, or a
    name such as ``"rubric"``), every grapheme edit is charged a severity and semCER is reported;
    ``store`` (a path or :class:`semcer.store.JudgedEditStore`) caches judged edits.
    """
    check_unit(unit)
    if empty_ref not in EMPTY_REF_POLICIES:
        raise SemcerError(f"unknown empty-reference policy {empty_ref!r}; choose one of: {', '.join(EMPTY_REF_POLICIES)}")
    pol = get_policy(policy)
    with _no_cyclic_gc():
        pairs = _as_pairs(references, hypotheses, docs)
    if not pairs:
        raise InputError("nothing to score: no lines")
    if judge is not None:
        from .judges import resolve_judge

        judge = resolve_judge(judge)
        need_edits = True
    else:
        need_edits = edits

    rows, skipped = _score_lines(pairs, unit, pol, empty_ref, need_edits, offsets, progress)
    judged = None
    summary: dict[str, Any] = {}
    if judge is not None:
        from .scoring import judge_lines

        rows, judged, summary = judge_lines(rows, judge, store=store, progress=progress)
        if not edits:
            rows = [r._replace(edits=None, alignment=None) for r in rows]

    with _no_cyclic_gc():
        return _aggregate(rows, Signature.build(unit, pol, empty_ref, judge.identity if judge else None),
                          tuple(skipped), judged, summary)


def _score_lines(pairs, unit, pol, empty_ref, need_edits, offsets, progress):
    """The hot loop: policy, units, alignment and statistics of every line (no per-line helpers
    on the common path: a function call costs as much as the whole grapheme check)."""
    rows: list[LineResult] = []
    skipped: list[str] = []
    with _no_cyclic_gc():
        _loop(pairs, unit, pol, empty_ref, need_edits, offsets, progress, rows, skipped)
    return rows, skipped


@contextlib.contextmanager
def _no_cyclic_gc():
    """Pause the cyclic garbage collector while millions of small acyclic objects are built.

    Every line leaves a few tuples alive; the collector would walk all of them again and again
    (about 40% of the time at 100k lines). None of these objects can form a cycle, and the
    collector's previous state is restored afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _loop(pairs, unit, pol, empty_ref, need_edits, offsets, progress, rows, skipped) -> None:
    bar = _progress(len(pairs), progress, "aligning")
    fast = not need_edits and not offsets
    identity = pol.is_identity
    cp = unit == "codepoint"
    raw_editops = Levenshtein.editops
    new = tuple.__new__
    for p in pairs:
        if fast:
            r = p.ref if identity else pol(p.ref)
            h = p.hyp if identity else pol(p.hyp)
            if cp:
                a, b, n = r, h, len(r)
            else:
                a, b, ru, _ = alignable_pair(r, h, unit)
                n = len(ru)
            s = d = 0
            ops = raw_editops(a, b).as_list()
            for tag, _, _ in ops:
                if tag == "replace":
                    s += 1
                elif tag == "delete":
                    d += 1
            stats = new(LineStats, (s, d, len(ops) - s - d, n, None))
            al = None
        else:
            al = _align_one(p.ref, p.hyp, unit, pol, edits=True, offsets=offsets)
            stats = al.stats
        if stats.units == 0:
            if empty_ref == "error":
                bar.close()
                detail = "" if not p.ref else f" after policy {pol.name!r} (raw reference {p.ref!r})"
                raise EmptyReferenceError(
                    f"line {p.id!r}: the reference is empty{detail}, so its CER is undefined; "
                    "use --empty-ref skip or --empty-ref insertions to choose how such lines count"
                )
            if empty_ref == "skip":
                skipped.append(p.id)
                bar.update(1)
                continue
        rows.append(new(LineResult, (p.id, p.doc, p.lang, stats, al.edits if al else None, al)))
        bar.update(1)
    bar.close()


def _aggregate(rows: list[LineResult], sig: Signature, skipped: tuple[str, ...], judged, summary) -> Evaluation:
    by_doc: dict[str, list] = {}
    for r in rows:
        acc = by_doc.get(r.doc)
        if acc is None:
            by_doc[r.doc] = [r.stats]
        else:
            acc.append(r.stats)
    new = tuple.__new__
    documents = tuple(
        new(DocumentResult, (d, _single(st[0]) if len(st) == 1 else total(st))) for d, st in by_doc.items()
    )
    corpus = total([r.stats for r in rows])
    dm_cer, n_def = mean_defined([d.totals.cer for d in documents])
    dm_sem, _ = mean_defined([d.totals.semcer for d in documents]) if sig.judge else (None, 0)
    return Evaluation(sig, tuple(rows), documents, corpus, dm_cer, dm_sem, n_def, skipped, judged, summary)


def _single(st: LineStats) -> Totals:
    return tuple.__new__(Totals, (st[0], st[1], st[2], st[3], 1, st[4]))


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total_: int, enabled: bool, desc: str):
    if not enabled or total_ < 2000:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total_, desc=desc, unit="line", leave=False, mininterval=0.2)
