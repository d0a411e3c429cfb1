"""Edit lists (semcer.io.edits): a CSV cell that a spreadsheet would run as a formula is neutralised;
JSONL and Parquet keep the exact text (issue 11, item 8).

Defect: OCR text such as `=HYPERLINK("http://evil.example","click")` went into `--edits x.csv`
as it was, and a spreadsheet opening the file ran it.
"""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.io.edits import FIELDS, write_edits
from semcer.judges import FixedJudge

# (line id, reference, output): the output differs at the start, so the marked pair, the units or
# the id begin with a formula character.
LINES = [
    ('=HYPERLINK("http://evil.example","x")', '=HYPERLINK("http://evil.example","click")', '=HYPERLINK("http://evil.example","c1ick")'),
    ("+1", "+1 555 0100", "-1 555 0100"),
    ("-5", "-5 °C", "+5 °C"),
    ("@SUM", "@SUM(A1:A9)", "=SUM(A1:A9)"),
    ("tab", "\tindented", "\tindentcd"),
    ("cr", "\rreturn", "\rretum"),
    ("quote", "'quoted", "'quotcd"),
    ("plain", "Hà Nội", "Ha Nội"),
]
DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture(scope="module")
def judged():
    refs = {i: r for i, r, _ in LINES}
    hyps = {i: h for i, _, h in LINES}
    ev = semcer.evaluate(refs, hyps, judge=FixedJudge(), edits=True)
    assert ev.judged
    return ev.judged


def _rows(path, fmt):
    if fmt == "csv":
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))
    if fmt == "jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()


def test_csv_cells_that_spreadsheets_run_are_prefixed_with_a_quote(tmp_path, judged):
    write_edits(tmp_path / "e.jsonl", judged)
    write_edits(tmp_path / "e.csv", judged)
    exact, cells = _rows(tmp_path / "e.jsonl", "jsonl"), _rows(tmp_path / "e.csv", "csv")
    assert len(cells) == len(exact) == len(judged)
    for row in cells:  # the safety property, whatever the text
        for value in row.values():
            assert not value.startswith(DANGEROUS), row
    ids = {r["line_id"] for r in cells}
    assert {"'=HYPERLINK(\"http://evil.example\",\"x\")", "'+1", "'-5", "'@SUM"} <= ids
    for e, c in zip(exact, cells, strict=True):
        for key in ("line_id", "doc", "ref_unit", "hyp_unit", "marked_ref", "marked_hyp"):
            value = e[key] or ""
            # the documented rule: one leading ' before =, +, -, @, tab, CR or ' (so it can be undone)
            assert c[key] == ("'" + value if value.startswith((*DANGEROUS, "'")) else value), (key, value, c[key])
    plus = next(c for c in cells if c["line_id"] == "'+1")
    assert (plus["ref_unit"], plus["hyp_unit"]) == ("'+", "'-")
    assert plus["marked_ref"] == "⟦+⟧1 555 0100"  # begins with the mark: not a formula, unchanged
    link = next(c for c in cells if c["line_id"].startswith("'=HYPERLINK"))
    assert link["marked_ref"] == "'=HYPERLINK(\"http://evil.example\",\"c⟦l⟧ick\")"
    assert link["marked_hyp"] == "'=HYPERLINK(\"http://evil.example\",\"c⟦1⟧ick\")"


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_jsonl_and_parquet_keep_the_exact_text(tmp_path, judged, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    write_edits(tmp_path / f"e.{fmt}", judged)
    rows = _rows(tmp_path / f"e.{fmt}", fmt)
    assert {r["line_id"] for r in rows} == {i for i, _, _ in LINES}
    by_id = {r["line_id"]: r for r in rows if r["ref_unit"] in ("+", "-", "@")}
    assert by_id["+1"]["ref_unit"] == "+" and by_id["+1"]["hyp_unit"] == "-"
    assert by_id["+1"]["marked_ref"] == "⟦+⟧1 555 0100"
    link = next(r for r in rows if r["line_id"].startswith("=HYPERLINK"))
    assert link["marked_ref"] == '=HYPERLINK("http://evil.example","c⟦l⟧ick")' and link["doc"] == link["line_id"]
    assert set(FIELDS) <= set(rows[0])


@settings(max_examples=40, deadline=None)
@given(line_id=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1,
                       max_size=12))
def test_csv_undo_rule_gives_back_the_exact_id(tmp_path_factory, line_id):
    d = tmp_path_factory.mktemp("e")
    ev = semcer.evaluate({line_id: "abc"}, {line_id: "abd"}, judge=FixedJudge(), edits=True)
    write_edits(d / "e.csv", ev.judged)
    (row,) = _rows(d / "e.csv", "csv")
    assert not row["line_id"].startswith(DANGEROUS)
    undone = row["line_id"][1:] if row["line_id"].startswith("'") else row["line_id"]
    assert undone == line_id


def test_each_edit_names_its_error_span(tmp_path):
    # by hand: "Total 120 EUR" -> "Totl 128 EUR!": the deleted 'a' is span #0, the 0 -> 8 span #1 and the
    # inserted '!' span #2 (edits are adjacent only when the reference positions touch)
    ev = semcer.evaluate({"L": "Total 120 EUR", "M": "ab"}, {"L": "Totl 128 EUR!", "M": "xy"}, judge=FixedJudge(),
                         edits=True)
    write_edits(tmp_path / "e.jsonl", ev.judged)
    rows = _rows(tmp_path / "e.jsonl", "jsonl")
    spans = {(r["line_id"], r["op"], r["ref_unit"], r["hyp_unit"]): r["span_id"] for r in rows}
    assert spans == {("L", "D", "a", ""): "L#0", ("L", "S", "0", "8"): "L#1", ("L", "I", "", "!"): "L#2",
                     ("M", "S", "a", "x"): "M#0", ("M", "S", "b", "y"): "M#0"}
    # the same ids as the spans of the score JSON (semcer score --spans)
    out = tmp_path / "s.json"
    edits = tmp_path / "e2.csv"
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    refs.write_text('{"id": "L", "text": "Total 120 EUR"}\n{"id": "M", "text": "ab"}\n', encoding="utf-8")
    hyps.write_text('{"id": "L", "text": "Totl 128 EUR!"}\n{"id": "M", "text": "xy"}\n', encoding="utf-8")
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "semcer", "score", str(refs), str(hyps), "--json", "--lines", "--spans",
                        "10", "-o", str(out), "--edits", str(edits)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    import json

    listed = {r["span_id"] for r in _rows(edits, "csv")}
    shown = {sp["span_id"] for sp in json.loads(out.read_text(encoding="utf-8"))["spans"]}
    assert listed == shown == {"L#0", "L#1", "L#2", "M#0"}
