"""Terminal tables of ``semcer meta-eval`` and ``semcer analyze``, drawn from their JSON shapes (so
the table and ``--json`` can never disagree). Input text (rater, item, system and language names)
goes through :func:`semcer.reports.text.safe`, by way of :func:`semcer.reports.text.table`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from semcer.reports.text import ci, safe, table
from semcer.statistics.bootstrap import MIN_INTERVAL_ITEMS, level_percent

_DASH = "–"


def _f(x: float | None, digits: int = 3, sign: bool = False) -> str:
    if x is None:
        return _DASH
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _pct(x: float | None, digits: int = 1) -> str:
    return _DASH if x is None else f"{100 * x:.{digits}f}%"


def _interval(iv: Sequence[float] | None, digits: int = 2, scale: float = 1.0, sign: bool = False) -> str:
    if not iv:
        return ""
    fmt = f"{{:+.{digits}f}}" if sign else f"{{:.{digits}f}}"
    return f"[{fmt.format(scale * iv[0])}, {fmt.format(scale * iv[1])}]"


def resampling_line(n_boot: int, confidence: float, seed: int, n_permutations: int | None = None) -> str:
    """How the intervals and p-values were drawn, as a footer says it (judge-eval, meta-eval,
    analyze): ``1000 bootstrap resamples, 95% intervals, 10000 permutations, seed 0``."""
    boot = (f"{n_boot} bootstrap resamples, {level_percent(confidence)} intervals" if n_boot
            else "no bootstrap intervals (--n-boot 0)")
    return boot + ("" if n_permutations is None else f", {n_permutations} permutations") + f", seed {seed}"


_NO_CI = "(no CI)"
_LEGEND = (f"{_NO_CI}: no interval, on fewer than {{min_items}} items or where under half the resamples define "
           "the statistic; (k/B): the statistic was defined on only k of the B resamples")


def _usable(e: dict[str, Any]) -> str:
    """`` (no CI)`` for a value whose interval was withheld, `` (k/B)`` when some resamples were
    undefined, else nothing (see :func:`semcer.api.meta._est`)."""
    if e.get("no_interval"):
        return f" {_NO_CI}"
    r = e.get("resamples")
    return f" ({r['usable']}/{r['drawn']})" if r and e.get("interval") and r["usable"] < r["drawn"] else ""


def _est(e: dict[str, Any] | None, *, pct: bool = False) -> str:
    """``0.712 [0.42, 0.88]`` (or a percentage), ``–`` when undefined, marked by :func:`_usable`."""
    if e is None or e.get("value") is None:
        return _DASH
    if pct:
        return f"{_pct(e['value'])} {_interval(e.get('interval'), 1, 100)}".rstrip() + _usable(e)
    return f"{e['value']:.3f} {_interval(e.get('interval'))}".rstrip() + _usable(e)


def _excludes_zero(e: dict[str, Any] | None) -> bool:
    iv = None if e is None else e.get("interval")
    return iv is not None and (iv[0] > 0 or iv[1] < 0)


# ---------------------------------------------------------------------------------------------
# meta-eval


def render_meta_eval(d: dict[str, Any]) -> str:
    """The whole meta-evaluation: rated edits, rated pairs, then each language with ``--by-lang``."""
    s = d["settings"]
    parts = [_edits_part(d, s), _pairs_part(d.get("pairs"), s), _transcriptions_part(d.get("transcriptions"), s)]
    for lang, sub in (d.get("by_lang") or {}).items():
        parts.append(f"== language {safe(lang)} ==")
        parts += [_edits_part(sub, s), _pairs_part(sub.get("pairs"), s)]
    parts = [p for p in parts if p]
    if d.get("judges"):
        parts.append("judges: " + "; ".join(f"{safe(k)} = {safe(v)}" for k, v in d["judges"].items()))
    parts += [f"note: {safe(n)}" for n in d.get("notes", ())]
    marked = any(_NO_CI in p or "/" + str(s["n_boot"]) + ")" in p for p in parts)
    parts.append(resampling_line(s["n_boot"], s["confidence"], s["seed"], s["n_permutations"])
                 + ("; " + _LEGEND.format(min_items=MIN_INTERVAL_ITEMS) if marked else ""))
    parts.append(d["levels"])
    parts.append(f"signature: {safe(d['signature'])}")
    return "\n\n".join(parts)


def _panel_line(r: dict[str, Any], what: str, unit: str) -> str:
    kept = ", ".join(safe(x) for x in r["raters"]) or "none"
    dropped = f"; dropped: {', '.join(safe(x) for x in r['raters_dropped'])}" if r["raters_dropped"] else ""
    return (f"{what}: panel {kept} (rated >= {100 * r['min_rater_share']:g}% of the {r['items']} {unit}{dropped})\n"
            f"reliability: Krippendorff's alpha (ordinal) {_f(r['alpha'])} on {r['items_alpha']} {unit} · "
            f"ICC(2,k) {_f(r['icc2k'])} on {r['items_complete']} {unit} every panel rater rated")


def _edits_part(d: dict[str, Any], s: dict[str, Any]) -> str:
    r = d.get("reliability")
    if r is None:
        return ""
    items = d["items"]
    lines = [_panel_line(r, "rated edits", "items")]
    left = [f"{items[k]} {label}" for k, label in (("unrated", "in the items file without a rating"),
                                                   ("without_panel_rating", "rated by no panel rater"),
                                                   ("failed", "that a judge failed on")) if items.get(k)]
    lines.append(f"items compared: {items['scored']} of {items['rated']} rated" + (f" ({'; '.join(left)})" if left else ""))
    scorers = d["scorers"]
    if not scorers:
        return "\n".join(lines)
    bands = list(s["bands"])
    level = ci(s["confidence"])
    headers = ["scorer", "n", f"Spearman {level}", *(f"within {b}" for b in bands), f"top 10% {level}", "clear pairs"]
    rows = []
    ceiling = None
    for name, sc in scorers.items():
        partial = []
        for b in bands:
            p = sc["partial_within"].get(b)
            partial.append(_DASH if p is None else _est(p) + ("*" if _excludes_zero(p) else ""))
        top = sc["top_of_list"]
        ceiling = top.get("ceiling") if ceiling is None else ceiling
        cp = sc["clear_pairs"]
        rows.append([name, str(sc["items"]), _est(sc["spearman"]), *partial, _est(top, pct=True),
                     f"{_est(cp, pct=True)} ({cp['pairs']})"])
    led = _led(d.get("leads") or [])
    for row, name in zip(rows, scorers):
        row[2] += led.get((name, "spearman"), "")
        row[-2] += led.get((name, "top"), "")
    lines.append("")
    lines.append(table(headers, rows, "lr" + "l" * (len(headers) - 2)))
    lines.append(f"top 10%: share of all reader-rated damage caught after checking the first 10% of the items "
                 f"sorted by the score (readers' own order {_pct(ceiling)}, random 10.0%); clear pairs: mean "
                 f"ratings >= {s['clear_gap']:g} apart, a tie in the score counts as a miss (pairs in parentheses); "
                 "* within a band: interval excludes 0" + ("; † a baseline that a judge leads significantly (paired "
                                                             "interval of the difference above 0)" if led else ""))
    return "\n".join(lines)


def _led(leads: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(baseline, measure) -> '†' where some judge leads it significantly."""
    out: dict[tuple[str, str], str] = {}
    for lead in leads:
        for key, measure in (("leads_spearman", "spearman"), ("leads_top_of_list_10", "top")):
            if lead[key]:
                out[(lead["baseline"], measure)] = "†"
    return out


