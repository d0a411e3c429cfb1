"""The semCER paper's analyses of a scored corpus (``semcer analyze``): where severity comes from
(Table 11), whether letter errors form real words (Table 12), and equal-count contrasts between
systems (Table 10).

Every system is aligned and judged once against the same references (:func:`semcer.evaluate`,
through one judge and store). Every analysis reads **the lines with one to ``max_edits`` edits**
(default 5, the paper's filter; 0 reads every line with an edit) whose edits were all judged; a
line's language is its ``lang`` (else the one detected from its script, as the judge saw it). Edit
classes are semcer's (:mod:`semcer.judges.rubric.classes`, computed from the edited units: the
classes the rubric and compact judges report).

* **Severity by language and edit class**, and the **grapheme load** (Table 11): per language and
  system, the mean severity of a mark-only edit (class ``mark``: the same base letters, another
  diacritic, tone mark or vowel sign), of a content substitution (a substitution of class
  ``letter`` or ``ideograph``) and of all edits, with their counts.
* **Real words** (Table 12): a *letter error* is a substitution of class ``letter``. It *forms a
  real word* when the reference word holding it (the run of letters, marks and digits around the
  edited unit), with the edited unit replaced by the output's unit and nothing else changed, is a
  word the lexicon knows: wordfreq's Zipf frequency >= 2.0 (the rubric judge's ``KNOWN_ZIPF``,
  through its lexicon module; for a language that wordfreq splits into morphemes, Korean, not
  more pieces than the reference word). *Chance* is the expected share when the same letter is
  replaced by a letter of the language's alphabet drawn uniformly at random instead: exactly, the
  share of the alphabet's candidate letters that form a real word, averaged over the letter errors.
  The alphabet comes from the lexicon: the letter units (case-folded) of wordfreq's 10,000 most
  frequent words of the language that make at least 0.01 % of their letters; a candidate is one of
  them in the script of the reference letter that would make a letter error too (not the same
  letter in another case, not the same base letter with another mark). Intervals are percentile
  bootstraps over the letter errors: of the observed share, of chance, and of their difference (a
  difference whose interval excludes 0 is marked). A letter error in a word of one unit is left
  out (every single letter is an entry of the lexicon, so it would form a "real word" by chance
  alone). Languages without a wordfreq list, and Chinese,
  Japanese and Thai-script languages (no spaces between words), have no word test and are listed
  as such. Fewer than ``min_letter_errors`` (30) letter errors: reported, but shown as a dash.
* **Equal-count contrasts** (Table 10): each system against the first (the baseline), per language,
  on the lines where both make the same number of edits (one to ``max_edits``): the mean severity
  per edit, system minus baseline, ``Σ_lines (sev_sys - sev_base) / Σ_lines k`` (both make ``k``
  edits on a line, so it is also the difference of the two per-edit means). Paired over lines: a
  percentile bootstrap over lines and a sign-flip permutation p-value (per line, the two systems
  swapped with probability 1/2), Holm-corrected over the (language, system) family.
"""

from __future__ import annotations

import contextlib
import math
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from semcer.api.comparison import system_names
from semcer.api.evaluation import evaluate, opened_judge, opened_store
from semcer.caches import cache
from semcer.errors import InputError, SemcerError
from semcer.judges.rubric.classes import edit_class, unit_kind
from semcer.judges.rubric.extra_lexicons import EXTRA_LANGS
from semcer.judges.rubric.features import KNOWN_ZIPF
from semcer.judges.rubric.lexicon import (
    CJK_LANGS,
    lexicon_lang,
    line_info,
    morpheme_tokenized,
    token_count,
    word_at,
    zipf,
)
from semcer.judges.rubric.wordfreq_tables import top_words
from semcer.metrics.results import Evaluation
from semcer.metrics.signature import Signature
from semcer.reports.text import input_notes
from semcer.statistics.bootstrap import (
    Estimate,
    check_resampling,
    guarded,
    percentile_estimate,
    resample_count_chunks,
    resampling_fields,
)
from semcer.statistics.multiple import holm
from semcer.statistics.paired import sign_flip_pvalues
from semcer.store.judging import JudgedEdit
from semcer.text.policy import TextPolicy
from semcer.text.script import base_lang, lang_group, unit_script
from semcer.text.units import Unit, graphemes

