"""Reading collections (semcer.io.collections): every input format and every user error, named by
file and line."""

from __future__ import annotations

import json

import pytest
from helpers import EXAMPLES, jsonl, write
from helpers import read_error as error
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.io.collections import Item, read_collection

# ----------------------------------------------------------------------------------------------
# JSONL


def test_jsonl_fields_and_sources(tmp_path):
    p = write(tmp_path / "r.jsonl", jsonl(
        {"id": "a", "text": "Tiếng Việt", "doc": "d1", "lang": "vi"},
        {"id": "b", "text": "中文", "extra": [1, 2]},
    ))
    c = read_collection(p)
    assert c.format == "jsonl" and c.path == str(p) and len(c) == 2
    assert c.items[0] == Item("a", "Tiếng Việt", "d1", "vi", f"{p}:1")
    assert c.items[1] == Item("b", "中文", None, None, f"{p}:2")


def test_ndjson_suffix_and_explicit_format(tmp_path):
    p = write(tmp_path / "r.ndjson", jsonl({"id": "a", "text": "x"}))
    assert read_collection(p).format == "jsonl"
    q = write(tmp_path / "r.data", jsonl({"id": "a", "text": "x"}))
    assert read_collection(q).format == "jsonl"  # detected from the content
    assert read_collection(q, format="text").items[0].text == '{"id": "a", "text": "x"}'
    assert read_collection(q, format="jsonl").items[0].text == "x"


def test_jsonl_int_id_becomes_string(tmp_path):
    p = write(tmp_path / "r.jsonl", jsonl({"id": 7, "text": "x"}, {"id": -3, "text": "y"}))
    assert [i.id for i in read_collection(p).items] == ["7", "-3"]


@pytest.mark.parametrize("record, words", [
    ({"text": "x"}, "'id' is missing"),
    ({"id": "a"}, "'text' is missing"),
    ({"id": 1.5, "text": "x"}, "'id' is a number, not a string"),
    ({"id": True, "text": "x"}, "'id' is a boolean"),
    ({"id": "", "text": "x"}, "'id' is empty"),
    ({"id": "a", "text": None}, "'text' is null (id 'a')"),  # present but null: not "missing"
    ({"id": None, "text": "x"}, "'id' is null; every item needs a string id"),
    ({"id": "a", "text": 3}, "'text' is a number, not a string"),
    ({"id": "a", "text": "x", "doc": 3}, "'doc' must be a string"),
    ({"id": "a", "text": "x", "lang": ["en"]}, "'lang' must be a string"),
])
def test_jsonl_missing_or_wrong_fields(tmp_path, record, words):
    p = write(tmp_path / "r.jsonl", jsonl({"id": "ok", "text": "fine"}, record))
    msg = error(p)
    assert msg.startswith(f"{p}:2: ")
    assert words in msg


def test_jsonl_not_an_object(tmp_path):
    p = write(tmp_path / "r.jsonl", '["a", "b"]\n')
    assert error(p).startswith(f"{p}:1: expected a JSON object")


def test_jsonl_malformed_json_names_line_and_json_error(tmp_path):
    p = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": "x"}) + '{"id": "b", "text": "y"\n')
    msg = error(p)
    assert msg.startswith(f"{p}:2: malformed JSON: ")
    assert "delimiter" in msg and "column" in msg


def test_jsonl_trailing_data_is_malformed(tmp_path):
    p = write(tmp_path / "r.jsonl", '{"id": "a", "text": "x"} {"id": "b", "text": "y"}\n')
    assert error(p).startswith(f"{p}:1: malformed JSON: Extra data")


def test_jsonl_surrounding_whitespace_is_fine(tmp_path):
    p = write(tmp_path / "r.jsonl", '  {"id": "a", "text": " x "}  \n\t{"id": "b", "text": ""}\n')
    assert [i.text for i in read_collection(p).items] == [" x ", ""]


def test_jsonl_blank_lines_at_end_allowed_in_middle_not(tmp_path):
    ok = write(tmp_path / "ok.jsonl", jsonl({"id": "a", "text": "x"}) + "\n  \n\r\n")
    assert len(read_collection(ok)) == 1
    bad = write(tmp_path / "bad.jsonl",
                jsonl({"id": "a", "text": "x"}) + "\n" + jsonl({"id": "b", "text": "y"}))
    msg = error(bad)
    assert msg.startswith(f"{bad}:2: blank line")


def test_jsonl_crlf_and_no_final_newline(tmp_path):
    p = write(tmp_path / "r.jsonl", '{"id": "a", "text": "x"}\r\n{"id": "b", "text": "y"}')
    assert [(i.id, i.text) for i in read_collection(p).items] == [("a", "x"), ("b", "y")]


