"""One detection rule for page files (semcer.io.formats.detect.detect_markup), used by a single
file (semcer.io.collections.detect_format), by a directory's files and by parse_page: the root
element and the namespace it declares, never text further on.

Defects (audit): a valid hOCR whose text mentioned ``loc.gov/standards/alto`` was refused as a
single file ("root element 'html' is not 'alto'") and read in a folder; a ``.txt`` starting
``<unk> see primaresearch.org/PAGE docs`` was refused as "not well-formed XML"; an hOCR with
``ocr_line`` classes and no ``ocr_page``/``ocr-system`` was read as a single file and refused in a
folder ("no hOCR classes").
"""

from __future__ import annotations

import time

import pytest
from helpers import write
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.io.collections import detect_format, read_collection
from semcer.io.formats import detect_xml_format, parse_page
from semcer.io.formats.detect import detect_markup

ALTO_NS = "http://www.loc.gov/standards/alto/ns-v4#"
PAGE_NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"


def hocr(words: str, *, meta: bool = True, page: bool = True) -> str:
    head = "<meta name='ocr-system' content='tesseract 5.3.0' />" if meta else "<title>scan</title>"
    open_page, close_page = ("<div class='ocr_page' id='page_1'>", "</div>") if page else ("", "")
    return (f"<!DOCTYPE html>\n<html><head>{head}</head><body>{open_page}<p class='ocr_par' id='par_1'>"
            f"<span class='ocr_line' id='line_1'><span class='ocrx_word' id='w1'>{words}</span></span></p>"
            f"{close_page}</body></html>\n")


def alto(words: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<alto xmlns="{ALTO_NS}"><Layout><Page ID="p1"><PrintSpace>'
            f'<TextBlock ID="b1"><TextLine ID="l1"><String CONTENT="{words}"/></TextLine></TextBlock></PrintSpace>'
            "</Page></Layout></alto>\n")


def page_xml(words: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<PcGts xmlns="{PAGE_NS}"><Page imageFilename="a.png" '
            'imageWidth="9" imageHeight="9"><TextRegion id="r1"><Coords points="0,0 9,0 9,9"/><TextEquiv><Unicode>'
            f"{words}</Unicode></TextEquiv></TextRegion></Page></PcGts>\n")


MENTIONS = "see loc.gov/standards/alto and primaresearch.org/PAGE"


@pytest.mark.parametrize(("body", "fmt"), [(hocr(MENTIONS), "hocr"), (alto("primaresearch.org/PAGE"), "alto"),
                                           (page_xml(f"{ALTO_NS} Straße"), "page-xml")])
def test_text_mentioning_another_namespace_keeps_its_format(tmp_path, body, fmt):
    words = {"hocr": MENTIONS, "alto": "primaresearch.org/PAGE", "page-xml": f"{ALTO_NS} Straße"}[fmt]
    single = write(tmp_path / f"p1.{'hocr' if fmt == 'hocr' else 'xml'}", body)
    c = read_collection(single)
    assert (c.format, [i.text for i in c.items]) == (fmt, [words])
    folder = read_collection(single.parent)
    assert [(i.id, i.text) for i in folder.items] == [("p1", words)]
    assert folder.pages["p1"].format == fmt


def test_a_txt_starting_with_a_tag_that_mentions_page_is_text(tmp_path):
    p = write(tmp_path / "unk.txt", "<unk> see primaresearch.org/PAGE docs\nline two\n")
    assert detect_format(p.read_bytes(), ".txt") == "text"
    assert [(i.id, i.text) for i in read_collection(p).items] == [
        ("1", "<unk> see primaresearch.org/PAGE docs"), ("2", "line two")]
    assert [(i.id, i.text) for i in read_collection(p.parent).items] == [
        ("unk", "<unk> see primaresearch.org/PAGE docs\nline two")]
    q = write(tmp_path / "unk.xml", p.read_text())
    assert detect_format(q.read_bytes(), ".xml") == "xml"  # other XML, refused as such, not as a broken PAGE


