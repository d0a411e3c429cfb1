"""Meta-evaluation against readers (``semcer meta-eval``): how well scores agree with the people who
read the errors, as the semCER paper measured it (Tables 5-8, Figures 3 and 7).

Three kinds of study, any of them:

**Rated edits** (``ratings`` and ``items``): readers rated single edits on the rubric's five levels.

* Panel: the raters who rated at least ``min_rater_share`` of the pool's items (the paper's rule,
  0.5). Reliability is computed over the panel: Krippendorff's alpha with ordinal weighting (on
  the items with two or more panel ratings) and ICC(2,k) (on the items every panel rater rated).
  The panel's mean rating of an item is the readers' rating scores are compared with; the other
  raters are listed as dropped and used nowhere else.
* Per scorer (a judge's severity, the judge's mode, or a numeric column of the items): Spearman with
  the readers' mean rating; the partial correlation within each band (the rank association left
  once the band is held fixed: :func:`semcer.statistics.correlation.partial_spearman_within`); the
  top-of-list curve (share of all reader-rated damage caught after checking a fraction of the items
  sorted by the score, over the first half of the list; the readers' own order is the ceiling,
  random order the diagonal) and its value at 10 %; clear pairs (items whose mean ratings differ by
  at least ``clear_gap``) ordered as the readers order them, a tie in the score counting as a miss.
  Every interval is a percentile bootstrap over items.
* Bands: ``edit_class`` (the items' ``edit_class`` field, else semcer's classifier of the edited
  units, :func:`semcer.judges.rubric.classes.edit_class`, the class the rubric and compact judges
  report): for single edits the natural band, since every item is one edit (its CER band is the
  same for all); ``mode`` (each judge's own most likely level: "severity, given the mode"; not
  defined for a column); ``cer:E1,E2,...`` (the CER of the item's whole line pair, ``ref``/``hyp``,
  cut at the edges: [0, E1), [E1, E2), ..., [Ek, ∞)); or the name of any column of the items.

**Rated pairs** (``pairs``): readers chose which of two outputs of one reference damages a reader
more. Scorers: CER under each of the paper's five cumulative conventions (the policy presets
``raw``, ``no-space``, ``alnum``, ``normalized``, ``casefold``) and semCER with each judge, each
output scored against the reference with :func:`semcer.evaluate`. Within a pair both outputs share
the reference, so a pair is ordered by the edit count (CER) or the severity mass (semCER), which
orders it exactly as the rates do and stays defined when a policy leaves the reference empty.

* The readers' strict majority (of the panel: raters who answered at least ``min_rater_share`` of
  the pairs): the output more panel raters chose than the other; ``equal`` counts for neither
  side, and a pair without a strict majority is left out. A scorer agrees when it charges the
  majority's output strictly more (a tie is a miss).
* Pools: all pairs; for each judge, the near-miss pairs (semCER and CER under ``near_miss_against``,
  default ``raw``, disagree strictly on which output is worse), the normalization-proof pairs
  (semCER disagrees with every one of the five conventions) and the near-miss pairs that are not
  normalization-proof (Figure 7's last panel).
* Margins: semCER's agreement minus each convention's, on the same pairs of a pool (each judge on
  the "all" pool and on its own pools), with a paired bootstrap interval and a paired sign-flip
  p-value, Holm-corrected across every margin of the study (one family per language with
  ``by_lang``); a margin is significant when its Holm-corrected p-value is at most 1 - confidence.
* Reliability of the choices: alpha (ordinal: a worse < equal < b worse) and ICC(2,k) over the
  panel, and a single reader's agreement with the strict majority of the other panel readers.

**Rated transcriptions** (``transcriptions``): readers rated whole outputs on the rubric's levels (the
paper's Table 7). Scorers: line CER under each of the five conventions and line semCER with each
judge, each with Spearman against the panel's mean rating (bootstrap interval over outputs); each
convention's difference from semCER with the first judge, with a paired bootstrap interval and a
paired-permutation p-value (the two scores' ranks swapped item by item), Holm-corrected over the
five conventions. An output a convention leaves without reference units is left out and counted.

``by_lang`` repeats each study within each language (each language is its own pool: its own panel,
its own Holm family).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from semcer.api.evaluation import cer as line_cer
from semcer.api.evaluation import evaluate, opened_judge, opened_store
from semcer.errors import EmptyReferenceError, InputError, SemcerError, quoted
from semcer.io.ratings import (
    RatedItem,
    RatedPair,
    RatedTranscription,
    Rating,
    read_items,
    read_pairs,
    read_ratings,
    read_transcriptions,
)
from semcer.judges.base import JudgeBase
from semcer.judges.rubric.classes import edit_class
from semcer.metrics.signature import MethodSignature, unicode_field
from semcer.statistics.agreement import MIN_SHARE, Reliability, reader_reliability
from semcer.statistics.bootstrap import (
    MIN_INTERVAL_ITEMS,
    MIN_USABLE_SHARE,
    Estimate,
    check_resampling,
    guarded,
    level_field,
)
from semcer.statistics.correlation import (
    partial_spearman_within_interval,
    spearman_difference,
    spearman_difference_pvalue,
    spearman_interval,
)
from semcer.statistics.judge_eval import CLEAR_GAP
from semcer.statistics.multiple import holm
from semcer.statistics.preference import (
    Margin,
    agreement,
    choice_codes,
    margin,
    near_miss,
    reader_agreement,
    strict_majority,
)
from semcer.statistics.ranking import (
    ClearPairs,
    TopOfList,
    clear_pair_agreement,
    top_of_list,
    top_of_list_difference,
    top_of_list_interval,
)
from semcer.store.cached import judge_cached
from semcer.text.policy import get_policy
from semcer.text.script import lang_group
from semcer.text.units import Unit, check_unit

#: The paper's five cumulative CER conventions (Table 7), as semcer's policy presets.
CER_CONVENTIONS: tuple[str, ...] = ("raw", "no-space", "alnum", "normalized", "casefold")
#: The rubric's five levels in one line (level k has rating k/4).
LEVELS_LEGEND = ("levels: 0 cosmetic · 1 non-word, context recovers · 2 valid alternative · "
                 "3 detectable, not recoverable · 4 reads perfectly, is false (level k = rating k/4)")
#: Where the top of the list is read (Figure 3's rule), and the curve's axis (the first half).
TOP_FRACTION = 0.10
CURVE_FRACTIONS: tuple[float, ...] = tuple(round(0.01 * k, 2) for k in range(51))
POOLS: tuple[str, ...] = ("all", "near_miss", "normalization_proof", "near_miss_not_proof")


@dataclass(frozen=True)
class Panel:
    """The raters kept by the share rule and the reliability over them."""

    reliability: Reliability
    raters: tuple[str, ...]
    dropped: tuple[str, ...]
    n_items: int
    notes: tuple[str, ...] = ()  # why alpha or ICC is undefined, a single-reader warning

    def to_dict(self) -> dict[str, Any]:
        r = self.reliability
        return {"alpha": _num(r.alpha), "icc2k": _num(r.icc2k), "raters": list(self.raters),
                "raters_dropped": list(self.dropped), "items": self.n_items, "items_alpha": r.n_items,
                "items_complete": r.n_items_complete, "min_rater_share": r.min_share, "notes": list(self.notes)}


@dataclass(frozen=True)
class ScorerResult:
    """One scorer against the readers' mean ratings, on ``n`` items."""

    name: str
    kind: str  # "judge", "judge-mode" or "column"
    source: str  # the judge's identity or the column's name
    n: int
    spearman: Estimate
    partial: dict[str, tuple[Estimate, int] | None]  # band -> (estimate, number of bands); None: undefined
    top: TopOfList
    top10: Estimate
    clear: ClearPairs

    def to_dict(self) -> dict[str, Any]:
        partial = {band: None if v is None else {**_est(v[0]), "bands": v[1]} for band, v in self.partial.items()}
        return {
            "kind": self.kind, "source": self.source, "items": self.n, "spearman": _est(self.spearman),
            "partial_within": partial,
            "top_of_list_10": _num(self.top10.value),
            "top_of_list": {"fraction": TOP_FRACTION, **_est(self.top10), "ceiling": _num(self.top.ceiling_at(TOP_FRACTION))
                            if self.top.total_damage > 0 else None, "random": TOP_FRACTION,
                            "curve": {"fractions": list(self.top.fractions), "caught": [_num(v) for v in self.top.caught],
                                      "ceiling": [_num(v) for v in self.top.ceiling]}},
            "clear_pairs": {**_est(self.clear.share), "pairs": self.clear.n_pairs, "gap": self.clear.gap},
        }