def test_jsonl_escaped_nul_and_lone_surrogate_rejected(tmp_path):
    p = write(tmp_path / "nul.jsonl",
              jsonl({"id": "a", "text": "x"}) + '{"id": "b", "text": "a\\u0000b"}\n')
    msg = error(p)
    assert msg.startswith(f"{p}:2: ") and "NUL" in msg
    q = write(tmp_path / "sur.jsonl", '{"id": "b", "text": "a\\ud800b"}\n')
    msg = error(q)
    assert msg.startswith(f"{q}:1: ") and "surrogate" in msg
    # a valid escaped pair is fine
    r = write(tmp_path / "ok.jsonl", '{"id": "b", "text": "\\ud83d\\ude00 \\u00e9"}\n')
    assert read_collection(r).items[0].text == "😀 é"


def test_empty_doc_and_lang_mean_not_given(tmp_path):
    p = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": "x", "doc": "", "lang": None}))
    item = read_collection(p).items[0]
    assert item.doc is None and item.lang is None


def test_bundled_example():
    c = read_collection(EXAMPLES / "references.jsonl")
    assert len(c) == 240 and c.format == "jsonl"
    assert len({i.doc for i in c.items}) == 20
    assert {i.lang for i in c.items} == {"en", "de", "vi", "zh_CN"}
    assert len({i.id for i in c.items}) == 240


# ----------------------------------------------------------------------------------------------
# TSV and CSV


def test_tsv_keeps_quotes_and_backslashes(tmp_path):
    p = write(tmp_path / "r.tsv", 'id\ttext\tdoc\tlang\n'
                                  'a\t"quoted" 5" screen \\t\td1\ten\n'
                                  'b\t\t\t\n')
    c = read_collection(p)
    assert c.format == "tsv"
    assert c.items[0] == Item("a", '"quoted" 5" screen \\t', "d1", "en", f"{p}:2")
    assert c.items[1] == Item("b", "", None, None, f"{p}:3")


def test_tsv_columns_in_any_order_extra_ignored_crlf(tmp_path):
    p = write(tmp_path / "r.tsv", "text\tscore\tid\r\n x \t0.5\t1\r\n")
    assert read_collection(p).items[0] == Item("1", " x ", None, None, f"{p}:2")


def test_tsv_missing_column_names_file_and_header(tmp_path):
    p = write(tmp_path / "r.tsv", "id\ttranscript\na\tx\n")
    msg = error(p)
    assert msg.startswith(f"{p}:1: ") and "'text'" in msg and "transcript" in msg


def test_tsv_wrong_field_count(tmp_path):
    p = write(tmp_path / "r.tsv", "id\ttext\na\tx\nb\tx\ty\n")
    msg = error(p)
    assert msg.startswith(f"{p}:3: 3 fields, the header has 2") and "tab" in msg


def test_tsv_blank_line_in_middle(tmp_path):
    p = write(tmp_path / "r.tsv", "id\ttext\na\tx\n\nb\ty\n")
    assert error(p).startswith(f"{p}:3: blank line")
    q = write(tmp_path / "q.tsv", "id\ttext\na\tx\n\n\n")
    assert len(read_collection(q)) == 1


def empty(path) -> str:
    """What an input with no items reads as: a collection without items, saying why (the pairing
    decides whether that is an error: tests/io/test_single_files.py)."""
    c = read_collection(path)
    assert c.items == () and c.empty
    return c.empty


def test_tsv_header_only_is_empty(tmp_path):
    p = write(tmp_path / "r.tsv", "id\ttext\n")
    assert "no items" in empty(p)


def test_csv_quoting_rules(tmp_path):
    p = write(tmp_path / "r.csv", 'id,text,lang\r\n'
                                  'a,"Hello, ""world""",en\r\n'
                                  'b,"two\nlines",de\r\n'
                                  'c,5" screen,\r\n')
    c = read_collection(p)
    assert c.format == "csv"
    assert [i.text for i in c.items] == ['Hello, "world"', "two\nlines", '5" screen']
    assert [i.lang for i in c.items] == ["en", "de", None]
    assert [i.source for i in c.items] == [f"{p}:2", f"{p}:3", f"{p}:5"]


def test_csv_errors_name_line(tmp_path):
    p = write(tmp_path / "r.csv", 'id,text\na,x\nb,"open\n')
    msg = error(p)
    assert msg.startswith(f"{p}:3: malformed row")
    q = write(tmp_path / "q.csv", "id,txt\na,x\n")
    assert error(q).startswith(f"{q}:1: header has no 'text' column")
    r = write(tmp_path / "s.csv", "id,text\na,x\n\nb,y\n\n")
    assert error(r).startswith(f"{r}:3: blank line")
    e = write(tmp_path / "e.csv", "id,text\n,x\n")
    assert error(e).startswith(f"{e}:2: 'id' is empty")


