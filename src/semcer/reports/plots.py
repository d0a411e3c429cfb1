"""The report's plots, drawn from plain data: inline SVG by hand (no dependency: the HTML report
works on a plain ``pip install .``), and PNG/SVG files with matplotlib (``semcer[plots]``).

A plot is a dictionary built by :mod:`semcer.api.report` (this module computes nothing):

- ``histogram``: ``edges`` (n + 1 bin edges) and ``series`` of ``{"name", "values"}`` (n shares);
- ``scatter``: ``series`` of ``{"name", "points": [[x, y], ...], "labels"}``, ``diagonal`` (y = x);
- ``bars``: ``groups`` (labels) and ``series`` of ``{"name", "system", "metric", "values"}``, one
  value per group (``None``: undefined, no bar);
- ``curve``: ``series`` of ``{"name", "points", "system", "dashed"}``, ``x_max``, ``rule`` (a
  vertical line), ``diagonal`` (the random order).

Every text (titles, names, labels) is escaped for XML, with control, separator and bidi-override
characters shown as escapes (:func:`semcer.reports.text.safe`). The SVG uses presentation
attributes only (no ``style`` attribute or element), so it passes the report's Content-Security-Policy.

A plot file leaves the report, so it carries the run's signature, given to :func:`files`: in its
metadata (PNG: the ``Description`` text chunk, the judge identity in ``semcer.judge``; SVG: the Dublin
Core ``dc:description``, the judge as ``dc:contributor``; ``Software``/``Creator``: semcer and its
version) and as a small footer line under the plot.
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from semcer.reports.text import safe
from semcer.version import __version__

#: Colours of the systems (Okabe and Ito's palette, distinguishable with colour-vision deficiencies).
PALETTE: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")

#: What ``--plots DIR`` needs, and how to get it.
PLOTS_HINT = 'plots as files need matplotlib: pip install "semcer[plots]"'

WIDTH, HEIGHT = 680, 330
#: The footer of a plot file: the signature in lines of at most this many characters, in this font size.
FOOTER_CHARS, FOOTER_SIZE = 120, 5.5
_LEFT, _RIGHT, _BOTTOM = 60, 18, 48
_FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"


def colour(k: int) -> str:
    return PALETTE[k % len(PALETTE)]


def _x(text: object, limit: int = 60) -> str:
    s = safe(text)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return html.escape(s, quote=True)


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".") if abs(v - round(v, 1)) < 1e-9 else f"{v:.2f}"


def nice_max(v: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k at least ``v`` (1 for nothing)."""
    if not v or v <= 0 or not math.isfinite(v):
        return 1.0
    e = math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        top = m * 10**e
        if top >= v * (1 - 1e-12):
            return float(top)
    return float(10 ** (e + 1))  # pragma: no cover


def ticks(top: float, n: int = 5) -> list[float]:
    return [top * k / n for k in range(n + 1)]


def percent(v: float, top: float) -> str:
    """A tick label in percent, with a decimal when the scale needs one."""
    digits = 0 if top >= 0.05 else 1 if top >= 0.005 else 2
    return f"{100 * v:.{digits}f} %"


