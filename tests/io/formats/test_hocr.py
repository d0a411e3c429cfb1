"""hOCR reader: Tesseract's XHTML (parsed as XML) and HTML hOCR (parsed leniently), line classes, words,
paragraphs, title bboxes. Expected texts are written by hand from the markup in each test."""

from __future__ import annotations

import pytest

from semcer.errors import InputError
from semcer.io.formats import parse_page
from semcer.io.formats.hocr import parse_title

XHTML_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
 <head>
  <title></title>
  <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>
  <meta name='ocr-system' content='tesseract 5.3.0' />
 </head>
 <body>
"""

# Written the way Tesseract 5 writes hOCR: carea > par > line > word, single-quoted attributes.
TESSERACT_LIKE = XHTML_HEAD + """  <div class='ocr_page' id='page_1' title='image "scan.png"; bbox 0 0 1200 900; ppageno 0'>
   <div class='ocr_carea' id='block_1_1' title="bbox 40 40 600 200">
    <p class='ocr_par' id='par_1_1' lang='eng' title="bbox 40 40 600 120">
     <span class='ocr_header' id='line_1_1' title="bbox 40 40 600 80; baseline 0 -8; x_size 40">
      <span class='ocrx_word' id='word_1_1' title='bbox 40 40 200 80; x_wconf 96'><strong>Chapter</strong></span>
      <span class='ocrx_word' id='word_1_2' title='bbox 220 40 260 80; x_wconf 95'>1</span>
     </span>
     <span class='ocr_line' id='line_1_2' title="bbox 40 90 600 120; baseline 0 -7">
      <span class='ocrx_word' id='word_1_3' title='bbox 40 90 90 120; x_wconf 91'>Fish</span>
      <span class='ocrx_word' id='word_1_4' title='bbox 95 90 120 120; x_wconf 90'>&amp;</span>
      <span class='ocrx_word' id='word_1_5' title='bbox 125 90 200 120; x_wconf 88'><em>chips</em></span>
     </span>
    </p>
    <p class='ocr_par' id='par_1_2' lang='eng' title="bbox 40 150 600 200">
     <span class='ocr_line' id='line_1_3' title="bbox 40 150 600 200">
      <span class='ocrx_word' id='word_1_6' title='bbox 40 150 90 200; x_wconf 90'> </span>
     </span>
     <span class='ocr_caption' id='line_1_4' title="bbox 40 210 600 240">
      <span class='ocrx_word' id='word_1_7' title='bbox 40 210 90 240; x_wconf 90'>Fig.</span>
      <span class='ocrx_word' id='word_1_8' title='bbox 95 210 120 240; x_wconf 90'>2</span>
     </span>
    </p>
   </div>
  </div>
 </body>
</html>
"""


def read(data: str | bytes, **kw):
    return parse_page(data.encode() if isinstance(data, str) else data, "t.hocr", **kw)


def test_lines_of_every_tesseract_line_class_with_their_words():
    page = read(TESSERACT_LIKE, level="line")
    assert page.text == "Chapter 1\nFish & chips\nFig. 2"
    assert [(s.id, s.kind, s.parent) for s in page.segments] == [
        ("line_1_1", "ocr_header", "par_1_1"), ("line_1_2", "ocr_line", "par_1_1"), ("line_1_4", "ocr_caption", "par_1_2")]
    assert [(s.id, s.reason) for s in page.skipped] == [("line_1_3", "no text")]


def test_paragraph_level_joins_its_lines():
    page = read(TESSERACT_LIKE, level="par")
    assert [(s.id, s.text) for s in page.segments] == [("par_1_1", "Chapter 1\nFish & chips"), ("par_1_2", "Fig. 2")]
    assert read(TESSERACT_LIKE, level="region").text == page.text  # "region" means par for hOCR


def test_title_bbox_and_image():
    page = read(TESSERACT_LIKE, level="line")
    assert page.segments[1].bbox == (40.0, 90.0, 600.0, 120.0)
    assert page.image == "scan.png"
    assert (page.format, page.level) == ("hocr", "line")


def test_parse_title():
    assert parse_title("bbox 1 2 3 4; x_wconf 95;baseline 0.1 -3") == {"bbox": "1 2 3 4", "x_wconf": "95",
                                                                       "baseline": "0.1 -3"}
    assert parse_title('image "a b.png"; bbox 0 0 5 5') == {"image": '"a b.png"', "bbox": "0 0 5 5"}


def test_a_malformed_bbox_is_an_error_naming_the_element():
    bad = TESSERACT_LIKE.replace("bbox 40 90 600 120; baseline 0 -7", "bbox 40 90 600")
    with pytest.raises(InputError, match=r"^t\.hocr:18:6: title bbox '40 90 600' is not four numbers"):
        read(bad, level="line")


def test_malformed_xhtml_is_an_error_with_line_and_column():
    bad = TESSERACT_LIKE.replace("<em>chips</em>", "<em>chips</i>")
    with pytest.raises(InputError, match=r"^t\.hocr:21:\d+: not well-formed XML \(mismatched tag\)"):
        read(bad)


HTML_HOCR = """<!DOCTYPE html>
<html><head><meta name="ocr-system" content="kraken"><meta charset="utf-8"></head>
<body><div class="ocr_page" title="bbox 0 0 10 10">
<p class="ocr_par" id="p1">
<span class="ocr_line" id="l1" title="bbox 0 0 9 2">  Straße   &nbsp;und&eacute;  <br>
  Weg </span>
<span class="ocr_line" id="l2">zwei<span class="ocrx_word" id="w">Wort</span></span>
<p class="ocr_par" id="p2"><span class="ocrx_line" id="l3">drei</span>
</body></html>
"""


def test_html_hocr_is_read_leniently_without_words_the_line_text_is_its_whitespace_collapsed_text():
    page = read(HTML_HOCR, level="line")
    # l1 has no ocrx_word: all its text, whitespace runs made one space (NBSP is whitespace too), trimmed
    assert [s.text for s in page.segments] == ["Straße undé Weg", "Wort", "drei"]
    assert [s.parent for s in page.segments] == ["p1", "p1", "p2"]  # the unclosed <p> is closed by the next
    assert page.segments[0].bbox == (0.0, 0.0, 9.0, 2.0)


def test_lines_outside_paragraphs_group_by_their_content_area_or_stand_alone():
    html = ("<html><body><div class='ocr_page'><div class='ocr_carea' id='a'><span class='ocr_line' id='l1'>x</span>"
            "<span class='ocr_line' id='l2'>y</span></div><span class='ocr_line' id='l3'>z</span></div></body></html>")
    page = read(html, level="par")
    assert [(s.id, s.text, s.kind) for s in page.segments] == [("a", "x\ny", "ocr_carea"), ("l3", "z", "ocr_line")]


def test_the_dinglehopper_dialect_refuses_hocr():
    with pytest.raises(InputError, match="dinglehopper reads no hOCR"):
        read(TESSERACT_LIKE, dialect="dinglehopper")
