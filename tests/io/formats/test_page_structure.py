"""hOCR and ALTO pages whose text is not (all) in lines: words or bare text outside ``ocr_line``,
``String`` elements outside ``TextLine``, a ``String`` without ``CONTENT``. What the file holds is
read, and what is not read is listed in ``Page.skipped``; nothing is left out without a word.
Expected texts and positions are written by hand from the markup in each test."""

from __future__ import annotations

import pytest

from semcer.io.formats import parse_page


def hocr(body: str, head: str = "") -> bytes:
    return (f"<!DOCTYPE html>\n<html><head><title>{head}</title><meta name='ocr-system' content='x'></head>\n"
            f"<body>\n{body}\n</body></html>\n").encode()


def read(data: bytes, name: str = "t.hocr", **kw):
    return parse_page(data, name, **kw)


def segs(page):
    return [(s.id, s.kind, s.text, s.parent) for s in page.segments]


def left(page):
    return [(s.id, s.kind, s.reason, s.line, s.parent) for s in page.skipped]


# ----------------------------------------------------------------------------------------------
# hOCR: words outside lines, bare text

WORDS_IN_PAR = hocr("""<div class='ocr_page' id='page_1'>
<div class='ocr_carea' id='block_1' title='bbox 0 0 90 40'>
<p class='ocr_par' id='par_1' title='bbox 1 2 80 30'>
<span class='ocrx_word' id='w1'>Zwölf</span> <span class='ocrx_word' id='w2'>Boxkämpfer</span>
<span class='ocrx_word' id='w3'><strong>jagen</strong></span>
</p>
<p class='ocr_par' id='par_2'><span class='ocrx_word' id='w4'>Tiếng</span><span class='ocrx_word' id='w5'>Việt</span></p>
</div></div>""")


def test_words_directly_in_paragraphs_are_read_one_line_per_paragraph():
    page = read(WORDS_IN_PAR, level="line")
    # the words' parent is the line: its id, class and bbox; its parent the content area around it
    assert segs(page) == [("par_1", "ocr_par", "Zwölf Boxkämpfer jagen", "block_1"),
                          ("par_2", "ocr_par", "Tiếng Việt", "block_1")]
    assert page.segments[0].bbox == (1.0, 2.0, 80.0, 30.0)
    assert (page.segments[0].line, page.segments[0].column) == (6, 1)  # where <p id='par_1'> starts
    assert page.text == "Zwölf Boxkämpfer jagen\nTiếng Việt" and page.skipped == ()


def test_words_directly_in_paragraphs_give_the_same_text_at_paragraph_level():
    page = read(WORDS_IN_PAR, level="par")
    assert segs(page) == [("par_1", "ocr_par", "Zwölf Boxkämpfer jagen", None), ("par_2", "ocr_par", "Tiếng Việt", None)]


def test_bare_text_in_a_paragraph_is_read_as_its_line():
    data = hocr("<div class='ocr_page' id='pg'><div class='ocr_carea' id='b'>"
                "<p class='ocr_par' id='p1'>\n  नमस्ते\n  दुनिया  </p><p class='ocr_par' id='p2'> ภาษาไทย </p></div></div>")
    page = read(data, level="line")
    assert segs(page) == [("p1", "ocr_par", "नमस्ते दुनिया", "b"), ("p2", "ocr_par", "ภาษาไทย", "b")]
    assert read(data, level="par").text == "नमस्ते दुनिया\nภาษาไทย"


def test_a_page_with_only_ocr_page_is_one_line_of_all_its_text():
    data = hocr("<div class='ocr_page' id='page_1' title='bbox 0 0 50 60'><div><p>"
                "<span id='x1'>Façade</span>\n<span id='x2'>naïve</span></p>\n<p><span>12,50 €</span></p></div></div>")
    for level in ("line", "par"):
        page = read(data, level=level)
        assert segs(page) == [("page_1", "ocr_page", "Façade naïve 12,50 €", None)]
        assert page.segments[0].bbox == (0.0, 0.0, 50.0, 60.0) and page.skipped == ()


def test_lines_and_loose_words_of_one_paragraph_are_read_in_document_order():
    data = hocr("<div class='ocr_page'><p class='ocr_par' id='p'>"
                "<span class='ocr_line' id='l1'><span class='ocrx_word'>eins</span></span>\n"
                "<span class='ocrx_word' id='w'>zwei</span> <span class='ocrx_word'>drei</span>\n"
                "</p><p class='ocr_par' id='q'><span class='ocr_line' id='l2'>vier</span></p></div>")
    page = read(data, level="line")
    assert segs(page) == [("l1", "ocr_line", "eins", "p"), ("p", "ocr_par", "zwei drei", None),
                          ("l2", "ocr_line", "vier", "q")]
    assert [(s.id, s.text) for s in read(data, level="par").segments] == [("p", "eins\nzwei drei"), ("q", "vier")]


def test_a_line_made_of_the_first_words_comes_before_a_later_line():
    data = hocr("<div class='ocr_page'><div class='ocr_carea' id='a'><span class='ocrx_word'>erst</span>"
                "<span class='ocr_line' id='l'>dann</span></div></div>")
    assert segs(read(data, level="line")) == [("a", "ocr_carea", "erst", None), ("l", "ocr_line", "dann", "a")]
    assert [(s.id, s.kind, s.text) for s in read(data, level="par").segments] == [("a", "ocr_carea", "erst\ndann")]


