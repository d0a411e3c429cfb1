"""A whole study in a real browser against a real server: two readers sign in (two browser
contexts of headless Chromium), rate with the keyboard, close and reopen the page mid-study; the
server is SIGKILLed mid-study and restarted; every rating is stored once; then ``study export`` and
``meta-eval`` give the alpha and ICC(2,k) that the ``krippendorff`` package and pingouin compute on
the same ratings.

Skipped only when /usr/bin/chromium is absent (CI installs Debian's chromium).
"""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from servers import Server
from studyhelpers import write_edits

from semcer.cli import main
from semcer.io.ratings import read_pairs
from semcer.study.create import create_study, pair_item, plan
from semcer.study.db import StudyDB
from semcer.study.sources import PairCandidate

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")
playwright = pytest.importorskip("playwright.sync_api", reason='needs playwright: pip install ".[test]"')
REPEATS = 2


PAIRS = [  # two outputs of one reference, markup in the text too
    PairCandidate("p1", "p1", "vi", "Tấm Cám", "Tám Cám", "TẤM CÁM", "x", "y"),
    PairCandidate("p2", "p2", "en", "total 1,250", "total 1,750", "tota1 1,250", "x", "y"),
    PairCandidate("p3", "p3", "en", "<b>bold</b>", "<script>alert(3)</script>", "<b>b0ld</b>", "x", "y"),
]
PAIR_KEYS = {"a": "a", "b": "b", "equal": "e"}