#: The paper's line filter: lines with one to five edits.
MAX_EDITS = 5
#: Fewer letter errors than this: the real-word share is shown as a dash (Table 12).
MIN_LETTER_ERRORS = 30
#: The alphabet of a language: the letters of this many of wordfreq's most frequent words ...
ALPHABET_WORDS = 10_000
#: ... that make at least this share of their letters.
ALPHABET_MIN_SHARE = 1e-4
#: Languages written without spaces between words (no word test), beside Chinese and Japanese.
UNSPACED = frozenset({"th", "lo", "km", "my"})
CONTENT_CLASSES = frozenset({"letter", "ideograph"})


@dataclass(frozen=True)
class Analysis:
    """The three analyses as rows (dicts in their JSON shape; undefined values are None).
    ``signature``: the systems' score signature with how the intervals and p-values were drawn
    (:func:`semcer.statistics.bootstrap.resampling_fields`, as ``semcer compare`` signs them)."""

    names: tuple[str, ...]
    judge: str
    signature: str
    by_class: list[dict[str, Any]]
    grapheme_load: list[dict[str, Any]]
    real_word: list[dict[str, Any]]
    no_lexicon: list[dict[str, Any]]
    equal_count: list[dict[str, Any]]
    lines: dict[str, dict[str, int]]  # system -> lines read, lines in the filter, lines left out (failed judge)
    settings: dict[str, Any]
    notes: tuple[str, ...] = field(default=())

    @property
    def failures(self) -> int:
        return sum(v["failed"] for v in self.lines.values())

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``semcer analyze --json``."""
        return {"signature": self.signature, "signature_fields": Signature.parse(self.signature).fields(),
                "judge": self.judge, "systems": list(self.names),
                "baseline": self.names[0], "lines": self.lines, "grapheme_load": self.grapheme_load,
                "by_class": self.by_class, "real_word": self.real_word, "no_lexicon": self.no_lexicon,
                "equal_count": self.equal_count, "settings": self.settings, "notes": list(self.notes)}


def _check_settings(systems: Sequence[Any], langs: Any, lang: str | None, judge: Any,
                    counts: tuple[int, int, int, int], confidence: float) -> None:
    """Refuse what :func:`analyze` cannot run with, before any work (``counts``: max_edits,
    min_letter_errors, n_boot, n_permutations)."""
    if not systems:
        raise InputError("analyze needs at least one system")
    if langs is not None and lang:
        raise InputError("give langs= (every line's language) or lang= (the language of lines that name none), "
                         "not both")
    max_edits, min_letter_errors, n_boot, n_permutations = counts
    if max_edits < 0 or min_letter_errors < 0:
        raise SemcerError("--max-edits and --min-letter-errors must be >= 0")
    check_resampling(confidence, n_boot, n_permutations, error=SemcerError)
    if judge is None:
        raise InputError("analyze needs a judge: severities are what it analyses")


def analyze(
    references: Any,
    systems: Sequence[Any],
    *,
    names: Sequence[str] | None = None,
    unit: Unit = "grapheme",
    policy: str | TextPolicy | None = None,
    empty_ref: str = "error",
    unmatched: str = "error",
    langs: Any = None,
    lang: str | None = None,
    judge: Any = "compact",
    store: Any = None,
    max_edits: int = MAX_EDITS,
    min_letter_errors: int = MIN_LETTER_ERRORS,
    n_boot: int = 1000,
    n_permutations: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    progress: bool = False,
) -> Analysis:
    """The paper's analyses of ``systems`` (the first is the baseline of the equal-count
    contrasts) on ``references`` (see the module documentation). ``references`` and each system are
    what :func:`semcer.evaluate` takes (``langs`` too: the languages of lists or dicts of strings;
    read collections carry their own); ``lang`` is the language of the lines that name none
    (command line ``--lang``), as :func:`semcer.api.evaluation.with_lang` gives it, for every kind of
    input. Seeded: the same inputs and seed give the same intervals."""
    _check_settings(systems, langs, lang, judge, (max_edits, min_letter_errors, n_boot, n_permutations), confidence)
    labels = system_names(systems, names)
    with contextlib.ExitStack() as stack:
        j = stack.enter_context(opened_judge(judge))
        st = stack.enter_context(opened_store(store))
        evals = [evaluate(references, s, langs=lang if langs is None else langs, unit=unit, policy=policy,
                          empty_ref=empty_ref, unmatched=unmatched, judge=j, store=st, progress=progress)
                 for s in systems]
        identity = j.identity
    boot = {"n_boot": n_boot, "seed": seed, "confidence": confidence}
    lines: dict[str, dict[str, int]] = {}
    per_system = []
    for name, ev in zip(labels, evals):
        kept, counts = _filtered(ev, max_edits)
        lines[name] = counts
        per_system.append(kept)
    edits_by_system = [[e for line in kept.values() for e in line.edits] for kept in per_system]
    notes = [f"{name}: {note}" for name, ev in zip(labels, evals) for note in input_notes(ev, unmatched)]
    if any(v["failed"] for v in lines.values()):
        notes.append("lines with an edit the judge failed on are left out; rerun to judge them")
    real, missing = _real_words(labels, edits_by_system, min_letter_errors, boot)
    settings = {"max_edits": max_edits, "min_letter_errors": min_letter_errors, "known_zipf": KNOWN_ZIPF,
                "alphabet_words": ALPHABET_WORDS, "alphabet_min_share": ALPHABET_MIN_SHARE, "n_boot": n_boot,
                "n_permutations": n_permutations, "seed": seed, "confidence": confidence}
    signature = evals[0].signature.with_extras(maxedits=str(max_edits or "none"),  # the lines read: 1 to max_edits edits
                                               **resampling_fields(confidence, n_boot, n_permutations, seed))
    return Analysis(labels, identity, str(signature), _by_class(labels, edits_by_system),
                    _grapheme_load(labels, per_system), real, missing,
                    _equal_count(labels, per_system, n_permutations, boot), lines, settings, tuple(notes))


# ---------------------------------------------------------------------------------------------
# Lines and edits


@dataclass(frozen=True, slots=True)
class _Line:
    lang: str
    k: int
    severity: float
    edits: tuple[JudgedEdit, ...]


def _filtered(ev: Evaluation, max_edits: int) -> tuple[dict[str, _Line], dict[str, int]]:
    """The lines with 1..max_edits edits, all judged, by id; and how many lines were read, kept, failed."""
    by_line: dict[str, list[JudgedEdit]] = defaultdict(list)
    for je in ev.judged or ():
        by_line[je.line_id].append(je)
    kept: dict[str, _Line] = {}
    failed = 0
    for line in ev.lines:
        k = line.stats.edits
        if k < 1 or (max_edits and k > max_edits):
            continue
        if line.stats.severity is None:
            failed += 1
            continue
        edits = tuple(by_line.get(line.id, ()))
        kept[line.id] = _Line(lang_group(edits[0].lang if edits else line.lang), k, line.stats.severity, edits)
    return kept, {"read": len(ev.lines), "analysed": len(kept), "failed": failed}


def _cls(e: JudgedEdit) -> str:
    return edit_class(e.edit.ref_unit, e.edit.hyp_unit)


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _by_class(names: Sequence[str], edits: Sequence[list[JudgedEdit]]) -> list[dict[str, Any]]:
    rows = []
    for name, es in zip(names, edits):
        groups: dict[tuple[str, str], list[float]] = defaultdict(list)
        for e in es:
            groups[(lang_group(e.lang), _cls(e))].append(e.severity)  # type: ignore[arg-type]  # judged lines only
        for (lang, cls), sev in sorted(groups.items()):
            rows.append({"lang": lang, "system": name, "edit_class": cls, "edits": len(sev), "severity": _mean(sev)})
    return sorted(rows, key=lambda r: (r["lang"], names.index(r["system"]), r["edit_class"]))


def _grapheme_load(names: Sequence[str], per_system: Sequence[dict[str, _Line]]) -> list[dict[str, Any]]:
    rows = []
    for name, kept in zip(names, per_system):
        langs: dict[str, dict[str, list[float]]] = defaultdict(lambda: {"mark": [], "content": [], "all": []})
        n_lines: Counter[str] = Counter()
        for line in kept.values():
            n_lines[line.lang] += 1
            g = langs[line.lang]
            for e in line.edits:
                sev = e.severity
                cls = _cls(e)
                g["all"].append(sev)  # type: ignore[arg-type]
                if cls == "mark":
                    g["mark"].append(sev)  # type: ignore[arg-type]
                if e.edit.op == "S" and cls in CONTENT_CLASSES:
                    g["content"].append(sev)  # type: ignore[arg-type]
        for lang, g in langs.items():
            rows.append({"lang": lang, "system": name, "mark_only": _mean(g["mark"]),
                         "content_substitution": _mean(g["content"]), "per_edit": _mean(g["all"]),
                         "mark_edits": len(g["mark"]), "content_substitutions": len(g["content"]),
                         "edits": len(g["all"]), "lines": n_lines[lang]})
    return sorted(rows, key=lambda r: (r["lang"], names.index(r["system"])))


# ---------------------------------------------------------------------------------------------
# Real words


def word_test_language(lang: str) -> tuple[str | None, str]:
    """wordfreq's code for ``lang`` and '' when the real-word test applies, else None and why not."""
    if base_lang(lang) in UNSPACED:
        return None, "words are not separated by spaces"
    lex = lexicon_lang(lang)
    if lex is None or lex in EXTRA_LANGS:  # the extra lexicons have no ranked list to take an alphabet from
        return None, "no wordfreq lexicon"
    if lex in CJK_LANGS:
        return None, "words are not separated by spaces"
    return lex, ""