@dataclass(frozen=True)
class Lead:
    """A judge against a baseline score (a column) on the same items: the differences in Spearman
    and in the top-of-list share at 10 %, with paired intervals (the paper's Table 6 daggers: a
    baseline that severity leads significantly, the interval above 0)."""

    scorer: str
    baseline: str
    spearman: Estimate
    top10: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "baseline": self.baseline,
                "spearman_difference": _est(self.spearman, "difference"),
                "top_of_list_10_difference": _est(self.top10, "difference"),
                "leads_spearman": _leads(self.spearman), "leads_top_of_list_10": _leads(self.top10)}


def _leads(e: Estimate) -> bool:
    return not math.isnan(e.lo) and e.lo > 0


@dataclass(frozen=True)
class EditStudy:
    """Rated single edits: the panel and every scorer against its mean ratings."""

    panel: Panel
    n_rated: int  # items with a rating
    n_scored: int  # items every scorer is compared on
    n_unrated: int  # items of the items file nobody rated
    n_without_panel: int  # rated only by raters outside the panel
    n_failed: int  # a judge failed on them
    scorers: dict[str, ScorerResult]
    leads: tuple[Lead, ...] = ()  # each judge against each score column

    def to_dict(self) -> dict[str, Any]:
        return {"reliability": self.panel.to_dict(),
                "items": {"rated": self.n_rated, "scored": self.n_scored, "unrated": self.n_unrated,
                          "without_panel_rating": self.n_without_panel, "failed": self.n_failed},
                "scorers": {name: s.to_dict() for name, s in self.scorers.items()},
                "leads": [lead.to_dict() for lead in self.leads]}


@dataclass(frozen=True)
class MarginRow:
    """semCER with one judge minus one CER convention, on one pool."""

    pool: str
    judge: str | None
    scorer: str
    baseline: str
    margin: Margin

    def to_dict(self) -> dict[str, Any]:
        m = self.margin
        return {"pool": self.pool, "judge": self.judge, "scorer": self.scorer, "baseline": self.baseline,
                **_est(m.difference, "difference"), "agreement": _num(m.agreement1.value),
                "agreement_baseline": _num(m.agreement2.value), "p_value": _num(m.p_value),
                "p_value_holm": _num(m.p_holm), "pairs": m.n_pairs,
                "significant": not math.isnan(m.p_holm) and m.p_holm <= 1.0 - m.confidence}


@dataclass(frozen=True)
class PoolResult:
    """One pool of pairs: its size, each scorer's agreement with the majority, a reader's agreement."""

    pool: str
    judge: str | None
    n_pairs: int
    n_majority: int
    agreement: dict[str, Estimate]
    reader: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {"pool": self.pool, "judge": self.judge, "pairs": self.n_pairs, "with_majority": self.n_majority,
                "agreement": {k: _est(v) for k, v in self.agreement.items()}, "reader_agreement": _est(self.reader)}


@dataclass(frozen=True)
class PairStudy:
    """Rated pairs: counts, the panel, pools, agreements and Holm-corrected margins."""

    n_pairs: int
    n_failed: int
    panel: Panel
    pools: tuple[PoolResult, ...]
    margins: tuple[MarginRow, ...]
    scorers: dict[str, dict[str, Any]]  # name -> what it is
    near_miss_against: str
    chose: str

    def to_dict(self) -> dict[str, Any]:
        first = self.pools[0]
        return {"pairs": self.n_pairs, "with_majority": first.n_majority, "failed": self.n_failed,
                "reliability": self.panel.to_dict(), "reader_agreement": _est(first.reader),
                "scorers": {name: {**info, "agreement": _est(first.agreement[name])} for name, info in self.scorers.items()},
                "pools": [p.to_dict() for p in self.pools], "margins": [m.to_dict() for m in self.margins],
                "near_miss_against": self.near_miss_against, "chose": self.chose}


