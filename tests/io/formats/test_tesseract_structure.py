"""Real Tesseract hOCR and ALTO (Debian's tesseract-ocr and tesseract-ocr-eng; the image drawn here
with Pillow and the DejaVu font) read after the changes a user's tool may make to them: written as
HTML instead of XHTML (it reads the same, and cut anywhere in its body it is refused), without
``ocr_line`` (or ``ocrx_word``, or any class but ``ocr_page``), ALTO without ``TextLine`` or with a
``String`` without ``CONTENT``. What Tesseract recognises may vary with its version, so the expected
values are computed from how the unchanged file reads, by the rule each test states."""

from __future__ import annotations

import re

import pytest
from helpers import needs_tesseract, tesseract_page

from semcer.errors import InputError
from semcer.io.formats import parse_page

pytestmark = needs_tesseract


@pytest.fixture(scope="module")
def tess(tmp_path_factory) -> dict[str, str]:
    tmp = tesseract_page(tmp_path_factory.mktemp("tess_structure"))
    return {"hocr": (tmp / "page.hocr").read_text(encoding="utf-8"), "alto": (tmp / "page.xml").read_text(encoding="utf-8")}


def read(text: str, name: str = "page.hocr", **kw):
    return parse_page(text.encode(), name, **kw)


def shape(page):
    return [(s.id, s.kind, s.text, s.bbox, s.parent) for s in page.segments]


def as_html(xhtml: str) -> str:
    """Tesseract's XHTML written as HTML: no XML declaration, the HTML5 DOCTYPE."""
    head, sep, rest = xhtml.partition("<html")
    assert head.startswith("<?xml") and "XHTML 1.0" in head and sep
    return "<!DOCTYPE html>\n" + sep + rest


def test_the_page_has_two_paragraphs_of_two_lines(tess):
    original = read(tess["hocr"], level="line")
    assert len(original.segments) == 4 and original.skipped == ()
    assert len({s.parent for s in original.segments}) == 2


@pytest.mark.parametrize("level", ["line", "par"])
def test_tesseract_hocr_written_as_html_reads_exactly_as_the_xhtml(tess, level):
    xhtml, html = read(tess["hocr"], level=level), read(as_html(tess["hocr"]), level=level)
    assert shape(html) == shape(xhtml) and html.text == xhtml.text and html.skipped == xhtml.skipped == ()
    assert html.image == xhtml.image and html.image is not None


def test_tesseract_html_cut_anywhere_in_its_body_is_refused(tess):
    html = as_html(tess["hocr"])
    body, end = html.index("<body>") + len("<body>"), html.index("</body>")
    for cut in range(body, end + len("</body")):
        with pytest.raises(InputError) as info:
            read(html[:cut], "cut.hocr")
        msg = str(info.value)
        # a cut inside "&#39;" leaves "&#3", a reference to a character HTML drops: refused as such
        assert msg.startswith("cut.hocr:") and ("the file is cut short" in msg or "character reference" in msg), cut
    assert read(html[: end + len("</body>")]).text == read(html).text


def _replace_classes(hocr: str, classes: str, by: str) -> str:
    out, n = re.subn(rf"class='({classes})'", f"class='{by}'", hocr)
    assert n > 0
    return out


def test_without_line_classes_each_lines_words_are_a_line_of_their_parent(tess):
    original = read(tess["hocr"], level="line")
    page = read(_replace_classes(tess["hocr"], "ocr_line|ocr_header|ocr_caption|ocr_textfloat", "x_line"),
                level="line")
    # the words' parent is now a plain <span>: same id, text, bbox and paragraph, kind "span"
    assert shape(page) == [(i, "span", t, b, p) for i, _, t, b, p in shape(original)] and page.skipped == ()


def test_without_line_and_word_classes_each_paragraph_is_a_line_of_its_words(tess):
    pars = read(tess["hocr"], level="par")
    bare = _replace_classes(_replace_classes(tess["hocr"], "ocr_line|ocr_header|ocr_caption|ocr_textfloat", "x"),
                            "ocrx_word", "x")
    page = read(bare, level="line")
    assert [(s.id, s.kind, s.text, s.bbox) for s in page.segments] == [
        (s.id, "ocr_par", s.text.replace("\n", " "), s.bbox) for s in pars.segments]
    assert read(bare, level="par").text == page.text and page.skipped == ()


def test_with_only_ocr_page_the_page_is_one_line_of_all_its_text(tess):
    original = read(tess["hocr"], level="line")
    bare = _replace_classes(tess["hocr"], "ocr_carea|ocr_par|ocr_line|ocr_header|ocr_caption|ocr_textfloat|ocrx_word",
                            "x")
    page = read(bare, level="line")
    assert [(s.id, s.kind, s.text) for s in page.segments] == [("page_1", "ocr_page", original.text.replace("\n", " "))]


def test_an_html_named_entity_in_tesseract_xhtml_reads_as_in_the_html_form(tess):
    first_word = re.search(r"(<span class='ocrx_word'[^>]*>)", tess["hocr"])
    assert first_word is not None
    changed = tess["hocr"].replace(first_word.group(1), first_word.group(1) + "&Eacute;&ndash;", 1)
    original = read(tess["hocr"], level="line").text
    assert read(changed, level="line").text == "É–" + original
    assert read(as_html(changed), level="line").text == "É–" + original


# ----------------------------------------------------------------------------------------------
# ALTO


def test_alto_without_textline_reads_each_block_as_a_line_of_its_strings(tess):
    blocks = read(tess["alto"], "page.xml", level="block")
    no_lines = re.sub(r"</?TextLine\b[^>]*>", "", tess["alto"])
    page = read(no_lines, "page.xml", level="line")
    assert len(blocks.segments) == 2
    assert [(s.id, s.kind, s.text, s.bbox) for s in page.segments] == [
        (s.id, "TextBlock", s.text.replace("\n", " "), s.bbox) for s in blocks.segments] and page.skipped == ()
    dh = read(no_lines, "page.xml", level="line", dialect="dinglehopper")
    assert dh.text == "" and [(s.id, s.reason) for s in dh.skipped] == [
        (s.id, "has text outside its lines, not read") for s in blocks.segments]


def test_alto_string_without_content_is_listed_and_its_word_is_not_read(tess):
    original = read(tess["alto"], "page.xml", level="line")
    string = re.search(r'<String ID="([^"]+)"[^>]*?( CONTENT="([^"]*)")', tess["alto"])
    assert string is not None
    page = read(tess["alto"].replace(string.group(2), "", 1), "page.xml", level="line")
    first = original.segments[0].text.split(" ", 1)[0]
    assert first == string.group(3)
    assert page.text == original.text.replace(first + " ", "", 1)
    assert [(s.id, s.kind, s.reason, s.parent) for s in page.skipped] == [
        (string.group(1), "String", "has no CONTENT attribute", original.segments[0].id)]
