"""Input formats detected from the content (semcer.io.collections): JSON arrays, markup and binary
files refused by name, gzip, standard input, forced formats, and the reader registry.

Defect (issue 11, item 5): every file whose suffix was not .jsonl/.tsv/.csv was read as plain text
and scored with exit 0: a .json array of {id, text} gave 4.00 % instead of 33.33 %, a PAGE-XML
file was scored as markup, a PDF as lines of bytes.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sqlite3
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import EXAMPLES, jsonl, write
from helpers import read_error as error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semcer.io import collections as coll
from semcer.io import compressed
from semcer.io.collections import Item, detect_format, read_collection

# ----------------------------------------------------------------------------------------------
# JSON arrays


def test_json_array_of_objects_is_read_with_element_lines(tmp_path):
    p = write(tmp_path / "r.json", '[\n  {"id": "a", "text": "abc", "doc": "d", "lang": "en"},\n'
                                   '  {"id": 2,\n   "text": "Tiếng"}\n]\n')
    c = read_collection(p)
    assert c.format == "json" and c.path == str(p)
    assert c.items == (Item("a", "abc", "d", "en", f"{p}:2"), Item("2", "Tiếng", None, None, f"{p}:3"))


def test_json_array_on_one_line_and_without_suffix(tmp_path):
    body = json.dumps([{"id": "1", "text": "x"}, {"id": "2", "text": "[y]"}])
    for name in ("r.json", "r", "r.data"):
        c = read_collection(write(tmp_path / name, body))
        assert c.format == "json" and [i.text for i in c.items] == ["x", "[y]"]


@pytest.mark.parametrize("body, words", [
    ('[{"id": "a", "text": "x"}, ["b", "y"]]', ":1: expected a JSON object with 'id' and 'text', got an array"),
    ('[\n{"id": "a", "text": "x"},\n{"id": "b"}\n]', ":3: 'text' is missing"),
    ('[\n{"id": "a", "text": "x"},\n{"id": "a", "text": "y"}\n]', ":3: duplicate id 'a' (first at "),
    ('{"id": "a", "text": "x",\n "doc": "d"}', ":1: a single JSON object"),
    ('[\n{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}]', ":3: malformed JSON: Expecting ',' delimiter"),
    ('[{"id": "a", "text": "x"}] [1]', ":1: malformed JSON: Extra data"),
    ('[{"id": "a", "text": "x"}', ":1: malformed JSON"),
    ('[{"id": "a", "text": "\\u0000"}]', "NUL character"),
    ('[{"id": "a", "text": "\\udc00"}]', "lone surrogate"),
    ('[{"id": "a", "text": "x", "n": ' + "7" * 4301 + "}]", "unreadable JSON value"),
    ('[{"id": "a", "text": "x", "deep": ' + "[" * 100_000 + "]" * 100_000 + "}]", "nested too deeply"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_json_errors_are_one_line_naming_the_line(tmp_path, body, words):
    p = write(tmp_path / "r.json", body)
    msg = error(p)
    assert msg.startswith(str(p)) and words in msg


def test_an_empty_json_array_is_an_empty_collection(tmp_path):
    p = write(tmp_path / "r.json", "[]")
    c = read_collection(p)  # an error as a reference, not as an output under unmatched='empty' (the pairing's call)
    assert (c.format, c.items, c.empty) == ("json", (), f"{p}: no items (the input is empty)")


def test_jsonl_named_json_is_read_as_jsonl(tmp_path):
    p = write(tmp_path / "r.json", jsonl({"id": "a", "text": "x"}, {"id": "b", "text": "y"}))
    c = read_collection(p)
    assert c.format == "jsonl" and [i.id for i in c.items] == ["a", "b"]


# ----------------------------------------------------------------------------------------------
# Detection from the content


PAGE = """<?xml version="1.0" encoding="UTF-8"?>
<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">
  <Page imageFilename="p1.png" imageWidth="100" imageHeight="100">
    <TextRegion id="r1"><TextLine id="l1"><TextEquiv><Unicode>Hello</Unicode></TextEquiv></TextLine></TextRegion>
  </Page>