# ----------------------------------------------------------------------------------------------
# Plain text


def test_text_line_numbers_are_ids_and_blank_lines_kept(tmp_path):
    p = write(tmp_path / "h.txt", "first\n\n  indented \t\nlast\n")
    c = read_collection(p)
    assert c.format == "text"
    assert [(i.id, i.text) for i in c.items] == [
        ("1", "first"), ("2", ""), ("3", "  indented \t"), ("4", "last")]
    assert c.items[1].source == f"{p}:2"


def test_text_final_newline_optional_crlf_stripped_once(tmp_path):
    a = write(tmp_path / "a.txt", "x\r\ny")
    assert [i.text for i in read_collection(a).items] == ["x", "y"]
    b = write(tmp_path / "b.txt", "x\r\r\ny\rz\n\n")
    assert [i.text for i in read_collection(b).items] == ["x\r", "y\rz", ""]


def test_text_splits_only_on_newline(tmp_path):
    # str.splitlines would break at these; a line-aligned file must not
    odd = "a\u2028b\u2029c\x85d\x0be\x0cf\x1cg"
    p = write(tmp_path / "h.txt", odd + "\n")
    assert [i.text for i in read_collection(p).items] == [odd]


def test_text_single_newline_is_one_empty_item(tmp_path):
    p = write(tmp_path / "h.txt", "\n")
    assert [i.text for i in read_collection(p).items] == [""]


def test_bom_removed(tmp_path):
    p = write(tmp_path / "h.txt", b"\xef\xbb\xbfTi\xe1\xba\xbfng\n")
    assert read_collection(p).items[0].text == "Tiếng"
    q = write(tmp_path / "r.jsonl", b"\xef\xbb\xbf" + jsonl({"id": "a", "text": "x"}).encode())
    assert read_collection(q).items[0].id == "a"
    t = write(tmp_path / "r.tsv", b"\xef\xbb\xbfid\ttext\na\tx\n")
    assert read_collection(t).items[0].id == "a"


def test_long_line(tmp_path):
    long = "ấ" * 100_000
    p = write(tmp_path / "h.txt", long + "\n")
    q = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": long}))
    assert read_collection(p).items[0].text == long
    assert read_collection(q).items[0].text == long


# ----------------------------------------------------------------------------------------------
# Errors common to every file format


@pytest.mark.parametrize("name", ["h.txt", "r.jsonl", "r.tsv", "r.csv"])
def test_invalid_utf8_names_line_and_offset(tmp_path, name):
    head = {"h.txt": b"ok\n", "r.jsonl": b'{"id": "a", "text": "x"}\n',
            "r.tsv": b"id\ttext\n", "r.csv": b"id,text\n"}[name]
    p = write(tmp_path / name, head + b"b\xc3(oops\n")
    msg = error(p)
    assert msg.startswith(f"{p}:2: invalid UTF-8")
    assert f"byte offset {len(head) + 1}" in msg and "0xC3" in msg


def test_invalid_utf8_offset_counts_the_bom(tmp_path):
    p = write(tmp_path / "h.txt", b"\xef\xbb\xbfab\xff\n")
    assert "byte offset 5" in error(p)


@pytest.mark.parametrize("name", ["h.txt", "r.jsonl", "r.tsv", "r.csv"])
def test_nul_byte_names_line(tmp_path, name):
    body = {"h.txt": "a\nb\x00c\n",
            "r.jsonl": '{"id": "a", "text": "x"}\n{"id": "b", "text": "\x00"}\n',
            "r.tsv": "id\ttext\na\tb\x00\n", "r.csv": "id,text\na,b\x00\n"}[name]
    p = write(tmp_path / name, body)
    msg = error(p)
    assert msg.startswith(f"{p}:2: NUL")


@pytest.mark.parametrize("name, body, first, second", [
    ("r.jsonl", jsonl({"id": "a", "text": "x"}, {"id": "b", "text": "y"}, {"id": "a", "text": "z"}),
     1, 3),
    ("r.jsonl", jsonl({"id": 5, "text": "x"}, {"id": "5", "text": "y"}), 1, 2),
    ("r.tsv", "id\ttext\nq\tx\nq\ty\n", 2, 3),
    ("r.csv", "id,text\nq,x\nr,y\nq,z\n", 2, 4),
])
def test_duplicate_ids_name_both_lines(tmp_path, name, body, first, second):
    p = write(tmp_path / name, body)
    msg = error(p)
    assert msg.startswith(f"{p}:{second}: duplicate id")
    assert f"first at {p}:{first}" in msg


