"""Hostile and broken page files: entity bombs, external entities, external DTDs, size, element and depth
limits, malformed XML. Each is one InputError naming the file (and line and column where one applies);
nothing outside the file is read (checked with an audit hook in a fresh interpreter) and memory stays
small (checked by the child's peak resident size)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from semcer.errors import InputError
from semcer.io.formats import parse_page, read_page
from semcer.io.formats.tree import parse_html, parse_xml

NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"

BILLION_LAUGHS = f"""<?xml version="1.0"?>
<!DOCTYPE PcGts [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<PcGts xmlns="{NS}"><Page><TextRegion id="r"><TextEquiv><Unicode>&lol9;</Unicode></TextEquiv></TextRegion></Page>
</PcGts>
"""

XXE = f"""<?xml version="1.0"?>
<!DOCTYPE PcGts [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<PcGts xmlns="{NS}"><Page><TextRegion id="r"><TextEquiv><Unicode>&xxe;</Unicode></TextEquiv></TextRegion></Page>
</PcGts>
"""

PARAMETER_ENTITY = f"""<?xml version="1.0"?>
<!DOCTYPE PcGts [ <!ENTITY % ext SYSTEM "file:///etc/passwd"> %ext; ]>
<PcGts xmlns="{NS}"><Page/></PcGts>
"""

EXTERNAL_DTD = f"""<?xml version="1.0"?>
<!DOCTYPE PcGts SYSTEM "file:///etc/passwd">
<PcGts xmlns="{NS}"><Page><TextRegion id="r"><TextEquiv><Unicode>safe</Unicode></TextEquiv></TextRegion></Page></PcGts>
"""

UNDEFINED_ENTITY = f"""<?xml version="1.0"?>
<!DOCTYPE PcGts SYSTEM "page.dtd">
<PcGts xmlns="{NS}"><Page><TextRegion id="r"><TextEquiv><Unicode>a&nbsp;b</Unicode></TextEquiv></TextRegion></Page>
</PcGts>
"""


def refused(data: str | bytes, **kw) -> str:
    with pytest.raises(InputError) as info:
        parse_page(data.encode() if isinstance(data, str) else data, "evil.xml", **kw)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("evil.xml")
    return msg


def test_billion_laughs_is_refused_at_the_first_entity_declaration():
    msg = refused(BILLION_LAUGHS)
    assert msg.startswith("evil.xml:3:") and "declares an entity &lol;" in msg and "lol" * 10 not in msg


def test_an_external_entity_is_refused_and_never_read():
    msg = refused(XXE)
    assert msg.startswith("evil.xml:2:") and "declares an external entity &xxe;" in msg
    assert "root:" not in msg


def test_a_parameter_entity_is_refused():
    assert "declares an external entity %ext;" in refused(PARAMETER_ENTITY)


def test_an_external_dtd_is_not_fetched_and_the_file_reads_normally():
    page = parse_page(EXTERNAL_DTD.encode(), "ok.xml")
    assert page.text == "safe"


def test_an_undefined_entity_is_refused_not_dropped():
    msg = refused(UNDEFINED_ENTITY)
    assert "entity &nbsp; is not defined" in msg and msg.startswith("evil.xml:3:")


def test_the_same_guards_apply_to_alto_and_xhtml_hocr():
    alto = XXE.replace("PcGts", "alto").replace(NS, "http://www.loc.gov/standards/alto/ns-v4#")
    assert "external entity &xxe;" in refused(alto)
    hocr = ('<?xml version="1.0"?><!DOCTYPE html [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            "<html><body><div class='ocr_page'><span class='ocr_line'>&x;</span></div></body></html>")
    assert "external entity &x;" in refused(hocr, format="hocr")


def test_html_hocr_refuses_an_entity_declaration_instead_of_keeping_the_reference_as_text():
    with pytest.raises(InputError) as info:
        parse_html('<!DOCTYPE html [<!ENTITY x "BOOM">]><html><body>&x;&amp;</body></html>', "h.html")
    assert str(info.value).startswith("h.html:1:17: the DTD declares an entity &x;;") and "BOOM" not in str(info.value)


HTML_XXE = ('<!DOCTYPE html [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
            "<html><body><div class='ocr_page'><span class='ocr_line'>hello &xxe;</span></div></body></html>")


def test_html_hocr_without_xml_declaration_refuses_an_external_entity_like_xhtml():
    msg = refused(HTML_XXE, format="hocr")
    assert msg == ("evil.xml:1:17: the DTD declares an external entity &xxe;; semcer expands no entities (they can "
                   "read files or blow up memory): replace it by the text it stands for")
    xhtml = refused('<?xml version="1.0"?>' + HTML_XXE, format="hocr")  # the same words as the XML path
    assert "declares an external entity &xxe;; semcer expands no entities" in xhtml


def test_html_hocr_refuses_an_entity_declared_after_other_declarations_and_a_parameter_entity():
    later = '<!DOCTYPE html [<!ELEMENT a ANY>\n  <!ENTITY   x "y">]><html><body>x</body></html>'
    assert refused(later, format="hocr").startswith("evil.xml:2:3: the DTD declares an entity &x;;")
    param = '<!DOCTYPE html [<!ENTITY % p PUBLIC "-//x" "http://example.com/x">]><html><body>x</body></html>'
    assert "declares an external entity %p;;" in refused(param, format="hocr")


def test_html_hocr_refuses_an_undefined_entity_reference_in_text_and_attributes():
    page = "<html><body><div class='ocr_page'>\n<span class='ocr_line'{}>a {}</span></div></body></html>"
    msg = refused(page.format("", "&xxe;"), format="hocr")
    assert msg.startswith("evil.xml:2:26: entity &xxe; is not defined (HTML has no such entity")
    assert refused(page.format(" title='&zz;'", "b"), format="hocr").startswith("evil.xml:2:31: entity &zz; is not")


def test_html_hocr_keeps_what_html_defines_and_text_that_is_no_reference():
    # HTML's own entities (&eacute without ';' too), character references, an escaped '&xxe;', a bare '&'
    # and anything inside a comment read as before
    html = ("<html><body><!-- &nope; <!ENTITY c 'x'> --><div class='ocr_page'><span class='ocr_line'>"
            "AT&T &amp;xxe; caf&eacute; &eacute &#65;&#x42; &notit;</span></div></body></html>")
    assert parse_page(html.encode(), "ok.html", format="hocr").text == "AT&T &xxe; café é AB ¬it;"


CHILD = textwrap.dedent("""
    import json, resource, sys
    opened = []
    def hook(event, args):
        if event == "open" and "passwd" in str(args[0]):
            opened.append(str(args[0]))
    sys.addaudithook(hook)
    from semcer.errors import InputError
    from semcer.io.formats import read_page
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        read_page(sys.argv[1])
        outcome = "read"
    except InputError as exc:
        outcome = str(exc)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"outcome": outcome, "opened": opened, "grew_kib": after - before}))
