"""The public API (semcer.cer, semcer.align, semcer.evaluate): seed figures, jiwer differential
tests, the empty-reference policy, user errors."""

import json
import math

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.errors import EmptyReferenceError, InputError
from semcer.judges.base import FixedJudge
from semcer.store.sqlite import JudgedEditStore

# ---- seed figures (../shared/seeds: "What the score counts") --------------------------------


def test_seed_one_substitution_is_twenty_percent():
    al = semcer.align("110-2", "11O-2")
    assert (al.stats.substitutions, al.stats.deletions, al.stats.insertions) == (1, 0, 0)
    assert semcer.cer("110-2", "11O-2") == pytest.approx(0.20)


def test_seed_insertions_exceed_one_hundred_percent():
    assert semcer.cer("a", "aaaa") == pytest.approx(3.0)


def test_seed_empty_reference_is_an_error_naming_the_line():
    with pytest.raises(EmptyReferenceError, match=r"line 'p2'.*empty"):
        semcer.evaluate({"p1": "abc", "p2": ""}, {"p1": "abc", "p2": "x"})


# ---- jiwer differential: code points + raw policy must equal jiwer.cer exactly ----------------

# jiwer strips leading/trailing whitespace of each sentence and rejects empty references, so the
# generated strings carry no surrounding whitespace and references are non-empty.
text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)
ref_text = text.map(str.strip).filter(bool)
hyp_text = text.map(str.strip)


@settings(max_examples=300)
@given(ref_text, hyp_text)
def test_line_cer_equals_jiwer(ref, hyp):
    ours = semcer.cer(ref, hyp, unit="codepoint", policy="raw")
    assert ours == jiwer.cer(ref, hyp)


@settings(max_examples=100)
@given(st.lists(st.tuples(ref_text, hyp_text), min_size=1, max_size=12))
def test_corpus_cer_equals_jiwer(pairs):
    refs, hyps = [p[0] for p in pairs], [p[1] for p in pairs]
    assert semcer.cer(refs, hyps, unit="codepoint", policy="raw") == pytest.approx(jiwer.cer(refs, hyps), abs=1e-15)


@settings(max_examples=100)
@given(ref_text, hyp_text)
def test_substitutions_deletions_insertions_equal_jiwer(ref, hyp):
    out = jiwer.process_characters(ref, hyp)
    st_ = semcer.align(ref, hyp, unit="codepoint", policy="raw").stats
    assert (st_.substitutions, st_.deletions, st_.insertions) == (out.substitutions, out.deletions, out.insertions)


def test_real_multilingual_text_equals_jiwer(example_pairs):
    refs, _, noisy = example_pairs
    r = [x["text"] for x in refs]
    h = [x["text"].strip() for x in noisy]
    # per line (jiwer cannot take an empty hypothesis list element? it can: empty output is allowed)
    for a, b in zip(r, h):
        assert semcer.cer(a, b, unit="codepoint", policy="raw") == jiwer.cer(a, b)
    assert semcer.cer(r, h, unit="codepoint", policy="raw") == pytest.approx(jiwer.cer(r, h), abs=1e-15)


def test_example_corpus_matches_published_figures(example_pairs):
    """examples/README.md: tess_noisy all = 818 edits over 8,890 code points, doc-mean 0.1099."""
    refs, clean, noisy = example_pairs
    ev = semcer.evaluate([x["text"] for x in refs], [x["text"] for x in noisy], unit="codepoint",
                         policy="raw", docs=[x["doc"] for x in refs])
    assert (ev.corpus.edits, ev.corpus.units) == (818, 8890)
    assert round(ev.corpus.cer, 4) == 0.0920
    assert round(ev.document_mean_cer, 4) == 0.1099
    ev = semcer.evaluate([x["text"] for x in refs], [x["text"] for x in clean], unit="codepoint",
                         policy="raw", docs=[x["doc"] for x in refs])
    assert (ev.corpus.edits, round(ev.corpus.cer, 4), round(ev.document_mean_cer, 4)) == (109, 0.0123, 0.0162)


# ---- empty references ----------------------------------------------------------------------


