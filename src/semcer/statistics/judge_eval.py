"""Measure a judge against labelled edits: rank correlation, clear-pair order, mode accuracy, error.

The labels are the severity JSONL format of ``data/severity/`` (one grapheme edit per line, with
the labelling judge's level distribution). Every figure comes with a percentile bootstrap interval
over edits, reported as asymmetric ``[lo, hi]`` bounds.

A *clear pair* is two edits whose label severities differ by at least 0.5; the judge orders it
correctly when it charges the higher-labelled edit strictly more (a tie counts as a miss).

Besides one row per language, a *pooled* row scores the edits of a group of languages together
(:data:`DEFAULT_POOLS`: the seven main languages of ``data/severity/`` and the twelve smaller ones),
where each has too few edits for a tight interval of its own.
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from semcer.judges.distribution import Judgement
from semcer.metrics.signature import MethodSignature, unicode_field
from semcer.statistics.bootstrap import (
    Estimate,
    check_resampling,
    guarded,
    level_field,
    percentile_estimate,
    resample_counts,
    resample_index_chunks,
)
from semcer.statistics.correlation import spearman_rows
from semcer.text.script import base_lang, canonical_lang

#: Label severities must differ by at least this much for a pair to be "clear".
CLEAR_GAP = 0.5
_EPS = 1e-9  # label severities are sums of floats: 0.9875 - 0.4875 must count as 0.5

#: The languages of ``data/severity/`` (primary subtags): seven with 300-500 labelled edits each, and
#: twelve with about 100 each.
MAIN_LANGS: tuple[str, ...] = ("en", "de", "fr", "es", "vi", "zh", "hi")
SMALL_LANGS: tuple[str, ...] = ("ru", "ja", "ar", "th", "ko", "te", "ta", "bn", "mr", "el", "he", "kn")
#: Pooled rows ``semcer judge-eval`` reports: name -> languages (primary subtags).
DEFAULT_POOLS: dict[str, tuple[str, ...]] = {
    "main languages pooled": MAIN_LANGS,
    "small languages pooled": SMALL_LANGS,
}


@dataclass(frozen=True, slots=True)
class Label:
    """One labelled edit: the labelling judge's distribution, expected rating and mode."""

    severity: float
    mode: int
    p: tuple[float, ...] = ()
    id: str = ""
    system: str = ""
    n_labels: int = 1


@dataclass(frozen=True, slots=True)
class GroupStats:
    """The judge's agreement with the labels on one group of edits (all, one language, one class)."""

    n: int
    spearman: Estimate
    clear_pairs: Estimate
    n_clear_pairs: int
    mae: Estimate
    mode_accuracy: Estimate | None  # None when modes are unknown (plain severities given)


@dataclass(frozen=True)
class JudgeEvalReport:
    """Overall, per-language and per-class agreement, with how it was computed."""

    overall: GroupStats
    by_lang: dict[str, GroupStats]
    by_class: dict[str, GroupStats]
    n_failed: int
    n_boot: int
    seed: int
    confidence: float = 0.95
    notes: tuple[str, ...] = field(default=("clear pairs: label gap >= 0.5; ties count as misses",))
    #: Pooled languages (name -> the edits of those languages together); only pools whose
    #: languages are present two or more.
    pooled: dict[str, GroupStats] = field(default_factory=dict)

    def signature(self, judge_identity: str) -> MethodSignature:
        """What the numbers depend on besides the labels: the judge, the bootstrap, the units the
        labels' positions count (graphemes) and the Unicode versions, the semcer version."""
        return MethodSignature("judge", (
            ("judge", judge_identity), ("boot", str(self.n_boot)), ("seed", str(self.seed)),
            ("conf", level_field(self.confidence)), ("gap", f"{CLEAR_GAP:g}"), ("unit", "grapheme"),
            ("unicode", unicode_field(True, True))))

    def to_dict(self, judge_identity: str, labels: str) -> dict[str, Any]:
        """The JSON shape of ``semcer judge-eval --json`` (undefined values, NaN here, are None)."""
        sig = self.signature(judge_identity)
        return {"signature": str(sig), "signature_fields": sig.fields(),
                "judge": judge_identity, "labels": labels, "n": self.overall.n + self.n_failed,
                "n_failed": self.n_failed, "n_boot": self.n_boot, "seed": self.seed, "confidence": self.confidence,
                "overall": _group_dict(self.overall),
                "by_lang": {k: _group_dict(v) for k, v in self.by_lang.items()},
                "by_class": {k: _group_dict(v) for k, v in self.by_class.items()},
                "pooled": {k: _group_dict(v) for k, v in self.pooled.items()},
                "notes": list(self.notes)}


