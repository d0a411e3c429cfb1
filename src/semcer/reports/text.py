"""Plain-text tables for the terminal (no dependency: columns padded by hand).

Every piece of input text (ids, documents, OCR text, judge names) goes through :func:`safe` before
it reaches the terminal: a control character (C0, DEL, C1, including ESC, which starts terminal
escape sequences that can retitle a terminal or clear the screen) is shown as its escape
(``\x1b``), and line and paragraph separators as ``\n``-style escapes, so one input line stays
one output line and nothing in the input can drive the terminal.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

#: The code points shown escaped wherever semcer shows text (the terminal, the HTML report's script
#: builds its own test from these): C0 and C1 controls, line and paragraph separators, bidi marks,
#: embeddings, overrides and isolates (U+061C, U+200E-F, U+202A-E, U+2066-9), and characters that
#: are invisible and could make two ids or texts look the same: zero width space, word joiner and
#: invisible operators, deprecated format characters, the byte-order mark, interlinear annotation
#: and tag characters. ZWJ and ZWNJ (U+200C-D) are left as they are: emoji and Indic and Persian
#: text need them.
UNSAFE_RANGES = ((0x00, 0x1F), (0x7F, 0x9F), (0x061C, 0x061C), (0x200B, 0x200B), (0x200E, 0x200F), (0x2028, 0x202E),
                 (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0xE0000, 0xE007F))
_UNSAFE = re.compile("[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in UNSAFE_RANGES) + "]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(char: str) -> str:
    """How :func:`safe` shows one unsafe character: ``\\n``, ``\\x01``, ``\\u202e`` or ``\\U000e0041``."""
    n = ord(char)
    return _NAMED.get(char) or (f"\\x{n:02x}" if n <= 0xFF else f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}")


def safe(text: object) -> str:
    """``text`` as a string with every character of :data:`UNSAFE_RANGES` escaped (:func:`escaped`)."""
    s = str(text)
    if not _UNSAFE.search(s):
        return s
    return _UNSAFE.sub(lambda m: escaped(m.group()), s)


def pct(x: float | None, digits: int = 2) -> str:
    """``12.34 %``, or ``n/a`` for an undefined value; a positive rate too small to show is
    ``<0.01 %``, never ``0.00 %`` (which is kept for no error at all)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if x > 0 and round(100 * x, digits) == 0:
        return f"<{10 ** -digits:.{digits}f} %"
    return f"{100 * x:.{digits}f} %"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str = "", *, color: bool = False) -> str:
    """An aligned table; ``align`` has one 'l' or 'r' per column (default: first left, rest right).

    Plain text (columns padded by hand) unless ``color``: then a rich table for a terminal that shows
    colour (the command line asks for it only on a TTY without ``NO_COLOR``).
    """
    align = align or "l" + "r" * (len(headers) - 1)
    heads = [safe(h) for h in headers]
    cells = [[safe(c) for c in r] for r in rows]
    if color:
        return _rich_table(heads, cells, align)
    widths = [max(len(str(x)) for x in col) for col in zip(heads, *cells)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(str(c).ljust(w) if a == "l" else str(c).rjust(w) for c, w, a in zip(cells, widths, align)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(heads), rule, *(fmt(r) for r in cells)])


def _rich_table(headers: list[str], rows: list[list[str]], align: str) -> str:
    import io

    from rich.console import Console
    from rich.table import Table

    t = Table(header_style="bold", show_edge=False, pad_edge=False, box=None)
    for h, a in zip(headers, align):
        t.add_column(h, justify="left" if a == "l" else "right", no_wrap=True)
    for r in rows:
        t.add_row(*[_styled(c) for c in r])
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="standard", width=10_000, highlight=False).print(t)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").splitlines())


def _styled(cell: str) -> str:
    """A significant difference (``*``) in bold, an undefined value dimmed (rich markup)."""
    from rich.markup import escape

    text = escape(cell)
    if cell.endswith("*"):
        return f"[bold]{text}[/bold]"
    return f"[dim]{text}[/dim]" if cell == "n/a" else text


