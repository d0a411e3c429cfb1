"""The data of an HTML report: everything the page shows, computed here from an evaluation, a
comparison, or the JSON that ``semcer score --json --lines --spans N`` writes; the page itself is
drawn by :mod:`semcer.reports.html` (which computes nothing).

The report's data is a plain dictionary (JSON types only):

- ``systems``: per system its corpus and document-mean CER and semCER (and counts), exactly the
  numbers of ``semcer score --json``; ``comparison``: with several systems, the difference from the
  baseline with its interval and p-values, exactly those of ``semcer compare --json``;
- ``languages``: the lines grouped by language (:func:`semcer.metrics.breakdown.breakdown`), each
  aggregated like the corpus;
- ``spans``: the most severe error spans (:mod:`semcer.metrics.spans`) of every system, ranked
  together as :func:`semcer.metrics.spans.ranked_spans` ranks them (worst edit, then summed
  severity), each with its marked pair, cut into the text
  before the span, the span and the text after it; a span's ``level`` is the highest level of its
  edits, its classes are those of its edits and its elements (``rel``/``hel``) the page elements
  its edits fall in on each side;
- ``lines``: the most severe lines (largest severity mass of any system; without a judge, most
  edits), each aligned per system as a list of segments: a string for matched text, and
  ``[op, ref_unit, hyp_unit, severity, level, class, ref_element, hyp_element]`` for each edit
  (the elements: the ids of the page regions or lines it falls in, null for other input);
- ``differ`` (compare): the lines whose semCER differs most between the systems;
- ``plots``: the plots as plain data (:mod:`semcer.reports.plots` draws them).

**Size.** The page is bounded by :class:`Limits`, not by the corpus: at most ``spans`` spans
(``--report-spans``, default 2,000), each clipped to ``clip`` graphemes of context on each side and
``span_clip`` graphemes of its own text; at most ``lines`` lines in full (``--report-lines``,
default 500) plus the ``differ`` lines of a comparison, and no more than ``text_budget`` code points
of line text in all; at most ``documents`` points per system in the per-document plot and
``languages`` languages in the per-language plot. Everything else is a fixed number of table rows.

Reader ratings (``--ratings FILE``) add the top-of-list curve of the paper's Figure 3: the ratings
file of ``semcer meta-eval`` (JSON Lines or CSV/TSV, one record per rating: ``item`` the edit's id,
``<line_id>:<op><ref_pos>,<hyp_pos>`` as in ``semcer score --edits``, ``rater``, and ``rating`` in
[0, 1] or ``level`` 0-4; :func:`read_ratings`); several ratings of one item are averaged.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN
from semcer.alignment.engine import align_one
from semcer.alignment.line import LineResult, LineStats
from semcer.api.comparison import Comparison
from semcer.errors import InputError
from semcer.io.edits import edit_id
from semcer.io.jsonl import MalformedJSON, read_document
from semcer.io.pairing import pair_collections
from semcer.judges.distribution import LEVELS, RATINGS
from semcer.metrics.breakdown import breakdown
from semcer.metrics.results import Evaluation
from semcer.metrics.spans import JudgedSpan, span_groups, span_key
from semcer.reports.text import input_notes
from semcer.statistics.ranking import top_of_list
from semcer.store.judging import JudgedEdit
from semcer.text.policy import TextPolicy, get_policy
from semcer.text.script import lang_group
from semcer.text.units import graphemes
from semcer.version import __version__

#: Version of the report's data shape (embedded in the page).
REPORT_FORMAT = "semcer-report/1"

#: The rubric's five levels (paper, Table 1), shown in the page's legend.
LEVEL_NAMES: tuple[str, ...] = (
    "cosmetic, fully recoverable", "non-word or obvious error, context recovers", "valid alternative, reader may notice",
    "recovery fails, but the error is detectable", "reads perfectly, is false, no signal",
)

#: Severity histogram bins (20 of width 0.05 over [0, 1], the last closed).
SEVERITY_BINS = 20


@dataclass(frozen=True)
class Limits:
    """What bounds the page's size (see the module documentation)."""

    lines: int = 500
    spans: int = 2000
    clip: int = 60
    span_clip: int = 200
    documents: int = 5000
    languages: int = 40
    differ: int = 100
    text_budget: int = 4_000_000
    curve_points: int = 400

    def to_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in ("lines", "spans", "clip", "span_clip", "documents", "languages",
                                               "differ", "text_budget")}


@dataclass(frozen=True)
class EditDigest:
    """What a report needs of a run's judged edits when the run did not keep them (a streamed run,
    :mod:`semcer.scale.pipeline`): the severity histogram's counts (:func:`severity_bins`), the
    failed edits, the most severe error spans (most severe first, at least ``Limits.spans``) and how
    many spans there are, the severities of the reader-rated edits (by edit id), and the line view
    (``view(k)`` -> segments of line ``k``, with ``available`` and ``prepare(ks)``)."""

    bins: tuple[int, ...]
    failed: int
    spans: tuple[JudgedSpan, ...]
    span_total: int
    rated: Mapping[str, float]
    line_view: Any


def severity_bins(severities: Iterable[float]) -> list[int]:
    """Edits per severity bin (:data:`SEVERITY_BINS` bins of equal width over [0, 1], the last closed)."""
    counts = [0] * SEVERITY_BINS
    for v in severities:
        counts[min(int(v * SEVERITY_BINS), SEVERITY_BINS - 1)] += 1
    return counts


# ---------------------------------------------------------------------------------------------
# What each system contributes, whatever the source (an Evaluation, or a score JSON)


@dataclass
class _System:
    """One system's part of the report, whatever its source."""

    name: str
    judged: bool
    corpus: dict[str, Any]
    document_mean: dict[str, Any]
    judge: dict[str, Any] | None
    stats: list[LineStats]  # per line, in corpus order
    line_keys: list[tuple[str, str | None]]  # (doc, lang) per line
    documents: list[tuple[str, float | None, float | None, int]]  # doc, cer, semcer, units
    severities: list[float] | None = None  # every edit's severity (failed edits left out); None: not available
    failed: int = 0
    spans: Callable[[], Iterable[Any]] | None = None  # JudgedSpan objects or checked span rows of a JSON
    span_total: int | None = None
    edit_severities: Callable[[], dict[str, float]] | None = None  # edit id -> severity (the top-of-list curve)
    line_view: Any = None  # callable(k) -> segments or None, with .available (and .prepare(ks))
    languages: list[dict[str, Any]] | None = None  # per language, when given rather than computed from the lines
    bins: list[int] | None = None  # instead of severities: only their histogram's counts (severity_bins)


