"""semcer's page readers + the ``dinglehopper`` policy against dinglehopper 0.11, differentially.

``tests/fixtures/pages/dinglehopper_cer.json`` holds what dinglehopper computed on the hand-written
PAGE-XML (2013, 2019) and ALTO (v2, v3, v4) pairs of that folder, at region and line level
(``tools/make_dinglehopper_page_fixture.py`` made it, with the dinglehopper version in the file): its
extracted and normalised texts, grapheme CER, distance, reference graphemes, words and WER. The pairs
hold what its extraction and substitutions are about: a reading order unlike the document order
(nested ordered/unordered groups, a reference to an image region, a region outside the order),
several TextEquiv (index, conf, unindexed), regions and lines without text, Hebrew and Arabic,
decomposed Vietnamese, ﬁ and ſ, aͤ, ’, —/==, a MUFI private-use ü, an ALTO hyphenated word with
SUBS_CONTENT and one without.

With ``dialect="dinglehopper"`` and ``policy="dinglehopper"`` (graphemes) every case must give
exactly dinglehopper's texts, counts and float. The semcer dialect differs where documented (an
empty line inside a region at line level; ALTO's HYP and empty lines), asserted below. The live test
reruns dinglehopper when its venv is there.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import semcer
from semcer.io.formats import read_page
from semcer.text.policy import get_policy
from semcer.text.words import tokenize

ROOT = Path(__file__).resolve().parents[3]
PAGES = ROOT / "tests" / "fixtures" / "pages"
FIXTURE = json.loads((PAGES / "dinglehopper_cer.json").read_text(encoding="utf-8"))
CASES = {c["id"]: c for c in FIXTURE["cases"]}
DH_PYTHON = ROOT / "bench" / ".venv-dh" / "bin" / "python"
POLICY = get_policy("dinglehopper")


def semcer_pages(case: dict, dialect: str = "dinglehopper"):
    return (read_page(PAGES / case["gt"], level=case["level"], dialect=dialect),
            read_page(PAGES / case["ocr"], level=case["level"], dialect=dialect))


def test_the_fixture_is_dinglehopper_0_11_on_every_pair_and_level():
    assert FIXTURE["dinglehopper"] == "0.11.0"
    assert sorted(CASES) == sorted(f"{p}/{lvl}" for p in ("p2019", "p2013", "alto", "mixed") for lvl in ("region", "line"))


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_same_extracted_text_as_dinglehopper(case_id):
    case = CASES[case_id]
    gt, ocr = semcer_pages(case)
    assert POLICY(gt.text) == case["gt_text"]
    assert POLICY(ocr.text) == case["ocr_text"]


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_same_page_cer_as_dinglehopper(case_id):
    case = CASES[case_id]
    gt, ocr = semcer_pages(case)
    stats = semcer.evaluate([gt.text], [ocr.text], unit="grapheme", policy="dinglehopper").lines[0].stats
    assert (stats.units, stats.edits) == (case["ref_graphemes"], case["distance"])
    assert stats.cer == case["cer"]  # the same float
    assert semcer.cer(gt.text, ocr.text, policy="dinglehopper") == case["cer"]


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_uax29_words_are_dinglehoppers_words(case_id):
    case = CASES[case_id]
    assert tokenize(case["gt_text"], "uax29") == case["gt_words"]
    assert tokenize(case["ocr_text"], "uax29") == case["ocr_words"]


def test_the_cases_are_not_trivial():
    assert all(c["distance"] > 0 for c in CASES.values())
    # the region and line levels of the 2019 page differ in dinglehopper (the empty line l6 of r3)
    assert CASES["p2019/line"]["gt_text"] != CASES["p2019/region"]["gt_text"]
    # the policy matters: without dinglehopper's substitutions the CER is different
    case = CASES["p2019/region"]
    gt, ocr = semcer_pages(case)
    assert semcer.cer(gt.text, ocr.text, policy="nfc") != case["cer"]


def test_where_the_semcer_dialect_differs_and_where_it_does_not():
    # PAGE at region level, and at line level without empty lines: the same text
    for case_id in ("p2019/region", "p2013/region", "p2013/line", "mixed/region", "mixed/line"):
        case = CASES[case_id]
        gt, ocr = semcer_pages(case, dialect="semcer")
        assert (POLICY(gt.text), POLICY(ocr.text)) == (case["gt_text"], case["ocr_text"]), case_id
    # an empty line inside a region: dinglehopper keeps its separator, semcer skips the line
    gt, _ = semcer_pages(CASES["p2019/line"], dialect="semcer")
    assert POLICY(gt.text) == CASES["p2019/line"]["gt_text"].replace("dấu\n\nÇa", "dấu\nÇa")
    # ALTO: semcer keeps the printed hyphen and skips the empty line L3
    gt, ocr = semcer_pages(CASES["alto/line"], dialect="semcer")
    assert POLICY(gt.text) == CASES["alto/line"]["gt_text"].replace("Mondfin\n", "Mondfin-\n").replace("\n\n", "\n")
    assert POLICY(ocr.text) == CASES["alto/line"]["ocr_text"].replace("Mondfin\n", "Mondfin¬\n")


@pytest.mark.skipif(not DH_PYTHON.exists(), reason="dinglehopper's venv bench/.venv-dh is not here (see bench/README.md)")
def test_live_dinglehopper_agrees_with_the_fixture_and_with_semcer():
    out = subprocess.run([str(DH_PYTHON), str(ROOT / "tools" / "make_dinglehopper_page_fixture.py"), "--print"],
                         capture_output=True, text=True, timeout=600, check=True)
    live = json.loads(out.stdout)
    assert live["cases"] == FIXTURE["cases"]
    assert live["words"] == FIXTURE["words"]
    for case in live["cases"]:
        gt, ocr = semcer_pages(case)
        assert semcer.cer(gt.text, ocr.text, policy="dinglehopper") == case["cer"]
