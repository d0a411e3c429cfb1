"""PAGE-XML reader: reading order, levels, the TextEquiv rule, empty and unordered regions, geometry,
provenance, and errors that name the file, line and column. Expected texts are written by hand from
the XML in each test."""

from __future__ import annotations

from pathlib import Path

import pytest

from semcer.errors import InputError
from semcer.io.formats import element_at, elements_in, parse_page, read_page

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
NS19 = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
NS13 = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2013-07-15"


def pcgts(body: str, ns: str = NS19) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<PcGts xmlns="{ns}">\n<Metadata><Creator>t</Creator>'
            f'<Created>2026-01-01T00:00:00</Created><LastChange>2026-01-01T00:00:00</LastChange></Metadata>\n'
            f'<Page imageFilename="x.png" imageWidth="100" imageHeight="100">\n{body}</Page>\n</PcGts>\n').encode()


def region(rid: str, text: str | None = None, lines: str = "", coords: str = "0,0 10,0 10,10 0,10") -> str:
    te = f"<TextEquiv><Unicode>{text}</Unicode></TextEquiv>" if text is not None else ""
    return f'<TextRegion id="{rid}"><Coords points="{coords}"/>{lines}{te}</TextRegion>\n'


def line(lid: str, text: str | None) -> str:
    te = f"<TextEquiv><Unicode>{text}</Unicode></TextEquiv>" if text is not None else ""
    return f'<TextLine id="{lid}"><Coords points="0,0 1,1"/>{te}</TextLine>'


def read(data: bytes, **kw):
    return parse_page(data, "t.xml", **kw)


def error(data: bytes, **kw) -> str:
    with pytest.raises(InputError) as info:
        read(data, **kw)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("t.xml")
    return msg


# ----------------------------------------------------------------------------------------------
# Reading order


def test_without_reading_order_regions_are_read_in_document_order_nested_ones_after_their_parent():
    body = region("a", "A") + '<TextRegion id="b"><Coords points="0,0 1,1"/>' + region("c", "C") + \
        "<TextEquiv><Unicode>B</Unicode></TextEquiv></TextRegion>\n" + region("d", "D")
    page = read(pcgts(body))
    assert page.text == "A\nB\nC\nD"
    assert page.ids == ("a", "b", "c", "d")


def test_ordered_group_reads_by_index_not_by_document_order():
    ro = ('<ReadingOrder><OrderedGroup id="g"><RegionRefIndexed index="2" regionRef="a"/>'
          '<RegionRefIndexed index="0" regionRef="c"/><RegionRefIndexed index="1" regionRef="b"/></OrderedGroup>'
          '</ReadingOrder>\n')
    page = read(pcgts(ro + region("a", "A") + region("b", "B") + region("c", "C")))
    assert page.text == "C\nB\nA"


def test_nested_groups_unordered_keeps_document_order_and_indexed_groups_sort():
    ro = ('<ReadingOrder><OrderedGroup id="g">'
          '<UnorderedGroupIndexed id="u" index="1"><RegionRef regionRef="d"/>'
          '<OrderedGroup id="o"><RegionRefIndexed index="5" regionRef="a"/><RegionRefIndexed index="4" regionRef="e"/>'
          '</OrderedGroup><RegionRef regionRef="b"/></UnorderedGroupIndexed>'
          '<RegionRefIndexed index="0" regionRef="c"/>'
          '</OrderedGroup></ReadingOrder>\n')
    page = read(pcgts(ro + "".join(region(r, r.upper()) for r in "abcde")))
    assert page.text == "C\nD\nE\nA\nB"


def test_equal_indices_keep_document_order():
    ro = ('<ReadingOrder><OrderedGroup id="g"><RegionRefIndexed index="1" regionRef="b"/>'
          '<RegionRefIndexed index="1" regionRef="a"/></OrderedGroup></ReadingOrder>')
    assert read(pcgts(ro + region("a", "A") + region("b", "B"))).text == "B\nA"


def test_regions_outside_the_reading_order_are_listed_not_read():
    ro = '<ReadingOrder><OrderedGroup id="g"><RegionRefIndexed index="0" regionRef="b"/></OrderedGroup></ReadingOrder>'
    page = read(pcgts(ro + region("a", "page number 17") + region("b", "Body")))
    assert page.text == "Body"
    assert [(s.id, s.reason) for s in page.skipped] == [("a", "not in the reading order")]


def test_references_to_non_text_regions_read_nothing_and_missing_ids_are_listed():
    ro = ('<ReadingOrder><OrderedGroup id="g"><RegionRefIndexed index="0" regionRef="img"/>'
          '<RegionRefIndexed index="1" regionRef="ghost"/><RegionRefIndexed index="2" regionRef="a"/>'
          '</OrderedGroup></ReadingOrder>')
    body = ro + '<ImageRegion id="img"><Coords points="0,0 1,1"/></ImageRegion>' + region("a", "A")
    page = read(pcgts(body))
    assert page.text == "A"
    assert [(s.id, s.reason) for s in page.skipped] == [
        ("ghost", "the reading order refers to an element the page does not have")]