def _corpus_numbers(ev: Evaluation) -> tuple[dict[str, Any], dict[str, Any]]:
    d = ev.to_dict()
    return d["corpus"], d["document_mean"]


# ---------------------------------------------------------------------------------------------
# Public entry points


def evaluation_report(ev: Evaluation, *, name: str = "system", references: str = "", limits: Limits = Limits(),
                      ratings: Mapping[str, float] | None = None, pairs: Any = None, policy: str | TextPolicy | None = None,
                      title: str | None = None, digest: EditDigest | None = None) -> dict[str, Any]:
    """The report data of one scored system. The line view needs the lines' alignments: an
    evaluation made with ``edits=True`` has them; otherwise give ``pairs`` (a
    :class:`semcer.io.pairing.Paired`) and the ``policy`` it was scored with, and the shown lines are
    aligned again (the same alignment: it is deterministic); or, for a run that kept no edits, its
    :class:`EditDigest` (which has its own line view)."""
    system = _from_evaluation(ev, name, pairs, policy)
    if digest is not None:
        _digested(system, digest)
    ids = [(r.id, r.doc, r.lang) for r in ev.lines]
    return _assemble([system], ids, str(ev.signature), ev.signature.fields(), limits, ratings, None,
                     kind="score", title=title, references=references, notes=_evaluation_notes(ev))


def comparison_report(cmp: Comparison, *, references: Any = None, systems: Sequence[Any] | None = None,
                      unmatched: str = "error", policy: str | TextPolicy | None = None, reference_name: str = "",
                      limits: Limits = Limits(), ratings: Mapping[str, float] | None = None,
                      title: str | None = None) -> dict[str, Any]:
    """The report data of a comparison. With ``references`` and ``systems`` (the collections that
    were compared) and the ``policy``, the shown lines are aligned again for the line view (a
    comparison keeps only each line's statistics and judged edits); without them the page says the
    line view is not available."""
    out_systems = []
    for k, (name, ev) in enumerate(zip(cmp.names, cmp.evaluations)):
        pairs = None
        if references is not None and systems is not None:
            pairs = pair_collections(references, systems[k], unmatched=unmatched)
        out_systems.append(_from_evaluation(ev, name, pairs, policy))
    base = cmp.evaluations[0]
    ids = [(r.id, r.doc, r.lang) for r in base.lines]
    sig = cmp.signature.fields()
    comparison = {
        "baseline": cmp.names[0], "documents": cmp.documents, "level": sig.get("cmp") or "",
        "shuffles": sig.get("ar") or "", "notes": list(cmp.notes),
        "results": {m: {a: [_metric(r) for r in rows] for a, rows in by_agg.items()} for m, by_agg in cmp.results.items()},
    }
    notes: list[str] = []
    for name, ev in zip(cmp.names, cmp.evaluations):  # those the comparison's own notes hold are shown there
        notes += [n for n in (f"{name}: {n}" for n in _evaluation_notes(ev, unmatched)) if n not in cmp.notes]
    return _assemble(out_systems, ids, str(cmp.signature), sig, limits, ratings, comparison, kind="compare",
                     title=title, references=reference_name, notes=notes)


def score_json_report(obj: Any, *, source: str = "SCORE.json", limits: Limits = Limits(),
                      ratings: Mapping[str, float] | None = None, title: str | None = None) -> dict[str, Any]:
    """The report data of a JSON written by ``semcer score --json`` (best with ``--lines --spans N``):
    what the file lacks, the page says it cannot show."""
    js = _ScoreJSON(obj, source)
    system = js.system()
    data = _assemble([system], js.ids, js.signature, js.fields, limits, ratings, None, kind="score-json",
                     title=title, references="", notes=js.notes)
    data["missing"] = js.missing + data["missing"]
    return data


def read_score_json(path: str) -> Any:
    """A JSON document as parsed by semcer's one JSON reader (hostile JSON refused), one-line errors."""
    try:
        return read_document(path)
    except MalformedJSON as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        raise InputError(f"{path}: not a `semcer score --json` output ({reason}); with one input, semcer report reads "
                         "such a file; to score a system give REFS and SYS: semcer report REFS SYS --html FILE") from None


def read_ratings(path: str) -> dict[str, float]:
    """Each rated item's mean rating, from a ratings file read as ``semcer meta-eval --ratings``
    reads it (:func:`semcer.io.ratings.read_ratings`: JSON Lines or CSV/TSV; ``item``, ``level``
    0-4 or ``rating`` in [0, 1], and ``rater``, which may be left out here: each rating counts)."""
    from semcer.io.ratings import read_ratings as read_rows

    sums: dict[str, list[float]] = {}
    for r in read_rows(path, rater_optional=True):
        acc = sums.setdefault(r.item, [0.0, 0])
        acc[0] += r.value
        acc[1] += 1
    return {item: total / n for item, (total, n) in sums.items()}


def score_json_blocks(ev: Evaluation, payload: dict[str, Any], spans: int) -> dict[str, Any]:
    """``payload`` (``ev.to_dict(...)``) with the ``spans`` block of ``semcer score --json --spans N``:
    the N most severe error spans with their marked pairs, and, when ``payload`` has line rows, each
    row's ``ref``/``hyp`` (after the text policy) and ``edits``; needs an evaluation with its edits."""
    judged = ev.judged or ()
    sev = [j.judgement.severity for j in judged]
    top = heapq.nsmallest(spans, _lazy_spans(judged, sev), key=lambda sp: sp.key) if spans else []
    payload["spans"] = spans_json(sp.build() for sp in top)
    rows = payload.get("lines")
    if rows is not None:
        k = 0
        for row, line in zip(rows, ev.lines):
            al = line.alignment
            n = len(line.edits or ())
            mine = judged[k:k + n] if judged else [None] * n
            k += n if judged else 0
            if al is None:
                continue
            row["ref"], row["hyp"] = al.ref, al.hyp
            ref_at, hyp_at = _offsets(al.ref_units), _offsets(al.hyp_units)
            row["edits"] = [_edit_json(line.id, e, j, ref_at, hyp_at) for e, j in zip(line.edits or (), mine)]
    return payload


def spans_json(spans: Iterable[JudgedSpan]) -> list[dict[str, Any]]:
    """The ``spans`` block of ``semcer score --json --spans N``: each span with its marked pair."""
    return [_span_json(sp) for sp in spans]


# ---------------------------------------------------------------------------------------------
# From an Evaluation


