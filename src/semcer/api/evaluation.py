"""Scoring one system: ``cer``, ``align``, corpus-level ``evaluate`` and ``judge_corpus``, wiring the layers below.

``evaluate`` coerces its inputs into pairs, runs the line engine, judges the edits through the
store when a judge is given, and aggregates. It changes nothing in the interpreter: no collector
switch, no global state (for very large corpora wrap calls in
:func:`semcer.scale.gc.collector_paused`, as the command line does). A judge or store it opens
from a name or path it also closes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import repeat
from typing import Any

from semcer.alignment.engine import Pair, align_lines, align_one, check_empty_ref
from semcer.alignment.line import Alignment, LineResult
from semcer.errors import EmptyReferenceError, InputError, quoted
from semcer.io.collections import Collection, first_bad_language, language_error, read_collection
from semcer.io.formats.provenance import Provenance
from semcer.io.pairing import Paired, check_unmatched, pair_collections
from semcer.judges import resolve_judge
from semcer.judges.base import JudgeBase, check_judged_unit
from semcer.metrics.aggregate import aggregate
from semcer.metrics.fca import LineAssignment, line_assignment_cer, page_score_signature
from semcer.metrics.results import Evaluation, LeftOut, ReadFailure, SkippedElement, Unmatched
from semcer.metrics.signature import Signature
from semcer.metrics.wer import WerResult, wer
from semcer.reports.progress import judge_bar, line_bar
from semcer.store.judging import judge_into_store, judge_rows, line_contexts
from semcer.store.sqlite import JudgedEditStore
from semcer.text.policy import TextPolicy, get_policy
from semcer.text.script import canonical_lang
from semcer.text.units import Unit, check_unit


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
    return align_one(reference, hypothesis, unit, get_policy(policy), edits=True, offsets=offsets)


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
        check_empty_ref(empty_ref)
        stats = align_one(reference, hypothesis, unit, get_policy(policy), edits=False, offsets=False).stats  # type: ignore[arg-type]
        if stats.units:
            return stats.edits / stats.units
        reference, hypothesis = [reference], [hypothesis]  # type: ignore[list-item]  # the error path
    result = evaluate(reference, hypothesis, unit=unit, policy=policy, empty_ref=empty_ref)
    if result.corpus.cer is None:
        raise EmptyReferenceError("CER is undefined: every reference is empty after the policy")
    return result.corpus.cer


def evaluate(
    references: Any,
    hypotheses: Any = None,
    *,
    unit: Unit = "grapheme",
    policy: str | TextPolicy | None = None,
    empty_ref: str = "error",
    docs: Sequence[str] | Mapping[str, str] | None = None,
    langs: Sequence[str | None] | Mapping[str, str] | str | None = None,
    unmatched: str = "error",
    edits: bool = False,
    offsets: bool = False,
    judge: Any = None,
    store: Any = None,
    progress: bool = False,
) -> Evaluation:
    """Score a corpus: per line, per document, corpus CER and document-mean CER (and semCER with a judge).

    ``references``/``hypotheses`` are two lists of strings (ids 1..n; each line is its own document
    unless ``docs`` says otherwise, and has the language ``langs`` gives: one tag for all, a list,
    or a dict id -> tag), two dicts id -> text, two paths of input files or directories (any format
    ``semcer cer`` reads; ids matched under ``unmatched``; ``langs`` one tag, for the lines that name
    none), two
    :class:`semcer.io.collections.Collection`, or a :class:`semcer.io.pairing.Paired` alone. With
    ``judge`` (a judge object, or a name such as ``"rubric"``), every grapheme edit is charged a
    severity and semCER is reported; ``store`` (a path or :class:`semcer.store.sqlite.JudgedEditStore`)
    caches judged edits. ``progress`` shows bars on standard error for long steps. For inputs read
    from page files each judged edit names the element it falls in on each side
    (:mod:`semcer.io.formats.provenance`); two paths or collections also record what reading them left out.
    """
    check_unit(unit)
    check_empty_ref(empty_ref)
    if judge is not None:
        check_judged_unit(unit)
    if store is not None and judge is None:
        raise InputError("store= keeps judged edits: give a judge too, or leave the store out")
    pol = get_policy(policy)
    references, hypotheses = _collections_of(references, hypotheses)
    gaps = left_out(references, hypotheses)
    pairs, unmatched_ids, provenance, reading = _as_pairs(references, hypotheses, docs, langs, unmatched)
    if not pairs:
        raise InputError("nothing to score: no lines")
    rows, skipped = _aligned(pairs, unit, pol, empty_ref, edits or judge is not None, offsets, progress)
    del pairs
    if judge is None:
        agg = aggregate([r[3] for r in rows], [r[1] for r in rows], judged=False)
        return Evaluation(Signature.build(unit, pol, empty_ref, None, unmatched=unmatched_ids.policy, reading=reading),
                          tuple(rows), agg, tuple(skipped), unmatched=unmatched_ids, left_out=gaps)
    with opened_judge(judge) as j, opened_store(store) as st, contextlib.ExitStack() as stack:
        jbar = judge_bar(j, sum(len(r.edits or ()) for r in rows), progress)
        if jbar is not None:
            stack.callback(jbar.close)
        rows, judged, run = judge_rows(rows, j, st, progress=jbar)
    if provenance is not None:
        judged = provenance.attach(judged, unit, pol)
    if not edits:
        rows = [r._replace(edits=None, alignment=None) for r in rows]
    agg = aggregate([r[3] for r in rows], [r[1] for r in rows], judged=True)
    return Evaluation(Signature.build(unit, pol, empty_ref, j.identity, unmatched=unmatched_ids.policy, reading=reading),
                      tuple(rows), agg, tuple(skipped), tuple(judged), run, unmatched_ids, gaps)


def _aligned(pairs: list[Pair], unit: Unit, pol: TextPolicy, empty_ref: str, edits: bool, offsets: bool,
             progress: bool) -> tuple[list[LineResult], list[str]]:
    """The lines aligned (:func:`semcer.alignment.engine.align_lines`), with a bar when ``progress``."""
    with contextlib.ExitStack() as stack:
        bar = line_bar(len(pairs), progress)
        if bar is not None:
            stack.callback(bar.close)
        return align_lines(pairs, unit, pol, empty_ref, edits=edits, offsets=offsets, progress=bar)


@contextlib.contextmanager
def opened_judge(judge: Any) -> Iterator[JudgeBase]:
    """The judge; closed afterwards when it was built here from a name."""
    if isinstance(judge, str):
        with resolve_judge(judge) as built:
            yield built
    else:
        yield resolve_judge(judge)


@contextlib.contextmanager
def opened_store(store: Any) -> Iterator[JudgedEditStore | None]:
    """The store; opened (and closed afterwards) here when given as a path."""
    if store is None or isinstance(store, JudgedEditStore):
        yield store
    else:
        with JudgedEditStore(store) as opened:
            yield opened


def _as_pairs(references: Any, hypotheses: Any, docs: Sequence[str] | Mapping[str, str] | None,
              langs: Sequence[str | None] | Mapping[str, str] | str | None, unmatched: str,
              ) -> tuple[list[Pair], Unmatched, Provenance | None, tuple[tuple[str, str], ...]]:
    """The pairs, the ids left unmatched (and the policy they were paired under) and, for inputs
    read from page files, their provenance and the signature's fields of how they were read (a
    :class:`Paired` keeps the policy it was paired under; lists and dicts, whose ids must all match,
    record ``unmatched`` as given, so that the same texts get the same signature in any form)."""
    references, hypotheses = _collections_of(references, hypotheses)
    if isinstance(references, Collection) and isinstance(hypotheses, Collection):
        references = pair_collections(references, hypotheses, unmatched=unmatched)
    if isinstance(references, Paired):
        if docs is not None or not (langs is None or isinstance(langs, str)):
            raise InputError("docs= and a list or dict of langs= apply to lists or dicts of strings; read collections "
                             "carry their own (langs='TAG' names the language of their lines that name none)")
        references = with_lang(references, langs)
        return (list(references.pairs), Unmatched(references.dropped_refs, references.dropped_hyps, references.empty_hyps,
                                                  references.unmatched), references.provenance, references.reading)
    check_unmatched(unmatched)
    ids, refs, hyps = _texts(references, hypotheses)
    if not set(map(type, refs)) <= {str} or not set(map(type, hyps)) <= {str}:
        for k, (r, h) in enumerate(zip(refs, hyps)):
            if not isinstance(r, str) or not isinstance(h, str):
                raise InputError(f"item {quoted(str(ids[k]))}: texts must be str, got {type(r).__name__} and {type(h).__name__}")
    doc_of = _per_item(docs, ids, "document ids", default=ids)
    lang_of = _per_item(langs, ids, "languages", default=[None] * len(ids))
    bad = None if langs is None else first_bad_language(lang_of)
    if bad is not None:
        raise language_error(lang_of[bad], f"item {quoted(str(ids[bad]))}")
    lang_of = [canonical_lang(lang) if lang else None for lang in lang_of]
    return (list(map(tuple.__new__, repeat(Pair), zip(ids, refs, hyps, doc_of, lang_of))), Unmatched(policy=unmatched),
            None, ())


def with_lang(paired: Paired, lang: str | None) -> Paired:
    """``lang`` (command line ``--lang``) as the language of the pairs that name none: the one rule
    of a default language, for one system (``semcer score``) as for several; in its one spelling
    (:func:`~semcer.text.script.canonical_lang`), as :func:`~semcer.io.pairing.pair_fields` gives
    the pairs' own."""
    if not lang:
        return paired
    lang = canonical_lang(lang)
    pairs = tuple(p if p.lang else p._replace(lang=lang) for p in paired.pairs)
    return replace(paired, pairs=pairs)


