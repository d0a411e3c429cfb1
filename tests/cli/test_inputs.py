"""What `semcer cer` / `score` / `judge` read: formats detected from the content, refused formats,
--format / --ref-format / --hyp-format, standard input and gzip (issue 11, item 5)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest
from helpers import EXAMPLES, jsonl, write

REFS = EXAMPLES / "references.jsonl"
NOISY = EXAMPLES / "tess_noisy.jsonl"


def run(*args, input: bytes | None = None) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "semcer", *map(str, args)], capture_output=True, input=input,
                       timeout=300)
    p.stdout, p.stderr = p.stdout.decode("utf-8"), p.stderr.decode("utf-8")  # type: ignore[assignment]
    return p


def one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    return p.stderr


def test_json_array_is_scored_as_items_not_as_text(tmp_path):
    # one substitution over three graphemes: 33.33 %, whatever the JSON around it
    r = write(tmp_path / "refs.json", json.dumps([{"id": "p1", "text": "abc"}]))
    h = write(tmp_path / "hyps.json", json.dumps([{"id": "p1", "text": "abd"}], indent=2))
    p = run("cer", r, h, "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["corpus"]["substitutions"] == 1 and d["corpus"]["units"] == 3 and d["corpus"]["lines"] == 1
    assert d["corpus"]["cer"] == pytest.approx(1 / 3)
    assert "33.33 %" in run("cer", r, h).stdout


PAGE = """<?xml version="1.0" encoding="UTF-8"?>
<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">
  <Page imageFilename="p.png" imageWidth="10" imageHeight="10"><TextRegion id="r"><TextLine id="l">
    <TextEquiv><Unicode>Hello world</Unicode></TextEquiv></TextLine></TextRegion></Page>
</PcGts>
"""
PAGE_TEXT = "Hello world"  # the only line, as the region has no text of its own


@pytest.mark.parametrize("command", ["cer", "score", "judge"])
def test_page_xml_is_read_as_a_page(tmp_path, command):
    """PAGE-XML used to be read as plain text (0.51 % where dinglehopper gives the page's CER):
    now it is read as a page, by every command."""
    ref = write(tmp_path / "gt.xml", PAGE)
    hyp = write(tmp_path / "ocr.xml", PAGE.replace("world", "wor1d"))
    extra = ["--judge", "rubric", "--store", tmp_path / "s.sqlite"] if command == "judge" else ["--json"]
    p = run(command, ref, hyp, *extra)
    assert p.returncode == 0, p.stderr
    if command != "judge":
        corpus = json.loads(p.stdout)["corpus"]
        assert corpus["edits"] == 1 and corpus["units"] == len(PAGE_TEXT)


def test_other_markup_is_refused_in_one_line(tmp_path):
    html = write(tmp_path / "page.html", "<!doctype html>\n<html><body><p>Hello</p></body></html>\n")
    err = one_line_error(run("cer", html, html))
    assert "page.html" in err and "HTML" in err and "not supported yet" in err


def test_binary_input_is_refused_naming_it(tmp_path):
    pdf = write(tmp_path / "scan.jsonl", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    err = one_line_error(run("cer", REFS, pdf))
    assert "scan.jsonl" in err and "PDF" in err


def test_format_flags(tmp_path):
    refs = write(tmp_path / "refs.data", jsonl({"id": "1", "text": "abc"}, {"id": "2", "text": "xyz"}))
    hyps = write(tmp_path / "hyps.data", "abd\nxyz\n")
    d = json.loads(run("cer", refs, hyps, "--json").stdout)  # detected: JSONL and text
    assert d["corpus"]["edits"] == 1 and d["corpus"]["units"] == 6
    forced = json.loads(run("cer", refs, hyps, "--ref-format", "jsonl", "--hyp-format", "text", "--json").stdout)
    assert forced["corpus"] == d["corpus"]
    # --format applies to both sides: the references read as text have no id '1' with text 'abc'
    both = json.loads(run("cer", refs, hyps, "--format", "text", "--json").stdout)
    assert both["corpus"]["units"] == len('{"id": "1", "text": "abc"}') + len('{"id": "2", "text": "xyz"}')
    # --ref-format overrides --format for its side
    mixed = json.loads(run("cer", refs, hyps, "--format", "text", "--ref-format", "jsonl", "--json").stdout)
    assert mixed["corpus"] == d["corpus"]
    page = write(tmp_path / "page.xml", "<p>abd</p>\n<p>xyz</p>\n")
    forced_text = run("cer", write(tmp_path / "ref.txt", "<p>abc</p>\n<p>xyz</p>\n"), page, "--format", "text", "--json")
    assert forced_text.returncode == 0 and json.loads(forced_text.stdout)["corpus"]["edits"] == 1
    err = one_line_error(run("cer", refs, hyps, "--hyp-format", "jsonl"))
    assert "hyps.data:1" in err and "malformed JSON" in err


def test_unknown_format_flag_is_refused(tmp_path):
    p = run("cer", REFS, NOISY, "--format", "yaml")
    assert p.returncode == 2 and "Traceback" not in p.stderr and "yaml" in p.stderr and "jsonl" in p.stderr


def test_standard_input(tmp_path):
    from_file = json.loads(run("cer", REFS, NOISY, "--json").stdout)
    for args, data in (
        (("-", NOISY), REFS.read_bytes()),
        ((REFS, "-"), NOISY.read_bytes()),
        ((REFS, "-"), gzip.compress(NOISY.read_bytes())),
    ):
        p = run("cer", *args, "--json", input=data)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["corpus"] == from_file["corpus"]
    text = run("cer", write(tmp_path / "r.txt", "abc\n"), "-", "--format", "text", "--json",
               input=b'{"id": "1", "text": "abc"}\n')
    assert json.loads(text.stdout)["corpus"]["units"] == 3 and json.loads(text.stdout)["corpus"]["edits"] > 0


def test_standard_input_for_both_sides_is_refused():
    err = one_line_error(run("cer", "-", "-", input=b""))
    assert "standard input" in err


def test_gzip_files(tmp_path):
    from_file = json.loads(run("cer", REFS, NOISY, "--json").stdout)
    r = write(tmp_path / "refs.jsonl.gz", gzip.compress(REFS.read_bytes()))
    h = write(tmp_path / "noisy.gz", gzip.compress(NOISY.read_bytes()))
    p = run("cer", r, h, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["corpus"] == from_file["corpus"]
