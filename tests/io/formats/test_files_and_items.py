"""Pairing page files by name (unmatched and ignored files reported), reading pairs with keep_going, and
pages turned into items (per page or per line) with provenance back to elements."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import write

import semcer
from semcer.errors import InputError
from semcer.io.collections import Item
from semcer.io.formats import (
    element_at,
    elements_in,
    page_items,
    page_key,
    page_reader,
    pair_files,
    paired_items,
    parse_page,
    read_page,
    read_pairs,
)

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"


def page_xml(*lines: tuple[str, str]) -> str:
    body = "".join(f'<TextLine id="{i}"><Coords points="0,0 1,1"/><TextEquiv><Unicode>{t}</Unicode></TextEquiv></TextLine>'
                   for i, t in lines)
    return (f'<PcGts xmlns="{NS}"><Page imageFilename="a.png" imageWidth="1" imageHeight="1"><TextRegion id="r">'
            f'<Coords points="0,0 1,1"/>{body}</TextRegion></Page></PcGts>')


@pytest.mark.parametrize(("name", "key"), [
    ("name.gt.xml", "name"), ("name.ocr.xml", "name"), ("name.xml", "name"), ("name.gt.txt", "name"),
    ("doc.gt.page.xml", "doc"), ("doc.ocr.alto.xml", "doc"), ("p1.hocr", "p1"), ("p1.hocr.html", "p1"),
    ("P1.GT.XML", "P1"), ("book/p001.pred.txt", "book/p001"), ("a.b.c.xml", "a.b.c"), ("gt.xml", "gt"),
    ("x.tif", "x.tif"),
])
def test_page_key(name, key):
    assert page_key(name) == key


def test_pairing_two_directories_reports_unmatched_and_ignored_files(tmp_path):
    gt, ocr = tmp_path / "gt", tmp_path / "ocr"
    for rel in ("a.gt.xml", "b.gt.xml", "sub/c.gt.xml", "only_gt.gt.xml", "scan.png", ".hidden.gt.xml"):
        write(gt / rel, "<x/>")
    for rel in ("a.ocr.xml", "b.hocr", "sub/c.ocr.xml", "only_ocr.xml", "notes.json"):
        write(ocr / rel, "<x/>")
    p = pair_files(gt, ocr)
    assert [(x.key, Path(x.ref).name, Path(x.hyp).name) for x in p.pairs] == [
        ("a", "a.gt.xml", "a.ocr.xml"), ("b", "b.gt.xml", "b.hocr"), ("sub/c", "c.gt.xml", "c.ocr.xml")]
    assert [Path(f).name for f in p.only_refs] == ["only_gt.gt.xml"]
    assert [Path(f).name for f in p.only_hyps] == ["only_ocr.xml"]
    assert [Path(f).name for f in p.ignored_refs] == ["scan.png"]
    assert [Path(f).name for f in p.ignored_hyps] == ["notes.json"]


def test_pairing_lists_of_files_by_base_name(tmp_path):
    files = [write(tmp_path / n, "<x/>") for n in ("x.gt.xml", "y.gt.xml", "x.ocr.xml")]
    p = pair_files([files[0], files[1]], [files[2]])
    assert [x.key for x in p.pairs] == ["x"] and [Path(f).name for f in p.only_refs] == ["y.gt.xml"]
    assert p.only_hyps == ()


def test_two_files_of_one_side_with_the_same_key_are_an_error(tmp_path):
    write(tmp_path / "gt" / "a.xml", "<x/>")
    write(tmp_path / "gt" / "a.hocr", "<x/>")
    write(tmp_path / "ocr" / "a.xml", "<x/>")
    with pytest.raises(InputError, match=r"same page name 'a' as .*a\.hocr among the reference files"):
        pair_files(tmp_path / "gt", tmp_path / "ocr")


def test_missing_inputs(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        pair_files(tmp_path / "nope", tmp_path)
    with pytest.raises(InputError, match="no such file"):
        pair_files([tmp_path / "nope.xml"], tmp_path)


def test_read_pairs_stops_at_a_malformed_file_or_keeps_going(tmp_path):
    gt, ocr = tmp_path / "gt", tmp_path / "ocr"
    gt.mkdir()
    ocr.mkdir()
    shutil.copy(PAGES / "p2013.gt.xml", gt / "good.gt.xml")
    shutil.copy(PAGES / "p2013.ocr.xml", ocr / "good.ocr.xml")
    write(gt / "bad.gt.xml", f'<PcGts xmlns="{NS}">\n<Page>\n</PcGts>')
    write(ocr / "bad.ocr.xml", "<alto></alto>")
    pairing = pair_files(gt, ocr)
    with pytest.raises(InputError, match=r"bad\.gt\.xml:3:3: not well-formed XML \(mismatched tag\)"):
        read_pairs(pairing)
    result = read_pairs(pairing, keep_going=True)
    assert [p.key for p in result.pairs] == ["good"]
    # one failure: the reference of the pair; its output was read too, and it is fine
    assert [(Path(f).name, m.startswith(f"{f}:3:3: not well-formed XML")) for f, m in result.failures] == [
        ("bad.gt.xml", True)]


def test_page_items_per_page_and_per_segment():
    page = read_page(PAGES / "p2019.gt.xml", level="line")
    (one,) = page_items(page, id="p2019")
    assert isinstance(one, Item) and one == Item("p2019", page.text, None, None, str(PAGES / "p2019.gt.xml"))
    lines = page_items(page, id="p2019", granularity="segment")
    assert lines[0] == Item("p2019#l1", "Die Finſterniſſe des", "p2019", None, f"{PAGES / 'p2019.gt.xml'}:l1")
    # lines without text are items too (l6 and l8 are empty), in reading order, then the empty ones
    assert [it.id.split("#")[1] for it in lines] == ["l1", "l2", "l3", "l4", "l9", "l10", "l5", "l7", "l6", "l8"]
    assert [it.text for it in lines][-2:] == ["", ""]


def test_paired_items_match_lines_by_id_and_fall_back_to_the_page():
    gt = parse_page(page_xml(("l1", "one"), ("l2", ""), ("l3", "three"), ("l4", "")).encode(), "a.gt.xml", level="line")
    ocr = parse_page(page_xml(("l3", "thr33"), ("l2", "two"), ("l1", "one"), ("l4", "")).encode(), "a.ocr.xml",
                     level="line")
    items = paired_items(gt, ocr, id="a")
    assert items.granularity == "segment" and items.reason == ""
    # l4 is empty on both sides: left out; l2 is empty in the reference only: kept
    assert [(r.id, r.text, h.text) for r, h in zip(items.refs, items.hyps)] == [
        ("a#l1", "one", "one"), ("a#l3", "three", "thr33"), ("a#l2", "", "two")]
    assert {r.doc for r in items.refs} == {"a"}
    assert items.hyps[0].source == "a.ocr.xml:l1"

    other = parse_page(page_xml(("l1", "one"), ("x9", "three")).encode(), "a.ocr.xml", level="line")
    fallback = paired_items(gt, other, id="a", doc="book")
    assert fallback.granularity == "page"
    assert fallback.reason.startswith("segment ids differ (3 only in the reference, 1 only in the output; first: 'l3'")
    assert [(r.id, r.text, r.doc) for r in fallback.refs] == [("a", "one\nthree", "book")]
    with pytest.raises(InputError, match="cannot match lines by id"):
        paired_items(gt, other, id="a", granularity="segment")


def test_the_evaluation_of_line_items_equals_the_hand_count():
    gt = parse_page(page_xml(("l1", "one"), ("l3", "three")).encode(), "a.gt.xml", level="line")
    ocr = parse_page(page_xml(("l3", "thr33"), ("l1", "one")).encode(), "a.ocr.xml", level="line")
    items = paired_items(gt, ocr, id="a")
    ev = semcer.evaluate({r.id: r.text for r in items.refs}, {h.id: h.text for h in items.hyps})
    assert (ev.corpus.edits, ev.corpus.units) == (2, 8)  # thr33: 2 substitutions over "one" + "three"
    whole = semcer.evaluate([gt.text], [ocr.text]).corpus  # page order differs: many more edits
    assert whole.edits > 2


def test_an_edit_traced_back_to_its_element():
    gt = read_page(PAGES / "p2019.gt.xml", level="line")
    ocr = read_page(PAGES / "p2019.ocr.xml", level="line")
    al = semcer.align(gt.text, ocr.text)  # (with policy="dinglehopper" the OCR's "==" -> "–" spans two
    assert al.offsets                       # clusters, so that page has no offsets: the documented fallback)
    subs = [e for e in al.edits if e.op == "S" and e.ref_unit == "d" and e.hyp_unit == "b"]
    assert subs, "des -> bes is one of the edits"
    ref_el = element_at(gt, subs[0].ref_span[0])
    hyp_el = element_at(ocr, subs[0].hyp_span[0])
    assert (ref_el.id, ref_el.parent, hyp_el.id) == ("l1", "r1", "l1")
    for e in al.edits:  # every edit of the reference falls in a line or on a separator between two
        found = elements_in(gt, *e.ref_span)
        assert all(s.start <= e.ref_span[0] <= s.end for s in found)


def test_page_reader_for_the_collection_registry():
    data = (PAGES / "p2019.gt.xml").read_bytes()
    (page_item,) = page_reader()(data, "some/dir/p2019.gt.xml")
    assert page_item.id == "p2019" and page_item.text == read_page(PAGES / "p2019.gt.xml").text
    line_items = page_reader(level="line", granularity="segment")(data, "p2019.gt.xml")
    assert [it.id for it in line_items][:3] == ["l1", "l2", "l3"] and {it.doc for it in line_items} == {"p2019"}


def test_plain_text_pages_line_by_line_and_in_the_dinglehopper_dialect():
    data = b"  first line \n\nthird\r\n"
    page = parse_page(data, "p.gt.txt")
    assert (page.format, page.level, page.text) == ("text", "line", "  first line \nthird")
    assert [(s.id, s.start) for s in page.segments] == [("1", 0), ("3", 14)]
    assert [(s.id, s.reason) for s in page.skipped] == [("2", "no text")]
    # dinglehopper strips each line and keeps empty ones
    assert parse_page(data, "p.gt.txt", dialect="dinglehopper").text == "first line\n\nthird"
    with pytest.raises(InputError, match=r"p\.txt:1: invalid UTF-8"):
        parse_page(b"\xff", "p.txt")
