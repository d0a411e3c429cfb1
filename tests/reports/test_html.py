"""The HTML report without a browser: the embedded JSON cannot close its element, the CSP names the
hashes of exactly the inline script and style shipped, nothing in the data becomes markup in the
parts drawn without the script, and the report's data (ranking, limits, alignment segments) is
what the metrics say."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re

import pytest
from helpers import EXAMPLES

import semcer
from semcer.api.report import Limits, evaluation_report, score_json_report
from semcer.metrics.spans import judged_spans, ranked_spans
from semcer.reports.html import SCRIPT, STYLE, embed_json, render

HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "</script><script>alert(2)</script>",
           "a\u2028b\u2029c", "&amp; &lt;", "<!-- x -->"]


@pytest.fixture(scope="module")
def example_eval():
    return semcer.evaluate(str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_noisy.jsonl"), judge="rubric",
                           edits=True)


@pytest.fixture(scope="module")
def hostile_eval():
    # The readers and evaluate() refuse a lang that is not a language tag; the page must escape one
    # all the same (an Evaluation built another way), so the check is lifted here.
    refs = {h: f"Total {k} items for {h}" for k, h in enumerate(HOSTILE)}
    hyps = {h: f"Total {k + 1} itens for {h[::-1]}" for k, h in enumerate(HOSTILE)}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("semcer.io.collections.LANGUAGE_TAG", re.compile(r".*", re.S))
        return semcer.evaluate(refs, hyps, docs={h: h for h in HOSTILE}, langs={h: h for h in HOSTILE},
                               judge="rubric", edits=True)


def test_embedded_json_cannot_close_its_element_and_reads_back():
    obj = {"t": HOSTILE, "k": "\u2028\u2029<>&"}
    text = embed_json(obj)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert json.loads(text) == obj


def test_csp_names_the_hashes_of_the_inline_script_and_style(example_eval):
    page = render(evaluation_report(example_eval, name="tess_noisy"))
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    csp = html.unescape(csp)
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    digest = lambda s: "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == digest(scripts[0]) == digest(SCRIPT)
    assert directives["style-src"] == digest(styles[0]) == digest(STYLE)
    assert directives["img-src"] == "data:"


def test_the_page_loads_nothing_and_has_no_inline_handlers_or_styles(example_eval):
    page = render(evaluation_report(example_eval, name="tess_noisy"))
    assert not re.search(r"\s(src|srcset|action|formaction)=", page)
    assert not re.search(r'href="(?!#)', page)  # links only within the page
    assert not re.search(r"\son[a-z]+=", page)
    assert not re.search(r"\sstyle=", page)
    assert "innerHTML" not in SCRIPT and "insertAdjacentHTML" not in SCRIPT and "document.write" not in SCRIPT
    assert "@import" not in STYLE and "url(" not in STYLE


def test_hostile_text_is_escaped_wherever_the_page_draws_it_itself(hostile_eval):
    data = evaluation_report(hostile_eval, name=HOSTILE[1], references=HOSTILE[0], title=HOSTILE[2])
    page = render(data)
    assert page.count("<script") == 2  # the JSON data and the page's own script
    assert "<img" not in page
    assert "<!-- x -->" not in page
    head = page.split('<script type="application/json"', 1)[0]
    assert html.escape(HOSTILE[0]) in head  # the title, header, system and language names, as text
    assert "\u2028" not in page and "\u2029" not in page
    blob = re.search(r'<script type="application/json" id="semcer-data">(.*?)</script>', page, re.S).group(1)
    client = json.loads(blob)
    assert {ln["id"] for ln in client["lines"]} == set(HOSTILE)  # the data itself is kept exactly


def test_spans_are_ranked_as_the_metrics_rank_them(example_eval):
    data = evaluation_report(example_eval, name="s", limits=Limits(spans=25))
    expected = ranked_spans(judged_spans(example_eval.judged))
    assert [s["id"] for s in data["spans"]] == [s.span_id for s in expected[:25]]
    assert data["span_total"] == len(expected)
    keys = [(s["max"], s["sev"]) for s in data["spans"]]
    assert keys == sorted(keys, reverse=True)  # worst edit first, then the sum


def test_limits_bound_the_page_and_the_page_says_so(example_eval):
    data = evaluation_report(example_eval, name="s", limits=Limits(spans=7, lines=3))
    assert len(data["spans"]) == 7 and len(data["lines"]) == 3
    severities = sorted((r.stats.severity for r in example_eval.lines), reverse=True)
    assert [ln["sys"][0]["severity"] for ln in data["lines"]] == severities[:3]
    page = render(data)
    assert f"The 7 most severe of {data['span_total']:,} error spans" in page
    assert f"The 3 most severe of the {data['lines_with_edits']:,} lines with edits" in page
    assert "at most 7 error spans in the ranked list" in page


def test_line_segments_rebuild_both_sides_of_the_line(example_eval):
    data = evaluation_report(example_eval, name="s")
    by_id = {r.id: r for r in example_eval.lines}
    for ln in data["lines"]:
        al = by_id[ln["id"]].alignment
        segs = ln["sys"][0]["segs"]
        ref = "".join(s if isinstance(s, str) else s[1] for s in segs)
        hyp = "".join(s if isinstance(s, str) else s[2] for s in segs)
        assert (ref, hyp) == (al.ref, al.hyp)
        edits = [s for s in segs if not isinstance(s, str)]
        assert len(edits) == len(al.edits)
        assert sum(s[3] for s in edits) == pytest.approx(by_id[ln["id"]].stats.severity)


def test_summary_cells_carry_the_exact_numbers(example_eval):
    page = render(evaluation_report(example_eval, name="s"))
    d = example_eval.to_dict()
    for key, value in (("corpus.cer", d["corpus"]["cer"]), ("corpus.semcer", d["corpus"]["semcer"]),
                       ("document_mean.semcer", d["document_mean"]["semcer"]), ("corpus.units", d["corpus"]["units"])):
        m = re.search(rf'data-key="{re.escape(key)}" data-value="([^"]*)" data-system="0">([^<]*)<', page)
        assert m, key
        assert float(m.group(1)) == value
        if isinstance(value, float):
            assert m.group(2) == f"{100 * value:.2f} %"


def test_a_score_json_without_spans_or_lines_says_what_it_cannot_show(example_eval):
    data = score_json_report(json.loads(json.dumps(example_eval.to_dict())), source="score.json")
    missing = " ".join(data["missing"])
    assert "ranked list" in missing and "line view" in missing and "severity distribution" in missing
    assert data["spans"] == [] and data["lines"] == []
    page = render(data)
    assert "What this page cannot show" in page
    assert data["systems"][0]["corpus"]["cer"] == example_eval.corpus.cer