class _Canvas:
    """An SVG being drawn: a legend at the top, then the plot area."""

    def __init__(self, plot: Mapping[str, Any], legend: Sequence[tuple[str, str, bool]]) -> None:
        self.parts: list[str] = []
        rows = self._legend(legend)
        self.top = 14 + 16 * rows
        self.w, self.h = WIDTH, HEIGHT + 16 * max(0, rows - 1)
        self.x0, self.x1 = _LEFT, self.w - _RIGHT
        self.y0, self.y1 = self.h - _BOTTOM, self.top + 6
        self.title = str(plot.get("title", ""))

    def _legend(self, legend: Sequence[tuple[str, str, bool]]) -> int:
        x: float = _LEFT
        row = 0
        for name, col, dashed in legend:
            label = _x(name, 48)
            width = 22 + 6.6 * len(html.unescape(label))
            if x + width > WIDTH - _RIGHT and x > _LEFT:
                x, row = _LEFT, row + 1
            y = 12 + 16 * row
            dash = ' stroke-dasharray="4 3"' if dashed else ""
            self.parts.append(f'<line x1="{x:.1f}" y1="{y - 4}" x2="{x + 14:.1f}" y2="{y - 4}" stroke="{col}" '
                              f'stroke-width="3"{dash}/>')
            self.parts.append(f'<text x="{x + 18:.1f}" y="{y}" font-size="11" fill="#333">{label}</text>')
            x += width + 10
        return row + 1 if legend else 0

    def sx(self, v: float, top: float, lo: float = 0.0) -> float:
        return self.x0 + (self.x1 - self.x0) * ((v - lo) / (top - lo) if top > lo else 0.0)

    def sy(self, v: float, top: float) -> float:
        return self.y0 - (self.y0 - self.y1) * (v / top if top else 0.0)

    def y_axis(self, top: float, label: str) -> None:
        for t in ticks(top):
            y = self.sy(t, top)
            self.parts.append(f'<line x1="{self.x0}" y1="{y:.1f}" x2="{self.x1}" y2="{y:.1f}" stroke="#e4e4e4"/>')
            self.parts.append(f'<text x="{self.x0 - 6}" y="{y + 4:.1f}" font-size="10" text-anchor="end" '
                              f'fill="#555">{percent(t, top)}</text>')
        cy = (self.y0 + self.y1) / 2
        self.parts.append(f'<text x="12" y="{cy:.1f}" font-size="11" text-anchor="middle" fill="#333" '
                          f'transform="rotate(-90 12 {cy:.1f})">{_x(label)}</text>')

    def x_axis_percent(self, top: float, label: str, lo: float = 0.0) -> None:
        for k in range(6):
            t = lo + (top - lo) * k / 5
            x = self.sx(t, top, lo)
            self.parts.append(f'<line x1="{x:.1f}" y1="{self.y1}" x2="{x:.1f}" y2="{self.y0}" stroke="#eeeeee"/>')
            self.parts.append(f'<text x="{x:.1f}" y="{self.y0 + 14}" font-size="10" text-anchor="middle" '
                              f'fill="#555">{percent(t, top)}</text>')
        self.x_label(label)

    def x_label(self, label: str) -> None:
        self.parts.append(f'<text x="{(self.x0 + self.x1) / 2:.1f}" y="{self.h - 8}" font-size="11" '
                          f'text-anchor="middle" fill="#333">{_x(label)}</text>')

    def frame(self) -> None:
        self.parts.append(f'<line x1="{self.x0}" y1="{self.y0}" x2="{self.x1}" y2="{self.y0}" stroke="#777"/>')
        self.parts.append(f'<line x1="{self.x0}" y1="{self.y0}" x2="{self.x0}" y2="{self.y1}" stroke="#777"/>')

    def svg(self, plot_id: str) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" data-plot="{_x(plot_id)}" '
                f'viewBox="0 0 {self.w} {self.h}" width="{self.w}" height="{self.h}" role="img" '
                f'font-family="{_FONT}"><title>{_x(self.title, 200)}</title>')
        return head + "".join(self.parts) + "</svg>"


def svg(plot: Mapping[str, Any]) -> str:
    """The plot as an inline ``<svg>`` element."""
    kind = plot.get("kind")
    draw = {"histogram": _histogram, "scatter": _scatter, "bars": _bars, "curve": _curve}.get(str(kind))
    if draw is None:
        raise ValueError(f"unknown plot kind {kind!r}")
    return draw(plot)


