"""Reading labelled edits (data/severity/*.jsonl): contexts and labels, and every user error named."""

import json

import pytest
from helpers import DATA

from semcer.errors import InputError
from semcer.io.labels import load_labelled


def test_load_labelled_dev():
    contexts, labels = load_labelled(DATA / "dev.jsonl")
    assert len(contexts) == len(labels) == 915  # data/severity/README.md: dev 915 edits
    first = json.loads((DATA / "dev.jsonl").read_text(encoding="utf-8").splitlines()[0])
    c, lab = contexts[0], labels[0]
    assert (c.lang, c.op, c.ref_unit, c.hyp_unit, c.ref_pos, c.marked_hyp) == (
        first["lang"], first["op"], first["ref_unit"], first["hyp_unit"], first["ref_pos"], first["marked_hyp"]
    )
    assert c.lang_source == "item" and c.line_id == first["line_id"]
    assert lab.severity == first["severity"] and lab.mode == first["mode"] and len(lab.p) == 5


def test_load_labelled_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"lang": "en"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl:1: missing field"):
        load_labelled(bad)
    bad.write_text("not json\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl:1: malformed JSON"):  # semcer.io.jsonl's message
        load_labelled(bad)
    with pytest.raises(InputError, match=r"missing\.jsonl: no such file"):
        load_labelled(tmp_path / "missing.jsonl")


# ---- rows whose fields disagree with each other are refused (auditor's findings) ---------------

def test_every_row_of_every_labelled_file_is_accepted():
    # the checks below must hold for the data they describe: train and dev, all languages
    files = sorted(DATA.glob("*.jsonl"))
    assert [f.name for f in files] == ["dev.jsonl", "train.jsonl"]
    sizes = {f.name: len(load_labelled(f)[0]) for f in files}
    assert sizes == {"dev.jsonl": 915, "train.jsonl": 3792}  # README: train 3,792 edits, dev 915


_DEV_ROWS = [json.loads(line) for line in (DATA / "dev.jsonl").read_text(encoding="utf-8").splitlines()[:10]]
# row 4 (index 3) of dev.jsonl, written out so that the expectations below are checked by hand:
_ROW4 = {"id": "r2-digit:de-018-14:0", "op": "S", "ref_unit": "4", "hyp_unit": "0", "ref_pos": 10, "hyp_pos": 10,
         "ref": "Ubuntu 5.04 Sicherheitsaktualisierungen", "marked_ref": "Ubuntu 5.0⟦4⟧ Sicherheitsaktualisierungen",
         "p": [0.0, 0.025, 0.0, 0.275, 0.7], "severity": 0.9125, "mode": 4}

BAD_ROWS = {
    # name: (change to row 4, what the message says)
    "ref_pos past the line": ({"ref_pos": 9999}, "'ref_pos' is 9999, past the end of 'ref' (39 grapheme units"),
    "ref_unit not the unit at ref_pos": ({"ref_unit": "QQ"}, "'ref_unit' is 'QQ', but unit 10 of 'ref' is '4'"),
    "hyp_unit not the unit at hyp_pos": ({"hyp_unit": "9"}, "'hyp_unit' is '9', but unit 10 of 'hyp' is '0'"),
    "ref_pos at another unit": ({"ref_pos": 9}, "'ref_unit' is '4', but unit 9 of 'ref' is '0'"),
    "severity not p's": ({"severity": 0.1}, "severity 0.1 disagrees with p, whose expected rating (Σ p_k·k/4) is 0.9125"),
    "severity off by more than rounding": ({"severity": 0.913}, "severity 0.913 disagrees with p"),
    "mode not p's": ({"mode": 3}, "mode 3 disagrees with p, whose most likely level is 4"),
    "marked_ref without marks": ({"marked_ref": "Ubuntu 5.04 Sicherheitsaktualisierungen"},
                                 "'marked_ref' is not 'ref' with unit 10 between ⟦ ⟧"),
    "marks around another unit": ({"marked_ref": "Ubuntu 5.⟦0⟧4 Sicherheitsaktualisierungen"},
                                  "expected 'Ubuntu 5.0⟦4⟧ Sicherheitsaktualisierungen'"),
    "an insertion with a ref unit": ({"op": "I"}, "'ref_unit' is '4'; for op I it must be empty"),
    "id of another row": ({"id": "r2-digit:de-001-12:0"},
                          "duplicate id 'r2-digit:de-001-12:0' (first at {path}:1)"),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_an_inconsistent_row_is_refused_naming_file_line_and_fault(tmp_path, case):
    change, words = BAD_ROWS[case]
    assert {k: _DEV_ROWS[3][k] for k in _ROW4} == _ROW4
    rows = [dict(r) for r in _DEV_ROWS]
    rows[3].update(change)
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_labelled(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}:4: ") and words.format(path=path) in msg and "\n" not in msg, msg


def test_consistent_rows_without_derived_fields_or_with_rounded_severity_are_accepted(tmp_path):
    rows = [dict(r) for r in _DEV_ROWS]
    del rows[3]["severity"], rows[3]["mode"]  # derived from p
    rows[4]["severity"] = round(rows[4]["severity"], 3) + 0.00004  # within rounding of p's expected rating
    for r in rows:
        r.pop("id")  # ids are optional; rows without one are not duplicates of each other
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    _, labels = load_labelled(path)
    assert labels[3].severity == 0.9125 and labels[3].mode == 4  # Σ p_k·k/4 of [0, .025, 0, .275, .7]; level 4
    assert [lab.id for lab in labels] == [""] * 10


def test_positions_count_grapheme_clusters_not_code_points(tmp_path):
    # "e" + COMBINING ACUTE is one unit: the "a" after it is unit 1 (code point 2)
    row = {"lang": "fr", "op": "S", "ref_unit": "a", "hyp_unit": "o", "ref_pos": 1, "hyp_pos": 1,
           "ref": "e\u0301a", "hyp": "e\u0301o", "marked_ref": "e\u0301⟦a⟧", "marked_hyp": "e\u0301⟦o⟧", "severity": 0.5}
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (context,), _ = load_labelled(path)
    assert (context.ref_pos, context.ref_unit) == (1, "a")
    path.write_text(json.dumps({**row, "ref_pos": 2}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"labels\.jsonl:1: 'ref_pos' is 2, past the end of 'ref' \(2 grapheme units"):
        load_labelled(path)