def _transcriptions_part(t: dict[str, Any] | None, s: dict[str, Any]) -> str:
    if t is None:
        return ""
    items = t["items"]
    left = [f"{items[k]} {label}" for k, label in (("failed", "that a judge failed on"),
                                                   ("undefined", "whose reference a convention leaves empty"))
            if items.get(k)]
    lines = [_panel_line(t["reliability"], "rated transcriptions", "transcriptions"),
             f"transcriptions compared: {items['scored']} of {items['rated']} rated"
             + (f" ({'; '.join(left)})" if left else "")]
    against = t.get("against")
    rows = []
    for name, sc in t["scorers"].items():
        diff = sc.get("difference_from_semcer")
        rows.append([safe(name), _est(sc["spearman"]),
                     _DASH if diff is None else _est({"value": diff["difference"], "interval": diff["interval"]})
                     .replace(" [", "* [" if sc["significant"] else " [", 1),
                     _DASH if diff is None else _f(sc["p_value_holm"])])
    level = ci(s["confidence"])
    headers = ["scorer", f"Spearman {level}", f"{safe(against)} minus it {level}" if against else "difference",
               "p (Holm)"]
    lines += ["", table(headers, rows, "llll"),
              "Spearman with the panel's mean rating of each whole output (line CER under each convention, line "
              "semCER); * Holm-corrected paired-permutation p <= 1 - confidence"]
    return "\n".join(lines)


