"""`semcer score` on page files: every edit names the element it falls in on each side, in the edit
list (JSONL, CSV, Parquet), the score JSON (spans and line edits) and the report data; the streamed
path writes the same rows as the in-memory one; other inputs get nulls and nothing else changes.

The fixtures' expected ids are read off the files by hand: in prov.gt.xml (PAGE, reading order
r_left then r_right, document order the other way) "17" became "11" in the left column's first
line and the output (Tesseract-shaped hOCR) added a "." at the end of its second line; in
mixed.gt.xml against the ALTO mixed.ocr.xml the only edit is ſ -> f in the third line.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests" / "fixtures" / "pages"
EXAMPLES = ROOT / "examples"
GT, HOCR = str(PAGES / "prov.gt.xml"), str(PAGES / "prov.hocr")

LEFT, RIGHT = [100.0, 100.0, 480.0, 300.0], [500.0, 100.0, 900.0, 300.0]  # r_left / par_1_1, r_right / par_1_2
EXPECTED_REGION = {  # (ref_unit, hyp_unit) -> (ref_element, hyp_element, ref_bbox, hyp_bbox)
    ("7", "1"): ("r_left", "par_1_1", LEFT, LEFT),
    ("", "."): ("r_left", "par_1_1", LEFT, LEFT),  # at the end of the region's text: that region
}
EXPECTED_LINE = {
    ("7", "1"): ("l_l1", "line_1_1", [110.0, 110.0, 470.0, 150.0], [110.0, 110.0, 470.0, 150.0]),
    ("", "."): ("l_l2", "line_1_2", [110.0, 160.0, 470.0, 200.0], [110.0, 160.0, 470.0, 200.0]),
}
NEW = ("ref_element", "hyp_element", "ref_bbox", "hyp_bbox")


def semcer(*args: str) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p


def jsonl_rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def by_units(rows: list[dict]) -> dict:
    return {(r["ref_unit"], r["hyp_unit"]): tuple(r[k] for k in NEW) for r in rows}


@pytest.mark.parametrize(("level", "expected"), [("region", EXPECTED_REGION), ("line", EXPECTED_LINE)])
def test_edit_list_names_the_elements_in_every_format(tmp_path, level, expected):
    store = str(tmp_path / "s.sqlite")
    for ext in ("jsonl", "csv", "parquet"):
        semcer("score", GT, HOCR, "--level", level, "--edits", str(tmp_path / f"e.{ext}"), "--store", store, "--quiet")
    assert by_units(jsonl_rows(tmp_path / "e.jsonl")) == expected
    with open(tmp_path / "e.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {(r["ref_unit"], r["hyp_unit"]): (r["ref_element"], r["hyp_element"], json.loads(r["ref_bbox"]),
                                             json.loads(r["hyp_bbox"])) for r in rows} == expected
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(tmp_path / "e.parquet").to_pylist()
    assert by_units(table) == expected


def test_score_json_spans_and_line_edits_and_the_report_data(tmp_path):
    out = json.loads(semcer("score", GT, HOCR, "--json", "--lines", "--spans", "5", "--store",
                            str(tmp_path / "s.sqlite")).stdout)
    spans = {sp["ref_text"] + "|" + sp["hyp_text"]: (sp["ref_elements"], sp["hyp_elements"]) for sp in out["spans"]}
    assert spans == {"7|1": (["r_left"], ["par_1_1"]), "|.": (["r_left"], ["par_1_1"])}
    edits = {(e["ref_unit"], e["hyp_unit"]): (e["ref_element"], e["hyp_element"]) for e in out["lines"][0]["edits"]}
    assert edits == {k: v[:2] for k, v in EXPECTED_REGION.items()}
    score = tmp_path / "score.json"
    score.write_text(json.dumps(out), encoding="utf-8")
    for source in ([str(score)], [GT, HOCR]):  # from the JSON, and scored afresh
        report = tmp_path / "r.html"
        semcer("report", *source, "--html", str(report), "--store", str(tmp_path / "s.sqlite"), "--quiet")
        data = report_data(report)
        assert sorted((sp["rel"], sp["hel"]) for sp in data["spans"]) == [(["r_left"], ["par_1_1"])] * 2
        edits = [s for s in data["lines"][0]["sys"][0]["segs"] if not isinstance(s, str)]
        assert sorted((s[1], s[2], s[6], s[7]) for s in edits) == [("", ".", "r_left", "par_1_1"),
                                                                   ("7", "1", "r_left", "par_1_1")]


def test_compare_report_names_each_systems_elements(tmp_path):
    report = tmp_path / "r.html"
    semcer("report", GT, HOCR, HOCR, "--html", str(report), "--store", str(tmp_path / "s.sqlite"), "--n-resamples",
           "200", "--names", "a,b", "--quiet")
    data = report_data(report)
    assert sorted((sp["s"], sp["rel"], sp["hel"]) for sp in data["spans"]) == \
        [(0, ["r_left"], ["par_1_1"])] * 2 + [(1, ["r_left"], ["par_1_1"])] * 2
    for view in data["lines"][0]["sys"]:  # the line view of each system, aligned again
        assert sorted((s[6], s[7]) for s in view["segs"] if not isinstance(s, str)) == [("r_left", "par_1_1")] * 2


def report_data(path: Path) -> dict:
    m = re.search(r'<script type="application/json" id="semcer-data">(.*?)</script>', path.read_text(encoding="utf-8"),
                  re.S)
    assert m is not None
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def page_dirs(tmp_path_factory):
    """Three page pairs in two directories: PAGE vs hOCR, PAGE vs ALTO, PAGE vs PAGE."""
    root = tmp_path_factory.mktemp("prov-dirs")
    gt, ocr = root / "gt", root / "ocr"
    gt.mkdir()
    ocr.mkdir()
    shutil.copy(PAGES / "prov.gt.xml", gt / "prov.gt.xml")
    shutil.copy(PAGES / "prov.hocr", ocr / "prov.hocr")
    for name in ("mixed", "p2019"):
        shutil.copy(PAGES / f"{name}.gt.xml", gt / f"{name}.gt.xml")
        shutil.copy(PAGES / f"{name}.ocr.xml", ocr / f"{name}.ocr.xml")
    return gt, ocr


def test_streamed_and_in_memory_edit_lists_are_identical(tmp_path, page_dirs):
    gt, ocr = (str(p) for p in page_dirs)
    store = str(tmp_path / "s.sqlite")
    runs = {
        "memory": ["--spans", "3", "--lines", "--json"],  # each line row's edits: one pass in memory
        "streamed": [],
        "chunks": ["--chunk-lines", "1"],
        "workers": ["--chunk-lines", "1", "--workers", "2"],
    }
    work = ["--chunk-lines", "1", "--work-dir", str(tmp_path / "work")]
    runs["resumed"] = work  # run twice below: the second one takes every chunk from its marker
    files = {}
    for name, extra in [*runs.items(), ("resumed", work)]:
        path = tmp_path / f"{name}.jsonl"
        semcer("score", gt, ocr, "--edits", str(path), "--store", store, "--quiet", *extra)
        files[name] = path.read_bytes()
    assert len(set(files.values())) == 1
    top = semcer("score", gt, ocr, "--store", store, "--top", "30", *work).stdout  # the top list from the markers
    assert "line mixed (und)  element ref m2 · out BLOCK_2" in top
    rows = jsonl_rows(tmp_path / "memory.jsonl")
    mixed = [r for r in rows if r["line_id"] == "mixed"]
    assert [(r["ref_unit"], r["hyp_unit"], r["ref_element"], r["hyp_element"]) for r in mixed] == [
        ("ſ", "f", "m2", "BLOCK_2")]
    assert mixed[0]["hyp_bbox"] == [90.0, 400.0, 910.0, 460.0]  # HPOS 90 VPOS 400 WIDTH 820 HEIGHT 60
    assert by_units([r for r in rows if r["line_id"] == "prov"]) == EXPECTED_REGION
    p2019 = {(r["ref_unit"], r["hyp_unit"]): (r["ref_element"], r["hyp_element"]) for r in rows
             if r["line_id"] == "p2019" and r["op"] == "S"}
    # the reading order r1, r2, r6, r3 of the reference (its document order is r3, r1, r2, r5, r6, r7)
    assert p2019[("1", "i")] == ("r1", "r1") and p2019[("Ç", "C")] == ("r3", "r3")
    assert p2019[("d", "b")] == ("r1", "r1") and p2019[("aͤ", "ä")] == ("r2", "r2")


def test_other_inputs_get_null_elements(tmp_path):
    refs, hyps = str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_noisy.jsonl")
    edits = tmp_path / "e.jsonl"
    out = json.loads(semcer("score", refs, hyps, "--json", "--lines", "--spans", "3", "--edits", str(edits)).stdout)
    rows = jsonl_rows(edits)
    assert len(rows) == out["corpus"]["edits"] and all(r[k] is None for r in rows for k in NEW)
    assert all(sp["ref_elements"] == [] and sp["hyp_elements"] == [] for sp in out["spans"])
    line_edits = [e for line in out["lines"] for e in line.get("edits", [])]
    assert line_edits and all(e["ref_element"] is None and e["hyp_element"] is None for e in line_edits)
    text = semcer("score", refs, hyps, "--top", "3").stdout
    assert "element" not in text
    pages = semcer("score", GT, HOCR, "--top", "2", "--store", str(tmp_path / "s.sqlite")).stdout
    assert "line prov (und)  element ref r_left · out par_1_1" in pages