def _group_dict(g: GroupStats) -> dict[str, Any]:
    def clean(v: Any) -> Any:
        if isinstance(v, float) and math.isnan(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        return v

    return clean(dataclasses.asdict(g))


# ----------------------------------------------------------------------------------------------
# Statistics


def evaluate_judge(
    judgements_or_severities: Sequence[Judgement] | Sequence[float],
    labels: Sequence[Label] | Sequence[float],
    *,
    langs: Sequence[str] | None = None,
    classes: Sequence[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    pools: Mapping[str, Sequence[str]] | None = None,
) -> JudgeEvalReport:
    """Agreement of a judge's severities with labelled severities, overall, per language and class.

    ``judgements_or_severities`` are the judge's answers in label order (Judgements, whose failed
    entries are left out and counted, or plain severities). ``labels`` are :class:`Label` values
    or plain severities (then mode accuracy is not computed). ``classes`` defaults to the
    judgements' ``edit_class`` when they carry one. Intervals resample edits within each group.
    ``pools`` (name -> primary language subtags; with ``langs`` only) adds a pooled row for each pool
    whose languages occur two or more in ``langs`` (:data:`DEFAULT_POOLS` is what the CLI passes).
    """

    n_all = len(labels)
    if len(judgements_or_severities) != n_all:
        raise ValueError(f"{len(judgements_or_severities)} judgements for {n_all} labels")
    for name, seq in (("langs", langs), ("classes", classes)):
        if seq is not None and len(seq) != n_all:
            raise ValueError(f"{name} has {len(seq)} entries for {n_all} labels")
    check_resampling(confidence, n_boot, flags=None)

    sev, judge_mode, ok, judge_classes = _judge_arrays(judgements_or_severities)
    if classes is None and any(judge_classes):
        classes = judge_classes
    y = np.array([lab.severity if isinstance(lab, Label) else float(lab) for lab in labels], dtype=float)
    label_mode = None
    if all(isinstance(lab, Label) for lab in labels) and judge_mode is not None:
        label_mode = np.array([lab.mode for lab in labels])  # type: ignore[union-attr]

    keep = np.flatnonzero(ok)
    x, y = sev[keep], y[keep]
    hits = None
    if label_mode is not None and judge_mode is not None:
        hits = (judge_mode[keep] == label_mode[keep]).astype(float)

    def group(idx: Any, name: str) -> GroupStats:
        rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])
        return _group_stats(x[idx], y[idx], None if hits is None else hits[idx], n_boot, rng, confidence)

    overall = group(np.arange(len(keep)), "\x00all")
    by_lang = _by(None if langs is None else [canonical_lang(t) if t else t for t in langs], keep, group)
    by_class = _by(classes, keep, group)
    pooled = _pooled(pools, langs, keep, group) if pools and langs is not None else {}
    return JudgeEvalReport(overall, by_lang, by_class, n_all - len(keep), n_boot, seed, confidence, pooled=pooled)


def _pooled(pools: Mapping[str, Sequence[str]], langs: Sequence[str], keep: Any, group: Any) -> dict[str, GroupStats]:
    """One group per pool: the kept edits whose language's primary subtag is in the pool."""
    bases = np.array([base_lang(langs[i]) for i in keep], dtype=object)
    out = {}
    for name, members in pools.items():
        mask = np.isin(bases, list(members))
        if len(set(bases[mask])) >= 2:
            out[name] = group(np.flatnonzero(mask), "\x00pool:" + name)
    return out


def _judge_arrays(items: Sequence[Any]) -> tuple[Any, Any, Any, list[str]]:
    """Severities, modes (None for plain numbers), a usable mask and classes of the judge's answers."""

    n = len(items)
    sev = np.zeros(n)
    ok = np.ones(n, dtype=bool)
    if n and all(isinstance(j, Judgement) for j in items):
        modes = np.zeros(n, dtype=int)
        classes = []
        for i, j in enumerate(items):
            classes.append(j.edit_class)
            if j.p is None:
                ok[i] = False
                continue
            sev[i] = j.severity
            modes[i] = j.mode
        return sev, modes, ok, classes
    for i, v in enumerate(items):
        if isinstance(v, Judgement):
            raise TypeError("mix of Judgements and plain severities")
        if v is None or (isinstance(v, float) and math.isnan(v)):
            ok[i] = False
        else:
            sev[i] = float(v)
    return sev, None, ok, [""] * n


def _by(keys: Sequence[str] | None, keep: Any, group: Any) -> dict[str, GroupStats]:

    if keys is None:
        return {}
    kept = [keys[i] for i in keep]
    out = {}
    for k in sorted(set(kept)):
        out[k] = group(np.flatnonzero(np.array([v == k for v in kept], dtype=bool)), k)
    return out


