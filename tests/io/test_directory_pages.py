"""Directories of pages (semcer.io.collections): gzip-compressed pages read like single ones,
plain-text pages keyed as page files are (so ground truth in .txt pairs with hOCR or ALTO by
name), and a .txt file read as text even when its first line starts with a tag.

Defects (audit): a directory silently skipped ``p2.xml.gz``; ``gt/p1.txt`` had the id ``p1.txt``
and never paired with ``hocr/p1.hocr`` (key ``p1``); a single ``p1.hocr.gz`` had the id
``p1.hocr.gz``; a ``.txt`` whose first line was ``<think>hmm</think> hello`` was refused as XML.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import jsonl, write
from helpers import read_error as error

from semcer.io import compressed
from semcer.io.collections import PageOptions, detect_format, read_collection
from semcer.io.formats import page_key
from semcer.io.pairing import pair_collections

NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
PAGE = (f'<?xml version="1.0" encoding="UTF-8"?>\n<PcGts xmlns="{NS}"><Page imageFilename="a.png" imageWidth="9" '
        'imageHeight="9"><TextRegion id="r1"><Coords points="0,0 9,0 9,9"/><TextEquiv><Unicode>Hello world'
        '</Unicode></TextEquiv></TextRegion></Page></PcGts>\n')
ALTO = ('<?xml version="1.0" encoding="UTF-8"?>\n<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#"><Layout>'
        '<Page ID="p1"><PrintSpace><TextBlock ID="b1"><TextLine ID="l1"><String CONTENT="Guten"/><SP/>'
        '<String CONTENT="Tag"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>\n')
HOCR = ("<!DOCTYPE html>\n<html><head><meta name='ocr-system' content='tesseract 5.3.0' /></head><body>"
        "<div class='ocr_page' id='page_1'><p class='ocr_par' id='par_1'><span class='ocr_line' id='line_1'>"
        "<span class='ocrx_word'>Hello</span> <span class='ocrx_word'>wor1d</span></span></p></div></body></html>\n")


def gz(path: Path, text: str) -> Path:
    return write(path, gzip.compress(text.encode("utf-8")))


def semcer(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "semcer", *map(str, args)], capture_output=True, text=True)


# ----------------------------------------------------------------------------------------------
# 1. gzip-compressed pages in a directory


def test_gzip_pages_in_a_directory_are_read_and_keyed_without_gz(tmp_path):
    d = tmp_path / "d"
    write(d / "p1.xml", ALTO)
    gz(d / "p2.xml.gz", PAGE)
    gz(d / "p3.hocr.gz", HOCR)
    gz(d / "sub" / "p4.gt.txt.gz", "plain\ntext\n")
    write(d / "notes.json.gz", b"not a page, not read")  # not named like a page: not read, as before
    c = read_collection(d)
    assert [(i.id, i.text, i.doc) for i in c.items] == [
        ("p1", "Guten Tag", None), ("p2", "Hello world", None), ("p3", "Hello wor1d", None),
        ("sub/p4", "plain\ntext", "sub")]
    assert sorted(c.pages) == ["p1", "p2", "p3"]  # a plain-text page has no page (no elements)
    assert c.items[1].source.startswith(str(d / "p2.xml.gz"))
    assert c.items[3].source == f"{d / 'sub' / 'p4.gt.txt.gz'}:1"


def test_gzip_pages_in_a_directory_are_checked_as_single_ones(tmp_path, monkeypatch):
    big = tmp_path / "big"
    write(big / "p1.txt", "fine\n")
    p = gz(big / "p2.xml.gz", PAGE + " " * 5_000)
    monkeypatch.setattr(compressed, "GZIP_LIMIT", 1_000)
    msg = error(big)
    assert msg.startswith(f"{p}: ") and "decompresses to more than" in msg
    fake = write(tmp_path / "fake" / "p1.hocr.gz", HOCR)
    assert error(tmp_path / "fake") == f"{fake}: named .gz but not gzip-compressed; rename it"
    twice = write(tmp_path / "twice" / "p1.xml.gz", gzip.compress(gzip.compress(PAGE.encode())))
    assert error(tmp_path / "twice") == f"{twice}: gzip-compressed twice; decompress it once yourself"


def test_a_file_named_like_a_page_that_cannot_be_read_is_not_skipped_silently(tmp_path):
    d = tmp_path / "d"
    write(d / "p1.xml", ALTO)
    bz = write(d / "p2.xml.bz2", b"BZh91AY&SY")
    msg = error(d)
    assert msg.startswith(f"{bz}: ") and ".bz2" in msg and "gzip" in msg
    c = read_collection(d, pages=PageOptions(keep_going=True))
    assert [i.id for i in c.items] == ["p1"]
    assert [(f, m.startswith(f"{bz}: ")) for f, m in c.failures] == [(str(bz), True)]
    link = tmp_path / "l"
    write(link / "p1.txt", "fine\n")
    os.symlink(tmp_path / "nowhere.xml", link / "p2.xml")
    assert error(link) == (f"{link / 'p2.xml'}: named like a page but cannot be read as one: a broken symbolic link "
                           f"(to {tmp_path / 'nowhere.xml'}, which does not exist); remove it or move it out of the "
                           "directory")


def test_cli_scores_gzip_pages_of_a_directory(tmp_path):
    write(tmp_path / "ref" / "p1.txt", "Guten Tag\n")
    gz(tmp_path / "ref" / "p2.txt.gz", "Hello world\n")
    write(tmp_path / "hyp" / "p1.xml", ALTO)
    gz(tmp_path / "hyp" / "p2.hocr.gz", HOCR)
    p = semcer("cer", tmp_path / "ref", tmp_path / "hyp", "--json")
    assert p.returncode == 0, p.stderr
    corpus = json.loads(p.stdout)["corpus"]
    assert (corpus["edits"], corpus["units"], corpus["documents"]) == (1, 20, 2)  # "wor1d": one substitution


# ----------------------------------------------------------------------------------------------
# 2. Plain-text pages keyed as page files are; .gz removed before keying


@pytest.mark.parametrize(("name", "key"), [
    ("p1.hocr.gz", "p1"), ("p1.gt.txt.GZ", "p1"), ("book/p1.xml.gz", "book/p1"), ("p1.txt", "p1"),
    ("refs.gz", "refs"), ("p1.xml.bz2", "p1.xml.bz2"),
])
def test_page_key_removes_gz_first(name, key):
    assert page_key(name) == key


def test_text_ground_truth_pairs_with_page_files_by_name(tmp_path):
    gt, ocr = tmp_path / "gt", tmp_path / "hocr"
    write(gt / "p1.txt", "Hello world\n")
    write(gt / "book" / "p2.gt.txt", "Guten Tag\n")
    write(ocr / "p1.hocr", HOCR)
    write(ocr / "book" / "p2.ocr.xml", ALTO)
    refs, hyps = read_collection(gt), read_collection(ocr)
    assert [(i.id, i.doc) for i in refs.items] == [("book/p2", "book"), ("p1", None)]
    paired = pair_collections(refs, hyps)
    assert [(p.id, p.ref, p.hyp, p.doc) for p in paired.pairs] == [
        ("book/p2", "Guten Tag", "Guten Tag", "book"), ("p1", "Hello world", "Hello wor1d", "p1")]
    assert paired.provenance is not None
    assert dict(paired.provenance.refs) == {}  # a plain-text page names no elements
    assert sorted(paired.provenance.hyps) == ["book/p2", "p1"]
    p = semcer("cer", gt, ocr, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["corpus"]["edits"] == 1


def test_a_single_gzip_page_pairs_with_a_jsonl_reference(tmp_path):
    page = gz(tmp_path / "p1.hocr.gz", HOCR)
    c = read_collection(page)
    assert [i.id for i in c.items] == ["p1"] and list(c.pages) == ["p1"] and c.format == "hocr"
    refs = read_collection(write(tmp_path / "gt.jsonl", jsonl({"id": "p1", "text": "Hello world"})))
    assert [(p.id, p.hyp) for p in pair_collections(refs, c).pairs] == [("p1", "Hello wor1d")]


@pytest.mark.parametrize(("first", "second", "body"), [
    ("p1.gt.txt", "p1.txt", "x\n"),
    ("p1.xml", "p1.xml.gz", ALTO),
    ("sub/a.gt.xml", "sub/a.ocr.xml", PAGE),
])
@pytest.mark.parametrize("keep_going", [False, True])
def test_two_files_of_a_directory_with_one_key_are_refused_naming_both(tmp_path, first, second, body, keep_going):
    d = tmp_path / "d"
    for rel in (first, second):
        (gz if rel.endswith(".gz") else write)(d / rel, body)
    msg = error(d, pages=PageOptions(keep_going=keep_going))
    key = "sub/a" if first.startswith("sub/") else "p1"
    assert msg == (f"{d / second}: same page name '{key}' as {d / first} in {d}; rename one of them (the name "
                   "without extension, .gz and .gt/.ocr pairs the pages)")


# ----------------------------------------------------------------------------------------------
# 3. A .txt file is text unless it is a page format


@pytest.mark.parametrize("first", ["<think>hmm</think> hello world", "<unk> world", "<script>alert(1)</script> Gruß",
                                   '<?xml version="1.0"?>', "<!doctype html><p>x</p>"])
def test_a_txt_file_starting_with_a_tag_is_text(tmp_path, first):
    p = write(tmp_path / "vlm.txt", first + "\nsecond line\n")
    assert detect_format(p.read_bytes(), ".txt") == "text"
    c = read_collection(p)
    assert c.format == "text" and [(i.id, i.text) for i in c.items] == [("1", first), ("2", "second line")]
    z = gz(tmp_path / "vlm.txt.gz", first + "\n")
    assert [(i.id, i.text) for i in read_collection(z).items] == [("1", first)]
    d = write(tmp_path / "d" / "p1.txt", first + "\n").parent
    assert [(i.id, i.text) for i in read_collection(d).items] == [("p1", first)]


def test_page_formats_named_txt_are_still_read_as_pages(tmp_path):
    for body, fmt, text in ((HOCR, "hocr", "Hello wor1d"), (ALTO, "alto", "Guten Tag"), (PAGE, "page-xml",
                                                                                            "Hello world")):
        p = write(tmp_path / f"{fmt}.txt", body)
        c = read_collection(p)
        assert (c.format, c.single_page, [i.text for i in c.items]) == (fmt, True, [text])
    d = write(tmp_path / "d" / "p1.txt", HOCR).parent
    c = read_collection(d)
    assert [(i.id, i.text) for i in c.items] == [("p1", "Hello wor1d")] and list(c.pages) == ["p1"]


def test_utf16_markup_named_txt_is_refused_as_utf16(tmp_path):
    p = write(tmp_path / "x.txt", "<think>a</think>\n".encode("utf-16"))
    msg = error(p)  # not the XML message: the file is text, in the wrong encoding
    assert msg.startswith(f"{p}: looks like UTF-16") and msg.endswith("not UTF-8 text; save it as UTF-8")


@pytest.mark.parametrize("suffix", [".xml", ""])
def test_other_xml_names_what_is_not_supported_and_how_to_read_it_as_text(tmp_path, suffix):
    p = write(tmp_path / ("tei" + suffix), '<TEI><text>Hello</text></TEI>\n')
    assert detect_format(p.read_bytes(), suffix) == "xml"
    assert error(p) == (f"{p}: XML that is not PAGE-XML, ALTO or hOCR (xml) is recognised but not supported yet; "
                        "pass --format text (--ref-format text or --hyp-format text for one side) to read the "
                        "markup as plain text, or convert it to JSONL, JSON, TSV, CSV or plain text")
    assert [i.text for i in read_collection(p, format="text").items] == ["<TEI><text>Hello</text></TEI>"]
    forced = error(tmp_path / "tei" if suffix == "" else p, format="xml")
    assert "XML that is not PAGE-XML, ALTO or hOCR" in forced and "'page-xml', 'alto' or 'hocr'" in forced
    html = write(tmp_path / ("page" + suffix), "<!doctype html>\n<html><body><p>Hello</p></body></html>\n")
    assert error(html).startswith(f"{html}: HTML that is not hOCR (html) is recognised but not supported yet; ")