def test_missing_path(tmp_path):
    p = tmp_path / "nope.jsonl"
    msg = error(p)
    assert msg.startswith(str(p)) and "no such file" in msg


@pytest.mark.parametrize("name", ["h.txt", "r.jsonl", "r.tsv", "r.csv"])
def test_empty_file(tmp_path, name):
    p = write(tmp_path / name, b"")
    assert empty(p) == f"{p}: no items (the input is empty)"
    q = write(tmp_path / ("bom-" + name), b"\xef\xbb\xbf")
    assert empty(q) == f"{q}: no items (the input is empty)"


def test_unknown_or_mismatched_format(tmp_path):
    p = write(tmp_path / "h.txt", "x\n")
    assert "unknown input format 'yaml'" in error(p, format="yaml")
    assert "recognised but not supported yet" in error(p, format="xml")
    assert "needs a directory" in error(p, format="directory")
    assert "is a directory" in error(tmp_path, format="jsonl")


# ----------------------------------------------------------------------------------------------
# Directory of pages


def test_directory_ids_docs_and_order(tmp_path):
    root = tmp_path / "pages"
    write(root / "book2" / "p001.txt", "Zweite\n")
    write(root / "book1" / "p002.txt", "zwei\r\n")
    write(root / "book1" / "p001.txt", "eins\nmehr\n\n")
    write(root / "en" / "book3" / "p1.txt", "deep")
    write(root / "cover.txt", "")
    write(root / "book1" / "notes.md", "ignored")
    write(root / ".hidden" / "x.txt", "ignored")
    write(root / "book1" / ".x.txt", "ignored")
    (root / "empty.txt").mkdir()  # a directory named like a page is not a page
    c = read_collection(root)
    assert c.format == "directory" and c.path == str(root)
    assert [(i.id, i.text, i.doc) for i in c.items] == [
        ("book1/p001", "eins\nmehr\n", "book1"),  # keyed as page files are (page_key), not "book1/p001.txt"
        ("book1/p002", "zwei", "book1"),
        ("book2/p001", "Zweite", "book2"),
        ("cover", "", None),
        ("en/book3/p1", "deep", "en/book3"),
    ]
    assert c.items[0].source == str(root / "book1" / "p001.txt") + ":1"


def test_directory_errors(tmp_path):
    none = tmp_path / "empty"
    write(none / "readme.md", "x")
    assert empty(none) == f"{none}: no items (no .txt, PAGE-XML, ALTO or hOCR files in this directory)"
    bad = tmp_path / "bad"
    write(bad / "d" / "p.txt", b"ok\n\xff\n")
    msg = error(bad)
    assert msg.startswith(f"{bad / 'd' / 'p.txt'}:2: invalid UTF-8")
    nul = tmp_path / "nul"
    write(nul / "p.txt", "a\x00")
    assert error(nul).startswith(f"{nul / 'p.txt'}:1: NUL")


# ----------------------------------------------------------------------------------------------
# Scale and round trips


line_texts = st.lists(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00")),
    min_size=1, max_size=20,
)


@settings(max_examples=60, deadline=None)
@given(texts=line_texts, ensure_ascii=st.booleans())
def test_roundtrip_jsonl_and_text(tmp_path_factory, texts, ensure_ascii):
    d = tmp_path_factory.mktemp("rt")
    j = write(d / "r.jsonl", "".join(
        json.dumps({"id": str(i), "text": t}, ensure_ascii=ensure_ascii) + "\n"
        for i, t in enumerate(texts)))
    t = write(d / "r.txt", "".join(x + "\n" for x in texts))
    assert [i.text for i in read_collection(j).items] == texts
    assert [i.text for i in read_collection(t).items] == texts
    assert [i.id for i in read_collection(t).items] == [str(n) for n in range(1, len(texts) + 1)]


@pytest.mark.parametrize("lang", ["xx-!!", "klingon!!", "e", "de__DE", " en"])
def test_a_lang_that_is_not_a_language_tag_is_refused_naming_its_line(tmp_path, lang):
    path = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": "x", "lang": "en"}, {"id": "b", "text": "y", "lang": lang}))
    assert error(path) == (f"{path}:2: 'lang' {lang!r} is not a language tag (BCP 47 such as de, vi, zh-CN, or a "
                           "locale name such as zh_CN)")


@pytest.mark.parametrize("lang", ["de", "zh-CN", "zh_CN", "sr-Latn-RS", "gsw"])
def test_bcp47_tags_and_locale_names_are_read(tmp_path, lang):
    path = write(tmp_path / "r.tsv", f"id\ttext\tlang\na\tx\t{lang}\n")
    assert read_collection(path).items[0].lang == lang
