"""What the page parsers refuse instead of reading something else silently: HTML hOCR that is cut
short or goes on after its end, character references to no character, entity references that
expat would drop from an attribute; and XHTML's named entities, read in XHTML hOCR without reading
any DTD. Messages are checked for the file, the place and the fix."""

from __future__ import annotations

import pytest

from semcer.errors import InputError
from semcer.io.formats import parse_page
from semcer.io.formats.tree import parse_xml

XHTML_DOCTYPE = ('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"\n'
                 '    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n')
BODY = ("<body>\n<div class='ocr_page' id='page_1'>\n<p class='ocr_par' id='par_1'>\n"
        "<span class='ocr_line' id='line_1'><span class='ocrx_word' id='w1'>{word}</span></span>\n"
        "</p>\n</div>\n</body>\n</html>\n")
HTML = "<!DOCTYPE html>\n<html><head><meta name='ocr-system' content='x'></head>\n" + BODY
XHTML = ('<?xml version="1.0" encoding="UTF-8"?>\n' + XHTML_DOCTYPE + '<html xmlns="http://www.w3.org/1999/xhtml">'
         "<head><meta name='ocr-system' content='x' /></head>\n" + BODY)


def refused(data: str | bytes, name: str = "t.hocr", **kw) -> str:
    with pytest.raises(InputError) as info:
        parse_page(data.encode() if isinstance(data, str) else data, name, **kw)
    return str(info.value)


def text(data: str | bytes, name: str = "t.hocr", **kw) -> str:
    return parse_page(data.encode() if isinstance(data, str) else data, name, level="line", **kw).text


# ----------------------------------------------------------------------------------------------
# HTML hOCR cut short, or going on after its end


def test_the_whole_html_file_reads():
    assert text(HTML.format(word="Ganz")) == "Ganz"


def test_html_cut_inside_a_word_is_refused_naming_the_element_and_where_the_file_ends():
    full = HTML.format(word="Ganz")
    cut = full[: full.index("Ganz") + 2]  # "...<span class='ocrx_word' id='w1'>Ga"
    msg = refused(cut)
    # line 6 is "<span class='ocr_line' id='line_1'>" (35 characters), "<span class='ocrx_word' id='w1'>" (32),
    # "Ga": the word's span opens at column 36, and the file ends after column 69
    assert msg == ("t.hocr:6:70: the HTML ends inside <span class='ocrx_word' id='w1'> (opened at line 6, column 36): "
                   "the file is cut short (an hOCR file ends with </body></html>); write it again in full")


@pytest.mark.parametrize("end", ["</div>\n", "<div class='ocr_page' id='page_2'", "</body"])
def test_html_cut_between_pages_or_before_the_body_closes_is_refused(end):
    full = HTML.format(word="Ganz")
    cut = full[: full.index("</div>\n")] + end
    assert "ends inside <" in refused(cut) and "cut short" in refused(cut)


def test_html_that_ends_after_its_body_without_closing_html_reads():
    full = HTML.format(word="Ganz")
    assert text(full[: full.index("</html>")]) == "Ganz"


def test_an_element_after_the_end_of_the_html_document_is_refused_not_dropped():
    two = HTML.format(word="eins") + HTML.format(word="zwei").split("\n", 1)[1]  # cat a.hocr b.hocr
    assert refused(two) == ("t.hocr:11:1: an element <html> after the end of the document (its <html> element is "
                            "closed): an hOCR file is one HTML document; remove what follows, or make it a file of "
                            "its own")
    assert "text after the end" in refused(HTML.format(word="x") + "verloren\n")
    assert text(HTML.format(word="x") + "\n<!-- a comment -->\n") == "x"


# ----------------------------------------------------------------------------------------------
# character references in HTML hOCR


@pytest.mark.parametrize(("ref", "why"), [
    ("&#0;", "is the NUL character (U+0000), which is not text (HTML would read it as U+FFFD)"),
    ("&#xD800;", "is a lone surrogate (U+D800), not valid Unicode text (HTML would read it as U+FFFD)"),
    ("&#xdfff", "is a lone surrogate (U+DFFF), not valid Unicode text (HTML would read it as U+FFFD)"),
    ("&#x110000;", "is beyond Unicode, whose last code point is U+10FFFF (HTML would read it as U+FFFD)"),
    ("&#99999999999999999999999;", "is beyond Unicode, whose last code point is U+10FFFF (HTML would read it as "
                                    "U+FFFD)"),
    ("&#1;", "is U+0001, a character that HTML does not allow in a document (HTML would drop it)"),
    ("&#xFFFE;", "is U+FFFE, a character that HTML does not allow in a document (HTML would drop it)"),
])
def test_a_character_reference_to_no_character_is_refused_naming_file_and_place(ref, why):
    msg = refused(HTML.format(word="The" + ref))
    # line 6: "<span class='ocr_line' id='line_1'><span class='ocrx_word' id='w1'>The" is 70 characters
    assert msg == f"t.hocr:6:71: character reference {ref} {why}: remove it, or write the character it stands for"


