"""ALTO reader: words and spaces, HYP (keep / join / drop), blocks and lines, versions, the dinglehopper
dialect, geometry. Expected texts are written by hand from the XML in each test."""

from __future__ import annotations

import pytest

from semcer.errors import InputError
from semcer.io.formats import parse_page

V2 = "http://www.loc.gov/standards/alto/ns-v2#"
V3 = "http://www.loc.gov/standards/alto/ns-v3#"
V4 = "http://www.loc.gov/standards/alto/ns-v4#"


def alto(blocks: str, ns: str = V4, unit: str = "pixel") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<alto xmlns="{ns}"><Description><MeasurementUnit>{unit}'
            "</MeasurementUnit><sourceImageInformation><fileName>scan.tif</fileName></sourceImageInformation>"
            f'</Description><Layout><Page ID="P1" PHYSICAL_IMG_NR="1"><PrintSpace>{blocks}</PrintSpace></Page>'
            "</Layout></alto>").encode()


def s(content: str, **attrs: str) -> str:
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f'<String CONTENT="{content}"{extra}/>'


SP = '<SP WIDTH="5"/>'


def hyp(c: str = "-") -> str:
    return f'<HYP CONTENT="{c}"/>'


def tl(lid: str, *items: str, geom: str = "") -> str:
    return f'<TextLine ID="{lid}"{geom}>{"".join(items)}</TextLine>'


def tb(bid: str, *lines: str) -> str:
    return f'<TextBlock ID="{bid}">{"".join(lines)}</TextBlock>'


def read(data: bytes, **kw):
    return parse_page(data, "a.xml", **kw)


def test_words_spaces_and_lines():
    data = alto(tb("b1", tl("l1", s("Hello"), SP, s("world")), tl("l2", s("two"), SP, SP, s("spaces"), SP)))
    page = read(data, level="line")
    assert page.text == "Hello world\ntwo spaces"
    assert [(x.id, x.parent) for x in page.segments] == [("l1", "b1"), ("l2", "b1")]


def test_words_without_sp_between_them_are_still_separated_and_empty_content_is_no_word():
    page = read(alto(tb("b", tl("l", SP, s("a"), s("b"), s(""), '<String HPOS="1"/>', s("c")))), level="line")
    assert page.text == "a b c"


def test_block_level_joins_lines_with_newlines_and_blocks_are_segments():
    data = alto(tb("b1", tl("l1", s("one")), tl("l2", s("two"))) + tb("b2", tl("l3", s("three"))))
    page = read(data, level="block")
    assert page.text == "one\ntwo\nthree"
    assert [(x.id, x.text, x.kind) for x in page.segments] == [("b1", "one\ntwo", "TextBlock"), ("b2", "three", "TextBlock")]
    assert read(data, level="region").text == page.text  # "region" means block for ALTO


def test_lines_in_composed_blocks_are_read_in_document_order():
    data = alto('<ComposedBlock ID="c">' + tb("b1", tl("l1", s("inner"))) + "</ComposedBlock>" + tb("b2", tl("l2", s("after"))))
    assert read(data, level="line").text == "inner\nafter"


def test_empty_lines_are_skipped_and_listed_but_kept_in_the_dinglehopper_dialect():
    data = alto(tb("b", tl("l1", s("x")), tl("l2"), tl("l3", s("y"))) + tb("e", tl("l4")))
    page = read(data, level="line")
    assert page.text == "x\ny"
    assert [(k.id, k.reason) for k in page.skipped] == [("l2", "no text"), ("l4", "no text")]
    assert read(data, level="line", dialect="dinglehopper").text == "x\n\ny\n"
    assert read(data, level="block", dialect="dinglehopper").text == "x\n\ny\n"  # same text at both levels


HYPHENATED = alto(tb("b",
                     tl("l1", s("Die"), SP, s("Ver", SUBS_TYPE="HypPart1", SUBS_CONTENT="Verbindung"), hyp()),
                     tl("l2", s("bindung", SUBS_TYPE="HypPart2", SUBS_CONTENT="Verbindung"), SP, s("hält"))))


def test_hyp_keep_is_the_default_the_text_as_printed():
    assert read(HYPHENATED, level="line").text == "Die Ver-\nbindung hält"