def _per_item(given: Any, ids: list[str], what: str, default: list[Any]) -> list[Any]:
    """One value per item from None (the default), one string for all, a sequence or a dict by id."""
    if given is None:
        return default
    if isinstance(given, str):
        return [given] * len(ids)
    if isinstance(given, Mapping):  # an id it does not list keeps the default
        return [str(given[i]) if given.get(i) is not None else d for i, d in zip(ids, default)]
    out = [None if v is None else str(v) for v in given]
    if len(out) != len(ids):
        raise InputError(f"{len(out)} {what} for {len(ids)} lines")
    return out


def left_out(references: Collection | Any, outputs: Collection | Any) -> LeftOut:
    """What reading two collections left out of the texts scored, references first: every element a
    page reader skipped (:attr:`semcer.io.formats.page.Page.skipped`, in page order) and every file of
    a directory that could not be read (:attr:`Collection.failures`, ``keep_going``). A side that is
    not a :class:`Collection` (lists, dicts, a :class:`Paired`) adds nothing."""
    elements: list[SkippedElement] = []
    failures: list[ReadFailure] = []
    for side, coll in (("references", references), ("outputs", outputs)):
        if not isinstance(coll, Collection):
            continue
        for page in coll.pages.values():
            elements += [SkippedElement(side, page.file, s.id, s.kind, s.reason, s.line, s.column) for s in page.skipped]
        failures += [ReadFailure(side, path, reason) for path, reason in coll.failures]
    return LeftOut(tuple(elements), tuple(failures))