@cache(maxsize=64)
def alphabet(lex: str) -> tuple[str, ...]:
    """The letters of a language, from its lexicon (see the module documentation), sorted."""
    counts: Counter[str] = Counter()
    for word in top_words(lex, ALPHABET_WORDS):
        for u in graphemes(unicodedata.normalize("NFC", word)):
            if unit_kind(u) == "letter":
                counts[u.casefold()] += 1
    total = sum(counts.values())
    return tuple(sorted(u for u, n in counts.items() if n >= ALPHABET_MIN_SHARE * total))


@cache(maxsize=1 << 18)
def is_real_word(word: str, ref_word: str, lex: str) -> bool:
    """Whether ``word`` (an edited form of ``ref_word``) is a word the lexicon knows (Zipf >= 2.0;
    for morpheme-tokenized languages, in no more pieces than the reference word)."""
    if zipf(word, lex) < KNOWN_ZIPF:
        return False
    return not morpheme_tokenized(lex) or token_count(word, lex) <= token_count(ref_word, lex)


@cache(maxsize=1 << 16)
def chance_share(head: str, ref_unit: str, tail: str, lex: str) -> float | None:
    """The share of the alphabet's candidate letters for ``ref_unit`` that make ``head + letter +
    tail`` a real word (None without candidates)."""
    candidates = _candidates(ref_unit, lex)
    if not candidates:
        return None
    ref_word = head + ref_unit + tail
    return sum(is_real_word(head + u + tail, ref_word, lex) for u in candidates) / len(candidates)