</PcGts>
"""
ALTO = """<?xml version="1.0" encoding="UTF-8"?>
<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#"><Layout><Page ID="p1"><PrintSpace>
<TextLine><String CONTENT="Hello"/></TextLine></PrintSpace></Page></Layout></alto>
"""
HOCR = """<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head><meta name='ocr-system' content='tesseract 5.3.0' /></head>
<body><div class='ocr_page' id='page_1'><span class='ocr_line'><span class='ocrx_word'>Hello</span></span></div></body></html>
"""
HTML = "<!doctype html>\n<html><body><p>Hello</p></body></html>\n"
XML = '<?xml version="1.0"?>\n<!-- a comment -->\n<TEI xmlns="http://www.tei-c.org/ns/1.0"><text>Hello</text></TEI>\n'


@pytest.mark.parametrize("body, kind, name", [
    (PAGE, "page-xml", "PAGE-XML"),
    (PAGE.replace('<?xml version="1.0" encoding="UTF-8"?>\n', "").replace("<PcGts", "<pc:PcGts")
     .replace("</PcGts", "</pc:PcGts").replace("xmlns=", "xmlns:pc="), "page-xml", "PAGE-XML"),
    (ALTO, "alto", "ALTO"),
    (HOCR, "hocr", "hOCR"),
    (HTML, "html", "HTML"),
    (XML, "xml", "XML"),
    ("\ufeff" + PAGE, "page-xml", "PAGE-XML"),
    (PAGE.encode("utf-16"), "page-xml", "PAGE-XML"),  # XML may be UTF-16 (with its byte-order mark)
])
@pytest.mark.parametrize("suffix", [".xml", ".txt", ".jsonl", ""])
def test_markup_is_recognised_and_read_or_refused(tmp_path, body, kind, name, suffix):
    """Page formats are detected from the content whatever the name and read as pages; other markup
    (HTML that is not hOCR, other XML) is refused, naming it, except in a file named .txt: text."""
    p = write(tmp_path / ("page" + suffix), body)
    if suffix == ".txt" and kind in ("html", "xml"):
        assert detect_format(p.read_bytes(), suffix) == "text"
        c = read_collection(p)
        assert c.format == "text" and c.items[0].id == "1" and c.items[0].text == body.split("\n")[0]
        return
    assert detect_format(p.read_bytes(), suffix) == kind
    if kind in ("page-xml", "alto", "hocr"):
        if "pc:PcGts" in str(body):  # only the root prefixed: its Page is in no namespace, a clear error
            assert error(p).startswith(f"{p}:1:1: ") and "no Page element" in error(p)
            return
        if isinstance(body, bytes):  # UTF-16 bytes under a declaration that says UTF-8: refused, with the place
            assert error(p).startswith(f"{p}:1:") and "encoding specified in XML declaration is incorrect" in error(p)
            return
        c = read_collection(p)
        assert c.format == kind and c.single_page and len(c.items) == 1
        assert "Hello" in c.items[0].text
        return
    msg = error(p)
    assert msg.startswith(f"{p}: ") and name in msg and "not supported yet" in msg
    assert "--format text" in msg  # the way to read it anyway


def test_markup_can_still_be_read_as_text_when_forced(tmp_path):
    p = write(tmp_path / "page.xml", PAGE)
    c = read_collection(p, format="text")
    assert c.format == "text" and [i.text for i in c.items] == PAGE.splitlines()


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("refs.jsonl", jsonl({"id": "a", "text": "x"}))
    return buf.getvalue()


def _sqlite(tmp_path: Path) -> bytes:
    db = tmp_path / "x.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    return db.read_bytes()


BINARIES = {
    "PDF": lambda tmp: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
    "PNG": lambda tmp: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10",
    "JPEG": lambda tmp: b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01",
    "ZIP": lambda tmp: _zip(),
    "SQLite": _sqlite,
    "UTF-16": lambda tmp: "\ufeffid\ttext\n".encode("utf-16-le"),
}


@pytest.mark.parametrize("kind", sorted(BINARIES))
@pytest.mark.parametrize("name", ["r.jsonl", "r.txt", "r"])
def test_binary_files_are_refused_naming_what_they_look_like(tmp_path, kind, name):
    p = write(tmp_path / name, BINARIES[kind](tmp_path))
    msg = error(p)
    assert msg.startswith(f"{p}: ") and kind in msg
    assert "not" in msg  # "..., not UTF-8 text"


def test_binary_pages_in_a_directory_are_refused(tmp_path):
    write(tmp_path / "d" / "p1.txt", "fine\n")
    write(tmp_path / "d" / "p2.txt", BINARIES["PNG"](tmp_path))
    assert error(tmp_path / "d").startswith(f"{tmp_path / 'd' / 'p2.txt'}: ") and "PNG" in error(tmp_path / "d")


@pytest.mark.parametrize("body, fmt", [
    (jsonl({"id": "a", "text": "x"}), "jsonl"),
    ('  \n {"id": "a", "text": "x"}\n', "jsonl"),
    ('{"id": "a", "text": \n', "jsonl"),  # broken, but clearly JSONL: its error is reported
    ('[{"id": "a", "text": "x"}]', "json"),
    ("[\n]", "json"),
    ("id\ttext\na\tx\n", "tsv"),
    ("doc\tid\ttext\nd\ta\tx\n", "tsv"),
    ("id,text\na,x\n", "csv"),
    ('"text","id"\n"x","a"\n', "csv"),
    ("[1] Introduction\n[2] Method\n", "text"),
    ("[{Illegible}]\n", "text"),
    ("{braces} in OCR\n", "text"),
    ("<3 and 5 < 7\n", "text"),
    ("identity, textual\n", "text"),
    ("", "text"),
    ("Tiếng Việt\n", "text"),
])
def test_detect_format_from_content(body, fmt):
    assert detect_format(body.encode("utf-8")) == fmt
    assert detect_format(b"\xef\xbb\xbf" + body.encode("utf-8")) == fmt


@pytest.mark.parametrize("suffix, body, fmt", [
    (".jsonl", '["a", "b"]\n', "jsonl"),  # the suffix decides between readable formats
    (".tsv", "id,text\na,x\n", "tsv"),
    (".csv", "id\ttext\n", "csv"),
    (".txt", jsonl({"id": "a", "text": "x"}), "text"),
    (".json", jsonl({"id": "a", "text": "x"}), "jsonl"),
    (".json", '[{"id": "a", "text": "x"}]', "json"),
    (".json", "not json", "json"),  # its error is reported as JSON
    (".ndjson", jsonl({"id": "a", "text": "x"}), "jsonl"),
])
def test_suffix_decides_between_readable_formats(suffix, body, fmt):
    assert detect_format(body.encode(), suffix) == fmt


# Items that every table format can hold (TSV has no quoting: no tab or line break in a field).
_field = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\n\t\ufeff"))
_rows = st.lists(st.tuples(_field.filter(bool), _field), min_size=1, max_size=8, unique_by=lambda r: r[0])


def _write_as(fmt: str, rows: list[tuple[str, str]]) -> str:
    if fmt == "jsonl":
        return jsonl(*({"id": i, "text": t} for i, t in rows))
    if fmt == "json":
        return json.dumps([{"text": t, "id": i} for i, t in rows], ensure_ascii=False, indent=1)
    if fmt == "tsv":
        return "text\tid\n" + "".join(f"{t}\t{i}\n" for i, t in rows)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "text"])
    w.writerows(rows)
    return buf.getvalue()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_rows, fmt=st.sampled_from(["jsonl", "json", "tsv", "csv"]), name=st.sampled_from(["x", "x.data", "x.dat"]))
def test_any_table_is_detected_without_a_suffix(tmp_path, rows, fmt, name):
    p = write(tmp_path / name, _write_as(fmt, rows))
    c = read_collection(p)
    assert c.format == fmt
    assert [(i.id, i.text) for i in c.items] == rows


_first_line = st.text(st.characters(blacklist_categories=("Cs",),
                                    blacklist_characters="\x00\r\n\t,<{[%\ufeff"), min_size=1)
_line = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\n\ufeff"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=_first_line.filter(lambda s: not s.lstrip().startswith(("<", "{", "["))), rest=st.lists(_line, max_size=5))
def test_plain_text_is_detected_as_text(tmp_path, first, rest):
    lines = [first, *rest]
    p = write(tmp_path / "ocr.out", "".join(x + "\n" for x in lines))
    c = read_collection(p)
    assert c.format == "text" and [i.text for i in c.items] == lines


# ----------------------------------------------------------------------------------------------
# gzip


def test_gzip_is_decompressed_and_the_format_detected_inside(tmp_path):
    plain = read_collection(EXAMPLES / "references.jsonl")
    raw = (EXAMPLES / "references.jsonl").read_bytes()
    for name in ("refs.jsonl.gz", "refs.gz"):
        c = read_collection(write(tmp_path / name, gzip.compress(raw)))
        assert c.format == "jsonl" and c.path == str(tmp_path / name)
        assert [(i.id, i.text, i.doc, i.lang) for i in c.items] == [(i.id, i.text, i.doc, i.lang) for i in plain.items]
        assert c.items[3].source == f"{tmp_path / name}:4"
    t = read_collection(write(tmp_path / "h.tsv.gz", gzip.compress(b"id\ttext\na\tx\n")))
    assert t.format == "tsv" and t.items[0].text == "x"
    forced = read_collection(write(tmp_path / "j.gz", gzip.compress(jsonl({"id": "a", "text": "x"}).encode())),
                             format="text")
    assert forced.format == "text" and forced.items[0].text == '{"id": "a", "text": "x"}'


def test_gzip_over_the_size_limit_is_refused(tmp_path, monkeypatch):
    p = write(tmp_path / "bomb.jsonl.gz", gzip.compress(b" " * 200_000 + b'{"id": "a", "text": "x"}\n'))
    monkeypatch.setattr(compressed, "GZIP_LIMIT", 100_000)
    msg = error(p)
    assert msg.startswith(f"{p}: ") and "decompresses to more than" in msg
    monkeypatch.setattr(compressed, "GZIP_LIMIT", 300_000)
    assert read_collection(p).items[0].text == "x"


def test_default_gzip_limit_is_bounded():
    assert 0 < coll.GZIP_LIMIT <= 4 << 30
    assert coll.GZIP_LIMIT == compressed.GZIP_LIMIT  # one limit: the collection reader's is the page files'


@pytest.mark.parametrize("data, words", [
    (gzip.compress(b'{"id": "a", "text": "x"}\n')[:-6], "truncated or corrupt gzip"),
    (gzip.compress(gzip.compress(b'{"id": "a", "text": "x"}\n')), "compressed twice"),
    (b'{"id": "a", "text": "x"}\n', "not gzip-compressed"),
])
def test_bad_gzip_is_one_line(tmp_path, data, words):
    p = write(tmp_path / "r.jsonl.gz", data)
    msg = error(p)
    assert msg.startswith(f"{p}: ") and words in msg


# ----------------------------------------------------------------------------------------------
# Standard input


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


@pytest.mark.parametrize("data, fmt, second", [
    (jsonl({"id": "a", "text": "x"}, {"id": "b", "text": "y"}).encode(), "jsonl", 2),
    (gzip.compress(b"id,text\na,x\nb,y\n"), "csv", 3),
    (b"x\ny\n", "text", 2),
])
def test_standard_input(monkeypatch, data, fmt, second):
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    c = read_collection("-")
    assert c.format == fmt and c.path == "<stdin>"
    assert [i.text for i in c.items] == ["x", "y"] and c.items[1].source == f"<stdin>:{second}"


def test_standard_input_errors_name_it(monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Stdin(HTML.encode()))
    assert error("-").startswith("<stdin>: ")
    monkeypatch.setattr(sys, "stdin", _Stdin(PAGE.encode()))  # a page on standard input is read like a file
    assert read_collection("-").items[0].text == "Hello"
    monkeypatch.setattr(sys, "stdin", _Stdin(b"x\n"))
    assert "needs a directory" in error("-", format="directory")


# ----------------------------------------------------------------------------------------------
# Forced formats and the registry


def test_unknown_and_unsupported_forced_formats(tmp_path):
    p = write(tmp_path / "h.txt", "x\n")
    msg = error(p, format="yaml")
    assert "unknown input format 'yaml'" in msg and "jsonl, json, tsv, csv, text, parquet, directory" in msg
    assert "not supported yet" in error(p, format="xml")
    assert error(p, format="page-xml").startswith(f"{p}:1:1: ")  # forced: read as PAGE-XML, which it is not


def test_a_registered_reader_reads_its_detected_format(tmp_path, monkeypatch):
    def read_page(data: bytes, name: str) -> list[Item]:
        assert b"<TEI" in data
        return [Item("l1", "Hello", "page1", None, f"{name}:3")]

    monkeypatch.setattr(coll, "READERS", dict(coll.READERS))
    coll.register_reader("xml", read_page)  # e.g. a TEI reader
    p = write(tmp_path / "p1.xml", XML)
    c = read_collection(p)
    assert c.format == "xml" and c.items == (Item("l1", "Hello", "page1", None, f"{p}:3"),)
    assert "xml" in coll.input_formats()
    with pytest.raises(ValueError):
        coll.register_reader("jsonl", read_page)  # a built-in format is not replaced by accident


@pytest.mark.parametrize("forced", ["hocr", "alto"])
def test_a_page_file_forced_to_another_page_format_is_refused_naming_both(forced):
    page = EXAMPLES / "pages" / "invoice.gt.xml"  # PAGE-XML: read as hOCR or ALTO it would be an empty page
    assert error(page, format=forced) == (f"{page}: is page-xml, not {forced} (the format asked for); drop the format "
                                          "option to read it as page-xml, or give --format page-xml")
    assert read_collection(page, format="page-xml").items  # its own format is read