def render_evaluation(result: Any, *, refs: str = "", hyps: str = "", max_docs: int = 30, by: Sequence[str] = (),
                      color: bool = False, items: str = "lines") -> str:
    """The CER (and semCER, when judged) view of an Evaluation; ``by`` adds a table per breakdown
    ("lang", "doc": every document, whatever their number); ``items`` names the scored items
    ("lines", or "pages" when each is a page)."""
    from semcer.metrics.breakdown import breakdown

    c = result.corpus
    judged = bool(result.signature.judge)
    headers = ["", "CER"] + (["semCER"] if judged else []) + ["edits", "S", "D", "I", "units", items, "documents"]
    rows = [
        ["corpus", pct(c.cer)] + ([pct(c.semcer)] if judged else [])
        + [str(c.edits), str(c.substitutions), str(c.deletions), str(c.insertions), str(c.units), str(c.lines),
           str(len(result.documents))],
        ["document mean", pct(result.document_mean_cer)] + ([pct(result.document_mean_semcer)] if judged else [])
        + ["", "", "", "", "", "", str(result.documents_defined)],
    ]
    parts = []
    if refs:
        parts.append(f"{safe(hyps)}  vs  {safe(refs)}\n")
    parts.append(table(headers, rows, color=color))
    n_docs = len(result.documents)
    show_docs = "doc" in by or 1 < n_docs <= max_docs
    if show_docs:
        dh = ["document", "CER"] + (["semCER"] if judged else []) + ["edits", "units", items]
        dr = [[d.doc, pct(d.totals.cer)] + ([pct(d.totals.semcer)] if judged else [])
              + [str(d.totals.edits), str(d.totals.units), str(d.totals.lines)] for d in result.documents]
        parts.append("\n" + table(dh, dr, color=color))
    if "lang" in by:
        lh = ["language", "CER", "doc. mean"] + (["semCER", "doc. mean"] if judged else []) + ["edits", "units", items,
                                                                                             "documents"]
        lr = []
        for g in breakdown(result.lines, "lang", judged=judged):
            a = g.aggregation
            lr.append([g.key, pct(a.corpus.cer), pct(a.document_mean_cer)]
                      + ([pct(a.corpus.semcer), pct(a.document_mean_semcer)] if judged else [])
                      + [str(a.corpus.edits), str(a.corpus.units), str(g.lines), str(a.documents_defined)])
        parts.append("\n" + table(lh, lr, color=color))
    notes = []
    if not show_docs and n_docs > max_docs:
        notes.append(f"{n_docs} documents: the per-document table is left out above {max_docs} (--by doc shows it)")
    notes += input_notes(result) + lexicon_notes(result)
    if notes:
        parts.append("\n" + "\n".join(f"note: {n}" for n in notes))
    parts.append(f"\nsignature: {safe(result.signature)}")
    return "\n".join(parts)


def input_notes(result: Any, unmatched: str | None = None) -> list[str]:
    """The notes on the lines an Evaluation scored other than as given: skipped for an empty
    reference, and ids present on one side only, naming the --unmatched policy that was used
    (``unmatched``, else the one the record names, else the one it shows: references scored against
    an empty output are ``empty``'s, dropped references ``drop``'s; dropped outputs alone are both's);
    then what reading the inputs left out (:func:`left_out_notes`)."""
    notes = []
    if result.skipped_empty:
        notes.append(f"skipped {len(result.skipped_empty)} line(s) with an empty reference (--empty-ref skip)")
    u = result.unmatched
    recorded = getattr(u, "policy", "error")
    policy = unmatched or (recorded if recorded != "error" else
                           "empty" if u.empty_hyps else "drop" if u.dropped_refs else "drop or empty")
    if u.dropped_refs or u.dropped_hyps:
        notes.append(f"dropped unmatched ids: {len(u.dropped_refs)} only in references, {len(u.dropped_hyps)} only "
                     f"in outputs (--unmatched {policy})")
    if u.empty_hyps:
        notes.append(f"{len(u.empty_hyps)} reference(s) without an output scored against an empty output "
                     "(--unmatched empty)")
    return notes + left_out_notes(getattr(result, "left_out", None))


#: The judges that read words through wordfreq's lists (their identities' start).
_LEXICON_JUDGES = ("compact-", "rubric-")


def lexicon_notes(result: Any) -> list[str]:
    """A note on the lines an offline judge read without a word list: those that name no language
    and those of a language it has no list for (their edits are judged without knowing which words
    are words, so a real-word error looks like any other)."""
    judge = getattr(result.signature, "judge", None) or ""
    if not judge.startswith(_LEXICON_JUDGES):
        return []
    from collections import Counter

    from semcer.judges.rubric.lexicon import lexicon_lang
    from semcer.text.script import canonical_lang

    counts: Counter[str] = Counter(canonical_lang(line.lang) if line.lang else "" for line in result.lines)
    unnamed = counts.pop("", 0)
    missing = {lang: n for lang, n in sorted(counts.items()) if lexicon_lang(lang) is None}
    parts = [f"{unnamed} line(s) name no language (give lang in the inputs, or --lang)"] if unnamed else []
    if missing:
        shown = ", ".join(f"{safe(lang)} ({n})" for lang, n in list(missing.items())[:_SHOWN_LEFT_OUT])
        more = f" and {len(missing) - _SHOWN_LEFT_OUT} more" if len(missing) > _SHOWN_LEFT_OUT else ""
        parts.append(f"the judge has no word list for {shown}{more}")
    if not parts:
        return []
    return ["; ".join(parts) + ": their edits are judged without knowing which words are words"]


