"""What the readers say about inputs a user got wrong (semcer.io.collections, semcer.io.jsonl,
semcer.io.pairing), and how a CSV/TSV header with spaces after its delimiters is read.

Defects (audit): ids differing only in NFC vs NFD were shown as ('é1') against ('é1'); a huge
integer id ended in Python's "use sys.set_int_max_str_digits()"; ``"text": null`` was "missing";
a header-only CSV was "empty"; a semicolon CSV got no word about its delimiter; a one-line
``{"items": [...]}`` got "'id' is missing"; ``p1.gt.txt`` against ``p1.hocr`` suggested
``--unmatched drop``, which then found nothing to score; ``id, text`` gave every text a leading
space (one insertion per line).
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import unicodedata

import pytest
from helpers import jsonl, write
from helpers import read_error as error
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.errors import InputError
from semcer.io.collections import read_collection
from semcer.io.jsonl import records
from semcer.io.pairing import pair_collections

HOCR = ("<!DOCTYPE html>\n<html><head><meta name='ocr-system' content='tesseract 5.3.0' /></head><body>"
        "<div class='ocr_page' id='page_1'><p class='ocr_par' id='par_1'><span class='ocr_line' id='line_1'>"
        "<span class='ocrx_word'>Straße</span></span></p></div></body></html>\n")


def pairing_error(refs, hyps, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        pair_collections(read_collection(refs), read_collection(hyps), **kwargs)
    return str(info.value)


# ----------------------------------------------------------------------------------------------
# Pairing


def test_ids_that_differ_only_in_normalisation_are_named_so(tmp_path):
    nfc, nfd = unicodedata.normalize("NFC", "é1"), unicodedata.normalize("NFD", "é1")
    refs = write(tmp_path / "ref.jsonl", jsonl({"id": nfc, "text": "Café"}))
    hyps = write(tmp_path / "hyp.jsonl", jsonl({"id": nfd, "text": "Cafe"}))
    assert pairing_error(refs, hyps) == (
        f"{refs} vs {hyps}: 1 reference id(s) have no output ('{nfc}') and 1 output id(s) have no reference "
        f"('{nfd}'). Of these, 1 reference id(s) differ from an output id only in Unicode normalisation (NFC vs NFD): "
        f"reference '{nfc}' (NFC: '\\xe91') against output '{nfd}' (NFD: 'e\\u03011'); normalise the ids of one side "
        "to the other's form (file names: convmv -r --nfc --notest DIR).")  # no --unmatched drop: it explains all
    more = write(tmp_path / "more.jsonl", jsonl({"id": nfd, "text": "Cafe"}, {"id": "中文", "text": "x"}))
    msg = pairing_error(refs, more)
    assert "Of these, 1 reference id(s) differ" in msg and msg.endswith("(command line: --unmatched drop).")
    assert "normalisation" in pairing_error(refs, hyps, unmatched="drop")  # and when nothing is left to score


def test_one_text_file_against_one_page_is_read_as_that_pages_text(tmp_path):
    # it was refused with advice to put the text file in a folder under the page's name; that folder's
    # reading is now what one text file against one page file gets (tests/io/test_single_files.py)
    gt = write(tmp_path / "p1.gt.txt", "Straße\n")
    page = write(tmp_path / "p1.hocr", HOCR)
    assert [(p.id, p.ref, p.hyp) for p in pair_collections(read_collection(gt), read_collection(page)).pairs] == [
        ("p1", "Straße", "Straße")]
    for refs, hyps in ((gt, page), (page, gt)):
        p = subprocess.run([sys.executable, "-m", "semcer", "cer", str(refs), str(hyps), "--json"], cwd=tmp_path,
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert '"edits": 0' in p.stdout


# ----------------------------------------------------------------------------------------------
# JSON and JSONL


def test_a_huge_integer_id_is_a_message_for_the_command_line(tmp_path):
    p = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": "x"}) + '{"id": ' + "9" * 5000 + ', "text": "y"}\n')
    assert error(p) == (f"{p}:2: unreadable JSON value: an integer of 5,000 digits, longer than semcer reads (4,300); "
                        'ids must be strings or integers of reasonable size: write a long number as a string ("id": '
                        '"123...")')
    q = write(tmp_path / "r.json", '[\n{"id": ' + "9" * 4301 + ', "text": "y"}]')
    assert error(q).startswith(f"{q}:2: unreadable JSON value: an integer of 4,301 digits")
    assert "set_int_max_str_digits" not in error(q)


def test_a_null_text_is_named_null(tmp_path):
    p = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": None}))
    assert error(p) == f"{p}:1: 'text' is null (id 'a'); use \"\" for an empty text"
    q = write(tmp_path / "s.jsonl", jsonl({"id": "a"}))
    assert error(q) == f"{q}:1: 'text' is missing (id 'a'); use \"\" for an empty text"


@pytest.mark.parametrize("name", ["obj.json", "obj.jsonl", "obj"])
def test_a_one_line_object_holding_the_records_is_a_single_object(tmp_path, name):
    p = write(tmp_path / name, '{"items":[{"id":"a","text":"Tiếng Việt"}]}\n')
    assert error(p) == (f"{p}:1: a single JSON object; a JSON input is an array of objects ([{{\"id\": ..., \"text\": "
                        "...}, ...]); one object per line is JSONL; its 'items' holds an array of objects: take them out "
                        f"with jq -c '.items[]' {p} > obj-records.jsonl")
    pretty = write(tmp_path / "pretty.json", '{\n  "data": [{"id": "a", "text": "x"}]\n}\n')
    assert error(pretty).endswith(f"take them out with jq -c '.data[]' {pretty} > pretty-records.jsonl")
    odd = write(tmp_path / "odd.json", '{"my items": [{"id": "a", "text": "x"}]}\n')
    assert error(odd).endswith("""jq -c '.["my items"][]' """ + f"{odd} > odd-records.jsonl")


def test_the_jq_advice_gives_the_records(tmp_path):
    p = write(tmp_path / "obj.json", '{"items":[{"id":"a","text":"Tiếng Việt"},{"id":"b","text":"中文"}]}\n')
    cmd = error(p).rpartition("take them out with ")[2]
    done = subprocess.run(cmd, shell=True, cwd=tmp_path, capture_output=True, text=True)
    if done.returncode == 127:
        pytest.skip("jq is not installed")
    assert done.returncode == 0, done.stderr
    assert [(i.id, i.text) for i in read_collection(tmp_path / "obj-records.jsonl").items] == [
        ("a", "Tiếng Việt"), ("b", "中文")]


def test_a_record_missing_both_fields_without_records_inside_is_still_missing(tmp_path):
    p = write(tmp_path / "r.jsonl", jsonl({"name": "x", "n": [1, 2]}))
    assert error(p) == f"{p}:1: 'id' is missing; every item needs a string id"


def test_records_of_the_jsonl_reader_say_the_same_about_huge_integers():
    with pytest.raises(InputError, match=r"^f:1: unreadable JSON value: an integer of 4,400 digits"):
        list(records('{"n": ' + "1" * 4400 + "}\n", "f"))


# ----------------------------------------------------------------------------------------------
# CSV and TSV


@pytest.mark.parametrize(("name", "body", "kind"), [("h.csv", "id,text\n", "CSV"), ("h.tsv", "id\ttext\r\n\n", "TSV")])
def test_a_header_and_no_rows_is_named_so(tmp_path, name, body, kind):
    p = write(tmp_path / name, body)
    assert read_collection(p).empty == f"{p}: no items (a {kind} header and no rows); add one row per item below the header"
    assert read_collection(p).items == ()  # an empty collection: an error as a reference, not always as an output


@pytest.mark.parametrize(("name", "body", "hint"), [
    ("s.csv", "id;text\na;Straße\n", "; its fields are separated by semicolons: semcer reads .csv files with commas "
     "and .tsv files with tabs, so save it with one of them (a spreadsheet's CSV export writes commas)"),
    ("t.csv", "id\ttext\na\tStraße\n", "; its fields are separated by tabs: name it .tsv (or pass --format tsv), a "
     ".csv file is read with commas"),
    ("c.tsv", "id,text\na,Straße\n", "; its fields are separated by commas: name it .csv (or pass --format csv), a "
     ".tsv file is read with tabs"),
    ("b.csv", "id|text\na|Straße\n", "; its fields are separated by vertical bars: "),
    ("n.csv", "key,value\na,Straße\n", ""),  # no other delimiter helps: no hint
])
def test_a_header_split_on_another_delimiter_says_so(tmp_path, name, body, hint):
    p = write(tmp_path / name, body)
    msg = error(p)
    assert msg.startswith(f"{p}:1: header has no ")
    if hint:
        assert hint in msg
    else:
        assert msg.endswith("a CSV file needs a header row with at least 'id' and 'text'")


def test_a_semicolon_file_read_as_advised_is_right(tmp_path):
    p = write(tmp_path / "t.csv", "id\ttext\na\tStraße, Köln\n")
    assert [i.text for i in read_collection(p, format="tsv").items] == ["Straße, Köln"]


def test_spaces_after_the_header_delimiters_are_skipped_in_every_row(tmp_path):
    p = write(tmp_path / "spaced.csv", 'id, text\na, Straße in Köln\nb,  Tiếng Việt\nc, " quoted, kept"\nd,中文\n')
    assert [(i.id, i.text) for i in read_collection(p).items] == [
        ("a", "Straße in Köln"), ("b", "Tiếng Việt"), ("c", " quoted, kept"), ("d", "中文")]
    t = write(tmp_path / "spaced.tsv", "id\t text\na\t ภาษาไทย\n")
    assert [i.text for i in read_collection(t).items] == ["ภาษาไทย"]


def test_without_spaces_in_the_header_a_value_is_read_as_written(tmp_path):
    p = write(tmp_path / "exact.csv", "id,text\na, leading space\n")
    assert [i.text for i in read_collection(p).items] == [" leading space"]


@pytest.mark.parametrize("header", ["id,text ", "id ,text", "id\t,text"])
def test_white_space_before_a_header_delimiter_is_refused(tmp_path, header):
    p = write(tmp_path / "r.csv", f"{header}\na,x\n")
    name = next(h for h in header.split(",") if h != h.strip())
    assert error(p) == (f"{p}:1: header column {name!r} has white space around its name; the values are read as "
                        "written, so theirs would count as text: remove it (spaces after a delimiter alone are "
                        "skipped, in the header and in every row)")


_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(_TEXT, min_size=1, max_size=5), spaced=st.booleans())
def test_what_a_csv_writer_wrote_reads_back_exactly(tmp_path_factory, texts, spaced):
    rows = [[f"id{k}", t] for k, t in enumerate(texts)]
    out = io.StringIO()
    if spaced:  # every field quoted, ", " between them: spaces inside quotes are text
        out.write("id, text\n" + "".join(", ".join(f'"{f.replace(chr(34), chr(34) * 2)}"' for f in row) + "\n"
                                         for row in rows))
    else:  # the csv module's own minimal quoting: a leading space is written bare, and kept
        csv.writer(out, lineterminator="\n").writerows([["id", "text"], *rows])
    p = write(tmp_path_factory.mktemp("csv") / "r.csv", out.getvalue())
    assert [(i.id, i.text) for i in read_collection(p).items] == [tuple(r) for r in rows]
