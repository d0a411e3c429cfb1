"""Reading a directory of pages (semcer.io.collections): plain-text pages with CRLF line ends,
folders reached through symbolic links, folders that cannot be listed, and one page written in
several formats side by side.

Defects (audit): ``crg/p1.gt.txt`` with ``\\r\\n`` line ends scored 1.94 % CER against an identical
hOCR page (each inner ``\\r`` kept); a symlinked subfolder was skipped without a word (1 page of 2),
a folder holding only one said it held no pages, and a subfolder that could not be listed was
skipped silently; Tesseract's ``p1.txt``/``p1.hocr``/``p1.xml`` in one folder were refused as
"same page name" with the advice to rename one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import read_error as error
from helpers import write
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.io import collections as coll
from semcer.io.collections import PageOptions, parquet_shards, read_collection
from semcer.io.pairing import pair_collections

HOCR = ("<!DOCTYPE html>\n<html><head><meta name='ocr-system' content='tesseract 5.3.0' /></head><body>"
        "<div class='ocr_page' id='page_1'><p class='ocr_par' id='par_1'>"
        "<span class='ocr_line' id='line_1'><span class='ocrx_word'>Straße</span> <span class='ocrx_word'>in</span> "
        "<span class='ocrx_word'>Köln</span></span>"
        "<span class='ocr_line' id='line_2'><span class='ocrx_word'>Tiếng</span> <span class='ocrx_word'>Việt</span>"
        "</span></p></div></body></html>\n")


def semcer(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "semcer", *map(str, args)], capture_output=True, text=True)


def texts(path, **kwargs) -> list[tuple[str, str]]:
    return [(i.id, i.text) for i in read_collection(path, **kwargs).items]


# ----------------------------------------------------------------------------------------------
# 1. CRLF in a folder's .txt page: the line rule of every text reader


@pytest.mark.parametrize(("content", "text"), [
    (b"Stra\xc3\x9fe in K\xc3\xb6ln\r\nTi\xe1\xba\xbfng Vi\xe1\xbb\x87t\r\n", "Straße in Köln\nTiếng Việt"),
    ("中文\r\nहिन्दी\r\n\r\n".encode(), "中文\nहिन्दी\n"),  # a blank last line is kept, one final break removed
    (b"a\rb\r\nc", "a\rb\nc"),  # a lone CR is text, as in the JSONL and line-aligned readers
    (b"\r\n", ""),
    (b"", ""),
])
def test_a_crlf_text_page_reads_as_its_lf_form(tmp_path, content, text):
    d = tmp_path / "gt"
    write(d / "p1.gt.txt", content)
    assert texts(d) == [("p1", text)]


def test_a_crlf_ground_truth_scores_zero_against_the_same_hocr(tmp_path):
    write(tmp_path / "gt" / "p1.gt.txt", "Straße in Köln\r\nTiếng Việt\r\n")
    write(tmp_path / "ocr" / "p1.hocr", HOCR)
    pairs = pair_collections(read_collection(tmp_path / "gt"), read_collection(tmp_path / "ocr")).pairs
    assert [(p.ref, p.hyp) for p in pairs] == [("Straße in Köln\nTiếng Việt", "Straße in Köln\nTiếng Việt")]
    p = semcer("cer", tmp_path / "gt", tmp_path / "ocr", "--json")
    assert p.returncode == 0, p.stderr
    corpus = json.loads(p.stdout)["corpus"]
    assert (corpus["edits"], corpus["units"]) == (0, 25)  # 14 + 1 line break + 10


_LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"), max_size=12)


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=6), final=st.booleans())
def test_crlf_and_lf_pages_read_alike_and_as_the_single_page_lines(tmp_path_factory, lines, final):
    base = tmp_path_factory.mktemp("crlf")
    for name, sep in (("lf", "\n"), ("crlf", "\r\n")):
        write(base / name / "p.txt", sep.join(lines) + (sep if final else ""))
    (lf,), (crlf,) = texts(base / "lf"), texts(base / "crlf")
    kept = lines if final or lines[-1] else lines[:-1]  # without a final break, an empty last "line" is that break
    assert crlf == lf == ("p", "\n".join(kept))
    if kept:  # (an empty file is no line-aligned input)
        single = write(base / "single.txt", "\r\n".join(lines) + ("\r\n" if final else ""))
        assert [t for _, t in texts(single)] == kept  # the line-aligned reader's lines, one rule


# ----------------------------------------------------------------------------------------------
# 2. Symbolic links to folders are followed, loops refused; a folder that cannot be listed is named


def _book(tmp_path: Path) -> Path:
    """``g/p1.gt.txt`` and ``g/book`` -> ``store/gsub`` holding ``p2.gt.txt``."""
    write(tmp_path / "store" / "gsub" / "p2.gt.txt", "Tiếng Việt\n")
    g = write(tmp_path / "g" / "p1.gt.txt", "Straße\n").parent
    os.symlink(tmp_path / "store" / "gsub", g / "book")
    return g


def test_a_symlinked_subfolder_is_read_like_a_folder(tmp_path):
    g = _book(tmp_path)
    c = read_collection(g)
    assert [(i.id, i.text, i.doc) for i in c.items] == [("book/p2", "Tiếng Việt", "book"), ("p1", "Straße", None)]
    only = tmp_path / "only"
    only.mkdir()
    os.symlink(tmp_path / "store" / "gsub", only / "sub")  # a folder holding nothing but the link
    assert texts(only) == [("sub/p2", "Tiếng Việt")]


def test_a_link_back_to_a_folder_above_is_refused_as_a_loop(tmp_path):
    d = write(tmp_path / "loop" / "p1.txt", "x\n").parent
    (d / "a").mkdir()
    os.symlink("..", d / "a" / "up")
    assert error(d) == (f"{d / 'a' / 'up'}: a link back to {d}, a folder that holds it: reading it would loop "
                        f"forever; remove the link or point it outside {d}")
    os.symlink(".", d / "self")
    assert error(d).startswith(f"{d / 'a' / 'up'}: a link back to {d}, ")  # the first in name order


def test_one_folder_reached_twice_is_refused_not_read_twice(tmp_path):
    g = _book(tmp_path)
    os.symlink(tmp_path / "store" / "gsub", g / "copy")
    assert error(g) == (f"{g / 'copy'}: the same folder as {g / 'book'} (through a symbolic link): its pages would be "
                        "read twice; remove one of the two")
    with pytest.raises(coll.InputError, match="the same folder as"):
        parquet_shards(g)  # the Parquet shard walk is the same walk


def test_a_hidden_link_is_skipped_like_a_hidden_folder(tmp_path):
    g = _book(tmp_path)
    os.symlink(g, g / ".snapshot")  # would be a loop, but hidden names are never read
    assert [i for i, _ in texts(g)] == ["book/p2", "p1"]


def test_parquet_shards_below_a_symlinked_folder_are_found(tmp_path):
    write(tmp_path / "real" / "part-0.parquet", b"PAR1")
    d = tmp_path / "ds"
    d.mkdir()
    os.symlink(tmp_path / "real", d / "lang=vi")
    write(d / "_SUCCESS", b"")
    assert parquet_shards(d) == ["lang=vi/part-0.parquet"]


def test_a_folder_that_cannot_be_listed_is_an_error_naming_it(tmp_path, monkeypatch):
    d = write(tmp_path / "d" / "p1.txt", "x\n").parent
    sub = write(d / "sub" / "p2.txt", "y\n").parent
    real = os.scandir

    def scandir(path):
        if os.fspath(path) == str(sub):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(coll.os, "scandir", scandir)
    assert error(d) == (f"{sub}: cannot list this folder (Permission denied); give it read and search permission "
                        f"(chmod u+rx) or move it out of {d}")
    assert error(d, pages=PageOptions(keep_going=True)).startswith(f"{sub}: cannot list")  # not a page: never skipped


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root lists any folder")
def test_a_mode_000_folder_is_an_error(tmp_path):
    d = write(tmp_path / "d" / "p1.txt", "x\n").parent
    sub = write(d / "sub" / "p2.txt", "y\n").parent
    sub.chmod(0)
    try:
        assert error(d).startswith(f"{sub}: cannot list this folder (Permission denied)")
    finally:
        sub.chmod(0o755)


# ----------------------------------------------------------------------------------------------
# 3. One page in several formats side by side; a file named like a page that is none


def test_tesseracts_mixed_folder_names_the_formats_and_how_to_keep_one(tmp_path):
    d = tmp_path / "tess"
    for name in ("p1.txt", "p1.hocr", "p1.xml"):
        write(d / name, HOCR if name == "p1.hocr" else "x\n")
    assert error(d) == (
        f"{d}: page 'p1' is in 3 files of different formats: {d / 'p1.hocr'} (hOCR), {d / 'p1.txt'} (plain text), "
        f"{d / 'p1.xml'} (PAGE-XML or ALTO). A directory holds one file per page, and --ref-format/--hyp-format "
        f"apply to a file, not to a directory's pages: keep one format in {d} and move the others out of it (to "
        f"score the hOCR files: mkdir {d}-hocr && mv {d}/*.hocr {d}-hocr/, then give {d}-hocr)")
    p = subprocess.run(f"mkdir {d}-hocr && mv {d}/*.hocr {d}-hocr/", shell=True)  # the advice works
    assert p.returncode == 0 and texts(Path(f"{d}-hocr")) == [("p1", "Straße in Köln\nTiếng Việt")]
    sub = tmp_path / "book"
    write(sub / "vol1" / "p1.txt", "x\n")
    write(sub / "vol1" / "p1.hocr", HOCR)
    assert error(sub).endswith(f"move the others out of it (into a folder of their own, outside {sub}, with the same "
                               "subfolders)")
    same = tmp_path / "same"
    write(same / "p1.gt.txt", "x\n")
    write(same / "p1.txt.gz", b"")  # one format twice: the plain same-name message
    assert error(same) == (f"{same / 'p1.txt.gz'}: same page name 'p1' as {same / 'p1.gt.txt'} in {same}; rename one "
                           "of them (the name without extension, .gz and .gt/.ocr pairs the pages)")


def test_a_file_named_like_a_page_that_is_no_page_format_says_what_it_is(tmp_path):
    d = write(tmp_path / "d" / "p1.html", "<!doctype html>\n<html><body><p>Straße</p></body></html>\n").parent
    assert error(d) == (f"{d / 'p1.html'}: named like a page but not PAGE-XML, ALTO or hOCR (HTML with no hOCR class "
                        "(ocr_page, ocr_line, ocrx_word, ...) and no ocr-system meta tag); move it out of the "
                        "directory, or name it .txt to read it as a plain-text page")
    e = write(tmp_path / "e" / "p1.xml", "<TEI><text>中文</text></TEI>\n").parent
    assert "(XML whose root element is neither PcGts nor alto, in no PAGE or ALTO namespace)" in error(e)
    f = write(tmp_path / "f" / "p1.xml", "just words\n").parent
    assert "(it does not start with an XML or HTML element)" in error(f)
    empty = write(tmp_path / "h" / "p1.hocr", b"\n").parent
    assert "(the file is empty)" in error(empty)
    png = write(tmp_path / "g" / "p1.xml", b"\x89PNG\r\n\x1a\n\x00\x00").parent
    assert error(png) == f"{png / 'p1.xml'}: looks like a PNG image, not UTF-8 text; semcer reads UTF-8 text files"