@cache(maxsize=1 << 12)
def _candidates(ref_unit: str, lex: str) -> tuple[str, ...]:
    """The letters of the alphabet of ``lex`` that a letter substitution of ``ref_unit`` may give:
    of its script, and a ``letter`` edit (not a case, mark or homoglyph change)."""
    script = unit_script(ref_unit)
    return tuple(u for u in alphabet(lex) if unit_script(u) == script and edit_class(ref_unit, u) == "letter")


def letter_error(e: JudgedEdit, lex: str) -> tuple[bool, float] | None:
    """(forms a real word, chance) of one letter substitution, or None when it stands in no word of
    two units or more, or has no candidate letter."""
    c = e.context
    line = line_info(c.ref)
    span, ref_word = word_at(line, c.ref_pos, False)
    if span is None or span[1] - span[0] < 2:  # every single letter is a "word" of the lexicon
        return None
    head, tail = line.span(span[0], c.ref_pos), line.span(c.ref_pos + 1, span[1])
    chance = chance_share(head, c.ref_unit, tail, lex)
    if chance is None:
        return None
    return is_real_word(head + c.hyp_unit + tail, ref_word, lex), chance


def _boot_means(columns: np.ndarray, boot: dict[str, Any]) -> np.ndarray:
    n = columns.shape[0]
    chunks = [w @ columns / n for w in resample_count_chunks(np.random.default_rng(boot["seed"]), n, boot["n_boot"])]
    return np.concatenate(chunks) if chunks else np.zeros((0, columns.shape[1]))


