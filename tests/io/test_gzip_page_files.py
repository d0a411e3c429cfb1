"""Gzip-compressed page files read one by one (semcer.io.formats.read_page) and paired by name
(semcer.io.formats.pair_files / read_pairs), with the one gzip rule of every reader
(semcer.io.compressed): the limits and the errors of the collection reader.

Defect: ``pair_files`` of a folder of ``.hocr.gz`` pages found no page (its walk listed page files by
suffix only, so every ``.gz`` was "ignored"), and ``read_page`` of ``p1.hocr.gz`` parsed the gzip
bytes ("not a PAGE-XML, ALTO or hOCR file"): the gunzip lived in semcer.io.collections alone.
"""

from __future__ import annotations

import dataclasses
import gzip
import shutil
from pathlib import Path

import pytest
from helpers import read_error, write

from semcer.errors import InputError
from semcer.io import compressed
from semcer.io.formats import pair_files, read_page, read_pairs

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
HOCR = PAGES / "prov.hocr"  # Tesseract-style hOCR: two paragraphs, three lines
ALTO = PAGES / "alto.ocr.xml"


def gz(path: Path, data: bytes) -> Path:
    return write(path, gzip.compress(data))


def page_error(path: Path, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        read_page(path, **kwargs)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def same_page(a, b) -> bool:
    """Two pages read from two files are the same page (all but the file they were read from)."""
    return dataclasses.replace(a, file="") == dataclasses.replace(b, file="") and a.text == b.text


# ----------------------------------------------------------------------------------------------
# (a) read_page


@pytest.mark.parametrize("level", ["region", "line"])
def test_read_page_of_a_gzip_page_is_the_page_inside(tmp_path, level):
    for src, name in ((HOCR, "p1.hocr"), (ALTO, "p1.xml")):
        plain = shutil.copy(src, tmp_path / name)
        packed = gz(tmp_path / f"{name}.gz", src.read_bytes())
        a, b = read_page(plain, level=level), read_page(packed, level=level)
        assert b.text == a.text != "" and b.format == a.format and same_page(a, b)
        assert b.file == str(packed)  # messages and provenance name the file as given


def test_a_gzip_plain_text_page_is_text_and_gzip_data_is_found_by_its_signature(tmp_path):
    p = gz(tmp_path / "p1.gt.txt.gz", b"Erste Spalte 11\nnoch eine Zeile.\n")
    page = read_page(p)
    assert page.format == "text" and page.text == "Erste Spalte 11\nnoch eine Zeile."
    unnamed = gz(tmp_path / "p1.hocr", HOCR.read_bytes())  # gzip data not named .gz: as the collection reader
    assert read_page(unnamed).text == read_page(HOCR).text


def test_max_bytes_applies_to_the_page_inside(tmp_path):
    p = gz(tmp_path / "p1.hocr.gz", HOCR.read_bytes() + b" " * 50_000)
    assert p.stat().st_size < 5_000
    msg = page_error(p, max_bytes=20_000)
    assert msg.startswith(f"{p}: ") and "decompresses to more than 20,000 bytes, the limit for a page file" in msg


def test_a_small_gzip_page_that_would_decompress_past_the_limit_is_refused_while_it_decompresses(tmp_path):
    """A 10 MB page in a file of 10 KB was decompressed whole (up to the 2 GiB bomb limit) before the
    page limit refused it, its size in the message: now the reading stops at the limit."""
    p = gz(tmp_path / "p1.hocr.gz", HOCR.read_bytes() + b" " * 10_000_000)
    assert p.stat().st_size < 20_000
    msg = page_error(p, max_bytes=1_000_000)
    assert "decompresses to more than 1,000,000 bytes" in msg and "10,0" not in msg


# ----------------------------------------------------------------------------------------------
# (b) pair_files / read_pairs


def folders(tmp_path: Path, packed: bool) -> tuple[Path, Path]:
    gt, ocr = tmp_path / "gt", tmp_path / ("ocr-gz" if packed else "ocr")
    text = read_page(HOCR).text.replace("42", "4Z") + "\n"
    for rel in ("p1", "p2", "book/p3"):
        write(gt / f"{rel}.gt.txt", text)
        hocr = HOCR.read_bytes()
        if packed:
            gz(ocr / f"{rel}.hocr.gz", hocr)
        else:
            write(ocr / f"{rel}.hocr", hocr)
    write(gt / "only_gt.gt.txt", "x\n")
    write(ocr / "scan.png", b"\x89PNG\r\n\x1a\n")
    return gt, ocr


def test_pair_files_pairs_ground_truth_with_gzip_pages_as_with_plain_ones(tmp_path):
    gt, plain_ocr = folders(tmp_path, packed=False)
    _, packed_ocr = folders(tmp_path, packed=True)
    plain, packed = pair_files(gt, plain_ocr), pair_files(gt, packed_ocr)
    assert [(x.key, Path(x.hyp).name) for x in packed.pairs] == [
        ("book/p3", "p3.hocr.gz"), ("p1", "p1.hocr.gz"), ("p2", "p2.hocr.gz")]
    assert [(x.key, x.ref, Path(x.hyp).name + ".gz") for x in plain.pairs] == [
        (x.key, x.ref, Path(x.hyp).name) for x in packed.pairs]
    assert packed.only_hyps == () and [Path(f).name for f in packed.only_refs] == ["only_gt.gt.txt"]
    assert [Path(f).name for f in packed.ignored_hyps] == ["scan.png"]  # not a page, compressed or not
    a, b = read_pairs(plain), read_pairs(packed)
    assert b.failures == () and len(b.pairs) == 3
    assert [(p.key, p.ref.text, p.hyp.text) for p in b.pairs] == [(p.key, p.ref.text, p.hyp.text) for p in a.pairs]
    assert b.pairs[0].ref.text != b.pairs[0].hyp.text  # "4Z": a real difference survives the round trip


def test_pair_files_of_listed_gzip_files(tmp_path):
    ref = write(tmp_path / "p1.gt.txt", "Erste Spalte 11\n")
    hyp = gz(tmp_path / "p1.hocr.gz", HOCR.read_bytes())
    pairing = pair_files([ref], [hyp])
    assert [(x.key, x.ref, x.hyp) for x in pairing.pairs] == [("p1", str(ref), str(hyp))]
    assert read_pairs(pairing).pairs[0].hyp.text == read_page(HOCR).text


def test_a_gzip_page_and_the_same_page_plain_are_one_page_name(tmp_path):
    d = tmp_path / "ocr"
    write(d / "p1.hocr", HOCR.read_bytes())
    gz(d / "p1.hocr.gz", HOCR.read_bytes())
    with pytest.raises(InputError, match="same page name 'p1'"):
        pair_files(d, tmp_path / "other")


# ----------------------------------------------------------------------------------------------
# (c) bad gzip: the collection reader's errors


@pytest.mark.parametrize(("data", "words"), [
    (HOCR.read_bytes(), "named .gz but not gzip-compressed; rename it"),
    (gzip.compress(gzip.compress(HOCR.read_bytes())), "gzip-compressed twice; decompress it once yourself"),
    (gzip.compress(HOCR.read_bytes())[:-6], "truncated or corrupt gzip data"),
])
def test_bad_gzip_page_gives_the_collection_readers_error(tmp_path, data, words):
    p = write(tmp_path / "p1.hocr.gz", data)
    msg = page_error(p)
    assert msg.startswith(f"{p}: {words}")
    assert msg == read_error(p)  # one rule, one message
    pairing = pair_files([write(tmp_path / "p1.gt.txt", "x\n")], [p])
    failures = read_pairs(pairing, keep_going=True).failures
    assert failures == ((str(p), msg),)


# ----------------------------------------------------------------------------------------------
# (d) the decompression limit


def test_the_decompression_limit_applies_to_a_page_file(tmp_path, monkeypatch):
    p = gz(tmp_path / "p1.hocr.gz", HOCR.read_bytes() + b" " * 20_000)
    monkeypatch.setattr(compressed, "GZIP_LIMIT", 10_000)
    msg = page_error(p)
    assert msg.startswith(f"{p}: decompresses to more than 9.766 KiB (the limit against decompression bombs)")
    assert msg == read_error(p)
    pairing = pair_files([write(tmp_path / "p1.gt.txt", "x\n")], [p])
    with pytest.raises(InputError, match="decompresses to more than"):
        read_pairs(pairing)
    monkeypatch.setattr(compressed, "GZIP_LIMIT", 100_000)
    assert read_page(p).text == read_page(HOCR).text

