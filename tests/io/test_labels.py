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
