"""Comparing systems: CER and semCER of every system, and of each against the first (the baseline),
with paired bootstrap intervals and approximate-randomization p-values over documents.

Every system is aligned and judged once, through the same judge and store; the comparison then works
on per-document sufficient statistics only (:mod:`semcer.statistics.paired`): the resampling unit
is the document, so the pages or lines of one document stay together ("ten pages can improve the
measurement of one document without creating ten independent documents"). Systems must cover the
same reference ids (the ``unmatched`` rules apply to each; ``"empty"`` scores a missing output as
empty), and their signatures must match the baseline's.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection as Container
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from semcer.api.evaluation import evaluate, opened_judge, opened_store
from semcer.errors import InputError, SemcerError
from semcer.io.collections import Collection
from semcer.metrics.results import Evaluation
from semcer.metrics.signature import Signature
from semcer.reports.text import input_notes
from semcer.statistics.bootstrap import MIN_INTERVAL_ITEMS, check_resampling, resampling_fields
from semcer.statistics.paired import AGGREGATIONS, METHODS, SystemComparison, compare_systems
from semcer.text.policy import TextPolicy
from semcer.text.units import Unit

METRICS: tuple[str, ...] = ("cer", "semcer")


@dataclass(frozen=True)
class MetricResult:
    """One system's value of one metric and aggregation, and its comparison with the baseline
    (``difference`` = system - baseline; None for the baseline itself or when undefined)."""

    value: float | None
    difference: float | None = None
    interval: tuple[float, float] | None = None
    p_value: float | None = None
    p_value_holm: float | None = None

    @property
    def significant(self) -> bool:
        """The interval excludes 0."""
        return self.interval is not None and (self.interval[0] > 0 or self.interval[1] < 0)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "difference": self.difference,
                "interval": None if self.interval is None else list(self.interval),
                "p_value": self.p_value, "p_value_holm": self.p_value_holm}


@dataclass(frozen=True)
class Comparison:
    """Systems compared with the first: ``results[metric][aggregation]`` is one MetricResult per system."""

    signature: Signature
    names: tuple[str, ...]
    evaluations: tuple[Evaluation, ...]
    results: dict[str, dict[str, tuple[MetricResult, ...]]]
    documents: int
    notes: tuple[str, ...] = field(default=())

    def result(self, system: str, metric: str, aggregation: str = "corpus") -> MetricResult:
        return self.results[metric][aggregation][self.names.index(system)]

    def to_dict(self, *, by: Sequence[str] = ()) -> dict[str, Any]:
        """The JSON shape of ``semcer compare --json``; ``by`` ("lang", "doc") adds ``by_lang`` /
        ``by_doc``: for each system, its groups exactly as ``semcer score --json --by`` lists them.
        ``inputs`` holds, per system, what its inputs left out (``skipped``, ``unmatched``,
        ``read_failures``: :meth:`semcer.metrics.results.Evaluation.inputs_dict`)."""
        systems = {name: {m: {a: self.results[m][a][k].to_dict() for a in self.results[m]} for m in self.results}
                   for k, name in enumerate(self.names)}
        out = {"signature": str(self.signature), "signature_fields": self.signature.fields(),
               "baseline": self.names[0], "documents": self.documents,
               "lines": self.evaluations[0].corpus.lines, "systems": systems, "notes": list(self.notes),
               "inputs": {name: ev.inputs_dict() for name, ev in zip(self.names, self.evaluations)}}
        for key in dict.fromkeys(by):
            out[f"by_{key}"] = {name: ev.to_dict(by=(key,))[f"by_{key}"]
                                for name, ev in zip(self.names, self.evaluations)}
        return out


def compare(
    references: Any,
    systems: Sequence[Any],
    *,
    names: Sequence[str] | None = None,
    unit: Unit = "grapheme",
    policy: str | TextPolicy | None = None,
    empty_ref: str = "error",
    unmatched: str = "error",
    judge: Any = "compact",
    store: Any = None,
    n_resamples: int = 10_000,
    n_permutations: int | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "percentile",
    lang: str | None = None,
    progress: bool = False,
) -> Comparison:
    """Compare ``systems`` (the first is the baseline) on ``references``: CER and, with a judge,
    semCER, corpus and document mean, each with a paired bootstrap interval of the difference from
    the baseline (``method`` "percentile" or "bca", at ``confidence``) and a paired
    approximate-randomization p-value, Holm-adjusted over the systems. ``references`` and each system
    are what :func:`semcer.evaluate` takes (paths, collections, lists or dicts); ``judge=None``
    compares CER only. ``lang`` is the language of the lines that name none (command line
    ``--lang``), as :func:`semcer.api.evaluation.with_lang` gives it. Seeded: the same inputs and seed give the same intervals.
    """
    _check_options(systems, n_resamples, confidence, method, seed, n_permutations)
    labels = system_names(systems, names)
    with (opened_judge(judge) if judge is not None else _nothing()) as j, opened_store(store) as st:
        evals = tuple(evaluate(references, s, langs=lang, unit=unit, policy=policy, empty_ref=empty_ref,
                               unmatched=unmatched, judge=j, store=st, progress=progress)
                      for s in systems)
    _check_same(evals, labels)
    n_perm = n_resamples if n_permutations is None else n_permutations
    den = np.array([d.totals.units for d in evals[0].documents], dtype=float)
    results: dict[str, dict[str, tuple[MetricResult, ...]]] = {}
    notes = [f"{name}: {note}" for name, ev in zip(labels, evals) for note in input_notes(ev, unmatched)]
    for metric in METRICS if judge is not None else ("cer",):
        num = _numerators(evals, metric)
        if num is None:
            notes.append(f"{metric}: undefined for a system whose edits a judge failed on; rerun to judge them")
        results[metric] = {agg: _results(num, den, agg, [_value(ev, metric, agg) for ev in evals], n_resamples,
                                         n_perm, seed, confidence, method)
                           for agg in AGGREGATIONS}
    if len(den) < MIN_INTERVAL_ITEMS:
        notes.append(f"only {len(den)} document(s) to resample, fewer than {MIN_INTERVAL_ITEMS}: no interval and no "
                     "significance mark (documents are resampled; a line without a doc is a document of its own)")
    extras = {**resampling_fields(confidence, n_resamples, n_perm, seed, method), "resample": "document"}
    return Comparison(evals[0].signature.with_extras(**extras), labels, evals, results, len(den), tuple(notes))


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def system_names(systems: Sequence[Any], names: Sequence[str] | None) -> tuple[str, ...]:
    """The systems' labels: ``names``, one distinct name per system; else each system's path (a
    collection's: the path it was read from; "system K" for data in memory). Without ``names`` two
    systems read from the same file (the same file however spelled) are refused: a system compared
    with itself is a mistake, unless the caller names both."""
    if names is not None:
        if len(names) != len(systems) or len(set(names)) != len(names):
            raise InputError(f"names: {len(systems)} distinct names are needed, one per system")
        blank = next((k for k, name in enumerate(names) if not str(name).strip()), None)
        if blank is not None:
            raise InputError(f"names: system {blank + 1}'s name is empty; give each system a name")
        return tuple(names)
    paths = [_path(s) for s in systems]
    read = [(k, path) for k, path in enumerate(paths) if path is not None]
    for i, (k, path) in enumerate(read):
        for j, other in read[:i]:
            if _same_file(path, other):
                raise InputError(f"systems {j + 1} and {k + 1} are the same file ({other}"
                                 f"{'' if other == path else f' and {path}'}): give another system's outputs, or "
                                 "name them (command line: --names) to compare a file with itself")
    return tuple(path if path is not None else f"system {k + 1}" for k, path in enumerate(paths))


def _path(system: Any) -> str | None:
    """Where a system was read from: its path, a collection's path, or None (data in memory)."""
    if isinstance(system, (str, os.PathLike)):
        return str(system)
    if isinstance(system, Collection) and system.format != "memory":
        return system.path
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is not a file (standard input, a missing path): the same name is the same input
        return a == b


def _check_options(systems: Sequence[Any], n_resamples: int, confidence: float, method: str, seed: int,
                   n_permutations: int | None) -> None:
    if len(systems) < 2:
        raise InputError("compare needs at least two systems: the baseline and one to compare with it")
    check_resampling(confidence, n_resamples, n_permutations, error=SemcerError,
                     names=("n_resamples", "n_permutations"), flags=("--n-resamples", ""), no_intervals=False)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SemcerError(f"seed must be an integer >= 0 (command line: --seed), got {seed!r}")
    if method not in METHODS:
        raise SemcerError(f"unknown interval method {method!r}; choose one of {', '.join(METHODS)}")


def _check_same(evals: Sequence[Evaluation], names: Sequence[str]) -> None:
    """Every system covers the same lines, in the same documents, with the same signature."""
    base = evals[0]
    base_ids = [line.id for line in base.lines]
    base_units = [d.totals.units for d in base.documents]
    for name, ev in zip(names[1:], evals[1:]):
        if str(ev.signature) != str(base.signature):
            raise InputError(f"system {name}: its signature differs from the baseline's ({ev.signature} vs "
                             f"{base.signature}); only numbers with equal signatures are comparable")
        ids = [line.id for line in ev.lines]
        if ids != base_ids:
            missing, extra = set(base_ids) - set(ids), set(ids) - set(base_ids)
            raise InputError(f"system {name} covers other lines than the baseline {names[0]} ({len(missing)} missing, "
                             f"{len(extra)} extra); compare systems on the same ids (unmatched='empty', command line "
                             "--unmatched empty, scores a missing output as empty)")
        if [d.totals.units for d in ev.documents] != base_units:
            raise InputError(f"system {name}: its documents differ from the baseline's")


def _numerators(evals: Sequence[Evaluation], metric: str) -> np.ndarray | None:
    """(systems, documents) edits or severity mass; None when a severity is unknown."""
    rows: list[list[Any]] = []
    for ev in evals:
        if metric == "cer":
            rows.append([d.totals.edits for d in ev.documents])
        else:
            sev = [d.totals.severity for d in ev.documents]
            if any(s is None for s in sev):
                return None
            rows.append(sev)
    return np.array(rows, dtype=float)


def _value(ev: Evaluation, metric: str, aggregation: str) -> float | None:
    """The system's own number (exactly as ``semcer score`` reports it)."""
    if aggregation == "corpus":
        return ev.corpus.cer if metric == "cer" else ev.corpus.semcer
    return ev.document_mean_cer if metric == "cer" else ev.document_mean_semcer


def _results(num: np.ndarray | None, den: np.ndarray, aggregation: str, values: list[float | None], n_resamples: int,
             n_permutations: int, seed: int, confidence: float, method: str) -> tuple[MetricResult, ...]:
    if num is None:
        return tuple(MetricResult(v) for v in values)
    comps = compare_systems(num, den, aggregation, n_resamples=n_resamples,  # type: ignore[arg-type]
                            n_permutations=n_permutations, seed=seed, confidence=confidence, method=method)  # type: ignore[arg-type]
    return (MetricResult(values[0]), *(_against(values[k + 1], c) for k, c in enumerate(comps)))


def _against(value: float | None, c: SystemComparison) -> MetricResult:
    d = c.interval.difference
    interval = None if math.isnan(d.lo) or math.isnan(d.hi) else (d.lo, d.hi)
    return MetricResult(value, _defined(d.value), interval, _defined(c.p_value), _defined(c.p_holm))


def _defined(x: float) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


@dataclass(frozen=True)
class Gate:
    """A regression gate: fail when a system is worse than the baseline on ``metric`` (and
    ``aggregation``) by more than ``margin``, with the whole interval of the difference above it."""

    metric: str
    aggregation: str = "corpus"
    margin: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Gate:
        """``semcer``, ``cer:0.002``, ``semcer.document_mean:0.01``."""
        name, _, margin = text.partition(":")
        metric, _, aggregation = name.strip().partition(".")
        if metric not in METRICS or (aggregation and aggregation not in AGGREGATIONS):
            raise SemcerError(f"--fail-if-worse {text}: expected METRIC[:MARGIN] with METRIC one of "
                              "cer, semcer, cer.document_mean, semcer.document_mean (e.g. semcer:0.002)")
        try:
            value = float(margin) if margin.strip() else 0.0
        except ValueError:
            raise SemcerError(f"--fail-if-worse {text}: the margin {margin!r} is not a number") from None
        if not math.isfinite(value) or value < 0:
            raise SemcerError(f"--fail-if-worse {text}: the margin must be a finite number >= 0")
        return cls(metric, aggregation or "corpus", value)

    def check(self, computed: Container[str]) -> None:
        """Refuse a gate on a metric the comparison does not compute (semCER without a judge): called
        before any scoring by the command line, and again by :meth:`failures`."""
        if self.metric not in computed:
            raise SemcerError(f"--fail-if-worse {self.metric}: {self.metric} is not computed without a judge "
                              "(--no-judge, judge=None); gate on cer, or give a judge")

    def failures(self, comparison: Comparison) -> list[str]:
        """One line per system that trips the gate."""
        self.check(comparison.results)
        out = []
        rows = comparison.results[self.metric][self.aggregation]
        undecided = [name for name, r in zip(comparison.names[1:], rows[1:]) if r.interval is None]
        if undecided:
            raise SemcerError(f"--fail-if-worse {self.metric}: no interval for {', '.join(undecided)}, so the gate "
                              f"cannot decide: {'; '.join(comparison.notes) or 'the difference is undefined'}")
        for name, r in zip(comparison.names[1:], rows[1:]):
            if r.difference is not None and r.interval is not None and r.difference > self.margin \
                    and r.interval[0] > self.margin:
                out.append(f"{name} is worse than {comparison.names[0]} on {self.metric} ({self.aggregation}) by "
                           f"{100 * r.difference:+.2f} points, interval [{100 * r.interval[0]:+.2f}, "
                           f"{100 * r.interval[1]:+.2f}], above the margin {100 * self.margin:.2f}")
        return out