def _real_words(names: Sequence[str], edits: Sequence[list[JudgedEdit]], min_errors: int, boot: dict[str, Any]
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows: list[dict[str, Any]] = []
    missing: dict[str, dict[str, Any]] = {}
    for name, es in zip(names, edits):
        groups: dict[str, list[tuple[bool, float]]] = defaultdict(list)
        for e in es:
            if e.edit.op != "S" or _cls(e) != "letter":
                continue
            lex, why = word_test_language(e.lang)
            lang = lang_group(e.lang)
            if lex is None:
                entry = missing.setdefault(lang, {"lang": lang, "reason": why, "letter_errors": {}})
                entry["letter_errors"][name] = entry["letter_errors"].get(name, 0) + 1
                continue
            one = letter_error(e, lex)
            if one is not None:
                groups[lang].append(one)
        for lang, found in groups.items():
            cols = np.array([(float(r), c, float(r) - c) for r, c in found])
            values = cols.mean(axis=0)
            b = _boot_means(cols, boot)
            est = [guarded(percentile_estimate(float(values[i]), b[:, i] if len(b) else None, boot["confidence"]),
                           len(found)) for i in range(3)]
            rows.append({"lang": lang, "system": name, "observed": float(values[0]), "chance": float(values[1]),
                         "interval": _interval(est[0]), "chance_interval": _interval(est[1]),
                         "difference": float(values[2]), "difference_interval": _interval(est[2]),
                         "significant": _excludes_zero(est[2]), "letter_errors": len(found),
                         "reported": len(found) >= min_errors})
    rows.sort(key=lambda r: (r["lang"], names.index(r["system"])))
    return rows, [missing[k] for k in sorted(missing)]


def _interval(e: Estimate) -> list[float] | None:
    return None if math.isnan(e.lo) or math.isnan(e.hi) else [e.lo, e.hi]


def _excludes_zero(e: Estimate) -> bool:
    return not (math.isnan(e.lo) or math.isnan(e.hi)) and (e.lo > 0 or e.hi < 0)


# ---------------------------------------------------------------------------------------------
# Equal-count contrasts


def _equal_count(names: Sequence[str], per_system: Sequence[dict[str, _Line]], n_permutations: int,
                 boot: dict[str, Any]) -> list[dict[str, Any]]:
    base = per_system[0]
    rows, pvalues = [], []
    for name, kept in zip(names[1:], per_system[1:]):
        groups: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
        for line_id, b in base.items():
            s = kept.get(line_id)
            if s is not None and s.k == b.k:
                groups[b.lang].append((b.k, s.severity, b.severity))
        for lang in sorted(groups):
            arr = np.array(groups[lang], dtype=float)
            k, sys_sev, base_sev = arr[:, 0], arr[:, 1], arr[:, 2]
            v = sys_sev - base_sev
            total = float(k.sum())
            diff = math.fsum(v) / total
            chunks = [(w @ v) / (w @ k) for w in resample_count_chunks(np.random.default_rng(boot["seed"]), len(k),
                                                                        boot["n_boot"])]
            est = guarded(percentile_estimate(diff, np.concatenate(chunks) if chunks else None, boot["confidence"]), len(k))
            p = float(sign_flip_pvalues(v[:, None], n_permutations, np.random.default_rng(boot["seed"]))[0])
            pvalues.append(p)
            rows.append({"lang": lang, "system": name, "baseline": names[0], "edits": int(total),
                         "lines": len(k), "difference": diff, "interval": _interval(est),
                         "system_mean": math.fsum(sys_sev) / total, "baseline_mean": math.fsum(base_sev) / total,
                         "p_value": p})
    for row, p in zip(rows, holm(pvalues)):
        row["p_value_holm"] = p
        row["significant"] = p <= 1.0 - boot["confidence"]
    return sorted(rows, key=lambda r: (r["lang"], names.index(r["system"])))