def _from_evaluation(ev: Evaluation, name: str, pairs: Any, policy: str | TextPolicy | None) -> _System:
    judged = bool(ev.signature.judge)
    corpus, mean = _corpus_numbers(ev)
    system = _System(name, judged, corpus, mean, {"identity": ev.signature.judge, **ev.judge_summary} if judged else None,
                     [r.stats for r in ev.lines], [(r.doc, r.lang) for r in ev.lines],
                     [(d.doc, d.totals.cer, d.totals.semcer, d.totals.units) for d in ev.documents])
    if ev.judged is not None:
        judged_edits = ev.judged
        every = [j.judgement.severity for j in judged_edits]  # once: a judgement computes it on each call
        system.severities = [s for s in every if s is not None]
        system.failed = len(judged_edits) - len(system.severities)
        system.spans = lambda: _lazy_spans(judged_edits, every)
        system.edit_severities = lambda: {edit_id(j.line_id, j.edit.op, j.edit.ref_pos, j.edit.hyp_pos): j.judgement.severity
                                          for j in judged_edits if j.judgement.severity is not None}
    system.line_view = _EvaluationLines(ev, pairs, policy)
    return system


def _digested(system: _System, d: EditDigest) -> None:
    system.bins, system.failed = list(d.bins), d.failed
    system.spans, system.span_total = (lambda: d.spans), d.span_total
    system.edit_severities = lambda: dict(d.rated)
    system.line_view = d.line_view


class _EvaluationLines:
    """The aligned segments of a line of an evaluation, by its index (from the kept alignment, or
    by aligning the pair again)."""

    def __init__(self, ev: Evaluation, pairs: Any, policy: str | TextPolicy | None) -> None:
        self.ev = ev
        self.unit = ev.signature.unit
        self.pairs = None if pairs is None else {p.id: p for p in pairs.pairs}
        self.policy = None
        if pairs is not None:
            pol = get_policy(policy)
            if pol.hash != ev.signature.policy_hash:
                raise InputError(f"the policy given for the line view ({pol.name}) is not the one scored "
                                 f"({ev.signature.policy})")
            self.policy = pol
        self.judged: dict[str, list[JudgedEdit]] = {}
        self.available = any(r.alignment is not None for r in ev.lines[:1]) or self.pairs is not None

    def prepare(self, ks: Iterable[int]) -> None:
        """Collect the judged edits of the lines ``ks`` (one pass over the judged edits)."""
        want = {self.ev.lines[k].id for k in ks}
        for j in self.ev.judged or ():
            if j.line_id in want:
                self.judged.setdefault(j.line_id, []).append(j)

    def __call__(self, k: int) -> list[Any] | None:
        line = self.ev.lines[k]
        al = line.alignment
        if al is None:
            pair = None if self.pairs is None else self.pairs.get(line.id)
            if pair is None or self.policy is None:
                return None
            al = align_one(pair.ref, pair.hyp, self.unit, self.policy, edits=True, offsets=False)  # type: ignore[arg-type]
        judged = self.judged.get(line.id, [])
        edits = al.edits
        if judged and [tuple(j.edit[:5]) for j in judged] != [tuple(e[:5]) for e in edits]:
            return None  # not the alignment that was judged (cannot happen with the same inputs)
        marks = [(j.judgement.severity, j.judgement.mode, j.judgement.edit_class, element_id(j.ref_element),
                  element_id(j.hyp_element)) for j in judged] or [(None, None, "", None, None)] * len(edits)
        return line_segments(al.ref_units, edits, marks)


def element_id(element: Any) -> str | None:
    """The id of an element (None for none)."""
    return None if element is None else element.id


def line_segments(ref_units: Sequence[str], edits: Sequence[Any], marks: Sequence[tuple[Any, ...]]) -> list[Any]:
    """A line as matched text (strings) and edits ([op, ref_unit, hyp_unit, severity, level, class,
    reference element, output element])."""
    segs: list[Any] = []
    rp = 0
    for e, (sev, mode, cls, rel, hel) in zip(edits, marks):
        if e.ref_pos > rp:
            segs.append("".join(ref_units[rp:e.ref_pos]))
        segs.append([e.op, e.ref_unit, e.hyp_unit, sev, mode, cls or "", rel, hel])
        rp = e.ref_pos + (e.op != "I")
    if rp < len(ref_units):
        segs.append("".join(ref_units[rp:]))
    return segs


def _evaluation_notes(ev: Evaluation, unmatched: str | None = None) -> list[str]:
    notes = input_notes(ev, unmatched)
    failures = ev.judge_summary.get("failures")
    if failures:
        notes.append(f"{failures} edit(s) could not be judged; semCER is undefined until they are (rerun to retry them)")
    return notes


def _metric(r: Any) -> dict[str, Any]:
    d = r.to_dict()
    d["significant"] = r.significant
    return d


# ---------------------------------------------------------------------------------------------
# Spans


class _LazySpan:
    """A span of judged edits ``judged[a:b]`` with its rank key (the order of
    :func:`semcer.metrics.spans.ranked_spans`: failed last, worst edit, then summed severity), made
    a :class:`JudgedSpan` only when it is shown."""

    __slots__ = ("a", "b", "judged", "key", "number")

    def __init__(self, judged: Sequence[JudgedEdit], a: int, b: int, number: int, key: tuple[bool, float, float]):
        self.judged, self.a, self.b, self.number, self.key = judged, a, b, number, key

    def build(self) -> JudgedSpan:
        first = self.judged[self.a]
        return JudgedSpan(f"{first.line_id}#{self.number}", first.line_id, first.doc, first.lang,
                          tuple(self.judged[self.a:self.b]))


def _lazy_spans(judged: Sequence[JudgedEdit], sev: Sequence[float | None]) -> Iterator[_LazySpan]:
    """The spans of judged edits in corpus order (as :func:`semcer.metrics.spans.judged_spans`), keyed
    from the severities ``sev`` computed once."""
    k, n = 0, len(judged)
    while k < n:
        line = judged[k].line_id
        end = k
        while end < n and judged[end].line_id == line:
            end += 1
        for number, (a, b) in enumerate(span_groups([j.edit for j in judged[k:end]])):
            part = sev[k + a:k + b]
            if None in part:
                key = (True, 0.0, 0.0)
            else:
                key = (False, -max(part), -math.fsum(part))  # type: ignore[type-var,arg-type,operator]
            yield _LazySpan(judged, k + a, k + b, number, key)
        k = end


