"""The HTML report of page files in a real browser (headless Chromium driven by Playwright): the
ranked list and the line view show the element (region) each error span and each edit falls in, on
the reference and the output side, as text, even when the element id is markup.

The input is tests/fixtures/pages/prov.gt.xml (PAGE) against prov.hocr (Tesseract-shaped hOCR),
with the left region's id replaced by a hostile one; its two edits ("17" -> "11", a "." added at
the end of the region) are both in that region and in the hOCR paragraph par_1_1 (read off the
files by hand).

Skipped only when /usr/bin/chromium is absent (CI installs Debian's chromium).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium "
                                "(apt-get install chromium); CI installs it")
playwright = pytest.importorskip("playwright.sync_api", reason='needs playwright: pip install ".[test]"')

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
HOSTILE = "<img src=x onerror=alert(1)>"


def test_the_report_shows_each_spans_and_edits_elements(tmp_path):
    gt = tmp_path / "prov.gt.xml"
    gt.write_text((PAGES / "prov.gt.xml").read_text(encoding="utf-8").replace(
        '"r_left"', '"&lt;img src=x onerror=alert(1)&gt;"'), encoding="utf-8")
    report = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "semcer", "report", str(gt), str(PAGES / "prov.hocr"), "--html",
                           str(report), "--store", str(tmp_path / "s.sqlite")], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(report.as_uri())
            page.wait_for_selector("html[data-ready='1']", timeout=20_000)
            shown = page.eval_on_selector_all("#ranked-body tr .elem", "es => es.map(e => e.textContent)")
            assert shown == [f"element ref {HOSTILE} \u00b7 out par_1_1"] * 2  # both spans, as text
            titles = page.eval_on_selector_all("#lines-box .col.edit", "cs => cs.map(c => c.title)")
            assert len(titles) == 2
            assert all(t.endswith(f" \u00b7 element ref {HOSTILE} \u00b7 out par_1_1") for t in titles), titles
            assert page.evaluate("document.querySelectorAll('img').length") == 0 and dialogs == []
        finally:
            browser.close()