@pytest.mark.parametrize(("meta", "page"), [(False, False), (False, True), (True, False)])
def test_an_hocr_with_only_some_markers_reads_alike_as_a_file_and_in_a_folder(tmp_path, meta, page):
    p = write(tmp_path / "d" / "p1.hocr", hocr("Tiếng Việt", meta=meta, page=page))
    assert detect_xml_format(p.read_bytes()) == "hocr" == detect_format(p.read_bytes(), ".hocr")
    assert [i.text for i in read_collection(p).items] == ["Tiếng Việt"]
    assert [(i.id, i.text) for i in read_collection(p.parent).items] == [("p1", "Tiếng Việt")]
    assert parse_page(p.read_bytes(), str(p)).text == "Tiếng Việt"


@pytest.mark.parametrize(("head", "expected"), [
    # the root and its own namespace decide
    (f'<x:root xmlns:x="{ALTO_NS}">', "alto"),
    (f'<root xmlns:pc="{PAGE_NS}">', "xml"),  # a namespace declared, but not the root's
    (f'<mets:mets xmlns:mets="http://www.loc.gov/METS/"><!-- {ALTO_NS} -->', "xml"),
    ("<ALTO>", "alto"), ("<pcgts>", "page-xml"),  # any case: the reader then names the miscased root
    # hOCR: a tag's class, or the meta, not the words of the text
    ("<html><body><p>ocr_line ocrx_word &lt;span class='ocr_line'&gt;</p></body></html>", "html"),
    ("<html><body><span class=ocr_line>x</span></body></html>", "hocr"),  # unquoted attribute
    ('<html><body><span id="a" class="bold ocrx_word">x</span></body></html>', "hocr"),
    ('<html><body><span class="bold" title="ocr_line">x</span></body></html>', "html"),
    ("<html><head><meta name=\"ocr-capabilities\" content='ocr_line'/></head></html>", "hocr"),
    # not markup, or markup without a root
    ("<3 you", None), ("< 5", None), ("plain <PcGts>", None), ('<?xml version="1.0"?>', "xml"),
    ("<!doctype html>", "html"), ("\ufeff<alto>", "alto"),
])
def test_heads(head, expected):
    assert detect_markup(head) == expected
    assert detect_xml_format(head.encode()) == (expected if expected in ("page-xml", "alto", "hocr") else None)


_ROOTS = [(page_xml, "page-xml"), (alto, "alto"), (hocr, "hocr")]
_PIECES = ["loc.gov/standards/alto", "primaresearch.org/PAGE", ALTO_NS, PAGE_NS, "ocr_page", "PcGts", "alto",
           "Thai ภาษาไทย", "中文", " ", ":", "/", "#", "x"]
_WORDS = st.lists(st.sampled_from(_PIECES), max_size=8).map("".join)


@settings(max_examples=80, deadline=None)
@given(root=st.sampled_from(_ROOTS), words=_WORDS, suffix=st.sampled_from([".xml", ".hocr", ".html", ".txt", ""]))
def test_the_format_follows_the_root_whatever_the_text_and_the_name(root, words, suffix):
    make, fmt = root
    data = make(words.replace("<", "").replace("&", "")).encode()
    assert detect_xml_format(data) == fmt  # a directory's file and parse_page
    assert detect_format(data, suffix) == fmt  # a single file


@settings(max_examples=80, deadline=None)
@given(words=_WORDS)
def test_a_txt_file_starting_with_another_tag_is_text_whatever_it_mentions(words):
    data = f"<unk> {words}\n".encode()
    assert detect_format(data, ".txt") == "text"
    assert detect_xml_format(data) is None


_MIB = 1 << 20


@pytest.mark.parametrize(("head", "expected"), [
    ("<alto " + "a" * _MIB, "alto"),  # one unclosed root tag of a megabyte: was quadratic (hours)
    ("<root " + ' xmlns="' * (_MIB // 8), "xml"),
    ("<html><a " + " class=xocr" * (_MIB // 11), "html"),  # was quadratic too
    ("<html><a " + " class= ocr" * (_MIB // 10), "html"),
    ("<html>" + "<a class=xocr>" * (_MIB // 16) + "<b class=ocr_line>", "hocr"),  # within the first MiB
    ("<html><meta " + " name=ocr" * (_MIB // 9), "html"),
])
def test_a_hostile_head_is_detected_in_linear_time(head, expected):
    start = time.perf_counter()
    assert detect_markup(head) == expected
    assert time.perf_counter() - start < 5  # a megabyte: milliseconds when linear