def split_marked(marked: str, text: str, unit: str) -> tuple[str, str]:
    """What stands before and after the marked unit of a marked line (``text`` the unmarked line):
    found where the marks really are, even when the text itself holds ⟦ or ⟧."""
    n = len(unit)
    start = marked.find(MARK_OPEN)
    while start >= 0:
        end = start + 1 + n
        if (marked[end:end + 1] == MARK_CLOSE and marked[start + 1:end] == unit and marked[:start] == text[:start]
                and marked[end + 1:] == text[start + n:]):
            return marked[:start], marked[end + 1:]
        start = marked.find(MARK_OPEN, start + 1)
    k = marked.find(MARK_OPEN)  # not a marked line of this text: the first marks, as spans.py reads them
    k = max(k, 0)
    close = marked.find(MARK_CLOSE, k)
    return marked[:k], marked[close + 1:] if close >= 0 else ""


def _span_parts(s: JudgedSpan) -> tuple[list[str], list[str]]:
    first, last = s.edits[0].context, s.edits[-1].context
    rh, _ = split_marked(first.marked_ref, first.ref, first.ref_unit)
    _, rt = split_marked(last.marked_ref, last.ref, last.ref_unit)
    hh, _ = split_marked(first.marked_hyp, first.hyp, first.hyp_unit)
    _, ht = split_marked(last.marked_hyp, last.hyp, last.hyp_unit)
    return [rh, s.ref_text, rt], [hh, s.hyp_text, ht]


def _span_level(s: JudgedSpan) -> int | None:
    modes = [j.judgement.mode for j in s.edits]
    return None if any(m is None for m in modes) else max(m for m in modes if m is not None)


def _span_classes(s: JudgedSpan) -> list[str]:
    return list(dict.fromkeys(j.judgement.edit_class or "" for j in s.edits))


def _span_json(s: JudgedSpan) -> dict[str, Any]:
    ref, hyp = _span_parts(s)
    return {"span_id": s.span_id, "line_id": s.line_id, "doc": s.doc, "lang": s.lang, "ref_text": s.ref_text,
            "hyp_text": s.hyp_text, "marked_ref": s.marked_ref, "marked_hyp": s.marked_hyp, "ref_parts": ref,
            "hyp_parts": hyp, "severity": s.severity, "max_severity": s.max_severity, "level": _span_level(s),
            "classes": _span_classes(s), "ref_elements": _span_elements(s, "ref"),
            "hyp_elements": _span_elements(s, "hyp"),
            "edit_ids": [edit_id(j.line_id, j.edit.op, j.edit.ref_pos, j.edit.hyp_pos) for j in s.edits]}


def _span_elements(s: JudgedSpan, side: str) -> list[str]:
    """The ids of the elements a span's edits fall in on one side, each once, in order."""
    found = (j.ref_element if side == "ref" else j.hyp_element for j in s.edits)
    return list(dict.fromkeys(el.id for el in found if el is not None and el.id is not None))


def _clip_head(text: str, n: int) -> str:
    g = graphemes(text)
    return text if len(g) <= n else "…" + "".join(g[-n:])


def _clip_tail(text: str, n: int) -> str:
    g = graphemes(text)
    return text if len(g) <= n else "".join(g[:n]) + "…"


def _clip_mid(text: str, n: int) -> str:
    g = graphemes(text)
    return text if len(g) <= n else "".join(g[:n]) + " …"


def _span_entry(sys_index: int, line_index: int, span_id: str, line_id: str, doc: str, lang: str, ref: Sequence[str],
                hyp: Sequence[str], sev: float | None, worst: float | None, n_edits: int, classes: list[str],
                level: int | None, elements: tuple[list[str], list[str]], limits: Limits) -> dict[str, Any]:
    number = span_id.rsplit("#", 1)[-1]
    return {
        "s": sys_index, "k": line_index, "n": int(number) if number.isdigit() else 0, "id": span_id, "lid": line_id,
        "doc": doc, "lang": lang_group(lang),
        "ref": [_clip_head(ref[0], limits.clip), _clip_mid(ref[1], limits.span_clip), _clip_tail(ref[2], limits.clip)],
        "hyp": [_clip_head(hyp[0], limits.clip), _clip_mid(hyp[1], limits.span_clip), _clip_tail(hyp[2], limits.clip)],
        "sev": sev, "max": worst, "e": n_edits, "cls": classes, "lvl": level, "rel": elements[0], "hel": elements[1],
    }


# ---------------------------------------------------------------------------------------------
# Assembling the report


def _assemble(systems: list[_System], ids: list[tuple[str, str, str | None]], signature: str,
              fields: Mapping[str, Any], limits: Limits, ratings: Mapping[str, float] | None,
              comparison: dict[str, Any] | None, *, kind: str, title: str | None, references: str,
              notes: list[str]) -> dict[str, Any]:
    index = {line_id: k for k, (line_id, _, _) in enumerate(ids)}
    judged = any(s.judged for s in systems)
    missing: list[str] = []

    spans, span_total = _top_spans(systems, index, limits)
    differ = _differ(systems, limits) if len(systems) > 1 and judged else []
    shown, line_notes = _choose_lines(systems, limits, [d["k"] for d in differ])
    lines = _line_rows(systems, ids, limits, shown, line_notes, missing)
    shown_set = {ln["k"] for ln in lines}
    differ = [d for d in differ if d["k"] in shown_set]
    for sp in spans:
        sp["shown"] = sp["k"] in shown_set

    languages = _languages(systems)
    plots = _plots(systems, languages, limits, ratings, missing, notes)
    return {
        "format": REPORT_FORMAT, "kind": kind, "version": __version__,
        "title": title or _default_title(systems, references),
        "references": references,
        "signature": signature, "signature_fields": dict(fields),
        "judged": judged,
        "systems": [{"name": s.name, "corpus": s.corpus, "document_mean": s.document_mean, "judge": s.judge,
                     "span_total": s.span_total} for s in systems],
        "comparison": comparison,
        "languages": languages,
        "spans": spans, "span_total": span_total,
        "lines": lines, "line_total": len(ids) or int(systems[0].corpus.get("lines") or 0),
        "lines_with_edits": sum(1 for k in range(len(ids)) if any(s.stats[k].edits for s in systems)),
        "differ": differ,
        "plots": plots,
        "limits": limits.to_dict(),
        "levels": [{"level": k, "rating": RATINGS[k], "name": LEVEL_NAMES[k]} for k in range(LEVELS)],
        "notes": notes + line_notes,
        "missing": missing,
    }