def _collections_of(references: Any, hypotheses: Any) -> tuple[Any, Any]:
    """Two paths of input files or directories read as collections; anything else as it is."""
    if isinstance(references, (str, os.PathLike)) and isinstance(hypotheses, (str, os.PathLike)):
        return _read_paths(references, hypotheses)
    return references, hypotheses


def _read_paths(references: str | os.PathLike, hypotheses: str | os.PathLike) -> tuple[Collection, Collection]:
    """Two input files or directories read as collections (a missing path is a clear error)."""
    for path in (references, hypotheses):
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file or directory (evaluate() takes two lists or dicts of "
                             "strings, or two paths of input files; for one line use semcer.cer or semcer.align)")
    return read_collection(references), read_collection(hypotheses)


def _texts(references: Any, hypotheses: Any) -> tuple[list[str], list[Any], list[Any]]:
    """Ids, references and outputs of two dicts (matched by key) or two lists (ids 1..n)."""
    if isinstance(references, Mapping) and isinstance(hypotheses, Mapping):
        missing = [k for k in references if k not in hypotheses]
        extra = [k for k in hypotheses if k not in references]
        if missing or extra:
            raise InputError(
                f"ids differ: {len(missing)} only in references (e.g. {', '.join(map(str, missing[:3])) or 'none'}), "
                f"{len(extra)} only in outputs (e.g. {', '.join(map(str, extra[:3])) or 'none'})"
            )
        return [str(k) for k in references], [references[k] for k in references], [hypotheses[k] for k in references]
    _check_sequences(references, hypotheses)
    refs, hyps = list(references), list(hypotheses)
    if len(refs) != len(hyps):
        raise InputError(f"{len(refs)} references but {len(hyps)} outputs")
    return list(map(str, range(1, len(refs) + 1))), refs, hyps


def _check_sequences(references: Any, hypotheses: Any) -> None:
    """Refuse what cannot be two ordered sequences of texts: a string (a sequence of characters), a
    dict beside something else (its keys would be read as the texts), a set (no order to pair by).
    Any other iterable (a list, a tuple, a pandas Series, a generator) is read in its order."""
    sides = (references, hypotheses)
    why = ("a set has no order to pair by" if any(isinstance(x, (set, frozenset)) for x in sides) else
           "a dict pairs by key only with another dict" if any(isinstance(x, Mapping) for x in sides) else
           "a str is one text, not a list of them" if any(isinstance(x, str) for x in sides) else "")
    if why:
        raise InputError(f"references and outputs must both be lists (or both dicts) of strings, got "
                         f"{type(references).__name__} and {type(hypotheses).__name__}: {why}")


