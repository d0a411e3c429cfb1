"""semcer against dinglehopper: grapheme CER after NFC, differentially, on a recorded fixture.

``tests/fixtures/dinglehopper.json`` holds dinglehopper's ``character_error_rate``, grapheme distance
and reference grapheme count for the 240 example lines (references vs real noisy Tesseract output) and
hand-written cases in many scripts; ``tests/fixtures/make_dinglehopper_fixture.py`` made it (the command
is in the fixture). dinglehopper's convention is NFC + extended grapheme clusters, which is semcer's
``unit="grapheme", policy="nfc"``: every case must give exactly the same counts and the same float,
except the cases in ``DIFFERENT``, where the conventions differ on purpose; those are asserted to
differ in the documented way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import semcer
from semcer.errors import EmptyReferenceError

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "dinglehopper.json").read_text(encoding="utf-8"))
CASES = {c["id"]: c for c in FIXTURE["cases"]}

#: Cases whose conventions differ on purpose, with the reason (each has its own test below).
DIFFERENT = {
    "empty-both": "empty reference and empty output: dinglehopper returns CER 0 (a distance of 0 short-circuits "
                  "before its n == 0 check); semcer: a CER over 0 reference units is undefined, an error naming "
                  "the line by default, null with empty_ref='insertions'",
    "empty-ref": "empty reference, non-empty output: dinglehopper returns float('inf') (which its JSON report "
                 "writes as Infinity); semcer: an error naming the line by default, null CER with the insertions "
                 "counted in the corpus numerator with empty_ref='insertions'",
}
SAME = [case_id for case_id in CASES if case_id not in DIFFERENT]


def _stats(ref: str, hyp: str, **kw) -> semcer.LineStats:
    return semcer.evaluate([ref], [hyp], unit="grapheme", policy="nfc", **kw).lines[0].stats


@pytest.mark.parametrize("case_id", SAME)
def test_same_cer_as_dinglehopper(case_id: str) -> None:
    case = CASES[case_id]
    stats = _stats(case["ref"], case["hyp"])
    assert (stats.units, stats.edits) == (case["ref_graphemes"], case["distance"]), case["note"]
    assert stats.cer == case["cer"]  # the same float, not approximately
    assert semcer.cer(case["ref"], case["hyp"], unit="grapheme", policy="nfc") == case["cer"]


def test_corpus_cer_of_the_examples_matches() -> None:
    examples = [c for c in FIXTURE["cases"] if c["source"] == "examples/tess_noisy"]
    ev = semcer.evaluate([c["ref"] for c in examples], [c["hyp"] for c in examples], unit="grapheme", policy="nfc")
    assert ev.corpus.edits == sum(c["distance"] for c in examples)
    assert ev.corpus.units == sum(c["ref_graphemes"] for c in examples)


def test_fixture_holds_every_example_line(example_pairs) -> None:
    refs, _, noisy = example_pairs
    examples = [c for c in FIXTURE["cases"] if c["source"] == "examples/tess_noisy"]
    assert [(c["id"], c["ref"], c["hyp"]) for c in examples] == [
        (r["id"], r["text"], h["text"]) for r, h in zip(refs, noisy)
    ]


def test_every_case_is_compared_or_listed() -> None:
    assert set(DIFFERENT) <= set(CASES)
    assert len(SAME) + len(DIFFERENT) == len(CASES)
    assert sum(c["source"] == "hand" for c in FIXTURE["cases"]) >= 60


def test_empty_reference_and_output_differs_as_documented() -> None:
    case = CASES["empty-both"]
    assert (case["ref"], case["hyp"], case["cer"], case["distance"]) == ("", "", 0.0, 0)
    with pytest.raises(EmptyReferenceError, match="line '1'"):
        _stats(case["ref"], case["hyp"])
    stats = _stats(case["ref"], case["hyp"], empty_ref="insertions")
    assert (stats.units, stats.edits, stats.cer) == (0, 0, None)  # undefined, where dinglehopper says 0


def test_empty_reference_with_output_differs_as_documented() -> None:
    case = CASES["empty-ref"]
    assert (case["ref"], case["cer"], case["cer_infinite"], case["distance"]) == ("", None, True, 3)
    with pytest.raises(EmptyReferenceError, match="line '1'"):
        _stats(case["ref"], case["hyp"])
    ev = semcer.evaluate([case["ref"]], [case["hyp"]], unit="grapheme", policy="nfc", empty_ref="insertions")
    stats = ev.lines[0].stats
    assert (stats.units, stats.insertions, stats.cer) == (0, case["distance"], None)  # null, not inf
    assert ev.corpus.edits == 3 and ev.corpus.cer is None
    assert "Infinity" not in json.dumps(ev.to_dict(lines=True))