@dataclass(frozen=True)
class TranscriptionScorer:
    """One scorer's Spearman with the readers' mean rating of whole transcriptions and, for a CER
    convention, its difference from semCER with the first judge (paired interval, Holm-corrected
    paired-permutation p-value)."""

    name: str
    info: dict[str, Any]
    spearman: Estimate
    difference: Estimate | None = None
    p_value: float = math.nan
    p_holm: float = math.nan

    def to_dict(self, confidence: float) -> dict[str, Any]:
        out = {**self.info, "spearman": _est(self.spearman)}
        if self.difference is not None:
            out.update({"difference_from_semcer": _est(self.difference, "difference"), "p_value": _num(self.p_value),
                        "p_value_holm": _num(self.p_holm),
                        "significant": not math.isnan(self.p_holm) and self.p_holm <= 1.0 - confidence})
        return out


@dataclass(frozen=True)
class TranscriptionStudy:
    """Readers' ratings of whole transcriptions against line CER (five conventions) and semCER (Table 7)."""

    panel: Panel
    n_rated: int
    n_scored: int
    n_failed: int  # a judge failed on them
    n_undefined: int  # a CER convention left the reference without units
    scorers: dict[str, TranscriptionScorer]
    against: str | None  # the semCER scorer the conventions are compared with
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return {"reliability": self.panel.to_dict(),
                "items": {"rated": self.n_rated, "scored": self.n_scored, "failed": self.n_failed,
                          "undefined": self.n_undefined},
                "against": self.against,
                "scorers": {k: v.to_dict(self.confidence) for k, v in self.scorers.items()}}