def test_hyp_join_writes_the_word_whole_where_it_starts():
    page = read(HYPHENATED, level="line", hyphen="join")
    assert page.text == "Die Verbindung\nhält"


def test_hyp_join_uses_subs_content_even_when_it_is_not_the_two_parts_concatenated():
    data = alto(tb("b", tl("l1", s("Zuk", SUBS_TYPE="HypPart1", SUBS_CONTENT="Zucker"), hyp()),
                   tl("l2", s("ker", SUBS_TYPE="HypPart2", SUBS_CONTENT="Zucker"))))
    assert read(data, level="line", hyphen="join").text == "Zucker"  # l2 emptied: skipped
    assert read(data, level="line").text == "Zuk-\nker"


def test_hyp_join_without_subs_markup_reads_as_keep():
    data = alto(tb("b", tl("l1", s("Mondfin"), hyp("¬")), tl("l2", s("sterniſſe"))))
    assert read(data, level="line", hyphen="join").text == "Mondfin¬\nsterniſſe"


def test_hyp_drop_ignores_the_hyphen_as_dinglehopper_does():
    assert read(HYPHENATED, level="line", hyphen="drop").text == "Die Ver\nbindung hält"
    assert read(HYPHENATED, level="line", dialect="dinglehopper").text == "Die Ver\nbindung hält"


def test_hyp_across_blocks_joins_with_the_next_line_in_document_order():
    data = alto(tb("b1", tl("l1", s("Ver", SUBS_TYPE="HypPart1", SUBS_CONTENT="Verbindung"), hyp())) +
                tb("b2", tl("l2", s("bindung", SUBS_TYPE="HypPart2", SUBS_CONTENT="Verbindung"), SP, s("x"))))
    assert read(data, level="line", hyphen="join").text == "Verbindung\nx"


def test_unknown_hyphen_mode_and_the_dinglehopper_dialect_refuses_another_mode():
    with pytest.raises(InputError, match="unknown hyphen mode 'merge'"):
        read(HYPHENATED, hyphen="merge")
    with pytest.raises(InputError, match="leave hyphen unset"):
        read(HYPHENATED, hyphen="keep", dialect="dinglehopper")


def test_dinglehopper_dialect_joins_every_string_content_with_one_space():
    data = alto(tb("b", tl("l", s("a"), s(""), SP, s("b"))))
    assert read(data, level="line", dialect="dinglehopper").text == "a  b"  # the empty CONTENT still counts
    assert read(data, level="line").text == "a b"


@pytest.mark.parametrize(("ns", "version"), [(V2, "2"), (V3, "3"), (V4, "4"), ("http://schema.ccs-gmbh.com/ALTO", "1")])
def test_versions(ns, version):
    page = read(alto(tb("b", tl("l", s("x"))), ns=ns))
    assert (page.format, page.version, page.text) == ("alto", version, "x")


def test_no_namespace_is_read_too():
    page = read(b'<alto><Layout><Page><TextBlock ID="b"><TextLine ID="l"><String CONTENT="x"/></TextLine></TextBlock>'
                b"</Page></Layout></alto>")
    assert (page.version, page.text) == ("", "x")


def test_geometry_image_and_measurement_unit():
    data = alto(tb("b", tl("l", s("x"), geom=' HPOS="10" VPOS="20.5" WIDTH="100" HEIGHT="30"')), unit="mm10")
    page = read(data, level="line")
    assert page.segments[0].bbox == (10.0, 20.5, 110.0, 50.5)
    assert (page.coordinate_unit, page.image) == ("mm10", "scan.tif")


def test_malformed_geometry_is_an_error():
    data = alto(tb("b", tl("l", s("x"), geom=' HPOS="ten" VPOS="2" WIDTH="1" HEIGHT="1"')))
    with pytest.raises(InputError, match=r"^a\.xml:2:\d+: TextLine has HPOS/VPOS/WIDTH/HEIGHT that are not numbers"):
        read(data, level="line")


def test_not_alto():
    with pytest.raises(InputError, match="root element 'mets' is not 'alto'"):
        read(b"<mets/>", format="alto")