_SHOWN_LEFT_OUT = 3  # how many skipped elements or unreadable files a note names


def left_out_notes(left_out: Any) -> list[str]:
    """One note on the page elements a reader left out of the text and one on the files that could
    not be read (:class:`semcer.metrics.results.LeftOut`): how many on each side, the first few."""
    if left_out is None:
        return []
    notes = []
    elements, failures = left_out.elements, left_out.failures
    if elements:
        shown = [f"{safe(e.id) if e.id is not None else f'{safe(e.kind)} at line {e.line}'} in {safe(e.page)} "
                 f"({e.reason})" for e in elements[:_SHOWN_LEFT_OUT]]
        notes.append(f"{len(elements)} page element(s) not in the text scored{_by_side(elements)}: {', '.join(shown)}"
                     f"{', ...' if len(elements) > _SHOWN_LEFT_OUT else ''} (--json lists them: skipped.page_elements)")
    if failures:
        shown = [safe(f.path) for f in failures[:_SHOWN_LEFT_OUT]]
        notes.append(f"{len(failures)} file(s) could not be read and are not scored{_by_side(failures)}: "
                     f"{', '.join(shown)}{', ...' if len(failures) > _SHOWN_LEFT_OUT else ''} (--keep-going; "
                     "--json lists them: read_failures)")
    return notes


def _by_side(records: Sequence[Any]) -> str:
    refs = sum(r.side == "references" for r in records)
    return f" ({refs} in references, {len(records) - refs} in outputs)"


def render_top_edits(judged: Sequence[Any]) -> str:
    """The most severe edits with their marked pair, one block per edit."""
    from semcer.text.script import lang_group

    lines = [f"most severe edits (top {len(judged)}):"]
    for k, j in enumerate(judged, 1):
        c, g = j.context, j.judgement
        sev = "n/a" if g.severity is None else f"{g.severity:.2f}"
        ru, hu = f"'{safe(c.ref_unit)}'", f"'{safe(c.hyp_unit)}'"
        what = {"S": f"{ru} → {hu}", "D": f"{ru} deleted", "I": f"{hu} inserted"}[c.op]
        cls = f" [{g.edit_class}]" if g.edit_class else ""
        lines.append(f"{k:>3}. severity {sev}  level {g.mode if g.mode is not None else '-'}  {what}{cls}  "
                     f"line {safe(j.line_id)} ({safe(lang_group(c.lang))}){_elements([j])}")
        lines.append(f"       ref: {_clip(safe(c.marked_ref))}")
        lines.append(f"       out: {_clip(safe(c.marked_hyp))}")
    return "\n".join(lines)


def _elements(judged: Sequence[Any]) -> str:
    """`` element r2`` (or `` element ref r1 · out r2``): the page elements of edits read from page
    files, on each side; "" for other inputs."""
    sides = []
    for attr in ("ref_element", "hyp_element"):
        found = (getattr(j, attr) for j in judged)
        sides.append(", ".join(dict.fromkeys(safe(el.id) for el in found if el is not None and el.id is not None)))
    r, h = sides
    if not r and not h:
        return ""
    return f"  element {r}" if r == h else f"  element ref {r or '-'} · out {h or '-'}"


