"""The judging pass (semcer.store.judging) as semcer.evaluate runs it: which edits a judge is asked
about, with what context, what a failure does, and the store making a second run free."""

import pytest
from helpers import TableJudge

import semcer


def test_lines_without_edits_call_no_judge():
    judge = TableJudge({"x": (0, 0, 0, 0, 1)})
    ev = semcer.evaluate(["same", "abc"], ["same", "abx"], judge=judge)
    assert len(judge.calls) == 1 and judge.calls[0].marked_ref == "ab⟦c⟧"
    assert ev.lines[0].stats.severity == 0.0 and ev.corpus.severity == 1.0


def test_marked_pair_and_language():
    judge = TableJudge({"": (1, 0, 0, 0, 0), "x": (1, 0, 0, 0, 0)})
    semcer.evaluate(["Tấm Cám"], ["Tấm Cm"], judge=judge)
    (c,) = judge.calls
    assert (c.op, c.marked_ref, c.marked_hyp) == ("D", "Tấm C⟦á⟧m", "Tấm C⟦⟧m")
    assert c.lang == "vi" and c.lang_source == "script"


def test_a_failed_edit_is_never_charged_zero():
    judge = TableJudge({"x": (0, 0, 0, 0, 1)})  # no answer for "y"
    ev = semcer.evaluate(["ab", "cd"], ["xb", "cy"], judge=judge)
    assert ev.judge_summary["failures"] == 1
    assert ev.corpus.semcer is None and ev.lines[1].stats.severity is None
    assert ev.to_dict()["corpus"]["semcer"] is None


def test_store_makes_second_run_free(tmp_path):
    store = tmp_path / "judged.sqlite"
    j1 = TableJudge({"x": (0, 0, 0, 1, 0)})
    ev1 = semcer.evaluate(["abc", "abc"], ["abx", "abx"], judge=j1, store=str(store))
    assert len(j1.calls) == 1  # the identical edit on the second line is the same edit
    j2 = TableJudge({"x": (0, 0, 0, 1, 0)})
    ev2 = semcer.evaluate(["abc", "abc"], ["abx", "abx"], judge=j2, store=str(store))
    assert j2.calls == [] and ev2.corpus.semcer == ev1.corpus.semcer == pytest.approx(0.75 * 2 / 6)
