"""Real Tesseract output read by the hOCR and ALTO readers: an image is rendered here (Pillow's default
font), Tesseract (Debian packages tesseract-ocr and tesseract-ocr-eng) writes hOCR and ALTO, and both
readers must give the same lines, in the same order, with the same boxes. Skipped only when the
``tesseract`` executable or its English model is absent."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import semcer
from semcer.io.formats import detect_xml_format, read_page

TESSERACT = shutil.which("tesseract")
LINES = ["The quick brown fox", "jumps over the lazy dog", "Pack my box with five dozen jugs"]
WIDTH, HEIGHT = 1400, 80 + 90 * len(LINES)


def _has_english() -> bool:
    if TESSERACT is None:
        return False
    out = subprocess.run([TESSERACT, "--list-langs"], capture_output=True, text=True, timeout=60)
    return "eng" in out.stdout.split()


pytestmark = pytest.mark.skipif(not _has_english(), reason="tesseract with the English model is not installed "
                                "(Debian: apt-get install tesseract-ocr tesseract-ocr-eng)")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, Path]:
    pytest.importorskip("PIL", reason="Pillow renders the test image (pip install Pillow)")
    from PIL import Image, ImageDraw, ImageFont

    tmp = tmp_path_factory.mktemp("tess")
    font = ImageFont.load_default(size=40)
    img = Image.new("L", (WIDTH, HEIGHT), 255)
    draw = ImageDraw.Draw(img)
    for i, text in enumerate(LINES):
        draw.text((40, 40 + 90 * i), text, fill=0, font=font)
    png = tmp / "page.png"
    img.save(png)
    out = {}
    for kind in ("hocr", "alto"):
        subprocess.run([TESSERACT, str(png), str(tmp / "page"), "-l", "eng", "--psm", "4", kind], check=True,
                       capture_output=True, timeout=300)
        out[kind] = tmp / ("page.hocr" if kind == "hocr" else "page.xml")
    return out


def test_formats_are_detected(outputs):
    assert detect_xml_format(outputs["hocr"].read_bytes()[:65536]) == "hocr"
    assert detect_xml_format(outputs["alto"].read_bytes()[:65536]) == "alto"


def test_hocr_lines_read_the_rendered_text(outputs):
    page = read_page(outputs["hocr"], level="line")
    assert page.format == "hocr" and len(page.segments) == len(LINES)
    # Tesseract reads clean 40-pixel text almost perfectly: the page CER against what was drawn is small
    assert semcer.cer("\n".join(LINES), page.text) < 0.05
    for seg in page.segments:
        assert seg.id is not None and seg.id.startswith("line_")
        x0, y0, x1, y1 = seg.bbox
        assert 0 <= x0 < x1 <= WIDTH and 0 <= y0 < y1 <= HEIGHT


def test_alto_and_hocr_agree_line_for_line(outputs):
    hocr = read_page(outputs["hocr"], level="line")
    alto = read_page(outputs["alto"], level="line")
    assert alto.format == "alto" and alto.version == "3"
    assert [s.text for s in alto.segments] == [s.text for s in hocr.segments]
    assert [s.bbox for s in alto.segments] == [s.bbox for s in hocr.segments]  # HPOS+WIDTH = the hOCR x1
    assert alto.text == hocr.text


def test_region_levels_give_the_same_page_text(outputs):
    assert read_page(outputs["hocr"], level="par").text == read_page(outputs["hocr"], level="line").text
    assert read_page(outputs["alto"], level="block").text == read_page(outputs["alto"], level="line").text
