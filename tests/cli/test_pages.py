"""`semcer cer/score` on page files: PAGE-XML, ALTO and hOCR in, dinglehopper's page CER reproduced
with --policy dinglehopper, a reference in one format against an output in another, directories of
pages paired by name, malformed files with --keep-going."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
RECORDED = json.loads((PAGES / "dinglehopper_cer.json").read_text(encoding="utf-8"))


def semcer(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True)


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: c["id"])
def test_policy_dinglehopper_reproduces_dinglehopper_exactly(case):
    p = semcer("cer", str(PAGES / case["gt"]), str(PAGES / case["ocr"]), "--policy", "dinglehopper",
               "--level", case["level"], "--json")
    assert p.returncode == 0, p.stderr
    corpus = json.loads(p.stdout)["corpus"]
    assert corpus["cer"] == case["cer"]  # dinglehopper 0.11.0's number, to the last bit
    assert corpus["edits"] == case["distance"] and corpus["units"] == case["ref_graphemes"]


def test_a_directory_of_pages_pairs_by_name_and_keeps_going(tmp_path):
    gt, ocr = tmp_path / "gt", tmp_path / "ocr"
    gt.mkdir()
    ocr.mkdir()
    for name in ("p2019", "alto"):
        shutil.copy(PAGES / f"{name}.gt.xml", gt / f"{name}.gt.xml")
        shutil.copy(PAGES / f"{name}.ocr.xml", ocr / f"{name}.ocr.xml")
    (gt / "broken.gt.xml").write_text("<PcGts><Page>\n<TextRegion></Page>")
    (ocr / "broken.ocr.xml").write_text("<PcGts/>")
    fails = semcer("cer", str(gt), str(ocr), "--json")
    assert fails.returncode == 2 and "broken.gt.xml:2:" in fails.stderr and len(fails.stderr.strip().splitlines()) == 1
    going = semcer("cer", str(gt), str(ocr), "--json", "--keep-going", "--unmatched", "drop")
    assert going.returncode == 0, going.stderr
    assert "skipped" in going.stderr and "broken.gt.xml" in going.stderr
    out = json.loads(going.stdout)
    assert out["corpus"]["lines"] == 2 and out["corpus"]["documents"] == 2


def test_by_line_pairs_lines_by_element_id():
    p = semcer("cer", str(PAGES / "p2013.gt.xml"), str(PAGES / "p2013.ocr.xml"), "--by-line", "--level", "line", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["corpus"]["lines"] == 3 and out["corpus"]["documents"] == 1  # lines of one page: one document
    # a line missing on one side is an unmatched id, handled like any other
    missing = semcer("cer", str(PAGES / "alto.gt.xml"), str(PAGES / "alto.ocr.xml"), "--by-line", "--level", "line")
    assert missing.returncode == 2 and "alto#L3" in missing.stderr
    empty = semcer("cer", str(PAGES / "alto.gt.xml"), str(PAGES / "alto.ocr.xml"), "--by-line", "--level", "line",
                   "--unmatched", "empty", "--empty-ref", "skip", "--json")
    assert empty.returncode == 0 and json.loads(empty.stdout)["unmatched"]["empty_hyps"] == 1


def test_page_xml_reference_against_an_alto_output():
    p = semcer("cer", str(PAGES / "mixed.gt.xml"), str(PAGES / "mixed.ocr.xml"), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["corpus"]["cer"] == 0.0125  # 1 edit in 80 graphemes, counted by hand


COLUMN_A = ["Die Sitzung beginnt um neun Uhr.", "Der Vorsitzende begrüßt die Gäste.", "Das Protokoll wird verlesen."]
COLUMN_B = ["Punkt zwei: der Haushalt.", "Die Kasse ist geprüft worden.", "Der Antrag wird angenommen."]


def _page(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_swapped_columns_cost_nothing_on_the_page_score_and_much_on_cer(tmp_path):
    ref = tmp_path / "refs"
    hyp = tmp_path / "hyps"
    ref.mkdir()
    hyp.mkdir()
    _page(ref, "p1.txt", COLUMN_A + COLUMN_B)
    _page(hyp, "p1.txt", COLUMN_B + COLUMN_A)  # the two columns read in the other order
    p = semcer("cer", str(ref), str(hyp), "--page-score", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["corpus"]["cer"] > 0.4
    assert out["line_assignment"]["rate"] == 0.0 and out["line_assignment"]["pages"] == 1
    # its own signature: the CER's unit and policy, an empty page charged its output, the corpus sum only
    cer_fields = out["signature"].split("|")
    assert out["line_assignment"]["signature"].split("|") == [
        *cer_fields[:2], "empty:insertions", "agg:corpus", "score:line-assignment", *cer_fields[4:]]
    text = semcer("cer", str(ref), str(hyp), "--page-score").stdout
    assert f"page-score signature: {out['line_assignment']['signature']}" in text
    # a real recognition error is still charged by the page score
    _page(hyp, "p1.txt", COLUMN_B + [COLUMN_A[0].replace("neun", "nenn")] + COLUMN_A[1:])
    out = json.loads(semcer("cer", str(ref), str(hyp), "--page-score", "--json").stdout)
    units = sum(len(x) for x in COLUMN_A + COLUMN_B)
    assert out["line_assignment"]["edits"] == 1 and out["line_assignment"]["rate"] == pytest.approx(1 / units)


def test_wer_beside_cer_equals_jiwer_on_whitespace_words(tmp_path):
    jiwer = pytest.importorskip("jiwer")
    refs = ["the cat sat on the mat", "a b c d"]
    hyps = ["the cat sit on mat", "a x c d e"]
    r, h = _page(tmp_path, "r.txt", refs), _page(tmp_path, "h.txt", hyps)
    p = semcer("cer", r, h, "--wer", "--tokenizer", "whitespace", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)["wer"]
    assert out["corpus"]["wer"] == pytest.approx(jiwer.wer(refs, hyps))
    assert "tokenizer:whitespace" in out["signature"]
    text = semcer("cer", r, h, "--wer").stdout
    assert "WER" in text and "bag-of-words error" in text


def test_the_bundled_page_example_ranks_the_changed_amounts_and_dates_first():
    ex = Path(__file__).resolve().parents[2] / "examples" / "pages"
    p = semcer("score", str(ex / "invoice.gt.xml"), str(ex / "invoice.hocr"), "--lang", "en", "--top", "3")
    assert p.returncode == 0, p.stderr
    top = [line for line in p.stdout.splitlines() if line.lstrip().startswith(("1.", "2.", "3."))]
    # each of the three is a digit edit, or a span of edits that turns digits into other digits
    # ('1,' -> '3': the invoice number 4471, -> 4473)
    number = re.compile(r"'[^']*\d[^']*' → '[^']*\d[^']*'")
    assert len(top) == 3 and all(("[digit]" in line or number.search(line)) and "(en)" in line for line in top)
    assert "pages" in p.stdout.splitlines()[2]  # a page is called a page
