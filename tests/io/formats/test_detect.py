"""detect_xml_format: PAGE, ALTO and hOCR told from their first bytes by root element and namespace."""

from __future__ import annotations

from pathlib import Path

import pytest

from semcer.io.formats import detect_xml_format

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"


@pytest.mark.parametrize(("name", "expected"), [
    ("p2019.gt.xml", "page-xml"), ("p2013.gt.xml", "page-xml"), ("alto.gt.xml", "alto"), ("alto.ocr.xml", "alto"),
    ("mixed.ocr.xml", "alto"),
])
def test_fixture_files(name, expected):
    assert detect_xml_format((PAGES / name).read_bytes()) == expected


@pytest.mark.parametrize(("head", "expected"), [
    # PAGE: by root name or by namespace (prefixed root too)
    ('<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2013-07-15">', "page-xml"),
    ('<pc:PcGts xmlns:pc="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">', "page-xml"),
    ('<pc:Other xmlns:pc="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">', "page-xml"),
    ("<PcGts>", "page-xml"),
    # ALTO v2-v4 and unnamespaced
    ('<alto xmlns="http://www.loc.gov/standards/alto/ns-v2#">', "alto"),
    ('<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#" xmlns:xlink="http://www.w3.org/1999/xlink">', "alto"),
    ("<a:alto xmlns:a='http://www.loc.gov/standards/alto/ns-v4#'>", "alto"),
    ("<alto>", "alto"),
    # hOCR: html plus an ocr_page class or the ocr-system meta
    ("<html><head><meta name='ocr-system' content='tesseract 5.3.0' /></head>", "hocr"),
    ('<html><body><div class="ocr_page" id="page_1">', "hocr"),
    ("<!DOCTYPE html>\n<html><body><div class='x ocr_page y'>", "hocr"),
    ('<!DOCTYPE html><div class="ocr_page">', "hocr"),
    # not these formats
    ("<html><body><p>plain</p></body></html>", None),
    ('<div class="ocr_page">', None),  # hOCR classes outside an html document
    ('<mets:mets xmlns:mets="http://www.loc.gov/METS/">', None),
    ("<TEI xmlns='http://www.tei-c.org/ns/1.0'>", None),
    ('{"id": "1", "text": "x"}', None),
    ("plain text <PcGts>", None),
    ("", None),
])
def test_heads(head, expected):
    assert detect_xml_format(head.encode()) == expected


def test_prolog_bom_and_comments_are_skipped():
    head = ('\ufeff<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n<?xml-stylesheet href="x"?>\n'
            '<!DOCTYPE alto [ <!ELEMENT alto ANY> ]>\n<alto>')
    assert detect_xml_format(head.encode()) == "alto"


def test_utf16_with_bom():
    assert detect_xml_format('<?xml version="1.0" encoding="UTF-16"?><PcGts>'.encode("utf-16")) == "page-xml"


def test_a_root_tag_cut_by_the_end_of_the_first_bytes():
    full = b'<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
    assert detect_xml_format(full[:20]) == "alto"  # the name alone decides
    ns_only = b'<x:root xmlns:x="http://www.loc.gov/standards/alto/ns-v4#" other="'
    assert detect_xml_format(ns_only) == "alto"