@dataclass(frozen=True)
class MetaEvaluation:
    """Everything ``semcer meta-eval`` reports; :meth:`to_dict` is its JSON shape."""

    edits: EditStudy | None
    pairs: PairStudy | None
    judges: dict[str, str]  # name -> identity
    settings: dict[str, Any]
    by_lang: dict[str, tuple[EditStudy | None, PairStudy | None]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    transcriptions: TranscriptionStudy | None = None

    @property
    def signature(self) -> MethodSignature:
        """What the numbers depend on besides the ratings: the scorers, how the panel was formed,
        the bands, the bootstrap and permutations, the text policy and units of the pairs' and
        transcriptions' CER and semCER, the Unicode versions, the semcer version."""
        s = self.settings
        return MethodSignature("meta", (
            ("judges", ",".join(f"{k}={v}" for k, v in self.judges.items()) or "none"),
            ("columns", ",".join(s["score_columns"]) or "none"), ("bands", ",".join(s["bands"])),
            ("panel", f"{s['min_rater_share']:g}"), ("gap", f"{s['clear_gap']:g}"),
            ("near-miss", s["near_miss_against"]), ("chose", s["chose"]), ("boot", str(s["n_boot"])),
            ("seed", str(s["seed"])), ("conf", level_field(s["confidence"])), ("perm", str(s["n_permutations"])),
            ("unit", s["unit"]), ("policy", f"{s['policy']}#{get_policy(s['policy']).hash}"),
            ("unicode", unicode_field(True, True))))

    @property
    def failures(self) -> int:
        """Items and pairs left out because a judge failed on them."""
        return ((self.edits.n_failed if self.edits else 0) + (self.pairs.n_failed if self.pairs else 0)
                + (self.transcriptions.n_failed if self.transcriptions else 0))

    def to_dict(self) -> dict[str, Any]:
        sig = self.signature
        out: dict[str, Any] = {"signature": str(sig), "signature_fields": sig.fields(), "levels": LEVELS_LEGEND}
        if self.edits is not None:
            out.update(self.edits.to_dict())
        else:
            out.update({"reliability": None, "items": None, "scorers": {}})
        out["pairs"] = None if self.pairs is None else self.pairs.to_dict()
        out["transcriptions"] = None if self.transcriptions is None else self.transcriptions.to_dict()
        if self.by_lang:
            out["by_lang"] = {lang: {**(e.to_dict() if e is not None else {"reliability": None, "items": None,
                                                                            "scorers": {}}),
                                     "pairs": None if p is None else p.to_dict()}
                              for lang, (e, p) in self.by_lang.items()}
        out["judges"] = dict(self.judges)
        out["settings"] = dict(self.settings)
        out["notes"] = list(self.notes)
        return out


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _est(e: Estimate, key: str = "value") -> dict[str, Any]:
    """The JSON of an estimate: its value, its interval (null when none), how many resamples were
    drawn and defined it, and, when a value has no interval although resamples were drawn, why."""
    lo, hi = _num(e.lo), _num(e.hi)
    out: dict[str, Any] = {key: _num(e.value), "interval": None if lo is None or hi is None else [lo, hi]}
    if e.n_boot:
        out["resamples"] = {"drawn": e.n_boot, "usable": e.n_usable}
        if out["interval"] is None and out[key] is not None:
            out["no_interval"] = (f"defined on only {e.n_usable} of {e.n_boot} resamples"
                                  if e.n_usable < MIN_USABLE_SHARE * e.n_boot
                                  else f"fewer than {MIN_INTERVAL_ITEMS} items")
    return out


# ---------------------------------------------------------------------------------------------
# The entry point


def meta_eval(
    *,
    ratings: Any = None,
    items: Any = None,
    pairs: Any = None,
    transcriptions: Any = None,
    judges: Sequence[Any] | Mapping[str, Any] = (),
    score_columns: Sequence[str] = (),
    bands: Sequence[str] = ("edit_class",),
    min_rater_share: float = MIN_SHARE,
    by_lang: bool = False,
    clear_gap: float = CLEAR_GAP,
    near_miss_against: str = "raw",
    chose: str = "worse",
    unit: Unit = "grapheme",
    policy: str | None = None,
    store: Any = None,
    n_boot: int = 1000,
    n_permutations: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> MetaEvaluation:
    """Scores against reader ratings and reader preferences (see the module documentation).

    ``ratings``, ``items`` and ``pairs`` are paths (read by :mod:`semcer.io.ratings`) or what its
    readers return. ``judges`` are judge names (``"compact"``, ``"rubric"``, ...) or judge objects
    (named by their identity), or a mapping name -> judge (name or object); each scores the items
    from their marked pairs, through ``store`` when given, and scores the
    pairs as semCER (with ``policy``, default ``nfc``). ``score_columns`` are numeric columns of
    the items used as scores. Seeded: the same inputs and seed give the same intervals.
    """
    _check_options(min_rater_share, clear_gap, near_miss_against, chose, n_boot, n_permutations, confidence)
    check_unit(unit)
    rating_rows = _read(ratings, read_ratings)
    item_rows = _read(items, read_items)
    pair_rows = _read(pairs, read_pairs)
    transcription_rows = _read(transcriptions, read_transcriptions)
    _check_inputs(rating_rows, item_rows, pair_rows if transcription_rows is None else [], bool(judges), score_columns)
    band_specs = [_parse_band(b) for b in bands]
    names, judge_list = _named_judges(judges)
    settings = {"min_rater_share": min_rater_share, "clear_gap": clear_gap, "bands": list(bands),
                "n_boot": n_boot, "n_permutations": n_permutations, "seed": seed, "confidence": confidence,
                "unit": unit, "policy": policy or "nfc", "cer_conventions": list(CER_CONVENTIONS),
                "score_columns": list(score_columns), "near_miss_against": near_miss_against, "chose": chose}
    notes: list[str] = []
    identities, edits, langs_edits, pair_study, langs_pairs, whole = _run_studies(
        rating_rows, item_rows, pair_rows, transcription_rows, names, judge_list, store, score_columns, band_specs,
        min_rater_share, clear_gap, near_miss_against, chose, unit, policy, n_permutations,
        {"n_boot": n_boot, "seed": seed, "confidence": confidence}, by_lang, notes)
    by = _by_language(langs_edits, langs_pairs)
    notes += _study_notes(edits, pair_study, whole, n_boot)
    return MetaEvaluation(edits, pair_study, identities, settings, by, tuple(dict.fromkeys(notes)), whole)


def _named_judges(judges: Sequence[Any] | Mapping[str, Any]) -> tuple[list[str], list[Any]]:
    """The judges' names and the judges (names or objects), from a sequence or a mapping name -> judge."""
    if isinstance(judges, Mapping):
        return [str(k) for k in judges], list(judges.values())
    return _judge_names(judges), list(judges)


def _run_studies(rating_rows: Any, item_rows: Any, pair_rows: Any, transcription_rows: Any, names: list[str],
                 judge_list: list[Any], store: Any, score_columns: Sequence[str], band_specs: list[Any],
                 min_rater_share: float, clear_gap: float, near_miss_against: str, chose: str, unit: Unit,
                 policy: str | None, n_permutations: int, boot: dict[str, Any], by_lang: bool, notes: list[str],
                 ) -> tuple[dict[str, str], EditStudy | None, dict[str, EditStudy] | None, PairStudy | None,
                            dict[str, PairStudy] | None, TranscriptionStudy | None]:
    """Open the judges and the store, run each study that has its inputs, and close them again: the
    judges' identities (name -> identity), the edit study and its languages, the pair study and its
    languages, the transcription study (None where a study has no inputs)."""
    with contextlib.ExitStack() as stack:
        opened = [stack.enter_context(opened_judge(j)) for j in judge_list]
        st = stack.enter_context(opened_store(store))
        identities = {name: j.identity for name, j in zip(names, opened)}
        edits = langs_edits = None
        if rating_rows is not None:
            edits, langs_edits = _rated_edits(rating_rows, item_rows, names, opened, st, score_columns, band_specs,
                                              min_rater_share, clear_gap, boot, by_lang, notes)
        pair_study = langs_pairs = None
        if pair_rows is not None:
            pair_study, langs_pairs = _rated_pairs(pair_rows, names, opened, st, unit, policy, min_rater_share,
                                                   near_miss_against, chose, n_permutations, boot, by_lang)
        whole = None if transcription_rows is None else _transcription_study(
            transcription_rows, names, opened, st, unit, policy, min_rater_share, n_permutations, boot)
    return identities, edits, langs_edits, pair_study, langs_pairs, whole


def _by_language(langs_edits: dict[str, EditStudy] | None, langs_pairs: dict[str, PairStudy] | None,
                 ) -> dict[str, tuple[EditStudy | None, PairStudy | None]]:
    """Each language's edit study and pair study (None where one has no such language), languages sorted."""
    by: dict[str, tuple[EditStudy | None, PairStudy | None]] = {}
    for lang in sorted({*(langs_edits or {}), *(langs_pairs or {})}):
        by[lang] = ((langs_edits or {}).get(lang), (langs_pairs or {}).get(lang))
    return by


def _study_notes(edits: EditStudy | None, pairs: PairStudy | None, whole: TranscriptionStudy | None,
                 n_boot: int) -> list[str]:
    """The panels' reliability notes, and a note for each study compared on too few items for an
    interval (``MIN_INTERVAL_ITEMS``), so that the missing intervals have their reason."""
    out: list[str] = []
    sizes = [("rated edits", edits, "items", None if edits is None or not edits.scorers else edits.n_scored),
             ("rated pairs", pairs, "pairs with a strict majority", None if pairs is None else pairs.pools[0].n_majority),
             ("rated transcriptions", whole, "transcriptions", None if whole is None else whole.n_scored)]
    for what, study, unit, n in sizes:
        if study is None:
            continue
        out += study.panel.notes
        if n_boot and n is not None and n < MIN_INTERVAL_ITEMS:
            out.append(f"{what}: {n} {unit} compared, fewer than {MIN_INTERVAL_ITEMS}: values without intervals "
                       "(resamples of so few items take only a handful of values, an interval would claim a "
                       "certainty the panel does not have)")
    return out


def _check_inputs(rating_rows: Any, item_rows: Any, pair_rows: Any, judged: bool, score_columns: Sequence[str]) -> None:
    """What can be told wrong from which inputs were given, before anything is judged."""
    if item_rows is not None and rating_rows is None:
        raise InputError("--items gives the rated items: the ratings are missing (--ratings FILE)")
    if rating_rows is None and pair_rows is None:
        raise InputError("nothing to meta-evaluate: give reader ratings (--ratings, with --items), rated pairs "
                         "(--pairs) or rated transcriptions (--transcriptions)")
    if rating_rows is not None and item_rows is None and pair_rows is None and (judged or score_columns):
        raise InputError("--judge and --score-column score the rated items: give them with --items FILE")
    if score_columns and item_rows is None:
        raise InputError("--score-column reads a column of the rated items: give them with --items FILE")
    if score_columns and len(set(score_columns)) != len(score_columns):
        raise InputError("--score-column: each column once")


def _rated_edits(rating_rows: Any, item_rows: Any, names: list[str], opened: list[Any], st: Any,
                 score_columns: Sequence[str], band_specs: list[Any], min_rater_share: float, clear_gap: float,
                 boot: dict[str, Any], by_lang: bool, notes: list[str]) -> tuple[EditStudy, dict[str, EditStudy] | None]:
    """The single-edit study (and one per language with ``by_lang``)."""
    pool = _edit_pool(rating_rows, item_rows)
    scores = _item_scores(pool, names, opened, st, score_columns)
    band_values = {b.name: _band_values(b, pool, scores, notes) for b in band_specs}
    edits = _edit_study(pool, scores, band_values, min_rater_share, clear_gap, boot)
    if not edits.panel.raters:
        raise InputError(f"no rater rated at least {min_rater_share:g} of the {len(pool.ids)} rated items, so "
                         "there is no panel; lower --min-rater-share")
    if not by_lang:
        return edits, None
    if pool.items is None:
        raise InputError("--by-lang needs the items' languages: give --items FILE")
    langs = {lang: _edit_study(pool.subset(mask), _mask_scores(scores, mask),
                               {k: _mask_band(v, mask) for k, v in band_values.items()},
                               min_rater_share, clear_gap, boot)
             for lang, mask in _lang_masks([it.lang for it in pool.items])}
    return edits, langs


def _rated_pairs(pair_rows: Sequence[RatedPair], names: list[str], opened: list[Any], st: Any, unit: Unit,
                 policy: str | None, min_rater_share: float, against: str, chose: str, n_permutations: int,
                 boot: dict[str, Any], by_lang: bool) -> tuple[PairStudy, dict[str, PairStudy] | None]:
    """The pair study (and one per language with ``by_lang``)."""
    pscores = _pair_scores(pair_rows, names, opened, st, unit, policy)
    study = _pair_study(pair_rows, pscores, names, min_rater_share, against, chose, n_permutations, boot)
    if not by_lang:
        return study, None
    return study, {lang: _pair_study([p for p, m in zip(pair_rows, mask) if m], _mask_pair_scores(pscores, mask),
                                     names, min_rater_share, against, chose, n_permutations, boot)
                   for lang, mask in _lang_masks([p.lang for p in pair_rows])}


def _read(given: Any, reader: Callable[[Any], Any]) -> Any:
    if given is None:
        return None
    if isinstance(given, (str, os.PathLike)):
        return reader(given)
    return list(given)


def _check_options(min_share: float, gap: float, against: str, chose: str, n_boot: int, n_perm: int,
                   confidence: float) -> None:
    if not 0.0 <= min_share <= 1.0:
        raise SemcerError(f"the rater share must be in [0, 1] (command line: --min-rater-share), got {min_share}")
    if not 0.0 < gap <= 1.0:
        raise SemcerError(f"the clear-pair gap must be in (0, 1] (command line: --clear-gap), got {gap}")
    if against not in CER_CONVENTIONS:
        raise SemcerError(f"near misses are taken against one of the CER conventions {', '.join(CER_CONVENTIONS)}, "
                          f"not {against!r} (command line: --near-miss-against)")
    if chose not in ("worse", "better"):
        raise SemcerError(f"the choices name the 'worse' or the 'better' output, not {chose!r} (command line: --chose)")
    check_resampling(confidence, n_boot, n_perm, error=SemcerError)


def _judge_names(judges: Sequence[Any]) -> list[str]:
    names = [j.strip() if isinstance(j, str) else getattr(j, "identity", repr(j)) for j in judges]
    if len(set(names)) != len(names):
        raise InputError("--judge: each judge once")
    return names


def _lang_masks(langs: Sequence[str | None]) -> Iterator[tuple[str, np.ndarray]]:
    tags = np.array([lang_group(lang) for lang in langs], dtype=object)
    for lang in sorted(set(tags)):
        yield lang, tags == lang


# ---------------------------------------------------------------------------------------------
# Rated edits


@dataclass(frozen=True)
class _Pool:
    """The rated items (columns of ``matrix``), the raters (its rows) and the items file's rows."""

    ids: tuple[str, ...]
    raters: tuple[str, ...]
    matrix: np.ndarray  # (raters, items), NaN where not rated
    items: tuple[RatedItem, ...] | None
    n_unrated: int

    def subset(self, mask: np.ndarray) -> _Pool:
        idx = np.flatnonzero(mask)
        return _Pool(tuple(self.ids[i] for i in idx), self.raters, self.matrix[:, idx],
                     None if self.items is None else tuple(self.items[i] for i in idx), 0)


def _edit_pool(ratings: Sequence[Rating], items: Sequence[RatedItem] | None) -> _Pool:
    if not ratings:
        raise InputError("the ratings file holds no rating")
    by_id = None if items is None else {it.id: it for it in items}
    if by_id is not None:
        for r in ratings:
            if r.item not in by_id:
                raise InputError(f"{r.where}: item {quoted(r.item)} is not in the items file "
                                 "(items are keyed by edit_id in an edit list, by id in labelled edits)")
    rated = {r.item for r in ratings}
    if items is not None:
        ids = [it.id for it in items if it.id in rated]
    else:
        ids = list(dict.fromkeys(r.item for r in ratings))
    raters = list(dict.fromkeys(r.rater for r in ratings))
    col = {i: k for k, i in enumerate(ids)}
    row = {r: k for k, r in enumerate(raters)}
    matrix = np.full((len(raters), len(ids)), np.nan)
    for r in ratings:
        matrix[row[r.rater], col[r.item]] = r.value
    kept = None if by_id is None else tuple(by_id[i] for i in ids)
    return _Pool(tuple(ids), tuple(raters), matrix, kept, 0 if items is None else len(items) - len(ids))


@dataclass(frozen=True)
class _Scores:
    """Each scorer's score of each pool item (NaN where a judge failed) and the judges' modes."""

    values: dict[str, np.ndarray]
    kinds: dict[str, tuple[str, str]]  # name -> (kind, source)
    modes: dict[str, np.ndarray]  # severity scorer name -> the judge's mode per item


def _item_scores(pool: _Pool, names: Sequence[str], judges: Sequence[JudgeBase], store: Any,
                 columns: Sequence[str]) -> _Scores:
    values: dict[str, np.ndarray] = {}
    kinds: dict[str, tuple[str, str]] = {}
    modes: dict[str, np.ndarray] = {}
    if pool.items is None:
        return _Scores(values, kinds, modes)
    if judges:
        contexts = [it.context() for it in pool.items]
    for name, judge in zip(names, judges):
        found, _ = judge_cached(judge, contexts, store, batch_size=judge.preferred_batch_size,
                                deterministic=judge.deterministic)
        values[name] = np.array([math.nan if j.severity is None else j.severity for j in found])
        modes[name] = np.array([math.nan if j.mode is None else j.mode for j in found], dtype=float)
        values[f"{name}:mode"] = modes[name]
        kinds[name] = ("judge", judge.identity)
        kinds[f"{name}:mode"] = ("judge-mode", judge.identity)
    for col in columns:
        values[f"column:{col}"] = np.array([it.number(col) for it in pool.items])
        kinds[f"column:{col}"] = ("column", col)
    return _Scores(values, kinds, modes)


def _mask_scores(s: _Scores, mask: np.ndarray) -> _Scores:
    return _Scores({k: v[mask] for k, v in s.values.items()}, s.kinds, {k: v[mask] for k, v in s.modes.items()})


@dataclass(frozen=True)
class _Band:
    name: str
    kind: str  # "edit_class", "mode", "cer", "column"
    edges: tuple[float, ...] = ()


def _parse_band(spec: str) -> _Band:
    spec = spec.strip()
    if not spec:
        raise InputError("--band: give edit_class, mode, cer:E1,E2,... or a column of the items")
    if spec in ("edit_class", "mode"):
        return _Band(spec, spec)
    if spec.startswith("cer:"):
        try:
            edges = tuple(float(x) for x in spec[4:].split(","))
        except ValueError:
            raise InputError(f"--band {spec}: the CER edges must be numbers, e.g. cer:0.05,0.1,0.2") from None
        if not edges or any(not math.isfinite(e) or e <= 0 for e in edges) or list(edges) != sorted(set(edges)):
            raise InputError(f"--band {spec}: the CER edges must be positive and increasing, e.g. cer:0.05,0.1,0.2")
        return _Band(spec, "cer", edges)
    return _Band(spec, "column")


#: Band labels per item, or, for ``mode``, None (each judge's own modes are used).
_BandValues = np.ndarray | None


def _band_values(band: _Band, pool: _Pool, scores: _Scores, notes: list[str]) -> _BandValues:
    if band.kind == "mode":
        if not scores.modes:
            notes.append("--band mode is each judge's own mode: no judge was given")
        return None
    if pool.items is None:
        notes.append(f"band {band.name}: the items are not known (no --items), so no partial correlation")
        return np.array([], dtype=object)
    if band.kind == "edit_class":
        labels = []
        for it in pool.items:
            cls = it.fields.get("edit_class")
            if not isinstance(cls, str) or not cls:
                ref_u, hyp_u = it.fields.get("ref_unit"), it.fields.get("hyp_unit")
                if not isinstance(ref_u, str) or not isinstance(hyp_u, str):
                    notes.append("band edit_class: the items carry no edit_class and no ref_unit/hyp_unit, so no "
                                 "partial correlation within it")
                    return np.array([], dtype=object)
                cls = edit_class(ref_u, hyp_u)
            labels.append(cls)
        return np.array(labels, dtype=object)
    if band.kind == "cer":
        codes = []
        for it in pool.items:
            ref, hyp = it.fields.get("ref"), it.fields.get("hyp")
            if not isinstance(ref, str) or not isinstance(hyp, str):
                if it.edit_list:
                    ctx = it.context()
                    ref, hyp = ctx.ref, ctx.hyp
                else:
                    raise InputError(f"{it.where}: --band {band.name} needs the item's lines 'ref' and 'hyp'")
            try:
                value = line_cer(ref, hyp)
            except EmptyReferenceError:
                value = math.inf
            codes.append(_cer_label(value, band.edges))
        return np.array(codes, dtype=object)
    return np.array([it.label(band.name) for it in pool.items], dtype=object)


def _cer_label(value: float, edges: tuple[float, ...]) -> str:
    k = int(np.searchsorted(np.asarray(edges), value, side="right"))
    lo = 0.0 if k == 0 else edges[k - 1]
    return f"[{lo:g}, {edges[k]:g})" if k < len(edges) else f"[{lo:g}, inf)"


def _mask_band(values: _BandValues, mask: np.ndarray) -> _BandValues:
    """The band labels of a subset; None (the judges' modes) and an empty array (no labels) stay."""
    return values if values is None or not len(values) else values[mask]


def _panel(matrix: np.ndarray, raters: Sequence[str], min_share: float, what: str) -> Panel:
    """The panel of ``what`` (rated edits, pairs, transcriptions) and the reliability over it."""
    rel = reader_reliability(matrix, min_share=min_share)
    kept = tuple(raters[i] for i in rel.raters)
    notes = _reliability_notes(matrix[list(rel.raters)], kept, what)
    return Panel(rel, kept, tuple(r for r in raters if r not in kept), matrix.shape[1], notes)


def _reliability_notes(sub: np.ndarray, kept: Sequence[str], what: str) -> tuple[str, ...]:
    """Why alpha and ICC(2,k) are undefined, where they are for a reason of the panel itself (they
    are printed as a dash, never NaN, so the dash needs its reason): a single reader has no
    agreement to measure (and the readers' rating is then one person's, hence a warning), and
    ratings that are all equal have no variation to agree on."""
    if len(kept) == 1:
        return (f"warning: {what}: the panel is a single reader ({kept[0]}): no agreement to measure, so "
                "no alpha or ICC(2,k), and the readers' rating is that one reader's",)
    values = np.unique(sub[~np.isnan(sub)])
    if len(kept) > 1 and len(values) == 1:
        return (f"{what}: every panel rating is the same ({values[0]:g}): no variation in the ratings, so "
                "alpha and ICC(2,k) are undefined",)
    return ()


def _edit_study(pool: _Pool, scores: _Scores, bands: Mapping[str, _BandValues], min_share: float, gap: float,
                boot: dict[str, Any]) -> EditStudy:
    # raters without any rating in this pool (another language) are no raters of it
    present = ~np.isnan(pool.matrix).all(axis=1)
    matrix = pool.matrix[present]
    raters = [r for r, p in zip(pool.raters, present) if p]
    panel = _panel(matrix, raters, min_share, "rated edits")
    sub = matrix[list(panel.reliability.raters)]
    has = (~np.isnan(sub)).any(axis=0) if len(sub) else np.zeros(matrix.shape[1], dtype=bool)
    mean = np.full(matrix.shape[1], np.nan)
    mean[has] = np.nanmean(sub[:, has], axis=0)
    failed = np.zeros(matrix.shape[1], dtype=bool)
    for v in scores.values.values():
        failed |= np.isnan(v)
    keep = has & ~failed
    damage = mean[keep]
    out: dict[str, ScorerResult] = {}
    for name, values in scores.values.items() if keep.any() else ():
        x = values[keep]
        partial: dict[str, tuple[Estimate, int] | None] = {}
        for band, labels in bands.items():
            if labels is None:
                if name not in scores.modes:
                    partial[band] = None
                    continue
                labels = scores.modes[name][keep]
            elif not len(labels):
                partial[band] = None
                continue
            else:
                labels = labels[keep]
            est = guarded(partial_spearman_within_interval(x, damage, labels, **boot), len(x))
            partial[band] = (est, len(set(labels.tolist())))
        kind, source = scores.kinds[name]
        clear = clear_pair_agreement(x, damage, gap, **boot)
        out[name] = ScorerResult(
            name, kind, source, len(x), guarded(spearman_interval(x, damage, **boot), len(x)),
            partial, top_of_list(x, damage, CURVE_FRACTIONS),
            guarded(top_of_list_interval(x, damage, TOP_FRACTION, **boot), len(x)),
            replace(clear, share=guarded(clear.share, len(x))))
    judges = [n for n in out if out[n].kind == "judge"]
    columns = [n for n in out if out[n].kind == "column"]
    n = len(damage)
    leads = tuple(Lead(j, c, guarded(spearman_difference(scores.values[j][keep], scores.values[c][keep], damage,
                                                          **boot), n),
                       guarded(top_of_list_difference(scores.values[j][keep], scores.values[c][keep], damage,
                                                       TOP_FRACTION, **boot), n))
                  for j in judges for c in columns)
    return EditStudy(panel, matrix.shape[1], int(keep.sum()), pool.n_unrated, int((~has).sum()),
                     int((has & failed).sum()), out, leads)


# ---------------------------------------------------------------------------------------------
# Rated pairs


@dataclass(frozen=True)
class _PairScores:
    """Each scorer's (a, b) scores per pair: edit counts (CER) or severity mass (semCER, NaN: failed)."""

    a: dict[str, np.ndarray]
    b: dict[str, np.ndarray]
    info: dict[str, dict[str, Any]]


def _pair_scores(pairs: Sequence[RatedPair], names: Sequence[str], judges: Sequence[JudgeBase], store: Any,
                 unit: Unit, policy: str | None) -> _PairScores:
    if not pairs:
        raise InputError("the pairs file holds no pair")
    refs = {p.id: p.ref for p in pairs}
    langs = {p.id: p.lang for p in pairs if p.lang}
    a_out, b_out, info = {}, {}, {}

    def score(side: str, **kw: Any) -> np.ndarray:
        hyps = {p.id: getattr(p, side) for p in pairs}
        ev = evaluate(refs, hyps, unit=unit, langs=langs or None, empty_ref="insertions", **kw)
        by_id = {line.id: line.stats for line in ev.lines}
        if kw.get("judge") is None:
            return np.array([float(by_id[p.id].edits) for p in pairs])
        return np.array([math.nan if by_id[p.id].severity is None else by_id[p.id].severity for p in pairs])

    for conv in CER_CONVENTIONS:
        name = f"cer:{conv}"
        a_out[name], b_out[name] = score("a", policy=conv), score("b", policy=conv)
        info[name] = {"kind": "cer", "policy": conv}
    for name, judge in zip(names, judges):
        key = f"semcer:{name}"
        a_out[key] = score("a", policy=policy, judge=judge, store=store)
        b_out[key] = score("b", policy=policy, judge=judge, store=store)
        info[key] = {"kind": "semcer", "judge": judge.identity, "policy": policy or "nfc"}
    return _PairScores(a_out, b_out, info)


def _mask_pair_scores(s: _PairScores, mask: np.ndarray) -> _PairScores:
    return _PairScores({k: v[mask] for k, v in s.a.items()}, {k: v[mask] for k, v in s.b.items()}, s.info)


def _pair_study(pairs: Sequence[RatedPair], scores: _PairScores, names: Sequence[str], min_share: float,
                against: str, chose: str, n_permutations: int, boot: dict[str, Any]) -> PairStudy:
    failed = np.zeros(len(pairs), dtype=bool)
    for k in scores.a:
        failed |= np.isnan(scores.a[k]) | np.isnan(scores.b[k])
    keep = ~failed
    pairs = [p for p, ok in zip(pairs, keep) if ok]
    a = {k: v[keep] for k, v in scores.a.items()}
    b = {k: v[keep] for k, v in scores.b.items()}
    raters = list(dict.fromkeys(r for p in pairs for r, c in p.choices.items() if c is not None))
    rows = [[p.choices.get(r) for r in raters] for p in pairs]
    codes = choice_codes(rows, chose) if rows else np.zeros((0, len(raters)), dtype=np.int64)  # type: ignore[arg-type]
    # ordinal values of the answers: a worse (0) < equal (1) < b worse (2)
    ordinal = np.where(codes == 0, 0.0, np.where(codes == 2, 1.0, np.where(codes == 1, 2.0, np.nan))).T
    panel = _panel(ordinal.reshape(len(raters), len(pairs)), raters, min_share, "rated pairs")
    cols = list(panel.reliability.raters)
    choices = [[row[c] for c in cols] for row in rows]  # the panel's answers
    majority = strict_majority(choices, chose=chose) if choices else []  # type: ignore[arg-type]
    cer_names = [f"cer:{c}" for c in CER_CONVENTIONS]
    sem_names = [f"semcer:{n}" for n in names]
    pools: list[tuple[str, str | None, np.ndarray]] = [("all", None, np.ones(len(pairs), dtype=bool))]
    for n, sem in zip(names, sem_names):
        nm = near_miss((a[sem], b[sem]), (a[f"cer:{against}"], b[f"cer:{against}"]))
        proof = near_miss((a[sem], b[sem]), *((a[c], b[c]) for c in cer_names))
        pools += [("near_miss", n, nm), ("normalization_proof", n, proof), ("near_miss_not_proof", n, nm & ~proof)]
    results, raw = [], []
    for pool, judge, mask in pools:
        maj = [m if inside else None for m, inside in zip(majority, mask)]
        n_maj = sum(m is not None for m in maj)
        agree = {k: guarded(agreement(a[k], b[k], maj, **boot), n_maj) for k in (*cer_names, *sem_names)}
        sub = [row for row, inside in zip(choices, mask) if inside]
        reader = reader_agreement(sub, chose=chose, **boot) if sub else Estimate(math.nan, math.nan, math.nan)  # type: ignore[arg-type]
        results.append(PoolResult(pool, judge, int(mask.sum()), n_maj, agree, guarded(reader, len(sub))))
        for n, sem in zip(names, sem_names):
            if judge is not None and judge != n:
                continue
            for c in cer_names:
                raw.append(MarginRow(pool, n, sem, c, margin((a[sem], b[sem]), (a[c], b[c]), maj,
                                                             n_permutations=n_permutations, **boot)))
    adjusted = holm([r.margin.p_value for r in raw])
    margins = tuple(MarginRow(r.pool, r.judge, r.scorer, r.baseline, _with_holm(r.margin, p)) for r, p in zip(raw, adjusted))
    return PairStudy(len(pairs), int(failed.sum()), panel, tuple(results), margins, scores.info, f"cer:{against}", chose)


def _with_holm(m: Margin, p: float) -> Margin:
    """The margin with its Holm-corrected p-value, and no interval on too few pairs (:func:`_guarded`)."""
    return replace(m, p_holm=p, difference=guarded(m.difference, m.n_pairs))


# ---------------------------------------------------------------------------------------------
# Rated whole transcriptions


def _transcription_study(rows: Sequence[RatedTranscription], names: Sequence[str], judges: Sequence[JudgeBase],
                         store: Any, unit: Unit, policy: str | None, min_share: float, n_permutations: int,
                         boot: dict[str, Any]) -> TranscriptionStudy:
    """Line CER under each convention and line semCER with each judge against the panel's mean rating."""
    if not rows:
        raise InputError("the transcriptions file holds no transcription")
    raters = list(dict.fromkeys(r for t in rows for r, v in t.ratings.items() if v is not None))
    matrix = np.array([[math.nan if t.ratings.get(r) is None else t.ratings[r] for t in rows] for r in raters],
                      dtype=float).reshape(len(raters), len(rows))
    panel = _panel(matrix, raters, min_share, "rated transcriptions")
    sub = matrix[list(panel.reliability.raters)]
    has = (~np.isnan(sub)).any(axis=0) if len(sub) else np.zeros(len(rows), dtype=bool)
    values, info = _transcription_scores(rows, names, judges, store, unit, policy)
    undefined = np.zeros(len(rows), dtype=bool)  # a convention left the reference without units
    failed = np.zeros(len(rows), dtype=bool)  # a judge failed
    for k, v in values.items():
        if info[k]["kind"] == "cer":
            undefined |= np.isnan(v)
        else:
            failed |= np.isnan(v)
    failed &= ~undefined
    keep = has & ~failed & ~undefined
    mean = np.nanmean(sub[:, keep], axis=0) if keep.any() else np.zeros(0)
    against = f"semcer:{names[0]}" if names else None
    n = int(keep.sum())
    out = {k: TranscriptionScorer(k, info[k], guarded(spearman_interval(v[keep], mean, **boot), n))
           for k, v in values.items()}
    if against is not None and keep.any():
        conv = [f"cer:{c}" for c in CER_CONVENTIONS]
        diffs = {k: guarded(spearman_difference(values[against][keep], values[k][keep], mean, **boot), n)
                 for k in conv}
        pvals = [spearman_difference_pvalue(values[against][keep], values[k][keep], mean,
                                            n_permutations=n_permutations, seed=boot["seed"]) for k in conv]
        finite = [p for p in pvals if not math.isnan(p)]
        adjusted = iter(holm(finite))
        for k, p in zip(conv, pvals):
            out[k] = TranscriptionScorer(k, info[k], out[k].spearman, diffs[k], p, math.nan if math.isnan(p) else next(adjusted))
    return TranscriptionStudy(panel, int(has.sum()), int(keep.sum()), int((has & failed).sum()),
                              int((has & undefined).sum()), out, against, boot["confidence"])


def _transcription_scores(rows: Sequence[RatedTranscription], names: Sequence[str], judges: Sequence[JudgeBase],
                          store: Any, unit: Unit, policy: str | None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    refs = {t.id: t.ref for t in rows}
    hyps = {t.id: t.out for t in rows}
    langs = {t.id: t.lang for t in rows if t.lang}

    def rate(**kw: Any) -> np.ndarray:
        ev = evaluate(refs, hyps, unit=unit, langs=langs or None, empty_ref="insertions", **kw)
        by_id = {line.id: line.stats for line in ev.lines}
        picked = [by_id[t.id].semcer if kw.get("judge") is not None else by_id[t.id].cer for t in rows]
        return np.array([math.nan if v is None else float(v) for v in picked])

    values: dict[str, np.ndarray] = {}
    info: dict[str, Any] = {}
    for conv in CER_CONVENTIONS:
        values[f"cer:{conv}"] = rate(policy=conv)
        info[f"cer:{conv}"] = {"kind": "cer", "policy": conv}
    for name, judge in zip(names, judges):
        values[f"semcer:{name}"] = rate(policy=policy, judge=judge, store=store)
        info[f"semcer:{name}"] = {"kind": "semcer", "judge": judge.identity, "policy": policy or "nfc"}
    return values, info