def test_a_region_referred_to_twice_is_read_once_and_twice_in_the_dinglehopper_dialect():
    ro = ('<ReadingOrder><OrderedGroup id="g"><RegionRefIndexed index="0" regionRef="a"/>'
          '<RegionRefIndexed index="1" regionRef="b"/><RegionRefIndexed index="2" regionRef="a"/>'
          '</OrderedGroup></ReadingOrder>')
    data = pcgts(ro + region("a", "A") + region("b", "B"))
    page = read(data)
    assert page.text == "A\nB"
    assert [(s.id, s.reason) for s in page.skipped] == [("a", "referred to again by the reading order")]
    assert read(data, dialect="dinglehopper").text == "A\nB\nA"


def test_an_ordered_group_child_without_index_is_an_error_naming_its_line():
    data = pcgts('<ReadingOrder><OrderedGroup id="g">\n<RegionRefIndexed regionRef="a"/></OrderedGroup></ReadingOrder>'
                 + region("a", "A"))
    msg = error(data)
    assert msg.startswith("t.xml:6:1:") and "no index" in msg  # line 5 opens the body


def test_a_non_integer_index_is_an_error():
    data = pcgts('<ReadingOrder><OrderedGroup id="g"><RegionRefIndexed index="first" regionRef="a"/>'
                 '</OrderedGroup></ReadingOrder>' + region("a", "A"))
    assert "index='first', not an integer" in error(data)


def test_deeply_nested_groups_need_no_recursion():
    depth = 900
    ro = "<ReadingOrder>" + "".join(f'<UnorderedGroup id="u{i}">' for i in range(depth)) + '<RegionRef regionRef="a"/>' \
        + "</UnorderedGroup>" * depth + "</ReadingOrder>"
    assert read(pcgts(ro + region("a", "deep"))).text == "deep"


# ----------------------------------------------------------------------------------------------
# Whose text: levels, TextEquiv


def test_region_level_reads_the_region_textequiv_and_line_level_its_lines():
    body = region("r", "the region's own text", lines=line("l1", "first line") + line("l2", "second line"))
    assert read(pcgts(body), level="region").text == "the region's own text"
    page = read(pcgts(body), level="line")
    assert page.text == "first line\nsecond line"
    assert [(s.id, s.parent, s.kind) for s in page.segments] == [("l1", "r", "TextLine"), ("l2", "r", "TextLine")]


def test_region_and_line_text_is_read_exactly_with_whitespace_and_markup_characters():
    page = read(pcgts(region("r", "  a &lt;b&gt; &amp; c\t ")))
    assert page.text == "  a <b> & c\t "


def equivs(*specs: tuple[str, dict[str, str]]) -> str:
    return "".join("<TextEquiv" + "".join(f' {k}="{v}"' for k, v in attrs.items()) + f"><Unicode>{t}</Unicode></TextEquiv>"
                   for t, attrs in specs)


def one_line(te: str) -> bytes:
    return pcgts(f'<TextRegion id="r"><Coords points="0,0 1,1"/><TextLine id="l"><Coords points="0,0 1,1"/>{te}'
                 "</TextLine></TextRegion>")


@pytest.mark.parametrize(("specs", "expected"), [
    ((("second", {"index": "2"}), ("first", {"index": "1"})), "first"),
    ((("unindexed", {}), ("indexed", {"index": "7"})), "indexed"),  # an index beats no index, wherever it stands
    ((("zero", {"index": "0"}), ("minus", {"index": "-1"})), "minus"),
    ((("tie-a", {"index": "1"}), ("tie-b", {"index": "1"})), "tie-a"),  # ties: document order
    ((("low", {"conf": "0.4"}), ("high", {"conf": "0.9"}), ("mid", {"conf": "0.5"})), "high"),  # no index: conf
    ((("no conf", {}), ("conf", {"conf": "0.1"})), "conf"),
    ((("a", {}), ("b", {})), "a"),  # neither: the first
    ((("only", {"index": "x"}),), "only"),  # a single TextEquiv is read as it is
])
def test_textequiv_rule(specs, expected):
    assert read(one_line(equivs(*specs)), level="line").text == expected


def test_a_non_numeric_textequiv_index_among_several_is_an_error():
    assert "index='x', not an integer" in error(one_line(equivs(("a", {"index": "x"}), ("b", {}))), level="line")


def test_a_textequiv_without_unicode_is_no_text():
    page = read(one_line("<TextEquiv><PlainText>plain</PlainText></TextEquiv>"), level="line")
    assert page.text == "" and [(s.id, s.reason) for s in page.skipped] == [("l", "no text")]


# ----------------------------------------------------------------------------------------------
# Empty text


def test_regions_without_text_are_skipped_and_listed_and_add_no_separator():
    body = region("a", "A") + region("b") + region("c", "") + region("d", " ") + region("e", "E")
    page = read(pcgts(body))
    assert page.text == "A\n \nE"  # whitespace is text
    assert [(s.id, s.reason) for s in page.skipped] == [("b", "no text"), ("c", "no text")]