def test_a_character_reference_to_no_character_in_an_attribute_is_refused_too():
    data = HTML.format(word="x").replace("id='w1'", "id='w1' title='bbox 0 0 1 1&#0;'")
    # the second span opens at column 36; " title='bbox 0 0 1 1" ends at column 86
    assert refused(data).startswith("t.hocr:6:87: character reference &#0; is the NUL character")


def test_character_references_to_characters_are_read_as_html_defines_them():
    # é, an emoji above U+FFFF, and &#x80; which HTML reads as the Windows-1252 euro sign
    assert text(HTML.format(word="caf&#233;&#x1F600;&#x80;&#65")) == "café😀€A"


def test_the_xhtml_path_refuses_the_same_references():
    assert "not well-formed XML (reference to invalid character number)" in refused(XHTML.format(word="&#xD800;"))
    assert "not well-formed XML (reference to invalid character number)" in refused(XHTML.format(word="&#0;"))


# ----------------------------------------------------------------------------------------------
# named entities in XHTML hOCR, and entity references in attributes


def test_xhtml_hocr_with_the_xhtml_dtd_reads_html_named_entities_in_text():
    assert text(XHTML.format(word="&eacute;t&eacute;&nbsp;&amp;&lt;&ldquo;x&rdquo;")) == "été &<“x”"


def test_named_entities_need_the_xhtml_dtd_and_are_for_hocr_only():
    html5 = XHTML.replace(XHTML_DOCTYPE, "<!DOCTYPE html>\n")  # no DTD: XML defines only its five entities
    assert "not well-formed XML (undefined entity)" in refused(html5.format(word="&eacute;"))
    other = XHTML.replace("-//W3C//DTD XHTML 1.0 Transitional//EN", "-//example//DTD page//EN")
    assert "entity &eacute; is not defined (semcer reads no DTD)" in refused(other.format(word="&eacute;"))
    assert "entity &xxe; is not defined (semcer reads no DTD)" in refused(XHTML.format(word="&xxe;"))
    with pytest.raises(InputError, match="entity &eacute; is not defined"):  # parse_xml alone: off by default
        parse_xml(XHTML.format(word="&eacute;").encode(), "t.xhtml")


def test_an_entity_declared_in_xhtml_is_still_refused_even_with_an_html_name():
    data = XHTML.replace('xhtml1-transitional.dtd">', 'xhtml1-transitional.dtd" [<!ENTITY eacute "BOOM">]>')
    msg = refused(data.format(word="&eacute;"))
    assert "the DTD declares an entity &eacute;;" in msg and "BOOM" not in msg


def test_a_named_entity_in_an_xhtml_attribute_is_refused_not_dropped():
    data = XHTML.format(word="x").replace("id='w1'", "id='w1' title='caf&eacute;'")
    assert refused(data) == ("t.hocr:8:36: entity &eacute; in an attribute of <span>: semcer reads XHTML's named "
                             "entities in text only: write the character itself or the character reference &#233;")


ALTO_DTD = ('<?xml version="1.0" encoding="{enc}"?>\n<!DOCTYPE alto SYSTEM "alto.dtd">\n'
            '<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#"><Layout><Page><PrintSpace><TextBlock ID="b">\n'
            '<TextLine ID="l"><String ID="s" CONTENT="{content}"/></TextLine></TextBlock></PrintSpace></Page></Layout>'
            "</alto>\n")


@pytest.mark.parametrize("encoding", ["UTF-8", "UTF-16"])
def test_an_undefined_entity_in_an_attribute_is_refused_where_expat_would_drop_it(encoding):
    data = ALTO_DTD.format(enc=encoding, content="Caf&eacute; Ünïcode").encode(encoding.lower())
    assert refused(data, "a.xml") == ("a.xml:4:18: entity &eacute; is not defined (in an attribute of <String>; "
                                      "semcer reads no DTD): write the character itself or a character reference "
                                      "such as &#160;")


def test_predefined_entities_and_character_references_in_attributes_still_read():
    data = ALTO_DTD.format(enc="UTF-8", content="Fish &amp; chips &lt;&#233;&#x1F600;&gt; Ünïcode").encode()
    assert text(data, "a.xml") == "Fish & chips <é😀> Ünïcode"
    assert text(ALTO_DTD.format(enc="UTF-8", content="a > b").encode(), "a.xml") == "a > b"