def _pairs_part(p: dict[str, Any] | None, s: dict[str, Any]) -> str:
    if p is None:
        return ""
    r = p["reliability"]
    lines = [_panel_line(r, "rated pairs", "pairs").replace("reliability:", "reliability of the choices:"),
             f"pairs: {p['pairs']}, {p['with_majority']} with a strict majority of the panel"
             + (f" ({p['failed']} left out: a judge failed on them)" if p["failed"] else "")
             + f"; a reader vs the others' majority {_est(p['reader_agreement'], pct=True)}"]
    scorers = list(p["scorers"])
    headers = ["pool", "pairs", "majority", *scorers]
    rows = []
    for pool in p["pools"]:
        name = pool["pool"].replace("_", "-") + (f" ({pool['judge']})" if pool["judge"] else "")
        rows.append([name, str(pool["pairs"]), str(pool["with_majority"]),
                     *(_pct(pool["agreement"][k]["value"]) for k in scorers)])
    lines += ["", "agreement with the readers' strict majority (a tie counts as a miss):",
              table(headers, rows, "lrr" + "r" * len(scorers))]
    if p["margins"]:
        mh = ["pool", "semCER", "vs", f"margin (points) {ci(s['confidence'])}", "p", "p Holm"]
        mr = []
        for m in p["margins"]:
            star = "*" if m["significant"] else ""
            mr.append([m["pool"].replace("_", "-"), m["scorer"], m["baseline"],
                       f"{_f(None if m['difference'] is None else 100 * m['difference'], 1, True)} "
                       f"{_interval(m['interval'], 1, 100, True)}{star}".strip() + _usable(m),
                       _f(m["p_value"], 4), _f(m["p_value_holm"], 4)])
        lines += ["", f"margins: semCER's agreement minus each CER convention's, same pairs; * Holm-corrected p <= "
                      f"{1 - s['confidence']:.2g} over the {len(mr)} margins; near misses against {p['near_miss_against']}",
                  table(mh, mr, "llllrr")]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# analyze


def render_analysis(d: dict[str, Any]) -> str:
    """The three analyses of ``semcer analyze``."""
    s = d["settings"]
    span = f"1 to {s['max_edits']} edits" if s["max_edits"] else "at least one edit"
    read = "; ".join(f"{safe(k)}: {v['analysed']} of {v['read']}" + (f" ({v['failed']} failed)" if v["failed"] else "")
                     for k, v in d["lines"].items())
    parts = [f"lines with {span} ({read})"]
    gl = [[r["lang"], r["system"], _f(r["mark_only"]), str(r["mark_edits"]), _f(r["content_substitution"]),
           str(r["content_substitutions"]), _f(r["per_edit"]), str(r["edits"])] for r in d["grapheme_load"]]
    parts.append("grapheme load: mean severity of a mark-only edit, a content substitution (letter or ideograph), "
                 "and all edits\n" + table(["lang", "system", "mark-only", "n", "content sub.", "n", "per edit",
                                           "edits"], gl, "llrrrrrr"))
    bc = [[r["lang"], r["system"], r["edit_class"], str(r["edits"]), _f(r["severity"])] for r in d["by_class"]]
    parts.append("severity per edit by language and edit class\n"
                 + table(["lang", "system", "edit class", "edits", "mean severity"], bc, "lllrr"))
    rw = []
    for r in d["real_word"]:
        shown = r["reported"]
        rw.append([r["lang"], r["system"], _pct(r["observed"]) if shown else _DASH,
                   _interval(r["interval"], 1, 100) if shown else "", _pct(r["chance"]) if shown else _DASH,
                   (_f(100 * r["difference"], 1, True) + ("*" if r["significant"] else "")) if shown else _DASH,
                   str(r["letter_errors"])])
    text = (f"letter errors that form another real word, observed / chance (wordfreq Zipf >= {s['known_zipf']:g}; "
            f"chance: the same letter replaced by a random letter of the alphabet)\n"
            + table(["lang", "system", "observed", ci(s["confidence"]), "chance", "Δ points", "letter errors"], rw,
                    "llrlrrr")
            + f"\n* the interval of observed − chance excludes 0; – fewer than {s['min_letter_errors']} letter errors")
    if d["no_lexicon"]:
        text += "\nno word test: " + "; ".join(f"{safe(m['lang'])} ({safe(m['reason'])})" for m in d["no_lexicon"])
    parts.append(text)
    if len(d["systems"]) > 1:
        ec = [[r["lang"], r["system"], _f(r["difference"], 3, True) + ("*" if r["significant"] else ""),
               _interval(r["interval"], 3, sign=True), _f(r["p_value_holm"], 4), str(r["lines"]), str(r["edits"])]
              for r in d["equal_count"]]
        parts.append(f"equal-count contrasts against {safe(d['baseline'])}: mean severity per edit, system minus "
                     f"baseline, on lines where both make the same number of edits ({span})\n"
                     + table(["lang", "system", "difference", ci(s["confidence"]), "p Holm", "lines", "edits"], ec,
                             "llrlrrr")
                     + "\n* survives Holm correction over the (language, system) family")
    parts += [f"note: {safe(n)}" for n in d.get("notes", ())]
    parts.append(resampling_line(s["n_boot"], s["confidence"], s["seed"], s["n_permutations"]))
    parts.append(f"judge: {safe(d['judge'])}")
    parts.append(f"signature: {safe(d['signature'])}")
    return "\n\n".join(parts)