def _histogram(plot: Mapping[str, Any]) -> str:
    series = plot["series"]
    edges = plot["edges"]
    c = _Canvas(plot, [(f"{s['name']} ({s.get('n', 0):,} edits)", colour(k), False) for k, s in enumerate(series)])
    top = nice_max(max((v for s in series for v in s["values"]), default=0.0))
    c.y_axis(top, plot.get("y_label", ""))
    lo, hi = edges[0], edges[-1]
    bins = len(edges) - 1
    for b in range(bins):
        x_left, x_right = c.sx(edges[b], hi, lo), c.sx(edges[b + 1], hi, lo)
        width = (x_right - x_left - 2) / max(1, len(series))
        for k, s in enumerate(series):
            v = s["values"][b]
            y = c.sy(v, top)
            x = x_left + 1 + k * width
            c.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(width, 0.5):.1f}" height="{c.y0 - y:.1f}" '
                           f'fill="{colour(k)}"><title>{_x(s["name"])}: {100 * v:.1f} % of edits in '
                           f'[{edges[b]:.2f}, {edges[b + 1]:.2f}{"]" if b == bins - 1 else ")"}</title></rect>')
    for k in range(0, bins + 1, max(1, bins // 10)):
        x = c.sx(edges[k], hi, lo)
        c.parts.append(f'<text x="{x:.1f}" y="{c.y0 + 14}" font-size="10" text-anchor="middle" fill="#555">'
                       f'{_num(edges[k])}</text>')
    c.x_label(plot.get("x_label", ""))
    c.frame()
    return c.svg(plot.get("id", "histogram"))


def _scatter(plot: Mapping[str, Any]) -> str:
    series = plot["series"]
    c = _Canvas(plot, [(s["name"], colour(k), False) for k, s in enumerate(series)])
    top = nice_max(max((max(x, y) for s in series for x, y in s["points"]), default=0.0))
    c.y_axis(top, plot.get("y_label", ""))
    c.x_axis_percent(top, plot.get("x_label", ""))
    if plot.get("diagonal"):
        c.parts.append(f'<line x1="{c.sx(0, top):.1f}" y1="{c.sy(0, top):.1f}" x2="{c.sx(top, top):.1f}" '
                       f'y2="{c.sy(top, top):.1f}" stroke="#999" stroke-dasharray="4 3"><title>semCER = CER (every '
                       'edit charged 1)</title></line>')
    for k, s in enumerate(series):
        labels = s.get("labels") or [""] * len(s["points"])
        for (x, y), label in zip(s["points"], labels):
            c.parts.append(f'<circle cx="{c.sx(x, top):.1f}" cy="{c.sy(y, top):.1f}" r="2.6" fill="{colour(k)}" '
                           f'fill-opacity="0.65"><title>{_x(label)}: CER {100 * x:.2f} %, semCER {100 * y:.2f} %'
                           '</title></circle>')
    c.frame()
    return c.svg(plot.get("id", "scatter"))


def _bars(plot: Mapping[str, Any]) -> str:
    series = plot["series"]
    groups = plot["groups"]
    legend = [(s["name"], colour(s.get("system", k)), False) for k, s in enumerate(series)]
    c = _Canvas(plot, legend)
    top = nice_max(max((v for s in series for v in s["values"] if v is not None), default=0.0))
    c.y_axis(top, plot.get("y_label", ""))
    n = max(1, len(groups))
    slot = (c.x1 - c.x0) / n
    width = max(1.0, (slot - 6) / max(1, len(series)))
    rotate = n > 12
    for g, name in enumerate(groups):
        gx = c.x0 + g * slot + 3
        for k, s in enumerate(series):
            v = s["values"][g]
            if v is None:
                continue
            y = c.sy(v, top)
            opacity = "0.45" if s.get("metric") == "cer" else "1"
            c.parts.append(f'<rect x="{gx + k * width:.1f}" y="{y:.1f}" width="{width:.1f}" height="{c.y0 - y:.1f}" '
                           f'fill="{colour(s.get("system", k))}" fill-opacity="{opacity}"><title>{_x(name)}, '
                           f'{_x(s["name"])}: {100 * v:.2f} %</title></rect>')
        cx = c.x0 + (g + 0.5) * slot
        if rotate:
            c.parts.append(f'<text x="{cx:.1f}" y="{c.y0 + 12}" font-size="10" text-anchor="end" fill="#555" '
                           f'transform="rotate(-40 {cx:.1f} {c.y0 + 12})">{_x(name, 16)}</text>')
        else:
            c.parts.append(f'<text x="{cx:.1f}" y="{c.y0 + 14}" font-size="10" text-anchor="middle" fill="#555">'
                           f'{_x(name, 16)}</text>')
    if not rotate:
        c.x_label(plot.get("x_label", ""))
    c.frame()
    return c.svg(plot.get("id", "bars"))


def _curve(plot: Mapping[str, Any]) -> str:
    series = plot["series"]
    x_max = float(plot.get("x_max", 1.0))
    legend = [(s["name"], colour(s.get("system", k)), bool(s.get("dashed"))) for k, s in enumerate(series)]
    if plot.get("diagonal"):
        legend.append(("random order", "#999999", True))
    c = _Canvas(plot, legend)
    c.y_axis(1.0, plot.get("y_label", ""))
    c.x_axis_percent(x_max, plot.get("x_label", ""))
    if plot.get("diagonal"):
        c.parts.append(f'<line x1="{c.sx(0, x_max):.1f}" y1="{c.sy(0, 1):.1f}" x2="{c.sx(x_max, x_max):.1f}" '
                       f'y2="{c.sy(x_max, 1):.1f}" stroke="#999" stroke-dasharray="4 3"/>')
    rule = plot.get("rule")
    if rule is not None:
        c.parts.append(f'<line x1="{c.sx(rule, x_max):.1f}" y1="{c.y0}" x2="{c.sx(rule, x_max):.1f}" y2="{c.y1}" '
                       f'stroke="#444" stroke-width="1"><title>{100 * rule:.0f} % of the list</title></line>')
    for k, s in enumerate(series):
        pts = [(x, y) for x, y in s["points"] if x <= x_max + 1e-12]
        path = " ".join(f"{c.sx(x, x_max):.1f},{c.sy(y, 1):.1f}" for x, y in pts)
        dash = ' stroke-dasharray="5 3"' if s.get("dashed") else ""
        c.parts.append(f'<polyline points="{path}" fill="none" stroke="{colour(s.get("system", k))}" stroke-width="2"'
                       f'{dash}><title>{_x(s["name"])}</title></polyline>')
    c.frame()
    return c.svg(plot.get("id", "curve"))


# ---------------------------------------------------------------------------------------------
# Files, with matplotlib


def matplotlib_missing() -> bool:
    """Whether matplotlib (the ``plots`` extra) cannot be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return True
    return False


def files(plot: Mapping[str, Any], *, signature: str | None = None, judge: str | None = None) -> dict[str, bytes]:
    """The plot as ``{"png": ..., "svg": ...}`` bytes, drawn with matplotlib (no pyplot, no global state).

    ``signature`` (the run's signature string) and ``judge`` (its judge identity) go into each
    file's metadata, and the signature into a footer line (see the module documentation)."""
    import matplotlib
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.2, 3.8), dpi=100, layout="constrained")
    if signature:
        _footer(fig, signature)
    ax = fig.add_subplot()
    {"histogram": _mpl_histogram, "scatter": _mpl_scatter, "bars": _mpl_bars, "curve": _mpl_curve}[plot["kind"]](ax, plot)
    ax.set_title(safe(plot.get("title", "")), fontsize=11)
    ax.set_xlabel(safe(plot.get("x_label", "")))
    ax.set_ylabel(safe(plot.get("y_label", "")))
    ax.grid(True, color="#e4e4e4", linewidth=0.8)
    ax.set_axisbelow(True)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, frameon=False)
    out: dict[str, bytes] = {}
    with matplotlib.rc_context({"svg.hashsalt": "semcer", "svg.fonttype": "path"}):
        for fmt in ("png", "svg"):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=150 if fmt == "png" else None, metadata=file_metadata(fmt, signature, judge))
            out[fmt] = buf.getvalue()
    return out


