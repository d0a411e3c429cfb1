"""Two single files paired (semcer.io.pairing.pair_collections), from a user audit:

- one plain-text ground truth against one Tesseract hOCR or ALTO page (dinglehopper's usual setup)
  was refused, the text read line by line and the page as one item: it is now the page's text, by
  the rule of a folder's ``.txt`` page (``gt/page.gt.txt`` against ``ocr/page.hocr``), with the same
  CER as the folder pairing gives; a ``.txt`` against a ``.txt`` or a JSONL stays line-aligned;
- ``--by-line`` on Tesseract's ALTO against its hOCR of the same page paired nothing (``block_0``
  against ``par_1_1``), and under ``--unmatched empty`` scored every line against nothing: refused,
  naming both sides' ids;
- an empty output file under ``--unmatched empty`` was "no items", while an output of one unrelated
  id scored 100 %: it now scores every reference against an empty output (an empty reference file
  stays an error);
- a CSV with ids numbered from 0 against a text file (ids are line numbers, from 1) was told to pass
  ``--unmatched drop``, which paired each line with the row after it: no longer offered.

Tesseract (Debian's tesseract-ocr, tesseract-ocr-eng) reads an image drawn here with Pillow and the
DejaVu font, as in tests/io/formats/test_tesseract_structure.py; those tests are skipped without it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BLOCKS, jsonl, needs_tesseract, tesseract_page, write

import semcer
from semcer.errors import InputError
from semcer.io.collections import PageOptions, read_collection
from semcer.io.pairing import pair_collections

GT = "\n".join(line for block in BLOCKS for line in block) + "\n"  # what was drawn, one line per printed line


@pytest.fixture(scope="module")
def tess(tmp_path_factory) -> Path:
    """A folder with page.png, Tesseract's page.hocr and page.xml (ALTO) of it, and page.gt.txt."""
    tmp = tesseract_page(tmp_path_factory.mktemp("single_files"))
    write(tmp / "page.gt.txt", GT)
    return tmp


def _folders(tmp: Path, page: str) -> tuple[Path, Path]:
    """The folder pairing of the same files: gt/page.gt.txt and ocr/<page>."""
    gt, ocr = tmp / "gt", tmp / f"ocr-{page}"
    gt.mkdir(exist_ok=True)
    ocr.mkdir(exist_ok=True)
    shutil.copy(tmp / "page.gt.txt", gt / "page.gt.txt")
    shutil.copy(tmp / page, ocr / page)
    return gt, ocr


def _result(refs, hyps) -> tuple:
    ev = semcer.evaluate(pair_collections(read_collection(refs), read_collection(hyps)))
    c = ev.corpus
    return c.cer, c.edits, c.substitutions, c.deletions, c.insertions, c.units, c.lines


# ----------------------------------------------------------------------------------------------
# One plain-text ground truth against one page file


@needs_tesseract
@pytest.mark.parametrize("page", ["page.hocr", "page.xml"])
def test_a_text_file_against_a_tesseract_page_is_that_pages_text(tess, page):
    gt_file, page_file = tess / "page.gt.txt", tess / page
    paired = pair_collections(read_collection(gt_file), read_collection(page_file))
    (pair,) = paired.pairs  # was: refused, the text file's lines '1'..'4' against the page 'page'
    assert (pair.id, pair.ref) == ("page", GT[:-1])  # the file, its final line break removed, as a folder's page
    assert pair.hyp == read_collection(page_file).items[0].text
    gt, ocr = _folders(tess, page)
    single = _result(gt_file, page_file)
    assert single == _result(gt, ocr)  # the folder pairing of the same two files: the same CER, edits, units
    assert single[-2:] == (len(GT) - 1, 1)  # every grapheme of the ground truth (no cluster of two here), one page
    assert single[0] < 0.1  # Tesseract reads this clean 40-pixel text nearly perfectly
    reverse = pair_collections(read_collection(page_file), read_collection(gt_file))  # the page as the reference
    assert [(p.id, p.ref, p.hyp) for p in reverse.pairs] == [("page", pair.hyp, pair.ref)]
    assert _result(page_file, gt_file) == _result(ocr, gt)