def _line_rows(systems: list[_System], ids: list[tuple[str, str, str | None]], limits: Limits, shown: list[int],
               line_notes: list[str], missing: list[str]) -> list[dict[str, Any]]:
    """The line view's rows for the chosen lines ``shown``, within the budget of line text (noting in
    ``line_notes`` where it stops, in ``missing`` when no system keeps line texts)."""
    available = [s.line_view is not None and getattr(s.line_view, "available", True) for s in systems]
    if not any(available):
        missing.append("the line view: these results keep no line texts (for a score JSON, write it with "
                       "--lines --spans N)")
        shown = []
    for s, ok in zip(systems, available):
        if ok and hasattr(s.line_view, "prepare"):
            s.line_view.prepare(shown)
    budget = limits.text_budget
    lines: list[dict[str, Any]] = []
    for k in shown:
        views = []
        size = 0
        for s, ok in zip(systems, available):
            segs = s.line_view(k) if ok else None
            st = s.stats[k]
            if segs is not None:
                size += sum(len(x) if isinstance(x, str) else len(x[1]) + len(x[2]) for x in segs)
            views.append({"cer": st.cer, "semcer": st.semcer, "units": st.units, "edits": st.edits,
                          "severity": st.severity, "segs": segs})
        if size > budget:
            line_notes.append(f"the line view stops at {len(lines)} lines: the next one would pass the budget of "
                              f"{limits.text_budget:,} characters of line text")
            break
        budget -= size
        line_id, doc, lang = ids[k]
        lines.append({"k": k, "id": line_id, "doc": doc, "lang": lang_group(lang), "sys": views})
    return lines


def _default_title(systems: list[_System], references: str) -> str:
    names = ", ".join(s.name for s in systems)
    return f"semcer report: {names}" + (f" against {references}" if references else "")


def _top_spans(systems: list[_System], index: Mapping[str, int], limits: Limits) -> tuple[list[dict[str, Any]], int]:
    """The ``limits.spans`` most severe spans of all systems together (ties: system order, then corpus
    order), and how many spans there are in all."""
    counter = itertools.count()
    counts = [0] * len(systems)

    def keyed(si: int, spans: Iterable[Any]) -> Iterator[tuple[tuple[tuple[bool, float, float], int], int, Any]]:
        for sp in spans:
            counts[si] += 1
            key = sp.key if isinstance(sp, _LazySpan) else span_key(sp) if isinstance(sp, JudgedSpan) else sp["_key"]
            yield (key, next(counter)), si, sp

    streams = [keyed(si, s.spans()) for si, s in enumerate(systems) if s.spans is not None]
    top = heapq.nsmallest(limits.spans, itertools.chain.from_iterable(streams), key=lambda t: t[0])
    for si, s in enumerate(systems):
        if s.span_total is None and s.spans is not None:
            s.span_total = counts[si]
    entries = []
    for _, si, lazy in top:
        sp = lazy.build() if isinstance(lazy, _LazySpan) else lazy
        if isinstance(sp, JudgedSpan):
            ref, hyp = _span_parts(sp)
            entries.append(_span_entry(si, index.get(sp.line_id, -1), sp.span_id, sp.line_id, sp.doc, sp.lang, ref, hyp,
                                       sp.severity, sp.max_severity, len(sp.edits), _span_classes(sp), _span_level(sp),
                                       (_span_elements(sp, "ref"), _span_elements(sp, "hyp")), limits))
        else:
            entries.append(_span_entry(si, index.get(sp["line_id"], -1), sp["span_id"], sp["line_id"], sp["doc"],
                                       sp["lang"], sp["ref_parts"], sp["hyp_parts"], sp["severity"], sp["max_severity"],
                                       sp["n_edits"], sp["classes"], sp["level"], (sp["ref_elements"], sp["hyp_elements"]),
                                       limits))
    return entries, sum(s.span_total or 0 for s in systems)


def _line_rank(systems: list[_System], k: int) -> tuple[float, int]:
    sev = max(-1.0 if s.stats[k].severity is None else float(s.stats[k].severity) for s in systems)  # type: ignore[arg-type]
    return (-sev, -max(s.stats[k].edits for s in systems))


def _choose_lines(systems: list[_System], limits: Limits, extra: Sequence[int]) -> tuple[list[int], list[str]]:
    """The most severe lines (any system), with edits, then the comparison's most differing lines."""
    n = len(systems[0].stats)
    with_edits = (k for k in range(n) if any(s.stats[k].edits for s in systems))
    top = heapq.nsmallest(limits.lines, with_edits, key=lambda k: (_line_rank(systems, k), k))
    chosen = list(dict.fromkeys([*top, *extra]))
    return chosen, []


def _differ(systems: list[_System], limits: Limits) -> list[dict[str, Any]]:
    """Lines whose semCER differs most between the systems (max - min over systems)."""
    n = len(systems[0].stats)
    rows = []
    for k in range(n):
        values = [s.stats[k].semcer for s in systems]
        if any(v is None for v in values):
            continue
        spread = max(values) - min(values)  # type: ignore[type-var,operator]
        if spread > 0:
            rows.append((spread, k, values))
    top = heapq.nsmallest(limits.differ, rows, key=lambda t: (-t[0], t[1]))
    return [{"k": k, "v": values, "d": spread} for spread, k, values in top]


def _languages(systems: list[_System]) -> list[dict[str, Any]]:
    order: dict[str, list[Any]] = {}
    for si, s in enumerate(systems):
        if s.languages is not None:
            for given in s.languages:
                order.setdefault(given["lang"], [None] * len(systems))[si] = {k: v for k, v in given.items() if k != "lang"}
            continue
        lines = [LineResult(f"{k}", d, lang, st) for k, (st, (d, lang)) in enumerate(zip(s.stats, s.line_keys))]
        for g in breakdown(lines, "lang", judged=s.judged):
            a = g.aggregation
            row = order.setdefault(g.key, [None] * len(systems))
            row[si] = {"cer": a.corpus.cer, "cer_mean": a.document_mean_cer,
                       "semcer": a.corpus.semcer if s.judged else None,
                       "semcer_mean": a.document_mean_semcer if s.judged else None,
                       "edits": a.corpus.edits, "units": a.corpus.units, "lines": g.lines,
                       "documents": a.documents_defined}
    return [{"lang": lang, "systems": rows} for lang, rows in order.items()]


# ---------------------------------------------------------------------------------------------
# Plots, as plain data