def _group_stats(x: Any, y: Any, hits: Any, n_boot: int, rng: Any, confidence: float) -> GroupStats:

    n = len(x)
    rho = float(spearman_rows(x[None, :], y[None, :])[0]) if n > 1 else math.nan
    conc, pairs = clear_pair_matrices(x, y)
    n_pairs = int(pairs.sum())
    share = float(conc.sum() / n_pairs) if n_pairs else math.nan
    mae = float(np.mean(np.abs(x - y))) if n else math.nan
    acc = float(np.mean(hits)) if hits is not None and n else math.nan
    if n_boot and n > 1:
        b_rho, b_share, b_mae, b_acc = _resampled(x, y, hits, conc, pairs, n_boot, rng)
    else:
        b_rho = b_share = b_mae = b_acc = None
    def est(value: float, boot: Any) -> Estimate:  # no interval on fewer than MIN_INTERVAL_ITEMS edits
        return guarded(percentile_estimate(value, boot, confidence), n)

    return GroupStats(
        n=n,
        spearman=est(rho, b_rho),
        clear_pairs=est(share, b_share),
        n_clear_pairs=n_pairs,
        mae=est(mae, b_mae),
        mode_accuracy=None if hits is None else est(acc, b_acc),
    )


def _resampled(x: Any, y: Any, hits: Any, conc: Any, pairs: Any, n_boot: int, rng: Any) -> tuple[Any, Any, Any, Any]:
    """Spearman, clear-pair share, MAE and mode accuracy (None without modes) on each of ``n_boot``
    resamples of the edits, drawn in memory-bounded blocks (:func:`resample_index_chunks`: the
    resamples of one ``rng.integers(0, n, (n_boot, n))`` draw)."""
    n = len(x)
    parts = []
    for idx in resample_index_chunks(rng, n, n_boot):
        w = resample_counts(idx, n)
        parts.append((spearman_rows(x[idx], y[idx]), _weighted_pair_share(conc, pairs, w), w @ np.abs(x - y) / n,
                      w @ hits / n if hits is not None else np.zeros(len(w))))
    rho, share, mae, acc = (np.concatenate(column) for column in zip(*parts))
    return rho, share, mae, acc if hits is not None else None


def clear_pair_matrices(x: Any, y: Any, gap: float = CLEAR_GAP) -> tuple[Any, Any]:
    """Sparse (n, n) matrices of clear pairs and of those the judge orders like the labels.

    ``pairs[i, j]`` is 1 when ``y[i] - y[j] >= gap``; ``conc[i, j]`` is 1 when, in addition,
    ``x[i] > x[j]`` (a tie is a miss). Built from sorted label order in blocks, without a Python
    loop over pairs; the matrices let the bootstrap count pairs of a resample as ``w @ M @ w``.
    """

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)
    rows, cols, good = [], [], []
    order = np.argsort(y, kind="stable")
    ys = y[order]
    block = max(1, 2_000_000 // max(n, 1))
    for start in range(0, n, block):
        i = np.arange(start, min(n, start + block))
        # Edits j whose label is at least `gap` below edit i: a prefix of the sorted order.
        limits = np.searchsorted(ys, ys[i] - gap + _EPS, side="right")
        width = int(limits.max(initial=0))
        if width == 0:
            continue
        jj = np.arange(width)
        mask = jj[None, :] < limits[:, None]
        ii, jc = np.nonzero(mask)
        gi, gj = order[i[ii]], order[jc]
        rows.append(gi)
        cols.append(gj)
        good.append(x[gi] > x[gj])
    if rows:
        r, c, g = np.concatenate(rows), np.concatenate(cols), np.concatenate(good)
    else:
        r = c = np.zeros(0, dtype=int)
        g = np.zeros(0, dtype=bool)
    from scipy import sparse  # imported when a judge is evaluated, not with the package

    pairs = sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=(n, n))
    conc = sparse.csr_matrix((g.astype(float), (r, c)), shape=(n, n))
    conc.eliminate_zeros()
    return conc, pairs


def clear_pair_share(x: Sequence[float] | Any, y: Sequence[float] | Any, gap: float = CLEAR_GAP) -> tuple[float, int]:
    """Share of clear pairs (label gap >= ``gap``) the judge orders strictly the same way, and their count."""
    conc, pairs = clear_pair_matrices(x, y, gap)
    n_pairs = int(pairs.sum())
    return (float(conc.sum() / n_pairs) if n_pairs else math.nan), n_pairs


def _weighted_pair_share(conc: Any, pairs: Any, weights: Any) -> Any:
    """Clear-pair share of each bootstrap resample, given edit multiplicities (n_boot, n)."""

    wt = weights.T  # (n, n_boot)
    good = np.einsum("ib,ib->b", wt, conc @ wt)
    total = np.einsum("ib,ib->b", wt, pairs @ wt)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, good / np.where(total > 0, total, 1.0), np.nan)


def severities(judgements: Iterable[Judgement]) -> list[float | None]:
    """The expected rating of each judgement (None for a failed one)."""
    return [j.severity for j in judgements]