def judge_corpus(
    references: Any,
    hypotheses: Any = None,
    *,
    judge: Any,
    store: Any,
    unit: Unit = "grapheme",
    policy: str | TextPolicy | None = None,
    empty_ref: str = "error",
    batch_size: int | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Judge every grapheme edit of a corpus into ``store`` without scoring (``semcer judge``).

    The edits and their contexts are exactly those :func:`evaluate` would judge; edits already in
    the store are not sent again, and each batch is stored as soon as it is judged, so a killed run
    resumes where it stopped. Returns the run's summary (:func:`semcer.store.judging.run_summary`).
    """
    check_judged_unit(unit)
    result = evaluate(references, hypotheses, unit=unit, policy=policy, empty_ref=empty_ref, edits=True,
                      progress=progress)
    with opened_judge(judge) as j, opened_store(store) as st:
        contexts, _ = line_contexts(result.lines, j.context_window)
        if st is None:
            raise InputError("judging into a store needs a store: give store=PATH (command line: --store PATH)")
        bar = judge_bar(j, len(contexts), progress)
        try:
            _, summary = judge_into_store(j, contexts, st, progress=bar, batch_size=batch_size)
        finally:
            if bar is not None:
                bar.close()
    summary["store"] = str(st.path)
    return summary


def word_errors(
    references: Any,
    hypotheses: Any = None,
    *,
    tokenizer: str = "uax29",
    policy: str | TextPolicy | None = None,
    docs: Sequence[str] | Mapping[str, str] | None = None,
    langs: Sequence[str | None] | Mapping[str, str] | str | None = None,
    empty_ref: str = "error",
    unmatched: str = "error",
) -> WerResult:
    """WER and the bag-of-words error of the same inputs :func:`evaluate` takes, with a declared
    word tokenizer (:mod:`semcer.text.words`) that goes into the signature. A reference without words
    follows ``empty_ref``, the rule :func:`evaluate` applies to an empty reference (default ``error``)."""
    pairs, paired, _, reading = _as_pairs(references, hypotheses, docs, langs, unmatched)
    return wer([p.ref for p in pairs], [p.hyp for p in pairs], tokenizer=tokenizer, policy=policy,
               ids=[p.id for p in pairs], docs=[p.doc for p in pairs], langs=[p.lang for p in pairs],
               empty_ref=empty_ref, unmatched=paired.policy, reading=reading)


@dataclass(frozen=True)
class PageScores:
    """The reading-order-robust score of each page (:func:`semcer.metrics.fca.line_assignment_cer`)
    and their sum: corpus rate = Σ edits / Σ reference units, as for CER."""

    ids: tuple[str, ...]
    pages: tuple[LineAssignment, ...]
    unit: str
    policy: str
    signature: Signature

    @property
    def edits(self) -> int:
        return sum(p.edits for p in self.pages)

    @property
    def units(self) -> int:
        return sum(p.units for p in self.pages)

    @property
    def rate(self) -> float | None:
        return self.edits / self.units if self.units else None

    def to_dict(self) -> dict[str, Any]:
        return {"method": "line-assignment CER (lines matched one-to-one by minimum total edit distance, "
                "unmatched lines charged whole)", "signature": str(self.signature), "unit": self.unit,
                "policy": self.policy, "rate": self.rate,
                "edits": self.edits, "units": self.units, "pages": len(self.pages),
                "lines_deleted": sum(len(p.deleted) for p in self.pages),
                "lines_inserted": sum(len(p.inserted) for p in self.pages)}


def page_scores(references: Any, hypotheses: Any = None, *, unit: Unit = "grapheme",
                policy: str | TextPolicy | None = None, unmatched: str = "error") -> PageScores:
    """The reading-order-robust (line-assignment) score of every item of the inputs, each a page whose
    lines are separated by ``\\n``."""
    pol = get_policy(policy)
    pairs, paired, _, reading = _as_pairs(references, hypotheses, None, None, unmatched)
    return PageScores(tuple(p.id for p in pairs),
                      tuple(line_assignment_cer(p.ref, p.hyp, unit=unit, policy=pol) for p in pairs), unit, pol.name,
                      page_score_signature(unit, pol, unmatched=paired.policy, reading=reading))
