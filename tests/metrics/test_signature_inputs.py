"""The signature records how the inputs were paired and read, where that changes the numbers
(``--unmatched drop|empty``; page files read at line level, in the dinglehopper dialect, by line or
with ALTO's HYP joined or dropped), and only then: the defaults keep the signature they had."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import write

import semcer
from semcer.api.evaluation import word_errors
from semcer.cli import main
from semcer.metrics.signature import Signature
from semcer.text.units import unicode_versions
from semcer.version import __version__

PAGES = Path(__file__).parents[1] / "fixtures" / "pages"

# The environment's versions: the one part of a signature that is not a convention of the run.
_UV = unicode_versions()
_TAIL = f"unicode:nfc-{_UV['normalizer']},seg-{_UV['segmenter']}|semcer:{__version__}"
#: The signature of the default settings, as it was before these fields existed.
DEFAULT = "unit:grapheme|policy:nfc#230b1fed|empty:error|agg:corpus+docmean|" + _TAIL
DROP = "unit:grapheme|policy:nfc#230b1fed|empty:error|agg:corpus+docmean|unmatched:drop|" + _TAIL
EMPTY = "unit:grapheme|policy:nfc#230b1fed|empty:error|agg:corpus+docmean|unmatched:empty|" + _TAIL


def _cli(tmp_path, *args: str) -> dict:
    out = tmp_path / "out.json"
    assert main([*args, "--json", "-q", "-o", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.fixture
def one_missing(tmp_path):
    """Four references, outputs for three of them (one edit): 1/12 dropping the fourth, 5/16 scoring it empty."""
    refs = write(tmp_path / "refs.jsonl", "".join(json.dumps({"id": str(i), "text": "abcd"}) + "\n" for i in range(4)))
    hyps = write(tmp_path / "hyps.jsonl", "".join(json.dumps({"id": str(i), "text": t}) + "\n"
                                                  for i, t in enumerate(["abcd", "abcx", "abcd"])))
    return str(refs), str(hyps)


def test_the_default_signature_is_what_it_was(tmp_path, one_missing):
    refs, _ = one_missing
    full = write(tmp_path / "full.jsonl", "".join(json.dumps({"id": str(i), "text": "abcd"}) + "\n" for i in range(4)))
    assert str(semcer.evaluate(["abcd"], ["abcx"]).signature) == DEFAULT
    assert str(semcer.evaluate(refs, str(full)).signature) == DEFAULT
    assert _cli(tmp_path, "cer", refs, str(full))["signature"] == DEFAULT
    alto = _cli(tmp_path, "cer", str(PAGES / "alto.gt.xml"), str(PAGES / "alto.ocr.xml"))
    assert alto["signature"] == DEFAULT and Fraction(alto["corpus"]["edits"], alto["corpus"]["units"]) == Fraction(9, 105)
    assert _cli(tmp_path, "cer", str(PAGES / "alto.gt.xml"), str(PAGES / "alto.ocr.xml"), "--hyphen", "keep",
                "--level", "region", "--page-dialect", "semcer")["signature"] == DEFAULT


def test_unmatched_drop_and_empty_have_their_own_signatures(tmp_path, one_missing):
    refs, hyps = one_missing
    drop = _cli(tmp_path, "cer", refs, hyps, "--unmatched", "drop")
    empty = _cli(tmp_path, "cer", refs, hyps, "--unmatched", "empty")
    assert drop["corpus"]["edits"] == 1 and drop["corpus"]["units"] == 12
    assert empty["corpus"]["edits"] == 5 and empty["corpus"]["units"] == 16
    assert drop["signature"] == DROP and empty["signature"] == EMPTY
    assert drop["signature_fields"]["unmatched"] == "drop" and "unmatched" not in _cli(
        tmp_path, "cer", refs, refs)["signature_fields"]


def test_every_path_gives_the_same_signature(tmp_path, one_missing):
    refs, hyps = one_missing
    assert str(semcer.evaluate(refs, hyps, unmatched="empty").signature) == EMPTY
    for extra in ((), ("--workers", "2", "--chunk-lines", "1")):
        scored = _cli(tmp_path, "score", refs, hyps, "--unmatched", "empty", "--judge", "rubric", *extra)
        assert scored["signature"] == EMPTY.replace("|unmatched:", f"|judge:{scored['signature_fields']['judge']}"
                                                    "|unmatched:")
    judged = semcer.evaluate(refs, hyps, unmatched="empty", judge="rubric").signature
    assert str(judged) == scored["signature"]
    # two plain .jsonl files with the same ids are streamed without pairing: the policy is still recorded
    streamed = _cli(tmp_path, "score", refs, refs, "--unmatched", "drop", "--judge", "rubric")["signature"]
    assert streamed == str(semcer.evaluate({"1": "abcd"}, {"1": "abcd"}, unmatched="drop", judge="rubric").signature)
    assert "|unmatched:drop|" in streamed
    # WER, beside CER, says the same
    assert "|unmatched:empty|" in str(word_errors(refs, hyps, unmatched="empty").signature)
    assert "|unmatched:empty|" in _cli(tmp_path, "cer", refs, hyps, "--unmatched", "empty", "--wer")["wer"]["signature"]


def test_a_comparison_with_a_missing_output_scored_empty_keeps_one_signature(one_missing):
    refs, hyps = one_missing
    cmp = semcer.compare(refs, [refs, hyps], unmatched="empty", judge=None, n_resamples=40)
    assert str(cmp.signature).startswith(EMPTY.removesuffix(_TAIL))


@pytest.mark.parametrize(("hyphen", "field", "cer"), [
    ("keep", "", Fraction(9, 105)), ("join", "hyphen:join|", Fraction(11, 103)), ("drop", "hyphen:drop|", Fraction(8, 104)),
])
def test_alto_hyphen_handling_is_in_the_signature(tmp_path, hyphen, field, cer):
    d = _cli(tmp_path, "cer", str(PAGES / "alto.gt.xml"), str(PAGES / "alto.ocr.xml"), "--hyphen", hyphen)
    assert Fraction(d["corpus"]["edits"], d["corpus"]["units"]) == cer
    assert d["signature"] == DEFAULT.replace(_TAIL, field + _TAIL)


def test_hyphen_handling_of_files_without_hyp_is_not(tmp_path):
    d = _cli(tmp_path, "cer", str(PAGES / "p2019.gt.xml"), str(PAGES / "p2019.ocr.xml"), "--hyphen", "join")
    assert d["signature"] == DEFAULT


def test_level_dialect_and_by_line_are_in_the_signature(tmp_path):
    gt, ocr = str(PAGES / "p2019.gt.xml"), str(PAGES / "p2019.ocr.xml")
    region = _cli(tmp_path, "cer", gt, ocr, "--page-dialect", "dinglehopper")
    line = _cli(tmp_path, "cer", gt, ocr, "--page-dialect", "dinglehopper", "--level", "line")
    assert Fraction(region["corpus"]["edits"], region["corpus"]["units"]) == Fraction(63, 149)
    assert Fraction(line["corpus"]["edits"], line["corpus"]["units"]) == Fraction(31, 75)
    assert region["signature"] == DEFAULT.replace(_TAIL, "dialect:dinglehopper|" + _TAIL)
    assert line["signature"] == DEFAULT.replace(_TAIL, "level:line|dialect:dinglehopper|" + _TAIL)
    by_line = _cli(tmp_path, "cer", str(PAGES / "alto.gt.xml"), str(PAGES / "alto.ocr.xml"), "--by-line")
    assert by_line["signature"] == DEFAULT.replace(_TAIL, "granularity:segment|" + _TAIL)


def test_input_fields_round_trip_and_cannot_be_added_twice():
    sig = Signature.build("grapheme", semcer.get_policy("nfc"), "error", unmatched="empty",
                          reading=(("level", "line"), ("hyphen", "drop")))
    assert str(sig) == ("unit:grapheme|policy:nfc#230b1fed|empty:error|agg:corpus+docmean|unmatched:empty|level:line|"
                        "hyphen:drop|" + _TAIL)
    assert Signature.parse(str(sig)) == sig
    with pytest.raises(ValueError, match="unmatched"):
        sig.with_extras(unmatched="drop")
