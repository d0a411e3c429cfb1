"""The HTML report: one self-contained file (no network, no external font, script or image), drawn
from the report data of :mod:`semcer.api.report` (this module computes nothing).

**Safety.** Every piece of input text (OCR text, ids, documents, languages, system names, paths)
is data, never markup:

- what the page shows without its script (the header, the summary tables, the plots, the notes)
  is escaped here (:func:`html.escape` after :func:`semcer.reports.text.safe`, which shows control,
  separator and bidi-override characters as escapes);
- the ranked list and the line view are built by the page's script from the data embedded as JSON
  in ``<script type="application/json">``, with ``<``, ``>``, ``&``, U+2028 and U+2029 written as
  ``\\u003c``-style escapes (so no text can close the element), with ``textContent`` only (never
  ``innerHTML``), and with element ids and links made from line numbers, never from ids in the data;
- a Content-Security-Policy meta tag allows nothing but the page's own inline script and style,
  named by their SHA-256 hashes (``default-src 'none'``; ``img-src data:``), so even markup that got
  through could neither run a script, load anything nor send anything.

**Size.** The page holds what the report data holds: a bounded number of spans, lines and plot
points (:class:`semcer.api.report.Limits`); the page says so in its "about" section.
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from semcer.reports.plots import colour, svg
from semcer.reports.text import UNSAFE_RANGES, pct, safe

#: Severity shades: 21 classes .s0 (severity 0) ... .s20 (severity 1), and .sx (not judged / failed).
SHADES = 20


def _shade(t: float) -> tuple[int, int, int]:
    stops = ((0.0, (255, 247, 214)), (0.5, (253, 141, 60)), (1.0, (165, 0, 38)))
    for (t0, c0), (t1, c1) in itertools.pairwise(stops):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            return tuple(round(a + (b - a) * f) for a, b in zip(c0, c1))  # type: ignore[return-value]
    return stops[-1][1]  # pragma: no cover


def _shade_css() -> str:
    rules = []
    for k in range(SHADES + 1):
        r, g, b = _shade(k / SHADES)
        fg = "#fff" if k >= 13 else "#1d1d1f"
        rules.append(f".s{k}{{background:rgb({r},{g},{b});color:{fg}}}")
    rules.append(".sx{background:repeating-linear-gradient(45deg,#ddd 0 4px,#f4f4f4 4px 8px);color:#1d1d1f}")
    return "\n".join(rules)


STYLE = """
:root{--fg:#1d1d1f;--muted:#5f6368;--rule:#dfe1e5;--accent:#0b57d0;--bg:#fafafa}
*{box-sizing:border-box}
html{scroll-padding-top:48px}
body{margin:0;background:var(--bg);color:var(--fg);
  font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
.top{background:#202124;color:#fff;padding:14px 24px 12px}
.top h1{font-size:19px;margin:0 0 4px;font-weight:600;overflow-wrap:anywhere}
.top .sub{color:#c4c7c5;font-size:12px;overflow-wrap:anywhere}
nav{position:sticky;top:0;z-index:10;background:#fff;border-bottom:1px solid var(--rule);padding:7px 24px}
nav a{margin-right:16px;color:var(--accent);text-decoration:none;font-weight:500}
main{padding:0 24px 48px;max-width:1500px}
section{margin-top:26px}
h2{font-size:17px;margin:0 0 10px;padding-bottom:4px;border-bottom:1px solid var(--rule)}
h3{font-size:14px;margin:16px 0 6px}
p{margin:6px 0}
.muted,.note{color:var(--muted)}
table{border-collapse:collapse;background:#fff;border:1px solid var(--rule)}
th,td{padding:4px 9px;border-bottom:1px solid #eceff1;text-align:left;vertical-align:top}
th{background:#f1f3f4;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.sig-yes{font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code.sig{display:block;background:#fff;border:1px solid var(--rule);padding:6px 8px;overflow-wrap:anywhere}
.plots{display:flex;flex-wrap:wrap;gap:18px}
figure{margin:0;background:#fff;border:1px solid var(--rule);padding:8px}
figcaption{font-weight:600;margin:0 0 4px;font-size:13px}
svg.plot{max-width:100%;height:auto;display:block}
.controls{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:center;margin:6px 0 10px}
.controls label{font-size:12px;color:var(--muted);display:flex;gap:5px;align-items:center}
select{font:inherit;font-size:13px;max-width:16em}
#ranked-table td.pair{min-width:22em;max-width:48em}
.text{font-family:"Noto Sans","Noto Sans Devanagari","Noto Sans Thai","Noto Naskh Arabic","Noto Sans CJK SC",
  system-ui,sans-serif;font-size:15px}
.pair div{white-space:pre-wrap;overflow-wrap:anywhere;unicode-bidi:plaintext}
.pair .lab{display:inline-block;width:2.6em;color:var(--muted);font-size:11px;unicode-bidi:isolate}
.pair mark{border-radius:3px;padding:0 2px;unicode-bidi:isolate}
mark.empty{font-weight:700}
.sev{display:inline-block;min-width:3.2em;text-align:center;border-radius:3px;padding:0 4px}
.line{background:#fff;border:1px solid var(--rule);border-radius:6px;margin:0 0 12px;padding:8px 12px;
  content-visibility:auto;contain-intrinsic-size:auto 180px}
.line:target,.line.current{outline:3px solid var(--accent);outline-offset:1px}
.line>header{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:baseline;margin-bottom:6px}
.line .lid{font-weight:600;overflow-wrap:anywhere}
.sysgrid{display:grid;grid-template-columns:repeat(auto-fit,minmax(30em,1fr));gap:10px 18px}
.sysname{font-size:12px;color:var(--muted);margin-bottom:3px;overflow-wrap:anywhere}
.sysname b{color:var(--fg)}
.aligned{display:flex;flex-wrap:wrap;align-items:flex-start;row-gap:6px}
.col{display:inline-flex;flex-direction:column;unicode-bidi:isolate}
.col>span{white-space:pre;min-height:1.45em;line-height:1.45em;padding:0 1px}
.col.lab>span{color:var(--muted);font-size:11px;font-family:system-ui,sans-serif;padding-right:8px}
.col.edit{border-radius:3px;margin:0 1px;text-align:center;cursor:default}
.col .mk{font-size:10px;line-height:1em;min-height:1em;font-family:system-ui,sans-serif;font-weight:700;opacity:.85}
.col.lab .mk{visibility:hidden}
.col .nil{opacity:.75}
.legend{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;font-size:12px}
.legend .sev{min-width:2em}
.bar{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
a.jump{white-space:nowrap}
.elem{font-size:11px;color:var(--muted);overflow-wrap:anywhere}
ul.tight{margin:4px 0;padding-left:20px}
""" + _shade_css() + "\n"

SCRIPT = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("semcer-data").textContent);
  var SYS = D.systems;
  var UNSAFE = /[@UNSAFE@]/gu;
  function safe(s) {
    return String(s).replace(UNSAFE, function (c) {
      var n = c.codePointAt(0);
      if (c === "\n") return "\\n";
      if (c === "\t") return "\\t";
      if (c === "\r") return "\\r";
      if (n > 0xffff) return "\\U" + ("0000000" + n.toString(16)).slice(-8);
      return n > 255 ? "\\u" + ("000" + n.toString(16)).slice(-4) : "\\x" + ("0" + n.toString(16)).slice(-2);
    });
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function shade(s) { return s === null || s === undefined ? "sx" : "s" + Math.max(0, Math.min(20, Math.round(s * 20))); }
  function num(x, d) { return x === null || x === undefined ? "n/a" : x.toFixed(d); }
  function pct(x) { return x === null || x === undefined ? "n/a" : (100 * x).toFixed(2) + " %"; }
  function unit(u) { return u === " " ? "\u2423" : safe(u); }
  function level(l) { return l === null || l === undefined ? "n/a" : String(l); }
  function cls(c) { return c ? c : "(none)"; }
  // the page elements (regions, lines) of a span or an edit, on the reference and the output side
  function elements(rel, hel) {
    var r = (rel || []).map(safe).join(", "), h = (hel || []).map(safe).join(", ");
    if (!r && !h) return "";
    return r === h ? "element " + r : "element ref " + (r || "\u2013") + " \u00b7 out " + (h || "\u2013");
  }

  var shownLines = {};
  D.lines.forEach(function (ln) { shownLines[ln.k] = true; });

  // right to left when the first letter is in a right-to-left script (the first strong letter)
  var LETTER = /\p{L}/u;
  var RTL_SCRIPT = new RegExp("[" + ["Hebrew", "Arabic", "Syriac", "Thaana", "Nko", "Samaritan", "Mandaic",
    "Adlam", "Hanifi_Rohingya", "Yezidi"].map(function (s) { return "\\p{Script=" + s + "}"; }).join("") + "]", "u");
  function direction(text) {
    var m = LETTER.exec(text);
    return m && RTL_SCRIPT.test(m[0]) ? "rtl" : "ltr";
  }

  // ---- the ranked list -------------------------------------------------------------------
  function pairCell(parts, label) {
    var d = el("div", "text");
    d.setAttribute("dir", direction(parts.join("")));
    d.appendChild(el("span", "lab", label));
    d.appendChild(document.createTextNode(safe(parts[0])));
    var m = el("mark", "", parts[1] === "" ? "\u2013" : safe(parts[1]));
    if (parts[1] === "") m.className = "empty";
    d.appendChild(m);
    d.appendChild(document.createTextNode(safe(parts[2])));
    return { div: d, mark: m };
  }
  var tbody = document.getElementById("ranked-body");
  var rows = [];
  if (tbody) {
    D.spans.forEach(function (sp, rank) {
      var tr = el("tr");
      tr.dataset.rank = String(rank);
      tr.dataset.sev = sp.sev === null ? "" : String(sp.sev);
      tr.dataset.k = String(sp.k);
      tr.dataset.lang = sp.lang;
      tr.dataset.doc = sp.doc;
      tr.dataset.sys = String(sp.s);
      tr.dataset.lvl = level(sp.lvl);
      tr.appendChild(el("td", "num", rank + 1));
      var sev = el("td", "num");
      sev.appendChild(el("span", "sev " + shade(sp.e > 1 ? sp.max : sp.sev), num(sp.sev, 2)));
      tr.appendChild(sev);
      tr.appendChild(el("td", "num", num(sp.max, 2)));
      tr.appendChild(el("td", "num", sp.e));
      var pair = el("td", "pair");
      var r = pairCell(sp.ref, "ref"), h = pairCell(sp.hyp, "out");
      r.mark.classList.add(shade(sp.max));
      h.mark.classList.add(shade(sp.max));
      pair.appendChild(r.div);
      pair.appendChild(h.div);
      tr.appendChild(pair);
      tr.appendChild(el("td", "", sp.cls.map(cls).join(", ")));
      tr.appendChild(el("td", "num", level(sp.lvl)));
      if (SYS.length > 1) tr.appendChild(el("td", "", safe(SYS[sp.s])));
      var where = el("td", "text");
      if (shownLines[sp.k]) {
        var a = el("a", "jump", safe(sp.lid));
        a.href = "#L" + sp.k;
        where.appendChild(a);
      } else {
        where.appendChild(el("span", "", safe(sp.lid)));
        where.appendChild(el("div", "note", "line not shown"));
      }
      var place = elements(sp.rel, sp.hel);
      if (place) where.appendChild(el("div", "elem", place));
      tr.appendChild(where);
      tr.appendChild(el("td", "", safe(sp.doc)));
      tr.appendChild(el("td", "", safe(sp.lang)));
      rows.push({ tr: tr, sp: sp, rank: rank });
      tbody.appendChild(tr);
    });
  }
  var filters = {
    lang: { id: "f-lang", get: function (sp) { return [sp.lang]; }, label: safe },
    sys: { id: "f-sys", get: function (sp) { return [String(sp.s)]; }, label: function (v) { return safe(SYS[+v]); } },
    doc: { id: "f-doc", get: function (sp) { return [sp.doc]; }, label: safe },
    cls: { id: "f-cls", get: function (sp) { return sp.cls; }, label: cls },
    lvl: { id: "f-lvl", get: function (sp) { return [level(sp.lvl)]; }, label: String }
  };
  Object.keys(filters).forEach(function (name) {
    var f = filters[name], sel = document.getElementById(f.id);
    f.sel = sel;
    if (!sel) return;
    var seen = {};
    D.spans.forEach(function (sp) { f.get(sp).forEach(function (v) { seen[v] = true; }); });
    var values = Object.keys(seen).sort(function (a, b) {
      return name === "sys" ? (+a) - (+b) : (a < b ? -1 : a > b ? 1 : 0);
    });
    values.forEach(function (v) {
      var o = el("option", "", f.label(v));
      o.value = v;
      sel.appendChild(o);
    });
    sel.addEventListener("change", apply);
  });
  var sortSel = document.getElementById("sort");
  if (sortSel) sortSel.addEventListener("change", apply);
  function sortKey(mode) {
    if (mode === "severity") return function (a, b) {
      return ((b.sp.sev === null ? -1 : b.sp.sev) - (a.sp.sev === null ? -1 : a.sp.sev)) || (a.rank - b.rank);
    };
    if (mode === "line") return function (a, b) {
      return (a.sp.k - b.sp.k) || (a.sp.s - b.sp.s) || (a.sp.n - b.sp.n);
    };
    return function (a, b) { return a.rank - b.rank; };
  }
  function apply() {
    var shown = 0;
    var order = rows.slice().sort(sortKey(sortSel ? sortSel.value : "rank"));
    order.forEach(function (row) {
      var ok = Object.keys(filters).every(function (name) {
        var f = filters[name];
        return !f.sel || f.sel.value === "" || f.get(row.sp).indexOf(f.sel.value) >= 0;
      });
      row.tr.hidden = !ok;
      if (ok) shown += 1;
      tbody.appendChild(row.tr);
    });
    var count = document.getElementById("ranked-count");
    if (count) count.textContent = "showing " + shown + " of " + rows.length + " spans";
  }
  if (tbody) apply();

  // ---- the line view ---------------------------------------------------------------------
  function column(top, bottom, mark, klass) {
    var c = el("span", "col" + (klass ? " " + klass : ""));
    c.appendChild(top);
    c.appendChild(bottom);
    c.appendChild(el("span", "mk", mark));
    return c;
  }
  function side(u) {
    if (u === "") return el("span", "nil", "\u2013");
    return el("span", "", unit(u));
  }
  function aligned(segs) {
    var box = el("div", "aligned text");
    var ref = "";
    box.appendChild(column(el("span", "", "ref"), el("span", "", "out"), "", "lab"));
    segs.forEach(function (s) {
      if (typeof s === "string") {
        ref += s;
        (safe(s).match(/\S+\s*|\s+/g) || []).forEach(function (w) {
          box.appendChild(column(el("span", "", w), el("span", "", w), "", ""));
        });
      } else {
        ref += s[1];
        var op = s[0], mark = op === "I" ? "+" : op === "D" ? "\u2212" : "";
        var c = column(side(s[1]), side(s[2]), mark, "edit " + shade(s[3]));
        c.title = (op === "S" ? "substitution" : op === "D" ? "deletion" : "insertion") +
          " \u00b7 severity " + num(s[3], 2) + " \u00b7 level " + level(s[4]) + " \u00b7 " + cls(s[5]);
        var place = elements(s[6] ? [s[6]] : [], s[7] ? [s[7]] : []);
        if (place) {
          c.title += " \u00b7 " + place;
          c.dataset.element = place;
        }
        c.dataset.op = op;
        c.dataset.sev = s[3] === null ? "" : String(s[3]);
        box.appendChild(c);
      }
    });
    box.setAttribute("dir", direction(ref));
    return box;
  }
  var linesBox = document.getElementById("lines-box");
  if (linesBox) {
    D.lines.forEach(function (ln) {
      var art = el("article", "line");
      art.id = "L" + ln.k;
      var head = el("header");
      head.appendChild(el("span", "lid text", safe(ln.id)));
      head.appendChild(el("span", "muted", "document " + safe(ln.doc) + " \u00b7 language " + safe(ln.lang)));
      var back = el("a", "jump", "\u2191 ranked list");
      back.href = "#ranked";
      head.appendChild(back);
      art.appendChild(head);
      var grid = el("div", "sysgrid");
      ln.sys.forEach(function (v, si) {
        var box = el("div", "sysview");
        box.dataset.sys = String(si);
        var name = el("div", "sysname");
        if (SYS.length > 1) name.appendChild(el("b", "", safe(SYS[si]) + "  "));
        name.appendChild(el("span", "line-cer", "CER " + pct(v.cer)));
        name.appendChild(document.createTextNode(" \u00b7 "));
        name.appendChild(el("span", "line-semcer", "semCER " + pct(v.semcer)));
        name.appendChild(document.createTextNode(" \u00b7 " + v.edits + (v.edits === 1 ? " edit" : " edits") +
          " over " + v.units + " units \u00b7 severity " + num(v.severity, 2)));
        box.appendChild(name);
        if (v.segs) box.appendChild(aligned(v.segs));
        else box.appendChild(el("div", "note", "this line's alignment is not available"));
        grid.appendChild(box);
      });
      art.appendChild(grid);
      linesBox.appendChild(art);
    });
  }

  // ---- compare: lines where the systems differ most -------------------------------------
  var differ = document.getElementById("differ-body");
  if (differ) {
    var byK = {};
    D.lines.forEach(function (ln) { byK[ln.k] = ln; });
    D.differ.forEach(function (d) {
      var ln = byK[d.k], tr = el("tr");
      var td = el("td", "text"), a = el("a", "jump", safe(ln.id));
      a.href = "#L" + d.k;
      td.appendChild(a);
      tr.appendChild(td);
      tr.appendChild(el("td", "", safe(ln.doc)));
      tr.appendChild(el("td", "", safe(ln.lang)));
      d.v.forEach(function (x) { tr.appendChild(el("td", "num", pct(x))); });
      tr.appendChild(el("td", "num", (100 * d.d).toFixed(2)));
      differ.appendChild(tr);
    });
  }

  // ---- jumps -----------------------------------------------------------------------------
  var current = null;
  function target() {
    if (current) current.classList.remove("current");
    current = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (current && current.classList.contains("line")) {
      current.classList.add("current");
      current.scrollIntoView();
    } else {
      current = null;
    }
  }
  window.addEventListener("hashchange", target);
  target();
  document.documentElement.dataset.ready = "1";
})();
""".replace("@UNSAFE@", "".join(f"\\u{{{lo:x}}}-\\u{{{hi:x}}}" for lo, hi in UNSAFE_RANGES))  # one copy: reports.text

for _text, _end in ((SCRIPT, "</script"), (STYLE, "</style")):
    assert _end not in _text.lower(), "the inline code must not close its own element"


def csp_hash(text: str) -> str:
    """The CSP source of an inline script or style: ``'sha256-<base64 digest>'``."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


#: The page's Content-Security-Policy: nothing but its own script and style.
CSP = (f"default-src 'none'; script-src {csp_hash(SCRIPT)}; style-src {csp_hash(STYLE)}; img-src data:; "
       "base-uri 'none'; form-action 'none'")


def embed_json(obj: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` (so no text
    can close the element or open a comment), and no U+2028/U+2029."""
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _e(text: object) -> str:
    """Input text for the page: control and bidi characters shown as escapes, then HTML-escaped."""
    return html.escape(safe(text), quote=True)


def _value_attr(v: Any) -> str:
    return "" if v is None else html.escape(repr(v) if isinstance(v, float) else str(v), quote=True)


def _cell(text: str, value: Any = None, key: str = "", system: int | None = None, cls: str = "num") -> str:
    attrs = f' class="{cls}"' if cls else ""
    if key:
        attrs += f' data-key="{key}" data-value="{_value_attr(value)}"'
        if system is not None:
            attrs += f' data-system="{system}"'
    return f"<td{attrs}>{text}</td>"


# ---------------------------------------------------------------------------------------------


def render(data: Mapping[str, Any]) -> str:
    """The whole page for the report data ``data``."""
    names = [s["name"] for s in data["systems"]]
    client = {"systems": names, "judged": data["judged"], "spans": data["spans"], "lines": data["lines"],
              "differ": data["differ"]}
    body = "".join([
        _header(data), _nav(data), "<main>",
        '<noscript><p class="note">The ranked list and the line view are drawn by this page\'s script; with '
        "scripts off, the summary and the plots are what it shows.</p></noscript>",
        _summary(data), _plots_section(data), _ranked_section(data), _differ_section(data), _lines_section(data),
        _about(data), "</main>",
    ])
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(CSP, quote=True)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="semcer {_e(data.get("version", ""))}">\n'
        f"<title>{_e(data['title'])}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n"
        f'<script type="application/json" id="semcer-data">{embed_json(client)}</script>\n'
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def _header(data: Mapping[str, Any]) -> str:
    names = [s["name"] for s in data["systems"]]
    what = {"score": "one system scored", "compare": f"{len(names)} systems compared, the first the baseline",
            "score-json": "made from a score JSON"}.get(data["kind"], "")
    refs = f" · references {_e(data['references'])}" if data.get("references") else ""
    return (f'<header class="top"><h1>{_e(data["title"])}</h1><div class="sub">{what}{refs} · '
            f'{data["line_total"]:,} lines · semcer {_e(data.get("version", ""))}</div></header>')


def _nav(data: Mapping[str, Any]) -> str:
    links = [("summary", "Summary"), ("plots", "Plots"), ("ranked", "Ranked list")]
    if data["comparison"] is not None:
        links.append(("differ", "Where systems differ"))
    links += [("lines", "Line view"), ("about", "About this page")]
    return "<nav>" + "".join(f'<a href="#{k}">{v}</a>' for k, v in links) + "</nav>"


def _summary(data: Mapping[str, Any]) -> str:
    parts = ['<section id="summary"><h2>Summary</h2>']
    judged = data["judged"]
    parts.append(_score_table(data["systems"], judged))
    if data["comparison"] is not None:
        parts.append(_comparison_tables(data))
    if data["languages"]:
        parts.append(_language_table(data, judged))
    judges = [s["judge"] for s in data["systems"] if s.get("judge")]
    if judges:
        j = judges[0]
        bits = [f"judge <code>{_e(j.get('identity'))}</code>"]
        for key in ("edits", "unique_edits", "failures"):
            if isinstance(j.get(key), int):
                bits.append(f"{key.replace('_', ' ')}: {j[key]:,}")
        parts.append(f'<p class="muted">{" · ".join(bits)}</p>')
    parts.append(f'<h3>Signature</h3><code class="sig" id="signature">{_e(data["signature"])}</code>')
    parts.append('<p class="muted">Two numbers are comparable only when their signatures are equal. semCER = Σ '
                 "severities / reference units, aggregated exactly like CER: the corpus figure sums every line, the "
                 "document mean gives each document one vote.</p>")
    parts.append("</section>")
    return "".join(parts)


def _score_table(systems: Sequence[Mapping[str, Any]], judged: bool) -> str:
    head = ["system", "", "CER"] + (["semCER"] if judged else []) + ["edits", "S", "D", "I", "units", "lines",
                                                                     "documents"]
    rows = []
    for si, s in enumerate(systems):
        c, m = s["corpus"], s["document_mean"]
        name = _e(s["name"])
        row = [f'<td rowspan="2">{name}</td>', "<td>corpus</td>", _cell(pct(c.get("cer")), c.get("cer"), "corpus.cer", si)]
        if judged:
            row.append(_cell(pct(c.get("semcer")), c.get("semcer"), "corpus.semcer", si))
        for key in ("edits", "substitutions", "deletions", "insertions", "units", "lines", "documents"):
            v = c.get(key)
            row.append(_cell("" if v is None else f"{v:,}", v, f"corpus.{key}", si))
        rows.append("<tr>" + "".join(row) + "</tr>")
        row = ["<td>document mean</td>", _cell(pct(m.get("cer")), m.get("cer"), "document_mean.cer", si)]
        if judged:
            row.append(_cell(pct(m.get("semcer")), m.get("semcer"), "document_mean.semcer", si))
        row += ["<td></td>"] * 6
        docs = m.get("documents")
        row.append(_cell("" if docs is None else f"{docs:,}", docs, "document_mean.documents", si))
        rows.append("<tr>" + "".join(row) + "</tr>")
    return ('<div class="scroll"><table id="score-table"><thead><tr>'
            + "".join(f'<th class="{"num" if k > 1 else ""}">{h}</th>' for k, h in enumerate(head))
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


def _points(x: Any) -> str:
    return "n/a" if x is None else f"{100 * x:+.2f}"


def _comparison_tables(data: Mapping[str, Any]) -> str:
    cmp = data["comparison"]
    names = [s["name"] for s in data["systems"]]
    out = []
    for agg, label in (("corpus", "corpus (Σ edits / Σ reference units)"),
                       ("document_mean", "document mean (each document one vote)")):
        metrics = [m for m in ("cer", "semcer") if m in cmp["results"]]
        head = ["system"]
        for m in metrics:
            head += ["CER" if m == "cer" else "semCER", "Δ points", "interval", "p (Holm)"]
        rows = []
        for k, name in enumerate(names):
            row = [f"<td>{_e(name)}{' (baseline)' if k == 0 else ''}</td>"]
            for m in metrics:
                r = cmp["results"][m][agg][k]
                key = f"{m}.{agg}"
                row.append(_cell(pct(r["value"]), r["value"], f"cmp.{key}.value", k))
                if k == 0:
                    row += ["<td></td>"] * 3
                    continue
                star = "*" if r.get("significant") else ""
                row.append(_cell(_points(r["difference"]) + star, r["difference"], f"cmp.{key}.difference", k,
                                 "num sig-yes" if star else "num"))
                iv = r["interval"]
                row.append(_cell("" if iv is None else f"[{100 * iv[0]:+.2f}, {100 * iv[1]:+.2f}]",
                                 None if iv is None else f"{iv[0]!r},{iv[1]!r}", f"cmp.{key}.interval", k))
                p, ph = r["p_value"], r["p_value_holm"]
                ptext = "" if p is None else f"{p:.4f}" + ("" if ph is None or ph == p else f" ({ph:.4f})")
                row.append(_cell(ptext, p, f"cmp.{key}.p_value", k))
            rows.append("<tr>" + "".join(row) + "</tr>")
        out.append(f"<h3>{label}</h3><div class=\"scroll\"><table class=\"cmp\" data-aggregation=\"{agg}\"><thead><tr>"
                   + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(rows)
                   + "</tbody></table></div>")
    level = str(cmp.get("level") or "").replace("-", " interval at ")
    out.append(f'<p class="muted">Δ = system − baseline in percentage points; * = the {_e(level)} excludes 0; p: '
               f"paired approximate randomization over {cmp['documents']:,} documents ({_e(cmp.get('shuffles'))} "
               "shuffles), Holm-adjusted over the systems. Documents are resampled: a document's lines stay together.</p>")
    out += [f'<p class="note">note: {_e(n)}</p>' for n in cmp.get("notes", [])]
    return "".join(out)


def _language_table(data: Mapping[str, Any], judged: bool) -> str:
    names = [s["name"] for s in data["systems"]]
    many = len(names) > 1
    head = ["language"] + (["system"] if many else []) + ["CER", "doc. mean"] + (["semCER", "doc. mean"] if judged else []) \
        + ["edits", "units", "lines", "documents"]
    rows = []
    for g in data["languages"]:
        for si, r in enumerate(g["systems"]):
            if r is None:
                continue
            lang = _e(g["lang"])
            row = [f'<td data-lang="{lang}">{lang}</td>'] + ([f"<td>{_e(names[si])}</td>"] if many else [])
            row.append(_cell(pct(r["cer"]), r["cer"], "lang.cer", si))
            row.append(_cell(pct(r["cer_mean"]), r["cer_mean"], "lang.cer_mean", si))
            if judged:
                row.append(_cell(pct(r["semcer"]), r["semcer"], "lang.semcer", si))
                row.append(_cell(pct(r["semcer_mean"]), r["semcer_mean"], "lang.semcer_mean", si))
            for key in ("edits", "units", "lines", "documents"):
                row.append(_cell(f"{r[key]:,}", r[key], f"lang.{key}", si))
            rows.append(f'<tr data-lang="{lang}">' + "".join(row) + "</tr>")
    return ('<h3>Per language</h3><div class="scroll"><table id="lang-table"><thead><tr>'
            + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
            '<p class="muted">Each language\'s lines aggregated like the corpus (its document mean is over the documents '
            "of its lines); lines without a language tag are <code>und</code>.</p>")


def _plots_section(data: Mapping[str, Any]) -> str:
    figs = []
    for p in data["plots"]:
        note = f'<p class="note">{_e(p["note"])}</p>' if p.get("note") else ""
        figs.append(f'<figure id="plot-{_e(p["id"])}"><figcaption>{_e(p["title"])}</figcaption>{svg(p)}{note}</figure>')
    return '<section id="plots"><h2>Plots</h2><div class="plots">' + "".join(figs) + "</div></section>"


def _legend(data: Mapping[str, Any]) -> str:
    items = []
    for lv in data["levels"]:
        k = round(lv["rating"] * SHADES)
        items.append(f'<span><span class="sev s{k}">{lv["level"]}</span> {_e(lv["name"])} (rating {lv["rating"]:g})</span>')
    return '<div class="legend">' + "".join(items) + "</div>"


def _ranked_section(data: Mapping[str, Any]) -> str:
    head = '<section id="ranked"><h2>Ranked list: the most severe error spans</h2>'
    if not data["judged"]:
        return head + '<p class="note">No judge was run: there are no severities to rank (CER only).</p></section>'
    if not data["spans"]:
        return head + '<p class="note">Nothing to rank here (no error spans in these results).</p></section>'
    many = len(data["systems"]) > 1
    total = data["span_total"]
    shown = len(data["spans"])
    intro = (f'<p class="muted">The {shown:,} most severe of {total:,} error spans' if shown < total
             else f'<p class="muted">All {total:,} error spans') + (
        " of all systems" if many else "") + (", most damaging first: by the worst edit, then by the summed severity "
                                            "(a digit that silently became another ranks above a long stretch of obvious "
                                            "garbage). A span is a run of adjacent edits of one line; its severity is the "
                                            "sum of its edits' severities, its level the highest level of its edits, its "
                                            "shade the worst edit's severity. Click a line to see it aligned.</p>")
    controls = ['<div class="controls">']
    for fid, label in (("f-lang", "language"), ("f-sys", "system"), ("f-doc", "document"), ("f-cls", "class"),
                       ("f-lvl", "level")):
        if fid == "f-sys" and not many:
            continue
        controls.append(f'<label>{label} <select id="{fid}"><option value="">all</option></select></label>')
    controls.append('<label>sort by <select id="sort"><option value="rank">worst edit, then severity</option>'
                    '<option value="severity">severity (sum)</option><option value="line">line</option></select></label>')
    controls.append('<span id="ranked-count" class="muted"></span></div>')
    cols = ["#", "severity", "worst", "edits", "marked pair", "class", "level"] + (["system"] if many else []) + [
        "line", "document", "language"]
    table = ('<div class="scroll"><table id="ranked-table"><thead><tr>'
             + "".join(f'<th class="{"num" if c in ("#", "severity", "worst", "edits", "level") else ""}">{c}</th>'
                       for c in cols) + '</tr></thead><tbody id="ranked-body"></tbody></table></div>')
    return head + intro + _legend(data) + "".join(controls) + table + "</section>"


def _differ_section(data: Mapping[str, Any]) -> str:
    if data["comparison"] is None:
        return ""
    head = '<section id="differ"><h2>Where the systems differ most</h2>'
    if not data["differ"]:
        return head + '<p class="note">No line\'s semCER differs between the systems (or no judge was run).</p></section>'
    names = [s["name"] for s in data["systems"]]
    cols = ["line", "document", "language"] + [f"semCER {_e(n)}" for n in names] + ["spread (points)"]
    return (head + f'<p class="muted">The {len(data["differ"]):,} lines whose semCER differs most between the systems '
            "(highest minus lowest); each links to the line, the systems one beside another.</p>"
            '<div class="scroll"><table id="differ-table"><thead><tr>' + "".join(f"<th>{c}</th>" for c in cols)
            + '</tr></thead><tbody id="differ-body"></tbody></table></div></section>')


def _lines_section(data: Mapping[str, Any]) -> str:
    n, with_edits = len(data["lines"]), data["lines_with_edits"]
    many = len(data["systems"]) > 1
    if n == 0:
        text = "No line is shown." if with_edits else "No line has an edit."
    elif n < with_edits:
        text = f"The {n:,} most severe of the {with_edits:,} lines with edits, in full"
    else:
        text = f"All {with_edits:,} lines with edits, in full"
    if n:
        text += (" (the most severe first: largest severity sum of any system" if data["judged"]
                 else " (most edits first") + ")" + (", every system's alignment of the same line beside the others" if many
                                                    else "") + ". Reference and output are aligned unit by unit after "\
            "the text policy; each edit is shaded by its severity, + marks an insertion, − a deletion, and a dash an " \
            "empty side; ␣ is an edited space. Point at an edit for its severity, level and class and, for page " \
            "files, the element (region or line) it falls in on each side."
    return (f'<section id="lines"><h2>Line view</h2><p class="muted">{text}</p>' + (_legend(data) if n else "")
            + '<div id="lines-box"></div></section>')


def _about(data: Mapping[str, Any]) -> str:
    lim = data["limits"]
    parts = ['<section id="about"><h2>About this page</h2>']
    parts.append(
        "<p>This file is self-contained: no network, no external fonts, scripts or images; its "
        "Content-Security-Policy allows only its own script and style. Every piece of OCR text, id and name is shown "
        "as text: nothing in the data can become markup or run.</p>")
    parts.append(
        f"<p>Its size is bounded, not by the corpus: at most {lim['spans']:,} error spans in the ranked list "
        f"(<code>--report-spans</code>), each with at most {lim['clip']} graphemes of context on each side and "
        f"{lim['span_clip']} of its own text; at most {lim['lines']:,} lines in full (<code>--report-lines</code>)"
        + (f", plus up to {lim['differ']} lines where the systems differ most" if data["comparison"] is not None else "")
        + f", and no more than {lim['text_budget']:,} characters of line text in all; at most {lim['documents']:,} "
        f"documents per system in the per-document plot and {lim['languages']} languages in the per-language plot. "
        f"Shown here: {len(data['spans']):,} of {data['span_total']:,} spans and {len(data['lines']):,} of "
        f"{data['line_total']:,} lines.</p>")
    if data["missing"]:
        parts.append("<h3>What this page cannot show</h3><ul class=\"tight\">"
                     + "".join(f"<li>{_e(m)}</li>" for m in data["missing"]) + "</ul>")
    if data["notes"]:
        parts.append("<h3>Notes</h3><ul class=\"tight\">" + "".join(f"<li>{_e(n)}</li>" for n in data["notes"]) + "</ul>")
    systems = "".join(f'<li><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" '
                      f'fill="{colour(k)}"/></svg> {_e(s["name"])}</li>' for k, s in enumerate(data["systems"]))
    parts.append(f'<h3>Systems</h3><ul class="tight">{systems}</ul>')
    parts.append(f'<p class="muted">Made by semcer {_e(data.get("version", ""))} (report format '
                 f'{_e(data.get("format", ""))}).</p></section>')
    return "".join(parts)