def file_metadata(fmt: str, signature: str | None, judge: str | None) -> dict[str, Any]:
    """The metadata matplotlib writes into a ``png`` or ``svg`` plot file: the signature and the
    judge where given, and never the date or the matplotlib version (the same plot, the same bytes)."""
    if fmt == "svg":  # XML holds no control character: those of a signature read from a file are shown escaped
        meta: dict[str, Any] = {"Date": None}
        if signature:
            meta.update(Description=safe(signature), Creator=f"semcer {__version__}")
        if signature and judge:
            meta["Contributor"] = [safe(judge)]
        return meta
    meta = {"Software": None}
    if signature:
        meta.update(Description=signature, Software=f"semcer {__version__}")
    if signature and judge:
        meta["semcer.judge"] = judge
    return meta


def footer_lines(signature: str, width: int = FOOTER_CHARS) -> list[str]:
    """The signature in lines of at most ``width`` characters, broken after a ``|`` where it can be
    (the lines joined give the signature back, as :func:`~semcer.reports.text.safe` shows it)."""
    parts = safe(signature).split("|")
    lines: list[str] = []
    line = ""
    for piece in [p + "|" for p in parts[:-1]] + parts[-1:]:
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
        while len(line) > width:  # one field longer than a line: cut it
            lines.append(line[:width])
            line = line[width:]
    return lines + [line] if line else lines