def test_line_level_empty_lines_are_skipped_but_kept_in_the_dinglehopper_dialect():
    body = region("r", lines=line("l1", "one") + line("l2", "") + line("l3", "three")) + \
        region("s", lines=line("m1", "")) + region("t", lines=line("n1", "") + line("n2", ""))
    page = read(pcgts(body), level="line")
    assert page.text == "one\nthree"
    assert [(s.id, s.reason) for s in page.skipped] == [("l2", "no text"), ("m1", "no text"), ("n1", "no text"),
                                                        ("n2", "no text")]
    # dinglehopper keeps empty lines inside a region; it drops a region whose lines join to "" (s), not t ("\n")
    dh = read(pcgts(body), level="line", dialect="dinglehopper")
    assert dh.text == "one\n\nthree\n\n"
    assert [s.id for s in dh.segments] == ["l1", "l2", "l3", "n1", "n2"]


def test_a_region_without_lines_read_at_line_level_is_listed():
    page = read(pcgts(region("r", "region text only")), level="line")
    assert page.text == ""
    assert [(s.id, s.reason) for s in page.skipped] == [("r", "has no lines")]


# ----------------------------------------------------------------------------------------------
# Versions, geometry, provenance


def test_2013_and_2019_namespaces_and_the_version():
    assert read(pcgts(region("a", "x"), NS13)).version == "2013-07-15"
    p = read(pcgts(region("a", "x"), NS19))
    assert (p.format, p.version, p.image) == ("page-xml", "2019-07-15", "x.png")


def test_bounding_box_of_the_polygon():
    page = read(pcgts(region("a", "x", coords="30,40 10,45 20,90 70,60")))
    assert page.segments[0].bbox == (10.0, 40.0, 70.0, 90.0)


def test_malformed_coordinates_are_an_error_naming_the_element():
    assert "Coords points='1,2 3'" in error(pcgts(region("a", "x", coords="1,2 3")))


def test_old_point_children_geometry():
    body = '<TextRegion id="a"><Coords><Point x="5" y="6"/><Point x="1" y="9"/></Coords>' \
           "<TextEquiv><Unicode>x</Unicode></TextEquiv></TextRegion>"
    assert read(pcgts(body, "http://schema.primaresearch.org/PAGE/gts/pagecontent/2010-03-19")).segments[0].bbox == \
        (1.0, 6.0, 5.0, 9.0)


def test_segment_offsets_and_element_at():
    page = read(pcgts(region("a", "ab") + region("b", "") + region("c", "cde")))
    assert page.text == "ab\ncde"
    assert [(s.id, s.start, s.end) for s in page.segments] == [("a", 0, 2), ("c", 3, 6)]
    assert [getattr(element_at(page, i), "id", None) for i in range(-1, 8)] == [None, "a", "a", None, "c", "c", "c", None,
                                                                                None]
    assert [s.id for s in elements_in(page, 1, 5)] == ["a", "c"]
    assert [s.id for s in elements_in(page, 2, 3)] == []  # the separator alone
    assert [s.id for s in elements_in(page, 2, 2)] == ["a"]  # an insertion at the end of a
    assert [s.id for s in elements_in(page, 6, 6)] == ["c"]  # at the end of the page
    assert [s.id for s in elements_in(page, 0, 0)] == ["a"]


def test_element_lines_and_columns_are_those_of_the_file():
    page = read_page(PAGES / "p2019.gt.xml", level="line")
    first = page.segments[0]
    assert first.id == "l1"
    src = (PAGES / "p2019.gt.xml").read_text(encoding="utf-8").split("\n")
    assert src[first.line - 1][first.column - 1:].startswith('<TextLine id="l1">')


# ----------------------------------------------------------------------------------------------
# Errors


def test_a_file_that_is_not_page_xml():
    msg = error(b'<?xml version="1.0"?><PcGts xmlns="urn:other"><Page/></PcGts>', format="page-xml")
    assert "not a PAGE PcGts element" in msg and msg.startswith("t.xml:1:22:")


def test_no_page_element():
    assert "no Page element" in error(f'<PcGts xmlns="{NS19}"/>'.encode())


def test_duplicate_region_ids():
    msg = error(pcgts(region("a", "x") + region("a", "y")))
    assert "duplicate region id 'a' (first at line 5)" in msg and msg.startswith("t.xml:6:1:")


def test_unknown_level_and_dialect():
    with pytest.raises(InputError, match="unknown level 'word'"):
        read(pcgts(region("a", "x")), level="word")
    with pytest.raises(InputError, match="unknown dialect 'ocrd'"):
        read(pcgts(region("a", "x")), dialect="ocrd")


def test_the_fixture_pair_reading_order_and_skips():
    page = read_page(PAGES / "p2019.gt.xml")
    assert page.ids == ("r1", "r2", "r6", "r3")  # r5 (no text) and r7 (outside the order) left out
    assert {(s.id, s.reason) for s in page.skipped} == {("r5", "no text"), ("r7", "not in the reading order")}
    lines = read_page(PAGES / "p2019.gt.xml", level="line")
    assert lines.segments[0].text == "Die Finſterniſſe des"  # index 1 of two
    assert lines.segments[1].text == "1801ſten Jahrs"  # index 0 beats the unindexed WRONG