def test_empty_after_policy_names_policy_and_raw_text():
    with pytest.raises(EmptyReferenceError, match=r"line '2'.*after policy 'alnum'"):
        semcer.evaluate(["ab", " - "], ["ab", "x"], policy="alnum")


def test_empty_skip_reports_count():
    ev = semcer.evaluate(["ab", ""], ["ab", "xyz"], empty_ref="skip")
    assert ev.corpus.lines == 1 and ev.corpus.edits == 0 and ev.skipped_empty == ("2",)


def test_empty_insertions_counted_in_numerator_line_undefined():
    ev = semcer.evaluate(["ab", ""], ["ab", "xyz"], empty_ref="insertions", docs=["d1", "d2"])
    assert ev.corpus.edits == 3 and ev.corpus.units == 2 and ev.corpus.cer == pytest.approx(1.5)
    assert ev.lines[1].stats.cer is None
    # d2 has no reference units: left out of the document mean, and counted as such
    assert ev.document_mean_cer == 0.0 and ev.documents_defined == 1
    js = json.dumps(ev.to_dict(lines=True), allow_nan=False)  # never Infinity/NaN
    assert '"cer": null' in js


def test_all_empty_is_an_error_not_zero():
    with pytest.raises(EmptyReferenceError):
        semcer.cer("", "", empty_ref="skip")


def test_bad_inputs():
    with pytest.raises(InputError):
        semcer.evaluate(["a"], ["a", "b"])
    with pytest.raises(InputError):
        semcer.evaluate({"1": "a"}, {"2": "a"})
    with pytest.raises(semcer.SemcerError):
        semcer.evaluate(["a"], ["a"], unit="word")
    with pytest.raises(semcer.PolicyError):
        semcer.evaluate(["a"], ["a"], policy="nfc+bogus")


def test_grapheme_cases_devanagari_vietnamese_chinese_emoji():
    # one cluster each: a conjunct with vowel sign, a tone-marked vowel, an ideograph, a ZWJ family
    assert semcer.cer("क्षि", "क्ष") == pytest.approx(1.0)
    assert semcer.cer("क्षि", "क्ष", unit="codepoint") == pytest.approx(0.25)
    assert semcer.cer("Tấm", "Tám") == pytest.approx(1 / 3)
    assert semcer.cer("日期", "日朝") == pytest.approx(0.5)
    fam = "👨\u200d👩\u200d👧"
    assert semcer.cer(fam + "ok", "👨ok") == pytest.approx(1 / 3)
    assert math.isclose(semcer.cer("🇩🇪🇫🇷", "🇩🇪🇫🇷"), 0.0)


def test_evaluate_leaves_the_collector_alone():
    """The library never touches the garbage collector (a caller pauses it: semcer.scale.gc)."""
    import gc

    assert gc.isenabled()
    before = gc.get_freeze_count()
    semcer.evaluate(["abc", "ক্ষ"], ["abd", "ক্ষা"], edits=True)
    semcer.evaluate(["abc"], ["abd"], judge=FixedJudge((0, 0, 1, 0, 0)))
    assert gc.isenabled() and gc.get_freeze_count() == before
    gc.disable()
    try:
        semcer.evaluate(["abc"], ["abd"])
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        semcer.evaluate(["abc"], ["abd"], edits=True)
        assert gc.isenabled() and gc.get_freeze_count() == frozen > 0
    finally:
        gc.unfreeze()


def test_public_names_at_the_package_root():
    import importlib

    for name in ("cer", "align", "evaluate", "Edit", "Alignment", "LineResult", "LineStats", "Evaluation", "Totals",
                 "ExactSum", "DocumentResult", "Signature", "TextPolicy", "get_policy", "PRESETS", "STEPS",
                 "clear_caches", "__version__"):
        assert hasattr(semcer, name), name
    assert set(semcer.__all__) <= set(dir(semcer))
    errors = semcer.errors  # the errors module, reachable from the root without importing it
    assert errors is importlib.import_module("semcer.errors") and issubclass(errors.InputError, semcer.SemcerError)
    ev = semcer.evaluate(["abc"], ["abd"], edits=True)
    assert isinstance(ev, semcer.Evaluation) and isinstance(ev.corpus, semcer.Totals)
    assert isinstance(ev.signature, semcer.Signature) and isinstance(ev.lines[0], semcer.LineResult)
    assert isinstance(ev.lines[0].stats, semcer.LineStats) and isinstance(ev.lines[0].edits[0], semcer.Edit)
    assert isinstance(semcer.align("ab", "ax"), semcer.Alignment) and isinstance(semcer.get_policy("nfc"), semcer.TextPolicy)
    assert isinstance(ev.documents[0], semcer.DocumentResult)
    assert all(step in semcer.STEPS for steps, _ in semcer.PRESETS.values() for step in steps)  # presets are made of steps


