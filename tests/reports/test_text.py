"""Terminal views: they show what a result holds, and compute nothing."""

import numpy as np

import semcer
from semcer.judges.base import FixedJudge
from semcer.judges.distribution import Judgement
from semcer.reports.text import pct, render_evaluation, render_judge_eval, render_top_edits, table
from semcer.statistics.judge_eval import Label, evaluate_judge


def test_pct_and_table():
    assert pct(0.1234) == "12.34 %" and pct(None) == "n/a" and pct(float("nan")) == "n/a"
    # 1,000 edits over 52 million units is not "no error": 0.0019 % shows as under the last digit
    assert pct(1000 / 52e6) == "<0.01 %" and pct(0.0) == "0.00 %" and pct(0.00005) == "0.01 %"
    out = table(["", "CER"], [["corpus", "9.20 %"], ["document mean", "10.99 %"]]).splitlines()
    assert out[0].rstrip() == "                   CER" and out[2] == "corpus          9.20 %" and out[1].startswith("---")


def test_evaluation_view_shows_unmatched_and_skipped():
    ev = semcer.evaluate({"a": "abc", "b": ""}, {"a": "abd", "b": "x"}, empty_ref="skip")
    text = render_evaluation(ev, refs="r.jsonl", hyps="h.jsonl")
    assert text.startswith("h.jsonl  vs  r.jsonl") and "33.33 %" in text
    assert "skipped 1 line(s)" in text and f"signature: {ev.signature}" in text and "semCER" not in text
    judged = semcer.evaluate(["abcd"], ["abxd"], judge=FixedJudge((0, 0, 1, 0, 0)))
    assert "semCER" in render_evaluation(judged) and "12.50 %" in render_evaluation(judged)


def test_top_edits_show_the_marked_pair():
    ev = semcer.evaluate(["Tấm Cám"], ["Tám Cám"], judge=FixedJudge((0, 0, 0, 1, 0)))
    text = render_top_edits(list(ev.judged))
    assert "most severe edits (top 1)" in text and "severity 0.75  level 3" in text
    assert "ref: T⟦ấ⟧m Cám" in text and "out: T⟦á⟧m Cám" in text


def _one_hot(level):
    p = [0.0] * 5
    p[level] = 1.0
    return tuple(p)


def test_judge_eval_table_by_language_and_class():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, 300) / 4
    judgements = [Judgement(_one_hot(int(v * 4)), edit_class="letter" if i % 2 else "digit") for i, v in enumerate(y)]
    labels = [Label(float(v), int(v * 4)) for v in y]
    report = evaluate_judge(judgements, labels, langs=["vi" if i % 3 else "zh_CN" for i in range(300)], n_boot=50)
    md = render_judge_eval(report)
    assert "| **all** | 300 |" in md and "| vi | 200 |" in md and "| zh-CN | 100 |" in md and "±" not in md
    assert md.splitlines()[0].startswith("| language |")
    by_class = render_judge_eval(report, by="class")
    assert by_class.splitlines()[0].startswith("| edit class |") and "| letter | 150 |" in by_class


def test_lines_the_offline_judge_reads_without_a_word_list_are_noted():
    """A line without a language, or in one wordfreq has no list for, is judged without knowing which
    words are words: said under the table, never silently."""
    import semcer
    from semcer.reports.text import render_evaluation

    refs, hyps = ["the cat sat", "der Hund", "abc def", "ghi jkl", "mno"], ["the cat sad", "der Hunt", "abd def",
                                                                          "ghi jkm", "mnp"]
    langs = ["en", "de", "xx", "xx", None]
    judged = render_evaluation(semcer.evaluate(refs, hyps, langs=langs, judge="compact"))
    notes = [line for line in judged.splitlines() if line.startswith("note:")]
    assert notes == ["note: 1 line(s) name no language (give lang in the inputs, or --lang); the judge has no word "
                     "list for xx (2): their edits are judged without knowing which words are words"]
    assert "note:" not in render_evaluation(semcer.evaluate(refs, hyps, langs=langs))  # CER only: no judge
    named = render_evaluation(semcer.evaluate(refs[:2], hyps[:2], langs=langs[:2], judge="compact"))
    assert "note:" not in named  # English and German have their lists
