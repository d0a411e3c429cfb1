"""Plain-text tables for the terminal (no dependency: columns padded by hand)."""

from __future__ import annotations

from typing import Sequence

from .common import pct


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A simple aligned table; ``align`` has one 'l' or 'r' per column (default: first left, rest right)."""
    align = align or "l" + "r" * (len(headers) - 1)
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(str(c).ljust(w) if a == "l" else str(c).rjust(w) for c, w, a in zip(cells, widths, align)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(headers), rule, *(fmt(r) for r in rows)])


def render_evaluation(result, paired=None, *, refs: str = "", hyps: str = "", max_docs: int = 30) -> str:
    """The CER (and semCER, when judged) view of an Evaluation."""
    c = result.corpus
    judged = bool(result.signature.judge)
    headers = ["", "CER"] + (["semCER"] if judged else []) + ["edits", "S", "D", "I", "units", "lines", "documents"]
    rows = [
        ["corpus", pct(c.cer)] + ([pct(c.semcer)] if judged else [])
        + [str(c.edits), str(c.substitutions), str(c.deletions), str(c.insertions), str(c.units), str(c.lines),
           str(len(result.documents))],
        ["document mean", pct(result.document_mean_cer)] + ([pct(result.document_mean_semcer)] if judged else [])
        + ["", "", "", "", "", "", str(result.documents_defined)],
    ]
    parts = []
    if refs:
        parts.append(f"{hyps}  vs  {refs}\n")
    parts.append(table(headers, rows))
    if 1 < len(result.documents) <= max_docs:
        dh = ["document", "CER"] + (["semCER"] if judged else []) + ["edits", "units", "lines"]
        dr = [[d.doc, pct(d.totals.cer)] + ([pct(d.totals.semcer)] if judged else [])
              + [str(d.totals.edits), str(d.totals.units), str(d.totals.lines)] for d in result.documents]
        parts.append("\n" + table(dh, dr))
    notes = []
    if result.skipped_empty:
        notes.append(f"skipped {len(result.skipped_empty)} line(s) with an empty reference (--empty-ref skip)")
    if paired is not None and (paired.dropped_refs or paired.dropped_hyps):
        notes.append(f"dropped unmatched ids: {len(paired.dropped_refs)} only in references, "
                     f"{len(paired.dropped_hyps)} only in outputs (--unmatched drop)")
    if notes:
        parts.append("\n" + "\n".join(f"note: {n}" for n in notes))
    parts.append(f"\nsignature: {result.signature}")
    return "\n".join(parts)


def render_top_edits(judged) -> str:
    """The most severe edits with their marked pair, one block per edit."""
    lines = [f"most severe edits (top {len(judged)}):"]
    for k, j in enumerate(judged, 1):
        c, g = j.context, j.judgement
        sev = "n/a" if g.severity is None else f"{g.severity:.2f}"
        what = {"S": f"{c.ref_unit!r} → {c.hyp_unit!r}", "D": f"{c.ref_unit!r} deleted",
                "I": f"{c.hyp_unit!r} inserted"}[c.op]
        cls = f" [{g.edit_class}]" if g.edit_class else ""
        lines.append(f"{k:>3}. severity {sev}  level {g.mode if g.mode is not None else '-'}  {what}{cls}  "
                     f"line {j.line_id} ({c.lang})")
        lines.append(f"       ref: {_clip(c.marked_ref)}")
        lines.append(f"       out: {_clip(c.marked_hyp)}")
    return "\n".join(lines)


def _clip(s: str, width: int = 110) -> str:
    """Keep the marked unit visible on long lines."""
    if len(s) <= width:
        return s
    k = s.find("\u27e6")
    start = max(0, min(k - width // 2, len(s) - width))
    return ("…" if start else "") + s[start:start + width] + ("…" if start + width < len(s) else "")