def _clip(s: str, width: int = 110) -> str:
    """Keep the marked unit visible on long lines."""
    if len(s) <= width:
        return s
    k = s.find("\u27e6")
    start = max(0, min(k - width // 2, len(s) - width))
    return ("…" if start else "") + s[start:start + width] + ("…" if start + width < len(s) else "")


def render_judge_run(s: dict) -> str:
    """The summary as a few aligned lines for people."""
    mass = s["label_mass"]
    rows = [
        ("judge", s["judge"]),
        ("edits", f"{s['edits']} ({s['unique_edits']} distinct)"),
        ("cache hits", str(s["cache_hits"])),
    ]
    # edits that got a distribution now and their rate; what was sent and failed beside them
    judged = f"{s['judged']}" + (f" at {s['edits_per_second']} edits/s" if s.get("edits_per_second") else "")
    if s.get("failures"):
        judged += f" ({s.get('sent', s['judged'] + s['failures'])} sent, {s['failures']} failed)"
    rows.append(("judged now", judged))
    if "requests" in s:
        rows.append(("requests", f"{s['requests']} ({s['retries']} retries)"))
        if s.get("prompt_tokens") is not None:
            rows.append(("tokens", f"{s['prompt_tokens']} prompt, {s['completion_tokens']} completion"))
    rows.append(("failures", str(s["failures"])))
    for reason, n in s.get("failure_reasons", {}).items():
        rows.append(("", f"{n} × {reason}"))
    if s["one_hot"]:
        rows.append(("one-hot", f"{s['one_hot']} edits read without probabilities (not the paper's method)"))
    if mass["n"]:
        rows.append(("label mass", f"min {mass['min']:.3f} · mean {mass['mean']:.3f} · p5 {mass['p5']:.3f} "
                                   f"· {mass['below_0.5']} below 0.5 (over {mass['n']} edits)"))
    if s.get("store"):
        rows.append(("store", s["store"]))
    rows.append(("time", f"{s['seconds']:.1f} s"))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def ci(confidence: float) -> str:
    """The header of an interval column at ``confidence`` (judge-eval, meta-eval, analyze): ``[95% CI]``."""
    from semcer.statistics.bootstrap import level_percent  # numpy: not for the commands without intervals

    return f"[{level_percent(confidence)} CI]"


def render_judge_eval(report: Any, by: str = "lang") -> str:
    """A Markdown table of a judge evaluation's groups (``by`` = 'lang' or 'class') and the overall row."""
    groups = report.by_lang if by == "lang" else report.by_class
    head = "language" if by == "lang" else "edit class"
    level = ci(report.confidence)
    rows = [
        f"| {head} | n | Spearman {level} | clear pairs {level} | pairs | mode acc. | MAE |",
        "|---|---:|---|---|---:|---:|---:|",
    ]
    items = sorted(groups.items(), key=lambda kv: (-kv[1].n, kv[0]))
    if by == "lang":  # pooled languages (statistics.judge_eval.DEFAULT_POOLS), before the overall row
        items += [(f"*{name}*", g) for name, g in getattr(report, "pooled", {}).items()]
    items.append(("**all**", report.overall))
    for name, g in items:
        rows.append(
            f"| {name} | {g.n} | {_estimate(g.spearman)} | {_estimate(g.clear_pairs, pct=True)} | "
            f"{g.n_clear_pairs} | {_value(g.mode_accuracy)} | {g.mae.value:.3f} |"
        )
    return "\n".join(rows)


def _estimate(e: Any, pct: bool = False) -> str:
    if math.isnan(e.value):
        return "–"
    if e.lo is None or e.hi is None or math.isnan(e.lo) or math.isnan(e.hi):  # no interval (e.g. --n-boot 0)
        return f"{100 * e.value:.1f}%" if pct else f"{e.value:.3f}"
    if pct:
        return f"{100 * e.value:.1f}% [{100 * e.lo:.1f}, {100 * e.hi:.1f}]"
    return f"{e.value:.3f} [{e.lo:.2f}, {e.hi:.2f}]"


def _value(e: Any) -> str:
    return "–" if e is None or math.isnan(e.value) else f"{e.value:.3f}"


def _points(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:+.2f}"


def _interval(r: Any) -> str:
    if r.interval is None:
        return ""
    return f"[{100 * r.interval[0]:+.2f}, {100 * r.interval[1]:+.2f}]"


def _p(r: Any) -> str:
    if r.p_value is None:
        return ""
    holm = "" if r.p_value_holm is None or r.p_value_holm == r.p_value else f" (Holm {r.p_value_holm:.4f})"
    return f"{r.p_value:.4f}{holm}"


def _comparison_table(result: Any, aggregation: str) -> str:
    metrics = list(result.results)
    headers = ["system"]
    for m in metrics:
        label = "CER" if m == "cer" else "semCER"
        headers += [label, "Δ points", "interval", "p"]
    rows = []
    for k, name in enumerate(result.names):
        row = [name if k else f"{name} (baseline)"]
        for m in metrics:
            r = result.results[m][aggregation][k]
            star = "*" if r.significant else ""
            row += [pct(r.value), "" if k == 0 else _points(r.difference) + star, _interval(r), _p(r)]
        rows.append(row)
    return table(headers, rows, "l" + "rrlr" * len(metrics))


def _comparison_breakdown(result: Any, by: str) -> str:
    """Every system's CER (and semCER) per document or language (``by``: "doc", "lang"), the groups
    of ``semcer score --by``: each group's rows, one per system, the baseline first."""
    from semcer.metrics.breakdown import breakdown

    judged = "semcer" in result.results
    per_system = [breakdown(ev.lines, by, judged=judged) for ev in result.evaluations]
    headers = ["document" if by == "doc" else "language", "system", "CER"] + (["semCER"] if judged else []) \
        + ["edits", "units", "lines"]
    rows = []
    for k, group in enumerate(per_system[0]):
        for s, (name, groups) in enumerate(zip(result.names, per_system)):
            c = groups[k].aggregation.corpus
            rows.append([group.key if s == 0 else "", name, pct(c.cer)] + ([pct(c.semcer)] if judged else [])
                        + [str(c.edits), str(c.units), str(groups[k].lines)])
    return table(headers, rows, "ll" + "r" * (len(headers) - 2))


def render_comparison(result: Any, *, by: Sequence[str] = ()) -> str:
    """Systems against the baseline: corpus and document-mean tables, significant differences marked;
    ``by`` ("doc", "lang") adds a table of every system per document or language."""
    parts = ["corpus (Σ edits / Σ reference units):", _comparison_table(result, "corpus"), "",
             "document mean (each document one vote):", _comparison_table(result, "document_mean")]
    sig = result.signature.fields()
    level = sig.get("cmp", "")
    parts += ["", f"Δ = system − baseline in percentage points; * = the {level.replace('-', ' interval at ')} "
              f"excludes 0; p: paired approximate randomization over {result.documents} documents "
              f"({sig.get('ar')} shuffles), Holm-adjusted over the systems when several are compared"]
    for key in dict.fromkeys(by):
        parts += ["", f"per {'document' if key == 'doc' else 'language'}:", _comparison_breakdown(result, key), ""]
    parts += [f"note: {n}" for n in result.notes]
    parts.append(f"signature: {safe(result.signature)}")
    return "\n".join(parts)


def render_top_spans(spans: Sequence[Any]) -> str:
    """The most damaging error spans (adjacent edits of a line together) with their marked pair."""
    from semcer.text.script import lang_group

    lines = [f"most severe error spans (top {len(spans)}, ranked by worst edit; one span = adjacent edits of a line; "
             "--by-edit lists edits):"]
    for k, s in enumerate(spans, 1):
        first = s.edits[0].judgement
        sev = "n/a" if s.severity is None else f"{s.severity:.2f}"
        worst = "" if len(s.edits) == 1 or s.max_severity is None else f", worst edit {s.max_severity:.2f}"
        ref, hyp = f"'{safe(s.ref_text)}'", f"'{safe(s.hyp_text)}'"
        what = f"{ref} deleted" if not s.hyp_text else f"{hyp} inserted" if not s.ref_text else f"{ref} → {hyp}"
        n = f"{len(s.edits)} edits" if len(s.edits) > 1 else "1 edit"
        cls = f" [{first.edit_class}]" if first.edit_class and len(s.edits) == 1 else ""
        lines.append(f"{k:>3}. severity {sev} ({n}{worst})  {what}{cls}  line {safe(s.line_id)} ({safe(lang_group(s.lang))})"
                     f"{_elements(s.edits)}")
        lines.append(f"       ref: {_clip(safe(s.marked_ref))}")
        lines.append(f"       out: {_clip(safe(s.marked_hyp))}")
    return "\n".join(lines)


#: The five levels in one line, printed wherever levels are.
LEVEL_LEGEND = ("levels: 0 cosmetic · 1 non-word, context recovers · 2 valid alternative · "
                "3 detectable, not recoverable · 4 reads perfectly, is false (rating = level/4)")


def render_word_errors(w: Any) -> str:
    """WER (corpus, document mean) and the bag-of-words error, with the tokenizer's signature."""
    c = w.corpus
    notes = "".join(f"; {n}" for n in w.notes())
    return (f"WER {pct(w.wer)} (corpus: {c.edits} word edits / {c.units} reference words), document mean "
            f"{pct(w.document_mean)}; bag-of-words error {pct(w.bag_error)} (order ignored){notes}\n"
            f"word signature: {safe(w.signature)}")


def render_page_scores(ps: Any) -> str:
    """The reading-order-robust page score beside the reading-order CER."""
    d = ps.to_dict()
    return (f"reading-order-robust CER {pct(ps.rate)} ({d['edits']} edits / {d['units']} units over {d['pages']} "
            f"page(s); lines matched one-to-one before alignment, {d['lines_deleted']} reference and "
            f"{d['lines_inserted']} output line(s) unmatched); a much lower value than CER means the errors are "
            f"mostly reading order\npage-score signature: {safe(d['signature'])}")
