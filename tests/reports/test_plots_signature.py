"""Plot files carry the run's signature and judge identity: in their metadata and in a footer line.

Defect (user audit): the `--plots` PNG and SVG files had no signature or judge identity, so a figure
pasted into a paper could not say which conventions and which judge its numbers came from.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest

import semcer
from semcer.judges import FixedJudge
from semcer.reports import plots
from semcer.reports.plots import footer_lines

pytest.importorskip("matplotlib")
Image = pytest.importorskip("PIL.Image")
np = pytest.importorskip("numpy")

HIST = {"id": "severity", "kind": "histogram", "title": "Severity", "x_label": "severity", "y_label": "share",
        "edges": [0, 0.5, 1], "series": [{"name": "a", "values": [0.75, 0.25], "n": 4}]}
SCATTER = {"id": "documents", "kind": "scatter", "title": "CER against semCER", "x_label": "CER", "y_label": "semCER",
           "diagonal": True, "series": [{"name": "a", "points": [[0.1, 0.05], [0.3, 0.1]], "labels": ["d1", "d2"]}]}
BARS = {"id": "languages", "kind": "bars", "title": "per language", "x_label": "language", "y_label": "rate",
        "groups": [f"l{k}" for k in range(14)],  # more than 12: rotated labels, the deepest bottom margin
        "series": [{"name": "a", "system": 0, "metric": "semcer", "values": [0.01 * k for k in range(14)]}]}
CURVE = {"id": "top-of-list", "kind": "curve", "title": "top", "x_label": "x", "y_label": "y", "x_max": 0.5,
         "rule": 0.1, "diagonal": True, "series": [{"name": "judge", "points": [[0, 0], [0.5, 0.8], [1, 1]]}]}
DC = "{http://purl.org/dc/elements/1.1/}"
JUDGE = "audit:p=0,0,0,0,1"  # FixedJudge(name="audit")'s identity, written out by hand


@pytest.fixture(scope="module")
def signature():
    sig = semcer.evaluate(["abc d"], ["abd d"], judge=FixedJudge(name="audit")).signature
    assert sig.judge == JUDGE
    return str(sig)


@pytest.mark.parametrize("plot", [HIST, SCATTER, BARS, CURVE], ids=lambda p: p["id"])
def test_png_and_svg_metadata_hold_the_signature_and_the_judge(plot, signature):
    out = plots.files(plot, signature=signature, judge=JUDGE)
    png = Image.open(io.BytesIO(out["png"]))
    assert png.text["Description"] == signature
    assert png.text["semcer.judge"] == JUDGE
    assert png.text["Software"] == f"semcer {semcer.__version__}"
    work = ET.fromstring(out["svg"]).find(".//{http://creativecommons.org/ns#}Work")
    assert work is not None
    assert work.find(f"{DC}description").text == signature
    assert work.find(f"{DC}contributor//{DC}title").text == JUDGE
    assert work.find(f"{DC}creator//{DC}title").text == f"semcer {semcer.__version__}"
    assert work.find(f"{DC}date") is None  # still no date: the same plot gives the same bytes


def test_without_a_signature_the_files_say_nothing_of_one():
    out = plots.files(HIST)
    assert "Description" not in Image.open(io.BytesIO(out["png"])).text
    assert ET.fromstring(out["svg"]).find(f".//{DC}description") is None


def _strip(png: bytes, rows: int = 26) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))[-rows:]


def test_the_footer_prints_the_signature_below_every_kind_of_plot(signature):
    """The bottom strip holds the footer only: the same pixels under every plot, inked, and
    different for another signature."""
    strips = [_strip(plots.files(p, signature=signature)["png"]) for p in (HIST, SCATTER, BARS, CURVE)]
    assert all((s == strips[0]).all() for s in strips)
    assert (strips[0] < 200).any()
    other = _strip(plots.files(HIST, signature=signature.replace("empty:error", "empty:skip"))["png"])
    assert not (other == strips[0]).all()


def test_footer_lines_break_after_a_bar_and_join_back():
    assert footer_lines("aa|bb|cc", 5) == ["aa|", "bb|cc"]
    assert footer_lines("abcdefghijkl|x", 5) == ["abcde", "fghij", "kl|x"]  # a field longer than a line is cut
    assert footer_lines("a\u202eb", 10) == ["a\\u202eb"]  # a bidi override is shown, not obeyed


def test_a_control_character_in_a_signature_read_from_a_file_keeps_the_svg_well_formed():
    out = plots.files(HIST, signature="unit:grapheme\x01|x", judge="j\x1b")
    assert ET.fromstring(out["svg"]).find(f".//{DC}description").text == "unit:grapheme\\x01|x"
    assert Image.open(io.BytesIO(out["png"])).text["Description"] == "unit:grapheme\x01|x"  # PNG text keeps it exact
