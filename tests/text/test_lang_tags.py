"""One spelling of a language tag (semcer.text.script.canonical_lang), under which lines are grouped
and shown: the terminal table, the JSON ``by_lang`` blocks of score and compare, the HTML report's
languages, spans and lines, analyze's rows and the note on languages without a word list.

Defect (audit): ``EN``, ``en_US``, ``en-US`` and ``en-us`` were four rows of ``semcer score --by
lang``; BCP 47 tags are case-insensitive and ``_`` is a locale's spelling of ``-``. What a judge
reads (its prompt, the store key) is the same one spelling, given to every line from reading on.
The expected spellings are RFC 5646's own examples (section 2.1.1) and the brief's; the expected
numbers are counted by hand from the one-edit lines below.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import semcer
from semcer.api.report import evaluation_report
from semcer.io.collections import LANGUAGE_TAG
from semcer.judges.base import FixedJudge
from semcer.metrics.breakdown import breakdown
from semcer.reports.text import lexicon_notes, render_comparison, render_evaluation
from semcer.text.script import base_lang, canonical_lang, lang_group


@pytest.mark.parametrize(("tag", "canonical"), [
    ("EN", "en"), ("en_us", "en-US"), ("en-us", "en-US"), ("EN_US", "en-US"), ("en-US", "en-US"),
    ("zh_hant_tw", "zh-Hant-TW"), ("ZH-HANT", "zh-Hant"), ("sr_latn_rs", "sr-Latn-RS"),
    # RFC 5646 2.1.1: "en-CA-x-ca", "sgn-BE-FR", "az-Latn-x-latn"
    ("EN-ca-X-CA", "en-CA-x-ca"), ("SGN-be-fr", "sgn-BE-FR"), ("AZ-LATN-X-LATN", "az-Latn-x-latn"),
    ("es-419", "es-419"), ("de-ch-1901", "de-CH-1901"), ("X-Klingon", "x-klingon"), ("I-ENOCHIAN", "i-enochian"),
    ("en-u-CA-gregory", "en-u-ca-gregory"), ("und", "und"), ("iw", "iw"), ("zh_CN", "zh-CN"),
])
def test_canonical_spelling(tag, canonical):
    assert canonical_lang(tag) == canonical


def test_only_spellings_merge():
    assert canonical_lang("en") != canonical_lang("en-US")  # a region is another tag
    assert canonical_lang("iw") != canonical_lang("he")  # an alias is the judges' business (base_lang), not spelling
    assert base_lang("iw") == base_lang("he") == "he"
    assert lang_group(None) == lang_group("") == "und"


def _respelled(tag: str, flips: list[bool]) -> str:
    cased = "".join(c.swapcase() if f else c for c, f in zip(tag, flips + [False] * len(tag)))
    return cased.replace("-", "_") if flips[:1] == [True] else cased


@given(tag=st.from_regex(LANGUAGE_TAG, fullmatch=True), flips=st.lists(st.booleans(), max_size=40))
def test_every_spelling_of_an_accepted_tag_is_one(tag, flips):
    one = canonical_lang(tag)
    assert canonical_lang(_respelled(tag, flips)) == one == canonical_lang(one)
    assert one.lower() == tag.lower().replace("_", "-")  # the letters and their order are the tag's


# One edit or none per line, so each group's numbers are counted by hand (each line its own document).
REFS = ["Hello", "world", "color", "gray", "center", "Straße", "Straße"]
HYPS = ["Helo", "world", "colour", "grey", "centre", "Strase", "Straße"]
LANGS = ["EN", "en", "en_US", "en-US", "en-us", "de_de", "DE-DE"]
EDITS = [1, 0, 1, 1, 2, 1, 0]  # centre: two substitutions (e/r, r/e); Strase: ß -> s
UNITS = [5, 5, 5, 4, 6, 6, 6]
WANT = {"en": (1 / 10, (1 / 5 + 0) / 2, 2), "en-US": (4 / 15, (1 / 5 + 1 / 4 + 2 / 6) / 3, 3),
        "de-DE": (1 / 12, (1 / 6 + 0) / 2, 2)}  # CER, document mean, lines


def _check(groups: dict[str, tuple[float, float, int]]) -> None:
    assert list(groups) == list(WANT)
    for key, (cer, mean, lines) in WANT.items():
        assert groups[key] == (pytest.approx(cer), pytest.approx(mean), lines)


def test_spellings_of_one_tag_are_one_group_in_the_breakdown_and_the_json():
    ev = semcer.evaluate(REFS, HYPS, langs=LANGS)
    assert [ln.stats.edits for ln in ev.lines] == EDITS and [ln.stats.units for ln in ev.lines] == UNITS
    _check({g.key: (g.aggregation.corpus.cer, g.aggregation.document_mean_cer, g.lines)
            for g in breakdown(ev.lines, "lang", judged=False)})
    d = ev.to_dict(by=("lang",), lines=True)
    _check({g["lang"]: (g["cer"], g["document_mean"]["cer"], g["lines"]) for g in d["by_lang"]})
    assert [r["lang"] for r in d["lines"]] == ["en", "en", "en-US", "en-US", "en-US", "de-DE", "de-DE"]  # one spelling


def test_the_terminal_table_has_one_row_per_tag():
    text = render_evaluation(semcer.evaluate(REFS, HYPS, langs=LANGS), by=("lang",))
    table = text.split("language", 1)[1].splitlines()[2:5]
    assert [row.split()[:2] for row in table] == [["en", "10.00"], ["en-US", "26.67"], ["de-DE", "8.33"]]


def test_the_html_report_groups_and_shows_the_same_spelling():
    ev = semcer.evaluate(REFS, HYPS, langs=LANGS, judge=FixedJudge(), edits=True)
    data = evaluation_report(ev)
    rows = {g["lang"]: g["systems"][0] for g in data["languages"]}
    _check({k: (r["cer"], r["cer_mean"], r["lines"]) for k, r in rows.items()})
    assert {s["lid"]: s["lang"] for s in data["spans"]} == {"1": "en", "3": "en-US", "4": "en-US", "5": "en-US",
                                                            "6": "de-DE"}
    assert [ln["lang"] for ln in data["lines"]] == ["en-US", "en", "en-US", "en-US", "de-DE"]  # most severe first


def test_the_judge_reads_each_tag_in_its_one_spelling():
    """The context (the LLM prompt's language, the store key) has the one spelling too: ``EN`` and
    ``en`` were two store keys of one edit, and two languages in a prompt."""
    seen: list[str] = []
    judge = FixedJudge(fn=lambda c: seen.append(c.lang) or (1.0, 0.0, 0.0, 0.0, 0.0))
    ev = semcer.evaluate(REFS, HYPS, langs=LANGS, judge=judge)
    assert sorted(set(seen)) == ["de-DE", "en", "en-US"]
    assert [e.lang for e in ev.judged] == ["en", "en-US", "en-US", "en-US", "en-US", "de-DE"]


def test_compare_groups_as_score_does(tmp_path):
    refs, a, b = (tmp_path / f"{n}.jsonl" for n in ("refs", "a", "b"))
    refs.write_text("".join(json.dumps({"id": f"l{k}", "text": t, "lang": g}) + "\n"
                            for k, (t, g) in enumerate(zip(REFS, LANGS))), encoding="utf-8")
    a.write_text("".join(json.dumps({"id": f"l{k}", "text": t}) + "\n" for k, t in enumerate(HYPS)), encoding="utf-8")
    b.write_text("".join(json.dumps({"id": f"l{k}", "text": t}) + "\n" for k, t in enumerate(REFS)), encoding="utf-8")
    cmp = semcer.compare(str(refs), [str(a), str(b)], judge=None, n_resamples=100)
    blocks = cmp.to_dict(by=("lang",))["by_lang"]
    _check({g["lang"]: (g["cer"], g["document_mean"]["cer"], g["lines"]) for g in blocks[str(a)]})
    assert [g["lang"] for g in blocks[str(b)]] == list(WANT) and all(g["cer"] == 0 for g in blocks[str(b)])
    text = render_comparison(cmp, by=("lang",))
    assert "en_US" not in text and "de_de" not in text and "en-US" in text


def test_languages_without_a_word_list_are_counted_under_one_spelling():
    # qaa-qtz is the private-use range of ISO 639: no word list has it.
    ev = semcer.evaluate(["Hello", "world", "again"], ["Helo", "word", "again"], langs=["qaa_zz", "QAA-ZZ", "en"],
                         judge="compact")
    assert lexicon_notes(ev) == ["the judge has no word list for qaa-ZZ (2): their edits are judged without knowing "
                                 "which words are words"]


def test_analyze_groups_by_the_same_spelling():
    result = semcer.analyze(REFS, [HYPS], langs=LANGS, n_boot=40, n_permutations=20).to_dict()
    assert sorted({r["lang"] for r in result["by_class"]}) == ["de-DE", "en", "en-US"]
    load = {r["lang"]: (r["edits"], r["lines"]) for r in result["grapheme_load"]}
    assert load == {"en": (1, 1), "en-US": (4, 3), "de-DE": (1, 1)}  # lines with 1..max edits: 'world' has none


def test_judge_eval_groups_spellings_of_one_tag():
    from semcer.statistics.judge_eval import evaluate_judge

    sev = [0.1, 0.2, 0.9, 0.4, 0.5, 0.6]
    labels = [0.0, 0.25, 1.0, 0.5, 0.5, 0.75]
    report = evaluate_judge(sev, labels, langs=["en_US", "en-us", "EN-US", "de", "DE", "de"], n_boot=0)
    # Two tags, three edits each (by hand: en-US is edits 0-2, de edits 3-5).
    assert sorted(report.by_lang) == ["de", "en-US"]
    assert [report.by_lang[k].n for k in ("de", "en-US")] == [3, 3]