@needs_tesseract
def test_the_command_line_scores_the_text_file_against_the_page(tess):
    p = subprocess.run([sys.executable, "-m", "semcer", "cer", "page.gt.txt", "page.hocr", "--json"], cwd=tess,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr  # was 2: "put them in folders"
    gt, ocr = _folders(tess, "page.hocr")
    assert json.loads(p.stdout)["corpus"]["cer"] == _result(gt, ocr)[0]


@needs_tesseract
def test_by_line_a_text_file_cannot_pair_with_elements_and_says_to_score_the_page(tess):
    by_line = PageOptions(granularity="segment")
    with pytest.raises(InputError) as info:
        pair_collections(read_collection(tess / "page.gt.txt"), read_collection(tess / "page.hocr", pages=by_line))
    msg = str(info.value)
    assert "a plain-text file has no element ids to pair with them" in msg and "without --by-line" in msg
    assert "put it in a folder" not in msg  # the old advice: a folder's .txt page does not pair --by-line either


def test_a_text_file_against_a_page_file_follows_the_folder_rule_for_its_lines(tmp_path):
    # CRLF line breaks, a blank line kept, the final break removed, a BOM dropped: as gt/p1.gt.txt is read
    hocr = ("<html><head><meta name='ocr-system' content='tesseract 5.3.0' /></head><body><div class='ocr_page' "
            "id='page_1'><p class='ocr_par' id='par_1_1'><span class='ocr_line' id='line_1_1'><span class='ocrx_word'>"
            "ab</span></span></p></div></body></html>\n")
    page = write(tmp_path / "p1.hocr", hocr)
    gt = write(tmp_path / "p1.gt.txt", b"\xef\xbb\xbfab\r\n\r\ncd\r\n")
    (pair,) = pair_collections(read_collection(gt), read_collection(page)).pairs
    assert (pair.id, pair.ref, pair.hyp, pair.doc) == ("p1", "ab\n\ncd", "ab", "p1")
    write(tmp_path / "gt" / "p1.gt.txt", gt.read_bytes())
    write(tmp_path / "ocr" / "p1.hocr", hocr)
    (folder,) = pair_collections(read_collection(tmp_path / "gt"), read_collection(tmp_path / "ocr")).pairs
    assert folder == pair
    empty = write(tmp_path / "none.txt", b"")  # an empty text file is an empty page text, as in a folder
    (blank,) = pair_collections(read_collection(page), read_collection(empty)).pairs
    assert (blank.id, blank.ref, blank.hyp) == ("p1", "ab", "")


def test_text_against_text_or_jsonl_stays_line_aligned(tmp_path):
    a = write(tmp_path / "a.txt", "ab\ncd\n")
    b = write(tmp_path / "b.txt", "ab\nce\n")
    assert [(p.id, p.ref, p.hyp) for p in pair_collections(read_collection(a), read_collection(b)).pairs] == [
        ("1", "ab", "ab"), ("2", "cd", "ce")]
    j = write(tmp_path / "h.jsonl", jsonl({"id": "2", "text": "cx"}, {"id": "1", "text": "ab"}))
    assert [(p.id, p.ref, p.hyp) for p in pair_collections(read_collection(a), read_collection(j)).pairs] == [
        ("1", "ab", "ab"), ("2", "cd", "cx")]  # by id: the text file's line numbers


# ----------------------------------------------------------------------------------------------
# --by-line across formats


@needs_tesseract
@pytest.mark.parametrize("unmatched", ["error", "drop", "empty"])
def test_by_line_alto_against_hocr_names_both_id_schemes(tess, unmatched):
    by_line = PageOptions(granularity="segment")
    alto, hocr = read_collection(tess / "page.xml", pages=by_line), read_collection(tess / "page.hocr", pages=by_line)
    assert [i.id for i in alto.items] == ["page#block_0", "page#block_1"]  # Tesseract's own ids, one per format
    assert [i.id for i in hocr.items] == ["page#par_1_1", "page#par_1_2"]
    with pytest.raises(InputError) as info:  # under "empty" it scored both ALTO blocks against nothing
        pair_collections(alto, hocr, unmatched=unmatched)
    msg = str(info.value)
    assert (f"page 'page' has no element id on both sides: the reference {tess / 'page.xml'} (ALTO) has 'block_0', "
            f"'block_1', the output {tess / 'page.hocr'} (hOCR) has 'par_1_1', 'par_1_2'.") in msg
    assert "Score the pages whole instead (without --by-line" in msg
    assert "--unmatched drop" not in msg  # it would score nothing


def test_by_line_pages_with_some_ids_in_common_pair_as_before(tmp_path):
    ns = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"

    def page(lines):
        body = "".join(f'<TextRegion id="{i}"><Coords points="0,0 9,0 9,9 0,9"/><TextEquiv><Unicode>{t}</Unicode>'
                       "</TextEquiv></TextRegion>" for i, t in lines)
        return f'<PcGts xmlns="{ns}"><Page imageFilename="a.png" imageWidth="9" imageHeight="9">{body}</Page></PcGts>'

    by_line = PageOptions(granularity="segment")
    gt = read_collection(write(tmp_path / "p.gt.xml", page([("r1", "ab"), ("r2", "cd")])), pages=by_line)
    ocr = read_collection(write(tmp_path / "p.ocr.xml", page([("r1", "ab")])), pages=by_line)
    paired = pair_collections(gt, ocr, unmatched="empty")  # a region the output lacks: scored against nothing
    assert [(p.id, p.ref, p.hyp) for p in paired.pairs] == [("p#r1", "ab", "ab"), ("p#r2", "cd", "")]


# ----------------------------------------------------------------------------------------------
# Empty inputs


REFS = jsonl({"id": "a", "text": "ab"}, {"id": "b", "text": "c"})


@pytest.mark.parametrize(("name", "body"), [("empty.jsonl", ""), ("empty.json", "[]"), ("empty.csv", "id,text\n"),
                                            ("empty.txt", ""), ("empty.tsv", "\ufeff")])
def test_an_empty_output_under_unmatched_empty_scores_every_reference_against_nothing(tmp_path, name, body):
    refs = read_collection(write(tmp_path / "refs.jsonl", REFS))
    hyps = read_collection(write(tmp_path / name, body))
    paired = pair_collections(refs, hyps, unmatched="empty")  # was: "no items (the input is empty)"
    assert [(p.id, p.ref, p.hyp) for p in paired.pairs] == [("a", "ab", ""), ("b", "c", "")]
    assert paired.empty_hyps == ("a", "b")
    c = semcer.evaluate(paired).corpus
    assert (c.cer, c.deletions, c.units) == (1.0, 3, 3)  # all three graphemes deleted
    with pytest.raises(InputError) as info:  # without it: the reader's message, and how to score it
        pair_collections(refs, hyps, unmatched="drop")
    assert str(info.value) == (f"{hyps.empty}. To score every reference against an empty output (a system that "
                               "returned nothing), pass unmatched='empty' (command line: --unmatched empty)")
    assert str(info.value).startswith(f"{tmp_path / name}: no items (")


def test_an_empty_output_folder_under_unmatched_empty(tmp_path):
    write(tmp_path / "gt" / "p1.gt.txt", "ab\n")
    (tmp_path / "ocr").mkdir()
    (pair,) = pair_collections(read_collection(tmp_path / "gt"), read_collection(tmp_path / "ocr"),
                               unmatched="empty").pairs
    assert (pair.id, pair.ref, pair.hyp) == ("p1", "ab", "")


@pytest.mark.parametrize("unmatched", ["error", "drop", "empty"])
def test_an_empty_reference_is_an_error_under_every_policy(tmp_path, unmatched):
    refs = read_collection(write(tmp_path / "refs.jsonl", ""))
    hyps = read_collection(write(tmp_path / "hyps.jsonl", REFS))
    with pytest.raises(InputError) as info:
        pair_collections(refs, hyps, unmatched=unmatched)
    assert str(info.value) == f"{tmp_path / 'refs.jsonl'}: no items (the input is empty)"


def test_the_command_line_scores_an_empty_output_under_unmatched_empty(tmp_path):
    refs, hyps = write(tmp_path / "refs.jsonl", REFS), write(tmp_path / "empty.jsonl", "")
    run = [sys.executable, "-m", "semcer", "cer", str(refs), str(hyps), "--json"]
    p = subprocess.run([*run, "--unmatched", "empty"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr  # was 2
    out = json.loads(p.stdout)
    assert (out["corpus"]["cer"], out["unmatched"]["empty_hyps"]) == (1.0, 2)
    p = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "--unmatched empty" in p.stderr


# ----------------------------------------------------------------------------------------------
# A text file against ids of another kind


def test_a_csv_numbered_from_zero_against_a_text_file_is_not_told_to_drop(tmp_path):
    csv = write(tmp_path / "ok.csv", "id,text\n0,hello\n1,world\n")
    txt = write(tmp_path / "plain.txt", "hello\nworld\n")
    with pytest.raises(InputError) as info:
        pair_collections(read_collection(csv), read_collection(txt))
    msg = str(info.value)
    assert "--unmatched drop" not in msg  # dropping paired 'world' (id 1) with line 1, 'hello': CER 80 %
    assert f"the ids of {csv} are numbered from 0, a text file's lines from 1" in msg
    named = write(tmp_path / "ab.csv", "id,text\na,hello\nb,world\n")
    with pytest.raises(InputError) as info:
        pair_collections(read_collection(named), read_collection(txt))
    assert "--unmatched drop" not in str(info.value)  # it would leave nothing to score
    assert "its ids are its line numbers ('1', '2', ...)" in str(info.value)
    ones = write(tmp_path / "one.csv", "id,text\n2,world\n1,hello\n")  # ids that are line numbers: paired by id
    assert [(p.id, p.ref, p.hyp) for p in pair_collections(read_collection(ones), read_collection(txt)).pairs] == [
        ("2", "world", "world"), ("1", "hello", "hello")]