def test_text_outside_the_lines_of_an_element_is_listed_not_read():
    data = hocr("<div class='ocr_page' id='pg'>\n<p class='ocr_par' id='p1'>verloren\n"
                "<span class='ocr_line' id='l1'>gelesen</span></p></div>")
    page = read(data, level="line")
    assert page.text == "gelesen"
    assert left(page) == [("p1", "ocr_par", "has text outside its lines, not read", 5, None)]


def test_text_outside_the_words_of_a_line_is_listed_and_the_words_are_read():
    data = hocr("<div class='ocr_page'><p class='ocr_par' id='p1'>\n<span class='ocr_line' id='l1'>zwei"
                "<span class='ocrx_word'>Wort</span></span></p></div>")
    page = read(data, level="line")
    assert page.text == "Wort"
    assert left(page) == [("l1", "ocr_line", "has text outside its words, not read", 5, "p1")]


def test_text_in_the_body_outside_every_hocr_element_is_listed_and_the_title_is_not_page_text():
    data = hocr("Kopfzeile\n<div class='ocr_page'><span class='ocr_line' id='l'>Text</span></div>", head="Titel")
    page = read(data, level="line")
    assert page.text == "Text"
    assert left(page) == [(None, "body", "has text outside its lines, not read", 3, None)]


def test_an_element_read_for_its_bare_text_leaves_the_text_around_it_listed():
    # p1 holds bare text and no line: it is a line. The area around it has bare text of its own too,
    # and now a line inside: that text is listed.
    data = hocr("<div class='ocr_page'>\n<div class='ocr_carea' id='b'>außen\n<p class='ocr_par' id='p1'>innen</p>"
                "</div></div>")
    page = read(data, level="line")
    assert segs(page) == [("p1", "ocr_par", "innen", "b")]
    assert left(page) == [("b", "ocr_carea", "has text outside its lines, not read", 5, None)]


def test_a_paragraph_of_empty_words_is_listed_once_as_without_text():
    data = hocr("<div class='ocr_page'><p class='ocr_par' id='p'><span class='ocrx_word'> </span></p></div>")
    for level in ("line", "par"):
        page = read(data, level=level)
        assert page.text == "" and [(s.id, s.reason) for s in page.skipped] == [("p", "no text")]


# ----------------------------------------------------------------------------------------------
# ALTO: Strings outside TextLine, a String without CONTENT

V3 = "http://www.loc.gov/standards/alto/ns-v3#"


def alto(blocks: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<alto xmlns="{V3}"><Layout><Page ID="P1">\n<PrintSpace>\n'
            f"{blocks}\n</PrintSpace></Page></Layout></alto>\n").encode()


NOLINE = alto('<TextBlock ID="b1" HPOS="1" VPOS="2" WIDTH="10" HEIGHT="20">\n'
              '<String ID="s1" CONTENT="Ærø"/><SP/><String ID="s2" CONTENT="købstad"/>\n'
              '</TextBlock>\n<TextBlock ID="b2"><TextLine ID="l1"><String CONTENT="zwei"/></TextLine></TextBlock>')


def test_alto_strings_without_a_textline_are_read_as_a_line_of_their_block():
    page = read(NOLINE, "a.xml", level="line")
    assert segs(page) == [("b1", "TextBlock", "Ærø købstad", None), ("l1", "TextLine", "zwei", "b2")]
    assert page.segments[0].bbox == (1.0, 2.0, 11.0, 22.0) and page.skipped == ()
    assert [(s.id, s.text) for s in read(NOLINE, "a.xml", level="block").segments] == [("b1", "Ærø købstad"),
                                                                                        ("b2", "zwei")]


def test_the_dinglehopper_dialect_reads_textlines_only_and_lists_the_block():
    page = read(NOLINE, "a.xml", level="line", dialect="dinglehopper")
    assert page.text == "zwei"
    assert left(page) == [("b1", "TextBlock", "has text outside its lines, not read", 4, None)]


def test_a_string_without_content_is_listed_in_both_dialects_and_the_rest_of_the_line_is_read():
    data = alto('<TextBlock ID="b"><TextLine ID="l">\n<String ID="s1" CONTENT="quick"/><SP/>'
                '<String ID="s2" HPOS="5" VPOS="6" WIDTH="1" HEIGHT="2">brown</String><SP/><String CONTENT="fox"/>'
                '<String ID="s4" CONTENT=""/></TextLine></TextBlock>')
    page = read(data, "a.xml", level="line")
    assert page.text == "quick fox"  # an empty CONTENT is the file saying "no text": not listed
    assert left(page) == [("s2", "String", "has no CONTENT attribute", 5, "l")]
    assert page.skipped[0].bbox == (5.0, 6.0, 6.0, 8.0)
    dh = read(data, "a.xml", level="line", dialect="dinglehopper")
    assert dh.text == "quick  fox " and left(dh) == left(page)


@pytest.mark.parametrize("level", ["line", "block"])
def test_a_block_of_strings_without_content_is_listed_as_without_text(level):
    page = read(alto('<TextBlock ID="b"><String ID="s"/></TextBlock>'), "a.xml", level=level)
    assert page.text == ""
    assert [(s.id, s.reason) for s in page.skipped] == [("b", "no text"), ("s", "has no CONTENT attribute")]
