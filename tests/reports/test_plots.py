"""The report's plots: inline SVG drawn from plain data (well-formed, one mark per value, text
escaped, no style attribute), and the same plots as PNG and SVG files with matplotlib."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from semcer.reports.plots import files, nice_max, svg

NS = "{http://www.w3.org/2000/svg}"
EVIL = '<script>alert(1)</script>"><img src=x onerror=alert(1)>'

HIST = {"id": "severity", "kind": "histogram", "title": "Severity", "x_label": "severity", "y_label": "share",
        "edges": [k / 4 for k in range(5)],
        "series": [{"name": EVIL, "values": [0.5, 0.25, 0.25, 0.0], "n": 4}, {"name": "b", "values": [0, 0, 0, 1.0], "n": 1}]}
SCATTER = {"id": "documents", "kind": "scatter", "title": "CER against semCER", "x_label": "CER", "y_label": "semCER",
           "diagonal": True, "series": [{"name": "a", "points": [[0.1, 0.05], [0.3, 0.1]], "labels": [EVIL, "d2"]}]}
BARS = {"id": "languages", "kind": "bars", "title": "per language", "x_label": "language", "y_label": "rate",
        "groups": ["en", EVIL], "series": [{"name": "a · CER", "system": 0, "metric": "cer", "values": [0.1, None]},
                                           {"name": "a · semCER", "system": 0, "metric": "semcer", "values": [0.05, 0.2]}]}
CURVE = {"id": "top-of-list", "kind": "curve", "title": "top", "x_label": "x", "y_label": "y", "x_max": 0.5, "rule": 0.1,
         "diagonal": True, "series": [{"name": "judge", "points": [[0, 0], [0.25, 0.6], [0.5, 0.8], [1, 1]], "system": 0},
                                      {"name": "readers", "points": [[0, 0], [0.5, 1.0], [1, 1]], "dashed": True}]}


def _tree(plot):
    text = svg(plot)
    root = ET.fromstring(text)  # well-formed XML: every text escaped
    assert root.tag == f"{NS}svg"
    assert " style=" not in text and "<style" not in text and "<script" not in text and "<img" not in text
    return root, text


def test_histogram_has_one_bar_per_bin_and_system_with_its_height():
    root, text = _tree(HIST)
    bars = root.findall(f"{NS}rect")
    assert len(bars) == 4 * 2
    heights = [float(b.get("height")) for b in bars]
    # the tallest value (1.0) is the top of the scale; 0.5 is half of it
    assert heights[1 * 2 + 0] == pytest.approx(heights[0] / 2, abs=0.15)  # 0.25 vs 0.5
    assert max(heights) == heights[3 * 2 + 1]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_scatter_has_one_point_per_document_and_the_diagonal():
    root, text = _tree(SCATTER)
    assert len(root.findall(f"{NS}circle")) == 2
    assert any(line.get("stroke-dasharray") for line in root.findall(f"{NS}line"))
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in text


def test_bars_leave_an_undefined_value_out():
    root, _ = _tree(BARS)
    assert len(root.findall(f"{NS}rect")) == 3


def test_curve_draws_every_series_up_to_x_max():
    root, _ = _tree(CURVE)
    lines = root.findall(f"{NS}polyline")
    assert len(lines) == 2
    assert len(lines[0].get("points").split()) == 3  # the point at x = 1 is past x_max = 0.5


def test_nice_max():
    assert nice_max(0.093) == 0.1
    assert nice_max(0.11) == 0.2
    assert nice_max(0.21) == 0.25
    assert nice_max(0.0) == 1.0
    assert nice_max(3.2) == 5.0


@pytest.mark.parametrize("plot", [HIST, SCATTER, BARS, CURVE], ids=lambda p: p["id"])
def test_matplotlib_files(plot):
    pytest.importorskip("matplotlib")
    out = files(plot)
    assert out["png"].startswith(b"\x89PNG\r\n\x1a\n") and len(out["png"]) > 1000
    root = ET.fromstring(out["svg"])
    assert root.tag == f"{NS}svg"
    assert files(plot)["svg"] == out["svg"]  # no date, a fixed hash salt: the same bytes every run
