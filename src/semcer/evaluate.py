"""The Python API: ``cer``, ``align`` and corpus-level ``evaluate``. The CLI is a thin layer over it."""

from __future__ import annotations

import contextlib
import gc
import os
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from operator import eq, itemgetter
from typing import Any, NamedTuple

import numpy as np
from rapidfuzz.distance import Levenshtein

from .align import Edit, count_ops, editops, to_edits, unit_spans, with_spans
from .cluster_ids import Clusters, cluster_ids
from .errors import EmptyReferenceError, InputError, SemcerError
from .policy import TextPolicy, get_policy
from .scan import JOINS, NFC, SLOW_SEGMENT, scan
from .signature import Signature
from .stats import LineStats, Totals, mean_defined, total
from .units import _CLUSTER, Unit, alignable_pair, check_unit, fast_splitter

#: Lines prepared at once (policy and flags for the whole chunk, then line by line).
_CHUNK = 20000

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
    _documents: tuple[DocumentResult, ...] | None  # None: every line is its own document (built on first use)
    corpus: Totals
    document_mean_cer: float | None
    document_mean_semcer: float | None
    documents_defined: int
    skipped_empty: tuple[str, ...] = ()
    judged: list[Any] | None = None  # JudgedEdit rows when a judge ran
    judge_summary: dict[str, Any] = field(default_factory=dict)

    @property
    def documents(self) -> tuple[DocumentResult, ...]:
        """Summed statistics per document, in order of first appearance."""
        docs = self._documents
        if docs is None:
            new = tuple.__new__
            docs = tuple(new(DocumentResult, (r[1], new(Totals, (st[0], st[1], st[2], st[3], 1, st[4]))))
                         for r in self.lines for st in (r[3],))
            object.__setattr__(self, "_documents", docs)
        return docs

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
    ed = to_edits(ops, ru, hu) if edits else ()
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
        ids = list(map(str, range(1, len(refs) + 1)))
    if not set(map(type, refs)) <= {str} or not set(map(type, hyps)) <= {str}:
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
    return list(map(tuple.__new__, repeat(_Pair), zip(ids, refs, hyps, doc_of, repeat(None))))


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
    if judge is None:  # nothing but semcer's own acyclic objects: the collector stays paused throughout
        with _no_cyclic_gc(settle=True):
            pairs = _as_pairs(references, hypotheses, docs)
            if not pairs:
                raise InputError("nothing to score: no lines")
            rows, skipped = _score_lines(pairs, unit, pol, empty_ref, edits, offsets, progress)
            del pairs  # freed now rather than walked by the collector when it resumes
            return _aggregate(rows, Signature.build(unit, pol, empty_ref, None), tuple(skipped), None, {})

    from .judges import resolve_judge
    from .scoring import judge_lines

    judge = resolve_judge(judge)
    with _no_cyclic_gc():
        pairs = _as_pairs(references, hypotheses, docs)
    if not pairs:
        raise InputError("nothing to score: no lines")
    rows, skipped = _score_lines(pairs, unit, pol, empty_ref, True, offsets, progress)
    rows, judged, summary = judge_lines(rows, judge, store=store, progress=progress)
    if not edits:
        rows = [r._replace(edits=None, alignment=None) for r in rows]
    with _no_cyclic_gc():
        return _aggregate(rows, Signature.build(unit, pol, empty_ref, judge.identity), tuple(skipped), judged, summary)


def _score_lines(pairs, unit, pol, empty_ref, need_edits, offsets, progress):
    """The hot loop: policy, units, alignment and statistics of every line (no per-line helpers
    on the common path: a function call costs as much as the whole grapheme check)."""
    rows: list[LineResult] = []
    skipped: list[str] = []
    with _no_cyclic_gc():
        _loop(pairs, unit, pol, empty_ref, need_edits, offsets, progress, rows, skipped)
    return rows, skipped


