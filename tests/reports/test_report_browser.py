"""The HTML report in a real browser (headless Chromium driven by Playwright).

The input is the bundled example plus hand-made lines in Devanagari, Thai and Arabic, and lines
whose ids, documents and OCR text carry hostile markup. Checked in the rendered page: the summary
numbers are those of `semcer score --json` (and `semcer compare --json`) on the same input; the
ranked list is sorted by severity; a language filter hides the other rows; the jump from a span
reaches its line; no script runs from the data (no dialog, no element made from it, the text shown
literally); the page's own script and style pass its Content-Security-Policy (no violation).

Skipped only when /usr/bin/chromium is absent (CI installs Debian's chromium).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, read_jsonl

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium "
                                "(apt-get install chromium); CI installs it")
playwright = pytest.importorskip("playwright.sync_api", reason='needs playwright: pip install ".[test]"')

SCRIPT_TAG = "<script>alert(1)</script>"
IMG_TAG = '"><img src=x onerror=alert(1)>'

EXTRA = [  # (id, doc, lang, reference, output)
    ("hi-1", "hi/news", "hi", "नमस्ते दुनिया, यह एक परीक्षण है।", "नमस्ते दुनीया, यह एक परिक्षण है।"),
    ("th-1", "th/news", "th", "ภาษาไทยเป็นภาษาที่สวยงามมาก", "ภาษาไทยเปนภาษาที่สวยงามมาก"),
    ("th-2", "th/news", "th", "ราคา 120 บาท ต่อวัน", "ราคา 128 บาท ต่อวัน"),
    ("ar-1", "ar/news", "ar", "مرحبا بالعالم، هذا اختبار", "مرحبا بالعالن، هذا اختيار"),
    ("he-1", "he/news", "he", "(12) שלום עולם", "(12) שלוס עולם"),  # digits first: the first letter decides
    ("en-ar", "en/mixed", "en", "Total مرحبا 5", "Total مرحبا 6"),  # Latin first: left to right
    (IMG_TAG, SCRIPT_TAG, "en", "Total 12 items", f"Total {SCRIPT_TAG} items"),
    (SCRIPT_TAG, IMG_TAG, "en", "Pay 45 EUR now", f"Pay {IMG_TAG} now"),
]


def _corpus(folder: Path, name: str, examples: str, noisy: bool = True) -> Path:
    rows = read_jsonl(EXAMPLES / examples)
    for line_id, doc, lang, ref, hyp in EXTRA:
        text = ref if name == "refs" else hyp if noisy else ref.replace("1", "l", 1)
        rows.append({"id": line_id, "doc": doc, "lang": lang, "text": text})
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _semcer(*args: str) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report-browser")
    refs = _corpus(folder, "refs", "references.jsonl")
    noisy = _corpus(folder, "noisy", "tess_noisy.jsonl")
    clean = _corpus(folder, "clean", "tess_clean.jsonl", noisy=False)
    return folder, refs, clean, noisy


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, __import__("tempfile").TemporaryDirectory() as profile:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), headless=True, viewport={"width": 1280, "height": 900},
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield ctx
        ctx.close()


def _open(browser, path: Path):
    page = browser.new_page()
    events = {"dialogs": [], "errors": [], "console": [], "requests": []}
    page.on("dialog", lambda d: (events["dialogs"].append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: events["errors"].append(str(e)))
    page.on("console", lambda m: events["console"].append(f"{m.type}: {m.text}"))
    page.on("request", lambda r: events["requests"].append(r.url))
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready='1']", timeout=20_000)
    return page, events


def _cell(page, key: str, system: int = 0):
    loc = page.locator(f'td[data-key="{key}"][data-system="{system}"]')
    assert loc.count() == 1, key
    return loc.get_attribute("data-value"), loc.inner_text().strip()


def _column(page, n: int) -> list[float]:
    """The numbers of column ``n`` (1-based) of the ranked list, in the order shown."""
    cells = page.eval_on_selector_all(f"#ranked-body tr td:nth-child({n})", "c => c.map(x => x.innerText)")
    return [float(c) for c in cells]


def _ranks(page) -> list[int]:
    return [int(r) for r in page.eval_on_selector_all("#ranked-body tr", "rs => rs.map(r => r.dataset.rank)")]


def _assert_inert(page, events):
    assert events["dialogs"] == []
    assert events["errors"] == []
    assert not [c for c in events["console"] if c.startswith("error")], events["console"]  # no CSP violation
    assert all(u.startswith("file://") for u in events["requests"]), events["requests"]
    assert page.evaluate("document.querySelectorAll('script').length") == 2  # data and the page's script
    assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
    assert page.evaluate("[...document.querySelectorAll('*')].filter(e => [...e.attributes].some("
                         "a => a.name.startsWith('on'))).length") == 0
    text = page.evaluate("document.body.innerText")
    assert SCRIPT_TAG in text and IMG_TAG in text


def test_score_report_in_chromium(inputs, browser, tmp_path):
    refs, _, noisy = inputs[1:]
    score = json.loads(_semcer("score", str(refs), str(noisy), "--json", "--by", "lang").stdout)
    report = tmp_path / "report.html"
    _semcer("report", str(refs), str(noisy), "--html", str(report))
    page, events = _open(browser, report)

    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=False)
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and shot.stat().st_size > 10_000

    # the summary: the numbers of `semcer score --json`, exactly, and as shown
    for block, key in (("corpus", "cer"), ("corpus", "semcer"), ("document_mean", "cer"), ("document_mean", "semcer")):
        value, shown = _cell(page, f"{block}.{key}")
        assert float(value) == score[block][key]
        assert shown == f"{100 * score[block][key]:.2f} %"
    for key in ("edits", "substitutions", "deletions", "insertions", "units", "lines", "documents"):
        assert int(_cell(page, f"corpus.{key}")[0]) == score["corpus"][key]
    assert page.locator("#signature").inner_text() == score["signature"]
    langs = page.locator("#lang-table tbody tr")
    assert langs.count() == len(score["by_lang"])
    for k, g in enumerate(score["by_lang"]):
        row = langs.nth(k)
        assert row.get_attribute("data-lang") == g["lang"]
        assert float(row.locator('td[data-key="lang.semcer"]').get_attribute("data-value")) == g["semcer"]
        assert float(row.locator('td[data-key="lang.cer_mean"]').get_attribute("data-value")) == g["document_mean"]["cer"]

    # the ranked list: every span, most damaging first (worst edit, then summed severity)
    rows = page.locator("#ranked-body tr")
    n = rows.count()
    assert n > 100
    assert _column(page, 3) == sorted(_column(page, 3), reverse=True)
    ranks = _ranks(page)
    assert ranks == sorted(ranks)
    page.select_option("#sort", "severity")  # by severity (the sum)
    sev = [float(s) for s in page.eval_on_selector_all("#ranked-body tr", "rs => rs.map(r => r.dataset.sev)")]
    assert sev == sorted(sev, reverse=True)
    assert _column(page, 2) == sorted(_column(page, 2), reverse=True)
    assert _ranks(page) != ranks  # the example has spans whose worst edit and sum rank differently

    # a filter hides the other rows
    page.select_option("#f-lang", "th")
    visible = page.eval_on_selector_all("#ranked-body tr:not([hidden])", "rs => rs.map(r => r.dataset.lang)")
    assert visible and set(visible) == {"th"}
    assert page.locator("#ranked-body tr[hidden]").count() == n - len(visible)
    assert page.locator("#ranked-count").inner_text() == f"showing {len(visible)} of {n} spans"
    page.select_option("#f-lang", "")
    assert page.locator("#ranked-body tr[hidden]").count() == 0

    # sorting by line: corpus order
    page.select_option("#sort", "line")
    ks = [int(k) for k in page.eval_on_selector_all("#ranked-body tr", "rs => rs.map(r => r.dataset.k)")]
    assert ks == sorted(ks) and _ranks(page) != ranks
    page.select_option("#sort", "rank")

    # the jump from a span to its line
    link = page.locator("#ranked-body tr").first.locator("a.jump")
    target = link.get_attribute("href")
    assert target.startswith("#L")
    link.click()
    # the page marks the line in its hashchange handler, which may run just after the hash changes
    page.wait_for_function(f"location.hash === '{target}' && document.querySelector('{target}').classList.contains('current')",
                           timeout=10_000)
    line = page.locator(target)
    assert line.evaluate("e => e.matches(':target') && e.classList.contains('current')")
    assert line.is_visible()
    box, viewport = line.bounding_box(), page.viewport_size
    assert box["y"] < viewport["height"] and box["y"] + box["height"] > 0  # scrolled into view
    first = page.locator("#ranked-body tr").first
    assert line.locator(".lid").inner_text() == first.locator("a.jump").inner_text()
    # the line view shades its edits; + for an insertion, − for a deletion, a dash on the empty side
    ops = page.eval_on_selector_all(".line .col.edit", "cs => cs.map(c => [c.dataset.op, c.lastChild.textContent])")
    assert {op for op, _ in ops} == {"S", "D", "I"}
    assert all(mark == {"S": "", "D": "\u2212", "I": "+"}[op] for op, mark in ops)

    # direction: from the first letter of the line (ranked-list cells and the aligned view)
    def directions(doc: str) -> set[str]:
        cells = page.eval_on_selector_all(f'#ranked-body tr[data-doc="{doc}"] div.text', "ds => ds.map(d => d.dir)")
        views = page.eval_on_selector_all(f'.line:has(.lid:text-is("{doc[:2]}-1")) .aligned',
                                          "ds => ds.map(d => d.dir)") if doc != "en/mixed" else []
        assert cells and (views or doc == "en/mixed"), doc
        return set(cells) | set(views)
    assert directions("ar/news") == {"rtl"}
    assert directions("he/news") == {"rtl"}
    assert directions("th/news") == {"ltr"}
    assert directions("en/mixed") == {"ltr"}

    # the hostile lines: shown as text, nothing made of them
    hostile = page.locator(".line", has_text="Total").filter(has_text=SCRIPT_TAG)
    assert hostile.count() >= 1
    _assert_inert(page, events)
    page.close()


def test_compare_report_in_chromium(inputs, browser, tmp_path):
    refs, clean, noisy = inputs[1:]
    common = ["--names", "clean,noisy", "--n-resamples", "300"]
    cmp = json.loads(_semcer("compare", str(refs), str(clean), str(noisy), *common, "--json").stdout)
    report = tmp_path / "compare.html"
    _semcer("report", str(refs), str(clean), str(noisy), *common, "--html", str(report))
    page, events = _open(browser, report)
    page.screenshot(path=str(tmp_path / "compare.png"))
    assert (tmp_path / "compare.png").read_bytes().startswith(b"\x89PNG")

    for k, name in enumerate(("clean", "noisy")):
        for metric in ("cer", "semcer"):
            for agg in ("corpus", "document_mean"):
                r = cmp["systems"][name][metric][agg]
                value, shown = _cell(page, f"cmp.{metric}.{agg}.value", k)
                assert float(value) == r["value"] and shown == f"{100 * r['value']:.2f} %"
                if k:
                    assert float(_cell(page, f"cmp.{metric}.{agg}.difference", k)[0]) == r["difference"]
                    lo, hi = (float(x) for x in _cell(page, f"cmp.{metric}.{agg}.interval", k)[0].split(","))
                    assert [lo, hi] == r["interval"]
                    assert float(_cell(page, f"cmp.{metric}.{agg}.p_value", k)[0]) == r["p_value"]
    assert page.locator("#signature").inner_text() == cmp["signature"]

    # spans of both systems, most damaging first, and a system filter
    assert _column(page, 3) == sorted(_column(page, 3), reverse=True)
    assert set(page.eval_on_selector_all("#ranked-body tr", "rs => rs.map(r => r.dataset.sys)")) == {"0", "1"}
    page.select_option("#f-sys", "0")
    assert set(page.eval_on_selector_all("#ranked-body tr:not([hidden])", "rs => rs.map(r => r.dataset.sys)")) == {"0"}
    page.select_option("#f-sys", "")

    # where the systems differ most: a link to the line, both systems side by side
    differ = page.locator("#differ-body tr")
    assert differ.count() > 0
    spreads = [float(t) for t in page.eval_on_selector_all("#differ-body tr td:last-child", "c => c.map(x => x.innerText)")]
    assert spreads == sorted(spreads, reverse=True)
    link = differ.first.locator("a.jump")
    target = link.get_attribute("href")
    link.click()
    page.wait_for_function(f"location.hash === '{target}'")
    views = page.locator(f"{target} .sysview")
    assert views.count() == 2
    b0, b1 = views.nth(0).bounding_box(), views.nth(1).bounding_box()
    assert abs(b0["y"] - b1["y"]) < 1 and b1["x"] > b0["x"]  # side by side on a wide page
    _assert_inert(page, events)
    page.close()


def test_invisible_characters_are_shown_escaped_as_in_the_terminal(browser, tmp_path):
    """Two ids that look the same must not read the same: a zero width space, a byte-order mark, a tag
    character, the Arabic letter mark and a word joiner are written out (the script's test is built
    from semcer.reports.text.UNSAFE_RANGES, as the terminal's)."""
    line_id = "id\u200b\ufeff\U000e0041\u061c\u2060x"
    shown = "id\\u200b\\ufeff\\U000e0041\\u061c\\u2060x"  # by hand
    for name, text in (("r", "Total 12 items"), ("h", "Total 13 items")):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps({"id": line_id, "doc": "d", "lang": "en", "text": text})
                                                + "\n", encoding="utf-8")
    report = tmp_path / "report.html"
    _semcer("report", str(tmp_path / "r.jsonl"), str(tmp_path / "h.jsonl"), "--html", str(report))
    page, events = _open(browser, report)
    assert page.locator("span.lid.text").first.text_content() == shown
    assert events["errors"] == [] and not [c for c in events["console"] if c.startswith("error")]
    from semcer.reports.text import safe

    assert safe(line_id) == shown
