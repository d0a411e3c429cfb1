"""What reading left out is in the result: page elements a reader skipped (a region outside the
PAGE ReadingOrder, a region without text) under ``skipped.page_elements``, and the files that could
not be read with --keep-going under ``read_failures``, in the JSON of `semcer cer` and `semcer score`
and in one note line of their text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from semcer.cli import main

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"


def _order(*ids: str) -> str:
    """A ReadingOrder on one line: an ordered group of ``ids``."""
    refs = "".join(f'<RegionRefIndexed index="{i}" regionRef="{r}"/>' for i, r in enumerate(ids))
    return f'<ReadingOrder><OrderedGroup id="ro">{refs}</OrderedGroup></ReadingOrder>'


# Line 4: r3 starts there; it has text but the ReadingOrder lists only r1 and r2.
GT = f"""<?xml version="1.0" encoding="UTF-8"?>
<PcGts xmlns="{NS}"><Page imageFilename="p1.png" imageWidth="100" imageHeight="100">
{_order("r1", "r2")}
<TextRegion id="r3"><TextEquiv><Unicode>Delta</Unicode></TextEquiv></TextRegion>
<TextRegion id="r1"><TextEquiv><Unicode>Alpha beta</Unicode></TextEquiv></TextRegion>
<TextRegion id="r2"><TextEquiv><Unicode>Gamma</Unicode></TextEquiv></TextRegion>
</Page></PcGts>
"""
# Line 6: r9 starts there; it is in the order but has neither text nor lines.
OCR = f"""<?xml version="1.0" encoding="UTF-8"?>
<PcGts xmlns="{NS}"><Page imageFilename="p1.png" imageWidth="100" imageHeight="100">
{_order("r1", "r2", "r9")}
<TextRegion id="r1"><TextEquiv><Unicode>Alpha beta</Unicode></TextEquiv></TextRegion>
<TextRegion id="r2"><TextEquiv><Unicode>Gamma</Unicode></TextEquiv></TextRegion>
<TextRegion id="r9"></TextRegion>
</Page></PcGts>
"""


def _pages(tmp_path: Path) -> tuple[str, str]:
    gt, ocr = tmp_path / "gt", tmp_path / "ocr"
    gt.mkdir()
    ocr.mkdir()
    (gt / "p1.gt.xml").write_text(GT, encoding="utf-8")
    (ocr / "p1.ocr.xml").write_text(OCR, encoding="utf-8")
    return str(gt), str(ocr)


def _expected_elements(gt: str, ocr: str) -> list[dict]:
    return [
        {"side": "references", "page": str(Path(gt) / "p1.gt.xml"), "id": "r3", "kind": "TextRegion",
         "reason": "not in the reading order", "line": 4, "column": 1},
        {"side": "outputs", "page": str(Path(ocr) / "p1.ocr.xml"), "id": "r9", "kind": "TextRegion",
         "reason": "no text", "line": 6, "column": 1},
    ]


def _json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("extra", [("cer",), ("score",), ("score", "--spans", "1", "--lines")],
                         ids=["cer", "score", "score-whole"])
def test_a_region_outside_the_reading_order_is_listed_in_the_json(tmp_path, capsys, extra):
    gt, ocr = _pages(tmp_path)
    out = _json(capsys, extra[0], gt, ocr, "--json", *extra[1:])
    assert out["corpus"]["units"] == 16  # "Alpha beta" + "\n" + "Gamma": r3's "Delta" is not counted
    assert out["skipped"] == {"empty_references": 0, "ids": [], "page_elements": _expected_elements(gt, ocr)}
    assert out["read_failures"] == []


@pytest.mark.parametrize("command", ["cer", "score"])
def test_the_text_output_says_what_was_left_out_in_one_note(tmp_path, capsys, command):
    gt, ocr = _pages(tmp_path)
    assert main([command, gt, ocr, "--top", "0"] if command == "score" else [command, gt, ocr]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if "page element" in line]
    assert notes == [f"note: 2 page element(s) not in the text scored (1 in references, 1 in outputs): "
                     f"r3 in {gt}/p1.gt.xml (not in the reading order), r9 in {ocr}/p1.ocr.xml (no text) "
                     "(--json lists them: skipped.page_elements)"]


def test_the_note_names_the_first_three_elements_only(tmp_path, capsys):
    gt, ocr = _pages(tmp_path)
    regions = "".join(f'<TextRegion id="x{i}"><TextEquiv><Unicode>lost</Unicode></TextEquiv></TextRegion>\n'
                      for i in range(3))
    (Path(gt) / "p1.gt.xml").write_text(GT.replace("</Page>", regions + "</Page>"), encoding="utf-8")
    assert main(["cer", gt, ocr]) == 0
    note = next(line for line in capsys.readouterr().out.splitlines() if "page element" in line)
    assert note.startswith("note: 5 page element(s) not in the text scored (4 in references, 1 in outputs): r3 in ")
    assert ", x0 in " in note and ", x1 in " in note and "x2" not in note and "r9" not in note
    assert ", ... (--json lists them" in note


def test_keep_going_failures_are_in_the_json_of_cer_and_score(tmp_path, capsys):
    hb = tmp_path / "hb"
    hb.mkdir()
    shutil.copy(PAGES / "prov.hocr", hb / "p1.hocr")
    lines = (PAGES / "prov.hocr").read_text(encoding="utf-8").splitlines(keepends=True)
    (hb / "p3.hocr").write_text("".join(lines[:20]), encoding="utf-8")  # cut off inside the first block
    refs = tmp_path / "gt.jsonl"
    refs.write_text('{"id": "p1", "text": "Erste Spalte"}\n{"id": "p3", "text": "lost"}\n', encoding="utf-8")
    for command in ("cer", "score"):
        saved = tmp_path / f"{command}.json"
        assert main([command, str(refs), str(hb), "--keep-going", "--unmatched", "drop", "--json", "-o", str(saved)]) == 0
        [line] = [x for x in capsys.readouterr().err.splitlines() if x.startswith("semcer: skipped")]
        assert line.startswith(f"semcer: skipped {hb / 'p3.hocr'}:") and line.count("p3.hocr") == 1  # named once
        out = json.loads(saved.read_text(encoding="utf-8"))
        [failure] = out["read_failures"]
        assert (failure["side"], failure["path"]) == ("outputs", str(hb / "p3.hocr"))
        assert failure["reason"].startswith(f"{hb / 'p3.hocr'}:") and "not well-formed XML" in failure["reason"]
        assert out["unmatched"] == {"dropped_refs": 1, "dropped_hyps": 0}  # p3 has no output left


def test_a_reference_that_cannot_be_read_is_a_failure_of_the_references(tmp_path, capsys):
    gt, ocr = _pages(tmp_path)
    (Path(gt) / "broken.gt.xml").write_text("<PcGts><Page>\n<TextRegion></Page>", encoding="utf-8")
    out = _json(capsys, "cer", gt, ocr, "--json", "--keep-going")
    assert [(f["side"], f["path"]) for f in out["read_failures"]] == [("references", str(Path(gt) / "broken.gt.xml"))]
    assert main(["cer", gt, ocr, "--keep-going", "-o", str(tmp_path / "r.txt")]) == 0
    text = (tmp_path / "r.txt").read_text(encoding="utf-8")
    assert (f"note: 1 file(s) could not be read and are not scored (1 in references, 0 in outputs): {gt}/broken.gt.xml "
            "(--keep-going; --json lists them: read_failures)") in text


def test_jsonl_inputs_leave_nothing_out(capsys):
    examples = Path(__file__).resolve().parents[2] / "examples"
    out = _json(capsys, "cer", str(examples / "references.jsonl"), str(examples / "tess_noisy.jsonl"), "--json")
    assert out["skipped"]["page_elements"] == [] and out["read_failures"] == []


@pytest.mark.parametrize("lang", [[], ["--lang", "en"]], ids=["no-lang", "lang"])
def test_compare_lists_what_each_systems_inputs_left_out(tmp_path, capsys, lang):
    gt, ocr = _pages(tmp_path)
    other = tmp_path / "ocr2"
    shutil.copytree(ocr, other)
    out = _json(capsys, "compare", gt, ocr, str(other), "--no-judge", "--json", *lang)
    assert set(out["inputs"]) == {ocr, str(other)}
    assert out["inputs"][ocr]["skipped"]["page_elements"] == _expected_elements(gt, ocr)
    assert out["inputs"][str(other)]["skipped"]["page_elements"] == _expected_elements(gt, str(other))
    assert out["inputs"][ocr]["read_failures"] == [] and out["inputs"][ocr]["unmatched"]["dropped_refs"] == 0
    assert sum("2 page element(s) not in the text scored" in note for note in out["notes"]) == 2


def test_the_cer_only_report_says_what_was_left_out(tmp_path, capsys):
    gt, ocr = _pages(tmp_path)
    page = tmp_path / "r.html"
    assert main(["report", gt, ocr, "--no-judge", "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "2 page element(s) not in the text scored (1 in references, 1 in outputs)" in html