# -- issue 11: the Python API a new user reaches for ---------------------------------------------


def test_evaluate_reads_two_paths(tmp_path):
    from pathlib import Path

    ex = Path(__file__).resolve().parents[2] / "examples"
    by_path = semcer.evaluate(str(ex / "references.jsonl"), ex / "tess_noisy.jsonl")
    assert by_path.corpus.edits == 818 and by_path.corpus.units == 8890  # the README's figures
    with pytest.raises(semcer.InputError, match="no such file or directory"):
        semcer.evaluate(str(tmp_path / "missing.jsonl"), str(ex / "tess_noisy.jsonl"))


def test_evaluate_takes_the_language_of_plain_strings():
    refs, hyps = ["Tấm Cám", "Tấm"], ["Tám Cám", "Tám"]
    for langs in ("vi", ["vi", "vi"], {"1": "vi", "2": "vi"}):
        ev = semcer.evaluate(refs, hyps, langs=langs, judge="rubric")
        assert {j.context.lang for j in ev.judged} == {"vi"} and {j.context.lang_source for j in ev.judged} == {"item"}
    ev = semcer.evaluate(["ab"], ["ax"], judge="rubric")  # without langs: guessed from the script
    assert ev.judged[0].context.lang_source == "script"
    with pytest.raises(semcer.InputError, match="1 languages for 2 lines"):
        semcer.evaluate(refs, hyps, langs=["vi"])


def test_one_language_tag_fills_in_the_lines_of_read_files_that_name_none(tmp_path):
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    refs.write_text('{"id": "a", "text": "Tấm Cám"}\n{"id": "b", "text": "Tấm", "lang": "en"}\n', encoding="utf-8")
    hyps.write_text('{"id": "a", "text": "Tám Cám"}\n{"id": "b", "text": "Tám"}\n', encoding="utf-8")
    ev = semcer.evaluate(str(refs), str(hyps), langs="vi", judge="rubric")
    assert sorted((j.line_id, j.context.lang) for j in ev.judged) == [("a", "vi"), ("b", "en")]  # b names its own
    for bad in (["vi", "vi"], {"a": "vi"}):
        with pytest.raises(semcer.InputError, match="read collections carry their own"):
            semcer.evaluate(str(refs), str(hyps), langs=bad)


def test_two_spellings_of_one_language_tag_are_one_language_for_the_judge_and_the_store(tmp_path):
    """``EN``, ``en`` and a default ``en`` for a line naming none were three keys of the store (the same
    edit judged three times) and three languages in a judge's prompt: one tag, spelled as BCP 47 does."""
    seen = []
    judge = FixedJudge(name="seen", fn=lambda c: seen.append(c.lang) or (0, 0, 0, 0, 1))
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    refs.write_text('{"id": "a", "text": "the cat", "lang": "EN"}\n{"id": "b", "text": "the cat", "lang": "en"}\n'
                    '{"id": "c", "text": "the cat"}\n', encoding="utf-8")
    hyps.write_text('{"id": "a", "text": "the cot"}\n{"id": "b", "text": "the cot", "lang": "En"}\n'
                    '{"id": "c", "text": "the cot"}\n', encoding="utf-8")
    ev = semcer.evaluate(str(refs), str(hyps), langs="EN", judge=judge, store=tmp_path / "s.sqlite")
    assert seen == ["en"] and [j.context.lang for j in ev.judged] == ["en"] * 3  # judged once, for three lines
    with JudgedEditStore(tmp_path / "s.sqlite", readonly=True) as store:
        assert len(store) == 1
    listed = semcer.evaluate(["the cat"] * 2, ["the cot"] * 2, langs=["zh_hant_tw", "ZH-Hant-TW"], judge=judge)
    assert {j.context.lang for j in listed.judged} == {"zh-Hant-TW"}