def _plots(systems: list[_System], languages: list[dict[str, Any]], limits: Limits,
           ratings: Mapping[str, float] | None, missing: list[str], notes: list[str]) -> list[dict[str, Any]]:
    plots: list[dict[str, Any]] = []
    if any(s.judged for s in systems):
        if all(s.severities is not None or s.bins is not None for s in systems):
            plots.append(_severity_plot(systems))
        else:
            missing.append("the severity distribution: it needs every edit's severity (a score JSON written with "
                           "--lines --spans N has them)")
        plots.append(_documents_plot(systems, limits))
    else:
        missing.append("semCER, the ranked list and the severity plots: no judge was run (CER only)")
    plots.append(_languages_plot(systems, languages, limits, notes))
    if ratings is None:
        missing.append("the top-of-list curve (paper, Figure 3): it appears with reader ratings (--ratings FILE: JSON "
                       "Lines or CSV of item (EDIT_ID), rater, rating 0..1 or level 0-4)")
    else:
        curve = _curve(systems, ratings, limits, notes)
        if curve is None:
            missing.append("the top-of-list curve: no rated item is a judged edit of these results")
        else:
            plots.append(curve)
    return plots


def _severity_plot(systems: list[_System]) -> dict[str, Any]:
    """Share of each system's edits per severity bin (20 bins of 0.05)."""
    series = []
    for s in systems:
        counts = s.bins if s.bins is not None else severity_bins(s.severities or ())
        n = sum(counts)
        series.append({"name": s.name, "values": [c / n if n else 0.0 for c in counts], "n": n, "failed": s.failed})
    return {"id": "severity", "kind": "histogram", "title": "Severity of each edit",
            "x_label": "severity (expected rating)", "y_label": "share of the system's edits",
            "edges": [k / SEVERITY_BINS for k in range(SEVERITY_BINS + 1)], "series": series}


def _documents_plot(systems: list[_System], limits: Limits) -> dict[str, Any]:
    """One point per document and system (the largest documents when there are too many)."""
    series = []
    cut = False
    for s in systems:
        docs = [(d, c, m, u) for d, c, m, u in s.documents if c is not None and m is not None]
        if len(docs) > limits.documents:
            cut = True
            docs = heapq.nlargest(limits.documents, docs, key=lambda t: t[3])
        series.append({"name": s.name, "points": [[c, m] for _, c, m, _ in docs], "labels": [d for d, _, _, _ in docs]})
    return {"id": "documents", "kind": "scatter", "title": "CER against semCER per document", "x_label": "CER",
            "y_label": "semCER", "series": series, "diagonal": True,
            "note": f"the {limits.documents:,} largest documents of each system" if cut else ""}


def _languages_plot(systems: list[_System], languages: list[dict[str, Any]], limits: Limits,
                    notes: list[str]) -> dict[str, Any]:
    langs = languages
    if len(langs) > limits.languages:
        langs = sorted(langs, key=lambda g: -max((r or {}).get("units", 0) for r in g["systems"]))[: limits.languages]
        notes.append(f"the per-language plot shows the {limits.languages} languages with most reference units")
    series: list[dict[str, Any]] = []
    for si, s in enumerate(systems):
        series.append({"name": f"{s.name} · CER", "system": si, "metric": "cer",
                       "values": [(g["systems"][si] or {}).get("cer") for g in langs]})
        if s.judged:
            series.append({"name": f"{s.name} · semCER", "system": si, "metric": "semcer",
                           "values": [(g["systems"][si] or {}).get("semcer") for g in langs]})
    return {"id": "languages", "kind": "bars", "title": "CER and semCER per language (corpus)", "x_label": "language",
            "y_label": "rate", "groups": [g["lang"] for g in langs], "series": series}


def _curve(systems: list[_System], ratings: Mapping[str, float], limits: Limits, notes: list[str]
           ) -> dict[str, Any] | None:
    """Share of the reader-rated damage caught after checking a share of the rated edits, in the
    judge's order (:func:`semcer.statistics.ranking.top_of_list`: tied severities share their
    damage), in the readers' own order (the ceiling) and at random (the diagonal); the first half of
    the list, the rule at 10 % (paper, Figure 3)."""
    series: list[dict[str, Any]] = []
    for si, s in enumerate(systems):
        if s.edit_severities is None:
            continue
        sev = s.edit_severities()
        pool = [(sev[i], r) for i, r in ratings.items() if i in sev]
        if len(pool) < 2 or not math.fsum(r for _, r in pool) > 0:
            continue
        top = top_of_list([x for x, _ in pool], [r for _, r in pool])
        label = f"{s.name}: " if len(systems) > 1 else ""
        series.append({"name": f"{label}judge's order", "system": si,
                       "points": _gain(top.cumulative, top.total_damage, limits.curve_points)})
        series.append({"name": f"{label}readers' order (ceiling)", "system": si, "dashed": True,
                       "points": _gain(top.cumulative_ceiling, top.total_damage, limits.curve_points)})
        notes.append(f"top-of-list curve of {s.name}: {len(pool)} rated edits ({len(ratings) - len(pool)} rated "
                     f"items are not edits of these results); at 10 % of the list the judge's order catches "
                     f"{100 * top.at(0.1):.1f} % of the damage, the readers' own order {100 * top.ceiling_at(0.1):.1f} %")
    if not series:
        return None
    return {"id": "top-of-list", "kind": "curve", "title": "Top of the list: reader-rated damage caught",
            "x_label": "share of the rated edits checked", "y_label": "share of the reader-rated damage caught",
            "series": series, "x_max": 0.5, "rule": 0.1, "diagonal": True}