@contextlib.contextmanager
def _no_cyclic_gc(settle: bool = False):
    """Pause the cyclic garbage collector while millions of small acyclic objects are built.

    Every line leaves a few tuples alive; the collector would walk all of them again and again
    (about 40% of the time at 100k lines). None of these objects can form a cycle, and the
    collector's previous state is restored afterwards. With ``settle``, the objects made meanwhile
    are then moved to the oldest generation (``gc.freeze()`` + ``gc.unfreeze()``, which costs
    nothing) instead of being walked once more by the next young collection (about a fifth of
    the time of a whole evaluation); only a full collection looks at them again. Skipped when the
    program has frozen objects of its own, which ``gc.unfreeze()`` would release.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if settle and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _prepared(texts: list[str], unit: Unit, pol: TextPolicy) -> tuple[list[str], np.ndarray | None]:
    """Policy-applied ``texts`` and, for graphemes, each one's :mod:`semcer.scan` flags.

    With the default ``nfc`` policy only strings flagged as possibly non-NFC are looked at again;
    the others are already NFC and stay the same objects.
    """
    cp = unit == "codepoint"
    if pol.is_identity and cp:
        return texts, None
    if pol.steps == ("nfc",) or pol.is_identity:
        flags = scan(texts)
        if not pol.is_identity:
            changed = []
            for k in np.flatnonzero(flags & NFC).tolist():
                t = texts[k]
                if not unicodedata.is_normalized("NFC", t):
                    texts[k] = unicodedata.normalize("NFC", t)
                    changed.append(k)
            if changed and not cp:
                flags[changed] = scan([texts[k] for k in changed])
    else:
        texts = list(map(pol, texts))
        if cp:
            return texts, None
        flags = scan(texts)
    return texts, None if cp else flags


def _sequences(texts: list[str], flags: np.ndarray | None, n: int, names: bool, same: np.ndarray) -> tuple[list, dict[str, str]]:
    """What to align for each of the ``2n`` texts (references, then outputs) and the id names.

    A text whose code points are its clusters is aligned as itself; the other texts are segmented
    together by :func:`semcer.cluster_ids.cluster_ids` into id strings. A pair where either side
    needs ``\\X`` (``SLOW_SEGMENT``) is aligned as two lists of cluster strings instead. The
    outputs of pairs that are the ``same`` as their reference are not segmented (never aligned).
    """
    if flags is None:
        return texts, {}
    seqs = list(texts)
    slow = (flags[:n] | flags[n:]) & SLOW_SEGMENT != 0
    batch = np.flatnonzero((flags & JOINS != 0) & ~np.concatenate([slow, slow | same])).tolist()
    found = cluster_ids([texts[k] for k in batch], names=names) if batch else None
    named: dict[str, str] = {}
    fsplit = fast_splitter() or _CLUSTER.findall
    if found is None:  # more distinct clusters than ids: one by one
        for k in batch:
            seqs[k] = fsplit(texts[k])
    else:
        ids, named = found
        for k, s in zip(batch, ids):
            seqs[k] = s
    if slow.any():
        for k in np.flatnonzero(np.tile(slow, 2)).tolist():
            t, f = texts[k], int(flags[k])
            seqs[k] = _CLUSTER.findall(t) if f & SLOW_SEGMENT else fsplit(t) if f & JOINS else list(t)
    return seqs, named


def _loop(pairs, unit, pol, empty_ref, need_edits, offsets, progress, rows, skipped) -> None:
    """Chunk by chunk: policy and flags for all texts at once (:func:`_prepared`), the units to
    align (:func:`_sequences`), then per line the alignment, the counts and the results, in C
    (``semcer._speedups``) when it was built, else in :func:`_python_lines`."""
    bar = _progress(len(pairs), progress, "aligning")
    new = tuple.__new__
    append = rows.append
    get_ref, get_hyp = itemgetter(1), itemgetter(2)
    fast = _fast_lines()
    for lo in range(0, len(pairs), _CHUNK):
        chunk = pairs[lo : lo + _CHUNK]
        n = len(chunk)
        if offsets:
            for p in chunk:
                al = _align_one(p[1], p[2], unit, pol, edits=True, offsets=True)
                if al.stats[3] or _keep_empty(p, pol, empty_ref, skipped, bar):
                    append(new(LineResult, (p[0], p[3], p[4], al.stats, al.edits, al)))
            bar.update(n)
            continue
        refs, hyps = list(map(get_ref, chunk)), list(map(get_hyp, chunk))
        same = np.fromiter(map(eq, refs, hyps), dtype=bool, count=n)  # exact lines: prepared once
        differ = np.flatnonzero(~same).tolist()
        texts, flags = _prepared(refs + [hyps[k] for k in differ], unit, pol)
        hyps = texts[:n]
        for k, t in zip(differ, texts[n:]):
            hyps[k] = t
        if flags is not None:
            hflags = flags[:n].copy()
            hflags[differ] = flags[n:]
            flags = np.concatenate([flags[:n], hflags])
        texts[n:] = hyps
        seqs, names = _sequences(texts, flags, n, need_edits, same)
        k = 0
        while k < n:
            if fast is None:
                _python_lines(chunk, texts, seqs, names, need_edits, k, n, rows, pol, empty_ref, skipped, bar)
                break
            empty = fast(chunk, texts, seqs, names, need_edits, k, rows)
            if empty < 0:
                break
            _python_lines(chunk, texts, seqs, names, need_edits, empty, empty + 1, rows, pol, empty_ref, skipped, bar)
            k = empty + 1
        bar.update(n)
    bar.close()


def _python_lines(chunk, texts, seqs, names, need_edits, start, stop, rows, pol, empty_ref, skipped, bar) -> None:
    """Lines ``start:stop`` of a chunk: alignment, counts and results, appended to ``rows``.

    ``texts`` are the ``2n`` policy-applied references then outputs, ``seqs`` what is aligned for
    each: the text itself, its id string (:mod:`semcer.cluster_ids`) or a list of clusters. The C
    loop (``_speedups.c``) does the same and hands lines with an empty reference to this one.
    """
    n = len(chunk)
    raw_editops = Levenshtein.editops
    new = tuple.__new__
    first = itemgetter(0)
    append = rows.append
    for p, r, h, a, b in zip(chunk[start:stop], texts[start:stop], texts[n + start : n + stop],
                             seqs[start:stop], seqs[n + start : n + stop]):
        if h == r:
            b = a
            ops = []
            stats = new(LineStats, (0, 0, 0, len(a), None))
        else:
            ops = raw_editops(a, b).as_list()
            # deletions - insertions = len(a) - len(b), so one count gives all three
            i = list(map(first, ops)).count("insert")
            d = i + len(a) - len(b)
            stats = new(LineStats, (len(ops) - i - d, d, i, len(a), None))
        if not a and not _keep_empty(p, pol, empty_ref, skipped, bar):
            continue
        if need_edits:
            ru = a if a is r or type(a) is list else Clusters(a, names)
            hu = ru if b is a else b if b is h or type(b) is list else Clusters(b, names)
            ed = to_edits(ops, a, b, names if ru is not a or hu is not b else None)
            append(new(LineResult, (p[0], p[3], p[4], stats, ed, new(Alignment, (r, h, ru, hu, ed, stats, False)))))
        else:
            append(new(LineResult, (p[0], p[3], p[4], stats, None, None)))


@lru_cache(maxsize=1)
def _fast_lines():
    """The C loop (``semcer._speedups.lines``), or None when it was not built or
    ``SEMCER_PURE_PYTHON=1`` asks for the Python loop."""
    if os.environ.get("SEMCER_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from . import _speedups
    except ImportError:
        return None
    _speedups.setup(Levenshtein.editops, Clusters, LineStats, LineResult, Alignment, Edit)
    return _speedups.lines


def _keep_empty(p: _Pair, pol: TextPolicy, empty_ref: str, skipped: list[str], bar) -> bool:
    """A line whose reference is empty after the policy: an error, skipped, or kept (insertions)."""
    if empty_ref == "error":
        bar.close()
        detail = "" if not p.ref else f" after policy {pol.name!r} (raw reference {p.ref!r})"
        raise EmptyReferenceError(
            f"line {p.id!r}: the reference is empty{detail}, so its CER is undefined; "
            "use --empty-ref skip or --empty-ref insertions to choose how such lines count"
        )
    if empty_ref == "skip":
        skipped.append(p.id)
        return False
    return True


def _aggregate(rows: list[LineResult], sig: Signature, skipped: tuple[str, ...], judged, summary) -> Evaluation:
    stats = [r[3] for r in rows]
    docs = [r[1] for r in rows]
    documents: tuple[DocumentResult, ...] | None = None
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
    corpus = total(stats)
    dm_cer, n_def, dm_sem = None, 0, None
    if per_doc:
        s, d, i, u = list(zip(*per_doc))[:4]
        units = np.asarray(u, dtype=np.int64)
        defined = units > 0
        edits = np.asarray(s, dtype=np.int64) + np.asarray(d, dtype=np.int64) + np.asarray(i, dtype=np.int64)
        dm_cer, n_def = mean_defined((edits[defined] / units[defined]).tolist())
        if sig.judge:
            dm_sem, _ = mean_defined([t.semcer for t in per_doc])
    return Evaluation(sig, tuple(rows), documents, corpus, dm_cer, dm_sem, n_def, skipped, judged, summary)


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