def test_library_errors_name_the_parameter_and_the_flag():
    with pytest.raises(semcer.EmptyReferenceError) as info:
        semcer.evaluate(["", "a"], ["x", "a"])
    assert "empty_ref='skip'" in str(info.value) and "--empty-ref skip" in str(info.value)


@pytest.mark.parametrize(("refs", "hyps", "why"), [
    (["ab"], {"ab": "zz"}, "got list and dict: a dict pairs by key only with another dict"),
    ({"1": "ab"}, ["ab"], "got dict and list: a dict pairs by key only with another dict"),
    ({"ab", "cd"}, {"cd", "ax"}, "got set and set: a set has no order to pair by"),
    (["ab"], frozenset({"ab"}), "got list and frozenset: a set has no order to pair by"),
])
def test_inputs_that_cannot_be_paired_in_order_are_refused(refs, hyps, why):
    """A dict beside a list gave its keys as texts (CER 0.0 for 'ab' against {'ab': 'zz'}), and two sets
    paired in whatever order they iterate."""
    with pytest.raises(semcer.InputError, match=f"^references and outputs must both be lists \\(or both dicts\\) "
                                                f"of strings, {why}$"):
        semcer.evaluate(refs, hyps)


def test_any_ordered_iterable_still_pairs_in_order():
    assert semcer.evaluate(("abc", "xy"), iter(["abd", "xy"])).corpus.cer == 1 / 5


def test_a_store_without_a_judge_is_refused(tmp_path):
    """The store keeps judged edits; without a judge it was silently left unused (and not created)."""
    with pytest.raises(semcer.InputError, match=r"^store= keeps judged edits: give a judge too, or leave the store out$"):
        semcer.evaluate(["abc"], ["abd"], store=tmp_path / "s.sqlite")
    assert not (tmp_path / "s.sqlite").exists()


def test_evaluate_of_two_paths_records_what_reading_left_out(tmp_path):
    from semcer.api.evaluation import left_out
    from semcer.io.collections import PageOptions, read_collection
    from semcer.metrics.results import ReadFailure, SkippedElement

    ns = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
    gt, ocr = tmp_path / "gt", tmp_path / "ocr"
    gt.mkdir()
    ocr.mkdir()
    (gt / "p.xml").write_text(  # r2 has text, but the reading order lists only r1; r2 starts on line 3
        f'<PcGts xmlns="{ns}"><Page><ReadingOrder><OrderedGroup id="o"><RegionRefIndexed index="0" regionRef="r1"/>'
        '</OrderedGroup></ReadingOrder>\n<TextRegion id="r1"><TextEquiv><Unicode>abc</Unicode></TextEquiv></TextRegion>\n'
        '<TextRegion id="r2"><TextEquiv><Unicode>lost</Unicode></TextEquiv></TextRegion>\n</Page></PcGts>\n',
        encoding="utf-8")
    (ocr / "p.xml").write_text(f'<PcGts xmlns="{ns}"><Page><TextRegion id="r1"><TextEquiv><Unicode>abd</Unicode>'
                               '</TextEquiv></TextRegion></Page></PcGts>\n', encoding="utf-8")
    result = semcer.evaluate(str(gt), str(ocr))
    assert (result.corpus.edits, result.corpus.units) == (1, 3)  # "abc" vs "abd": "lost" is not scored
    assert result.left_out.elements == (SkippedElement("references", str(gt / "p.xml"), "r2", "TextRegion",
                                                       "not in the reading order", 3, 1),)
    assert result.to_dict()["skipped"]["page_elements"][0]["id"] == "r2"
    (ocr / "q.xml").write_text("<PcGts><Page>", encoding="utf-8")  # truncated
    hyps = read_collection(ocr, pages=PageOptions(keep_going=True))
    [failure] = left_out(read_collection(gt), hyps).failures
    assert isinstance(failure, ReadFailure) and (failure.side, failure.path) == ("outputs", str(ocr / "q.xml"))
    assert semcer.evaluate(["abc"], ["abd"]).left_out.elements == ()  # plain strings: nothing to leave out