""")


@pytest.mark.parametrize("content", [BILLION_LAUGHS, XXE, PARAMETER_ENTITY, EXTERNAL_DTD], ids=["bomb", "xxe", "param", "dtd"])
def test_in_a_fresh_interpreter_nothing_outside_the_file_is_opened_and_memory_stays_small(tmp_path, content):
    path = tmp_path / "evil.xml"
    path.write_text(content, encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=120,
                         check=True)
    result = json.loads(out.stdout)
    assert result["opened"] == []
    passwd = Path("/etc/passwd")
    if passwd.exists():
        first = passwd.read_text(errors="replace").split("\n", 1)[0]
        assert first not in result["outcome"]
    assert result["grew_kib"] < 20 * 1024  # the bomb would be ~3 GB expanded; parsing it grew the process < 20 MiB


def test_size_limit_is_checked_before_parsing(tmp_path):
    data = b"<PcGts>" + b" " * 2000 + b"</PcGts>"
    with pytest.raises(InputError, match=r"^big\.xml: 2,015 bytes, more than the limit of 1,000"):
        parse_page(data, "big.xml", format="page-xml", max_bytes=1000)
    path = tmp_path / "big.xml"
    path.write_bytes(data)
    with pytest.raises(InputError, match="more than the limit of 1,000 for a page file"):
        read_page(path, max_bytes=1000)


def test_element_limit():
    data = (f'<PcGts xmlns="{NS}"><Page>' + '<TextRegion id="r"/>' * 50 + "</Page></PcGts>").encode()
    with pytest.raises(InputError, match=r"^e\.xml:1:\d+: more than 20 elements, the limit"):
        parse_page(data, "e.xml", max_elements=20)


def test_depth_limit():
    deep = "<a>" * 1500 + "</a>" * 1500
    with pytest.raises(InputError, match="nested more than 1,000 deep"):
        parse_xml(deep.encode(), "d.xml")
    with pytest.raises(InputError, match="nested more than 1,000 deep"):
        parse_html("<div>" * 1500, "d.html")


@pytest.mark.parametrize(("data", "where", "reason"), [
    (f'<PcGts xmlns="{NS}">\n<Page>\n  <TextRegion id="r">\n</Page></PcGts>', "4:3:", "mismatched tag"),
    (f'<PcGts xmlns="{NS}"><Page imageFilename="a.png></Page></PcGts>', "1:", "not well-formed"),
    ("", "1:1:", "no element found"),
    (f'<PcGts xmlns="{NS}"><Page/></PcGts><extra/>', "1:", "junk after document element"),
    (f'<PcGts xmlns="{NS}"><Page/>\n</PcGts>'.encode() + b"\xff", "2:", "not well-formed"),
])
def test_malformed_xml_is_one_error_with_line_and_column(data, where, reason):
    raw = data if isinstance(data, bytes) else data.encode()
    with pytest.raises(InputError) as info:
        parse_page(raw, "bad.xml", format="page-xml")
    msg = str(info.value)
    assert msg.startswith("bad.xml:" + where) and f"not well-formed XML ({reason}" in msg and "\n" not in msg


def test_malformed_line_and_column_point_at_the_mistake():
    data = f'<PcGts xmlns="{NS}">\n<Page>\n  <TextRegion id="r">\n</Page></PcGts>'
    with pytest.raises(InputError) as info:
        parse_page(data.encode(), "bad.xml")
    # expat stops at the end tag that does not match: line 4, column 3 (after "</")
    assert str(info.value).startswith("bad.xml:4:3:")


def test_a_file_that_is_no_page_format_at_all():
    with pytest.raises(InputError, match=r"^notes\.md: not a PAGE-XML, ALTO or hOCR file"):
        parse_page(b"# Notes\n", "notes.md")
