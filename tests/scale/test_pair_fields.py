"""A pair's doc and lang from its reference and its output: one rule
(:func:`semcer.io.pairing.pair_fields`) for the whole-file reader (``pair_collections``, then
``--lang`` by ``with_lang``) and the streamed reader (:mod:`semcer.scale.reading`).

Before, each had its own copy (``_agree`` in both modules). They agreed on every case below but one:
two spellings of one language tag (``en_US`` against ``en-us``) stopped the whole-file reader as a
disagreement, and sent the streamed one back to it (to the same error). Now the two are one tag,
given by both in BCP 47's spelling (RFC 5646, 2.1.1: ``en-US``), as is a default ``--lang``. The
expected values are written by hand from the rule.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from semcer.api.evaluation import with_lang
from semcer.errors import InputError
from semcer.io.collections import read_collection
from semcer.io.pairing import SidesDisagree, pair_collections, pair_fields
from semcer.scale.reading import jsonl_source

# id: (reference's doc, lang), (output's doc, lang), then the pair's (doc, lang) without --lang and
# with --lang de (or DE: one tag). None: the field is not in the record.
CASES = {
    "neither": ((None, None), (None, None), ("neither", None), ("neither", "de")),
    "ref-only": (("d1", "vi"), (None, None), ("d1", "vi"), ("d1", "vi")),
    "hyp-only": ((None, None), ("d2", "zh-CN"), ("d2", "zh-CN"), ("d2", "zh-CN")),
    "both-same": (("d3", "en"), ("d3", "en"), ("d3", "en"), ("d3", "en")),
    "ref-doc-hyp-lang": (("d4", None), (None, "hi"), ("d4", "hi"), ("d4", "hi")),
    "two-spellings": ((None, "en_US"), (None, "en-us"), ("two-spellings", "en-US"), ("two-spellings", "en-US")),
    "spelled-otherwise": (("d6", "VI"), (None, None), ("d6", "vi"), ("d6", "vi")),
    "blank-is-none": (("", ""), ("d5", ""), ("d5", None), ("d5", "de")),
}


def _record(id_: str, text: str, doc: str | None, lang: str | None) -> str:
    rec = {"id": id_, "text": text}
    rec.update({k: v for k, v in (("doc", doc), ("lang", lang)) if v is not None})
    return json.dumps(rec, ensure_ascii=False) + "\n"


def _files(tmp_path: Path, cases: dict) -> tuple[Path, Path]:
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    refs.write_text("".join(_record(i, "Tiếng Việt", *c[0]) for i, c in cases.items()), encoding="utf-8")
    hyps.write_text("".join(_record(i, "Tieng Viet", *c[1]) for i, c in cases.items()), encoding="utf-8")
    return refs, hyps


def _whole(refs: Path, hyps: Path, lang: str | None) -> list[tuple[str, str, str | None]]:
    paired = with_lang(pair_collections(read_collection(refs), read_collection(hyps)), lang)
    return [(p.id, p.doc, p.lang) for p in paired.pairs]


def _streamed(refs: Path, hyps: Path, lang: str | None) -> list[tuple[str, str, str | None]] | None:
    source = jsonl_source(str(refs), str(hyps), formats=(None,), lang=lang)
    return None if source is None else [(p.id, p.doc, p.lang) for p in source.pairs()]


@pytest.mark.parametrize("lang", [None, "de", "DE"])
def test_both_readers_give_each_pair_the_same_doc_and_lang(tmp_path, lang):
    refs, hyps = _files(tmp_path, CASES)
    want = [(i, *(c[3] if lang else c[2])) for i, c in CASES.items()]
    assert _whole(refs, hyps, lang) == want
    assert _streamed(refs, hyps, lang) == want  # streamed, not sent back to the whole-file reader


@pytest.mark.parametrize(("ref", "hyp", "key", "shown"), [
    (("d1", None), ("d2", None), "doc", "'d1' in the references but 'd2' in the outputs"),
    (("D", None), ("d", None), "doc", "'D' in the references but 'd' in the outputs"),  # a doc is an id: case counts
    ((None, "en"), (None, "en-US"), "lang", "'en' in the references but 'en-US' in the outputs"),  # two tags
    ((None, "pt_BR"), (None, "pt-PT"), "lang", "'pt_BR' in the references but 'pt-PT' in the outputs"),
])
def test_a_disagreement_stops_the_whole_file_reader_and_is_never_streamed(tmp_path, ref, hyp, key, shown):
    refs, hyps = _files(tmp_path, {"x1": ((None, None), (None, None)), "x2": (ref, hyp)})
    assert _streamed(refs, hyps, None) is None  # the caller reads the files whole: its error is the one
    with pytest.raises(InputError) as info:
        _whole(refs, hyps, None)
    assert str(info.value) == f"{refs}:2: id 'x2' has {key} {shown} ({hyps}:2); the two sides must agree"
    with pytest.raises(SidesDisagree) as raised:
        pair_fields("x2", *ref, *hyp)
    assert (raised.value.key, raised.value.ref, raised.value.hyp) == (key, ref[0] or ref[1], hyp[0] or hyp[1])


def test_pair_fields_by_hand():
    assert pair_fields("l1", None, None, None, None) == ("l1", None)
    assert pair_fields("l1", None, None, None, None, "th") == ("l1", "th")
    assert pair_fields("l1", "book", "EN", "book", "en", "th") == ("book", "en")  # one tag, BCP 47's spelling
    assert pair_fields("l1", None, None, "book", "ZH_hant", None) == ("book", "zh-Hant")  # a script is title case
    assert pair_fields("l1", None, None, None, None, "sr_latn_rs") == ("l1", "sr-Latn-RS")  # the default too


def test_a_reference_without_an_output_takes_the_same_rule(tmp_path):
    refs, hyps = _files(tmp_path, {"a": (("d1", "vi"), (None, None)), "b": ((None, None), (None, None))})
    hyps.write_text(_record("a", "x", None, None), encoding="utf-8")
    paired = pair_collections(read_collection(refs), read_collection(hyps), unmatched="empty")
    assert [(p.id, p.hyp, p.doc, p.lang) for p in with_lang(paired, "de").pairs] == [
        ("a", "x", "d1", "vi"), ("b", "", "b", "de")]