def _footer(fig: Any, signature: str) -> None:
    """The signature under the plot, in small grey type, with room kept for it below the axes."""
    lines = footer_lines(signature)
    height = (len(lines) * FOOTER_SIZE * 1.25 + 3) / (fig.get_figheight() * 72)
    fig.get_layout_engine().set(rect=(0, height, 1, 1 - height))
    fig.text(0.005, 0.004, "\n".join(lines), fontsize=FOOTER_SIZE, color="#777777", ha="left", va="bottom",
             family="monospace", parse_math=False, linespacing=1.1)


def _percent_axis(axis: Any) -> None:
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(1.0))


def _mpl_histogram(ax: Any, plot: Mapping[str, Any]) -> None:
    edges, series = plot["edges"], plot["series"]
    n = max(1, len(series))
    for k, s in enumerate(series):
        width = (edges[1] - edges[0]) / n
        ax.bar([e + k * width for e in edges[:-1]], s["values"], width=width, align="edge", color=colour(k),
               label=f"{safe(s['name'])} ({s.get('n', 0):,} edits)")
    ax.set_xlim(edges[0], edges[-1])
    _percent_axis(ax.yaxis)


def _mpl_scatter(ax: Any, plot: Mapping[str, Any]) -> None:
    top = nice_max(max((max(x, y) for s in plot["series"] for x, y in s["points"]), default=0.0))
    for k, s in enumerate(plot["series"]):
        if s["points"]:
            xs, ys = zip(*s["points"])
            ax.scatter(xs, ys, s=9, alpha=0.65, color=colour(k), label=safe(s["name"]), linewidths=0)
    if plot.get("diagonal"):
        ax.plot([0, top], [0, top], color="#999999", linestyle="--", linewidth=1)
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    _percent_axis(ax.xaxis)
    _percent_axis(ax.yaxis)


def _mpl_bars(ax: Any, plot: Mapping[str, Any]) -> None:
    groups, series = plot["groups"], plot["series"]
    width = 0.8 / max(1, len(series))
    for k, s in enumerate(series):
        xs = [g + k * width for g, v in enumerate(s["values"]) if v is not None]
        vs = [v for v in s["values"] if v is not None]
        ax.bar(xs, vs, width=width, align="edge", color=colour(s.get("system", k)),
               alpha=0.45 if s.get("metric") == "cer" else 1.0, label=safe(s["name"]))
    ax.set_xticks([g + 0.4 for g in range(len(groups))], [safe(g) for g in groups],
                  rotation=40 if len(groups) > 12 else 0, fontsize=8)
    _percent_axis(ax.yaxis)


def _mpl_curve(ax: Any, plot: Mapping[str, Any]) -> None:
    x_max = float(plot.get("x_max", 1.0))
    for k, s in enumerate(plot["series"]):
        pts = [(x, y) for x, y in s["points"] if x <= x_max + 1e-12]
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, color=colour(s.get("system", k)), linestyle="--" if s.get("dashed") else "-",
                    linewidth=1.8, label=safe(s["name"]))
    if plot.get("diagonal"):
        ax.plot([0, x_max], [0, x_max], color="#999999", linestyle="--", linewidth=1, label="random order")
    if plot.get("rule") is not None:
        ax.axvline(plot["rule"], color="#444444", linewidth=1)
    ax.set_xlim(0, x_max)
    ax.set_ylim(0, 1)
    _percent_axis(ax.xaxis)
    _percent_axis(ax.yaxis)