def intended(reader: str, item: str, rep: int) -> str:
    """The key a reader presses for an item: a fixed level (or pair choice) per (reader, item), another
    one for ben's repeats."""
    h = int(hashlib.sha256(f"{item}".encode()).hexdigest(), 16)
    if item.startswith("p"):
        return ("a", "b", "e")[(h + (reader == "ben") + rep) % 3]
    base = h % 5
    if reader == "ben":
        base = (base + (h // 5) % 2) % 5  # ben agrees with ana about half the time, never far
    if rep == 1 and reader == "ben":
        base = (base + 1) % 5
    return str(base)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study-browser")
    edits = write_edits(folder / "edits.jsonl")
    drawn = plan([str(edits)], [], None, None, 5, REPEATS)
    drawn = replace(drawn, items=drawn.items + tuple(pair_item(p, 5) for p in PAIRS), n_pairs=len(PAIRS))
    tokens = create_study(folder / "b.study", drawn, ["ana", "ben"])
    return folder, folder / "b.study", tokens


def _slot(db: StudyDB, reader: str, pos: int):
    return db.slot(reader, pos)


def _rate_some(page, db, reader: str, n: int, events) -> int:
    """Press the intended key on n items (fewer when done); returns how many were answered."""
    done = 0
    for _ in range(n):
        if page.locator("#done").count():
            break
        pos = int(page.input_value("input[name=pos]"))
        slot = _slot(db, reader, pos)
        # the shown text makes no element: markup in OCR text is text
        assert page.locator("#pair script, #pair img, #pair b").count() == 0
        if slot.item in ("p3", "en-4:S26,26"):
            assert "<script>alert(" in page.text_content("#pair")
        with page.expect_navigation():
            page.keyboard.press(intended(reader, slot.item, slot.rep))
        page.wait_for_selector("html[data-ready='1']")
        done += 1
    return done


def _progress(page) -> str:
    return page.text_content("#progress-text") or ""


def test_two_readers_in_a_real_browser(study):
    from playwright.sync_api import sync_playwright

    folder, path, tokens = study
    db = StudyDB(path)
    total = len(db.items()) + REPEATS
    server = Server(path).start()
    problems: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"])
            ctxs, pages = {}, {}
            for reader in ("ana", "ben"):
                ctxs[reader] = browser.new_context()
                page = ctxs[reader].new_page()
                page.on("pageerror", lambda e: problems.append(str(e)))
                # every console error counts (a CSP violation is one), but the 401 of the sign-in page
                page.on("console", lambda m: problems.append(m.text) if m.type == "error" and "status of 401" not in m.text
                        else None)
                page.on("dialog", lambda d: (problems.append("dialog " + d.message), d.dismiss()))
                page.goto(server.url + "/rate")
                assert page.locator("#token").count() == 1  # 401: the sign-in form
                page.fill("#token", tokens[reader])
                with page.expect_navigation():
                    page.press("#token", "Enter")
                assert page.url.endswith("/rubric")
                with page.expect_navigation():
                    page.click("#start")
                page.wait_for_selector("#rate-form")
                page.wait_for_selector("html[data-ready='1']")  # the shortcuts' script has run
                pages[reader] = page
            assert _rate_some(pages["ana"], db, "ana", 5, problems) == 5
            assert _rate_some(pages["ben"], db, "ben", 3, problems) == 3
            # close the page mid-study and open it again: the reader resumes at the next item
            pages["ana"].close()
            pages["ana"] = ctxs["ana"].new_page()
            pages["ana"].goto(server.url + "/")
            assert _progress(pages["ana"]) == f"5 of {total} answered"
            assert len(db.ratings("ana")) == 5
            # back to the previous item: the page shows ana's own answer, and a key revises it explicitly
            with pages["ana"].expect_navigation():
                pages["ana"].click("#back")
            assert pages["ana"].locator("button[aria-pressed='true']").count() == 1
            _rate_some(pages["ana"], db, "ana", 1, problems)
            assert [r.revisions for r in db.ratings("ana")].count(1) == 1 and len(db.ratings("ana")) == 5
            assert _progress(pages["ana"]) == f"5 of {total} answered"
            # the server dies (SIGKILL) mid-study: every answer it accepted is in the file
            server.kill()
            stored = {(r.reader, r.item, r.rep) for r in db.ratings()}
            assert len(stored) == 8
            server.start()
            for reader in ("ana", "ben"):
                pages[reader].goto(server.url + "/rate")  # the session cookie outlives the server
                assert _progress(pages[reader]) == f"{len(db.ratings(reader))} of {total} answered"
                _rate_some(pages[reader], db, reader, total + 1, problems)
                assert pages[reader].locator("#done").count() == 1
            browser.close()
    finally:
        server.stop()
    assert problems == []
    rows = db.ratings()
    keys = [(r.reader, r.item, r.rep) for r in rows]
    assert len(keys) == len(set(keys)) == 2 * total
    assert all(str(r.level) == intended(r.reader, r.item, r.rep) for r in rows if r.level is not None)
    assert all(PAIR_KEYS[r.choice] == intended(r.reader, r.item, r.rep) for r in rows if r.choice is not None)
    assert sum(r.choice is not None for r in rows) >= 2 * len(PAIRS)
    _export_and_meta_eval(folder, path, [r for r in rows if r.level is not None])
    exported = {p.id: p.choices for p in read_pairs(folder / "export" / "pairs.jsonl")}
    assert exported == {p.id: {who: next(r.choice for r in rows if (r.reader, r.item, r.rep) == (who, p.id, 0))
                               for who in ("ana", "ben")} for p in PAIRS}


def _export_and_meta_eval(folder: Path, path: Path, rows) -> None:
    import krippendorff
    import pandas as pd
    import pingouin

    out = folder / "export"
    assert main(["study", "export", str(path), "-o", str(out)]) == 0
    assert main(["meta-eval", "--ratings", str(out / "ratings.jsonl"), "--items", str(out / "items.jsonl"),
                 "--score-column", "severity", "--n-boot", "0", "--json", "-o", str(folder / "meta.json")]) == 0
    got = json.loads((folder / "meta.json").read_text())
    reliability = got["reliability"]
    items = sorted({r.item for r in rows})
    matrix = np.array([[next(r.level for r in rows if r.reader == who and r.item == i and r.rep == 0) / 4
                        for i in items] for who in ("ana", "ben")])
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    long = pd.DataFrame([{"item": i, "rater": who, "y": matrix[k, j]} for k, who in enumerate(("ana", "ben"))
                         for j, i in enumerate(items)])
    with warnings.catch_warnings():  # pingouin's own use of a pandas API pandas deprecates
        warnings.simplefilter("ignore")
        table = pingouin.intraclass_corr(long, targets="item", raters="rater", ratings="y")
    icc = float(table[table["Type"].isin(["ICC2k", "ICC(A,k)"])]["ICC"].iloc[0])  # named so in either pingouin version
    assert math.isclose(reliability["alpha"], alpha, abs_tol=1e-9)
    assert math.isclose(reliability["icc2k"], icc, abs_tol=1e-9)
    assert reliability["items"] == len(items)