def _gain(cumulative: Sequence[float], total: float, points: int) -> list[list[float]]:
    """``[share of the list, share of the damage]`` after 0..n items, at most about ``points`` of them."""
    n = len(cumulative) - 1
    step = max(1, n // points)
    return [[k / n, cumulative[k] / total] for k in sorted({0, *range(step, n + 1, step), n})]


# ---------------------------------------------------------------------------------------------
# The score JSON (semcer score --json [--lines] [--spans N])


def _offsets(units: Sequence[str]) -> list[int]:
    """Code-point offset of each unit in the joined text (and the length at the end)."""
    return [0, *itertools.accumulate(len(u) for u in units)]


def _edit_json(line_id: str, e: Any, j: JudgedEdit | None, ref_at: list[int], hyp_at: list[int]) -> dict[str, Any]:
    g = None if j is None else j.judgement
    return {"edit_id": edit_id(line_id, e.op, e.ref_pos, e.hyp_pos), "op": e.op, "ref_pos": e.ref_pos,
            "hyp_pos": e.hyp_pos, "ref_at": ref_at[e.ref_pos], "hyp_at": hyp_at[e.hyp_pos], "ref_unit": e.ref_unit,
            "hyp_unit": e.hyp_unit, "severity": None if g is None else g.severity,
            "mode": None if g is None else g.mode, "edit_class": "" if g is None else g.edit_class,
            "ref_element": None if j is None else element_id(j.ref_element),
            "hyp_element": None if j is None else element_id(j.hyp_element)}


class _ScoreJSON:
    """A ``semcer score --json`` document, checked field by field (a hostile file is refused with
    one line naming the field)."""

    def __init__(self, obj: Any, source: str) -> None:
        self.source = source
        self.notes: list[str] = []
        self.missing: list[str] = []
        if not isinstance(obj, dict):
            raise InputError(f"{source}: not a `semcer score --json` output (expected a JSON object); write one with "
                             "semcer score REFS HYPS --json --lines --spans 2000 -o SCORE.json")
        if "systems" in obj and "baseline" in obj:
            raise InputError(f"{source}: a `semcer compare --json` output holds no lines or edits; make the report from "
                             "the inputs: semcer report REFS SYS1 SYS2 --html FILE")
        for key in ("signature", "corpus", "document_mean"):
            if key not in obj:
                raise InputError(f"{source}: not a `semcer score --json` output (no {key!r}); write one with "
                                 "semcer score REFS HYPS --json --lines --spans 2000 -o SCORE.json")
        self.obj = obj
        self.signature = self._str(obj, "signature")
        fields = obj.get("signature_fields")
        self.fields: dict[str, Any] = {k: v for k, v in fields.items() if isinstance(v, (str, type(None)))} \
            if isinstance(fields, dict) else {}
        self.judged = bool(self.fields.get("judge")) or "semcer" in self._dict(obj, "corpus")
        rows = obj.get("lines")
        if rows is not None and not isinstance(rows, list):
            raise InputError(f"{source}: 'lines' must be a list of line rows")
        self.rows: list[dict[str, Any]] = []
        for n, row in enumerate(rows or []):
            if not isinstance(row, dict):
                raise InputError(f"{source}: lines[{n}] must be an object")
            self.rows.append(row)
        if rows is None:
            self.missing.append("the line view: the file has no line rows (write it with --lines --spans N)")
            if "by_lang" not in obj:
                self.missing.append("the per-language summary: the file has neither line rows nor by_lang (write it "
                                    "with --lines, or --by lang)")
        self.ids = [(self._str(r, "id", f"lines[{n}]"), self._str(r, "doc", f"lines[{n}]"),
                     self._opt_str(r, "lang", f"lines[{n}]")) for n, r in enumerate(self.rows)]

    # typed access ---------------------------------------------------------------------------
    def _where(self, key: str, where: str) -> str:
        return f"{self.source}: {where + '.' if where else ''}{key}"

    def _dict(self, obj: dict, key: str, where: str = "") -> dict[str, Any]:
        v = obj.get(key)
        if not isinstance(v, dict):
            raise InputError(f"{self._where(key, where)} must be an object")
        return v

    def _str(self, obj: dict, key: str, where: str = "") -> str:
        v = obj.get(key)
        if not isinstance(v, str):
            raise InputError(f"{self._where(key, where)} must be a string, got {_kind(v)}")
        return v

    def _opt_str(self, obj: dict, key: str, where: str = "") -> str | None:
        v = obj.get(key)
        if v is not None and not isinstance(v, str):
            raise InputError(f"{self._where(key, where)} must be a string or null, got {_kind(v)}")
        return v

    def _num(self, obj: dict, key: str, where: str = "") -> float | None:
        v = obj.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InputError(f"{self._where(key, where)} must be a number or null, got {_kind(v)}")
        return v

    def _int(self, obj: dict, key: str, where: str = "") -> int:
        v = obj.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InputError(f"{self._where(key, where)} must be a count (an integer >= 0), got {_kind(v)}")
        return v

    _NUMBERS = ("cer", "semcer", "severity", "edits", "substitutions", "deletions", "insertions", "units", "lines",
                "documents", "documents_failed")

    def _numbers(self, block: dict, where: str) -> dict[str, Any]:
        """The known numbers of a block (each a number or null, or the file is refused); others left out."""
        return {key: self._num(block, key, where) for key in self._NUMBERS if key in block}

    # the system -----------------------------------------------------------------------------
    def system(self) -> _System:
        obj = self.obj
        corpus = self._numbers(self._dict(obj, "corpus"), "corpus")
        mean = self._numbers(self._dict(obj, "document_mean"), "document_mean")
        judge = obj.get("judge")
        judge = {k: v for k, v in judge.items() if isinstance(v, (str, int, float, type(None))) and not isinstance(v, bool)} \
            if isinstance(judge, dict) else None
        stats, severities, failed, by_id, texts = self._lines()
        docs = self._documents(obj)
        span_rows = self._spans(obj)
        system = _System(self.source, self.judged, corpus, mean, judge, stats, [(d, lang) for _, d, lang in self.ids],
                         docs, severities, failed)
        if not self.rows and isinstance(obj.get("by_lang"), list):
            system.languages = [self._language(g, n) for n, g in enumerate(obj["by_lang"])]
        if span_rows is not None:
            system.spans = lambda: span_rows
        if texts:
            system.edit_severities = lambda: by_id
            system.line_view = _JSONLines(texts, self.source)
        elif self.rows:
            self.missing.append("the line view: the line rows carry no texts (write the JSON with --lines --spans N)")
        return system

    def _lines(self) -> tuple[list[LineStats], list[float] | None, int, dict[str, float],
                              dict[int, tuple[str, str, list[dict[str, Any]]]]]:
        """Each line row's statistics, and from rows with their edits: the severities (None unless every
        row has them), the failed edits, the severity of each edit id and the texts for the line view."""
        stats = []
        severities: list[float] | None = []
        failed = 0
        by_id: dict[str, float] = {}
        texts: dict[int, tuple[str, str, list[dict[str, Any]]]] = {}
        for n, row in enumerate(self.rows):
            w = f"lines[{n}]"
            sev = self._num(row, "severity", w)
            stats.append(LineStats(self._int(row, "substitutions", w), self._int(row, "deletions", w),
                                   self._int(row, "insertions", w), self._int(row, "units", w), sev))
            edits = row.get("edits")
            if edits is None or "ref" not in row:
                severities = None
                continue
            if not isinstance(edits, list):
                raise InputError(f"{self._where('edits', w)} must be a list")
            checked = [self._edit(e, f"{w}.edits[{m}]") for m, e in enumerate(edits)]
            for e, item in zip(edits, checked):
                s = item["severity"]
                if s is None:
                    failed += 1
                    continue
                if severities is not None:
                    severities.append(s)
                eid = e.get("edit_id")
                if isinstance(eid, str):
                    by_id[eid] = s
            texts[n] = (self._str(row, "ref", w), self._str(row, "hyp", w), checked)
        if not self.rows:
            severities = None
        return stats, severities, failed, by_id, texts

    def _edit(self, e: Any, we: str) -> dict[str, Any]:
        """One edit of a line row, checked: op, offsets, units, severity in [0, 1], mode a level or null."""
        if not isinstance(e, dict):
            raise InputError(f"{self.source}: {we} must be an object")
        op = self._str(e, "op", we)
        if op not in ("S", "D", "I"):
            raise InputError(f"{self.source}: {we}.op must be S, D or I, got {op!r}")
        s = self._num(e, "severity", we)
        if s is not None and not 0 <= s <= 1:
            raise InputError(f"{self.source}: {we}.severity must be in [0, 1], got {s}")
        mode = e.get("mode")
        if mode is not None and (isinstance(mode, bool) or not isinstance(mode, int) or not 0 <= mode < LEVELS):
            raise InputError(f"{self.source}: {we}.mode must be a level 0-4 or null, got {_kind(mode)}")
        return {"op": op, "ref_at": self._int(e, "ref_at", we), "ref_unit": self._str(e, "ref_unit", we),
                "hyp_unit": self._str(e, "hyp_unit", we), "severity": s, "mode": mode,
                "edit_class": self._opt_str(e, "edit_class", we) or "", "ref_element": self._opt_str(e, "ref_element", we),
                "hyp_element": self._opt_str(e, "hyp_element", we)}

    def _documents(self, obj: dict[str, Any]) -> list[tuple[str, float | None, float | None, int]]:
        docs = []
        raw_docs = obj.get("documents")
        if isinstance(raw_docs, list):
            for n, d in enumerate(raw_docs):
                if not isinstance(d, dict):
                    raise InputError(f"{self.source}: documents[{n}] must be an object")
                w = f"documents[{n}]"
                docs.append((self._str(d, "doc", w), self._num(d, "cer", w), self._num(d, "semcer", w),
                             self._int(d, "units", w)))
        return docs

    def _spans(self, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
        spans = obj.get("spans")
        if spans is None:
            self.missing.append("the ranked list of error spans: the file has no spans (write it with --spans N)")
            return None
        if not isinstance(spans, list):
            raise InputError(f"{self.source}: 'spans' must be a list")
        span_rows = [self._span(sp, n) for n, sp in enumerate(spans)]
        if span_rows:
            self.notes.append(f"the file holds the {len(span_rows):,} most severe spans (semcer score --spans "
                              f"{len(span_rows)}); the ranked list shows no more than those")
        return span_rows

    def _language(self, g: Any, n: int) -> dict[str, Any]:
        w = f"by_lang[{n}]"
        if not isinstance(g, dict):
            raise InputError(f"{self.source}: {w} must be an object")
        mean = self._dict(g, "document_mean", w)
        return {"lang": self._str(g, "lang", w), "cer": self._num(g, "cer", w), "cer_mean": self._num(mean, "cer", w),
                "semcer": self._num(g, "semcer", w), "semcer_mean": self._num(mean, "semcer", w),
                "edits": self._int(g, "edits", w), "units": self._int(g, "units", w), "lines": self._int(g, "lines", w),
                "documents": self._int(mean, "documents", w)}

    def _span(self, sp: Any, n: int) -> dict[str, Any]:
        w = f"spans[{n}]"
        if not isinstance(sp, dict):
            raise InputError(f"{self.source}: {w} must be an object")
        parts = {}
        for key in ("ref_parts", "hyp_parts"):
            v = sp.get(key)
            if not (isinstance(v, list) and len(v) == 3 and all(isinstance(x, str) for x in v)):
                raise InputError(f"{self.source}: {w}.{key} must be three strings (before, span, after)")
            parts[key] = v
        sev, worst = self._num(sp, "severity", w), self._num(sp, "max_severity", w)
        level = sp.get("level")
        if level is not None and (isinstance(level, bool) or not isinstance(level, int) or not 0 <= level < LEVELS):
            raise InputError(f"{self.source}: {w}.level must be a level 0-4 or null")
        classes = sp.get("classes", [])
        if not (isinstance(classes, list) and all(isinstance(c, str) for c in classes)):
            raise InputError(f"{self.source}: {w}.classes must be a list of strings")
        elements = {}
        for key in ("ref_elements", "hyp_elements"):
            v = sp.get(key, [])
            if not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                raise InputError(f"{self.source}: {w}.{key} must be a list of element ids (strings)")
            elements[key] = v
        ids = sp.get("edit_ids", [])
        return {"span_id": self._str(sp, "span_id", w), "line_id": self._str(sp, "line_id", w),
                "doc": self._str(sp, "doc", w), "lang": self._str(sp, "lang", w), **parts, "severity": sev,
                "max_severity": worst, "level": level, "classes": classes, **elements,
                "n_edits": len(ids) if isinstance(ids, list) else 1,
                "_key": (sev is None, -(worst or 0.0), -(sev or 0.0))}


class _JSONLines:
    """Segments of a line from a score JSON's ``ref`` and the edits' ``ref_at`` offsets; the output
    rebuilt from them must be the row's ``hyp``, or the row is refused."""

    def __init__(self, texts: dict[int, tuple[str, str, list[dict[str, Any]]]], source: str) -> None:
        self.texts = texts
        self.source = source
        self.available = True

    def __call__(self, k: int) -> list[Any] | None:
        got = self.texts.get(k)
        if got is None:
            return None
        ref, hyp, edits = got
        segs: list[Any] = []
        at = 0
        out = []
        for e in edits:
            pos = e["ref_at"]
            if pos < at or pos > len(ref):
                raise InputError(f"{self.source}: lines[{k}]: an edit's ref_at {pos} is out of order or past the text")
            if pos > at:
                segs.append(ref[at:pos])
                out.append(ref[at:pos])
            unit = e["ref_unit"]
            if e["op"] != "I":
                if ref[pos:pos + len(unit)] != unit:
                    raise InputError(f"{self.source}: lines[{k}]: edit at {pos} does not match the reference text")
                at = pos + len(unit)
            else:
                at = pos
            out.append(e["hyp_unit"])
            segs.append([e["op"], unit if e["op"] != "I" else "", e["hyp_unit"] if e["op"] != "D" else "",
                         e["severity"], e["mode"], e["edit_class"], e["ref_element"], e["hyp_element"]])
        if at < len(ref):
            segs.append(ref[at:])
            out.append(ref[at:])
        if "".join(out) != hyp:
            raise InputError(f"{self.source}: lines[{k}]: the edits do not turn 'ref' into 'hyp'")
        return segs


def _kind(v: Any) -> str:
    names = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean",
             type(None): "null", dict: "an object"}
    return names.get(type(v), type(v).__name__)
