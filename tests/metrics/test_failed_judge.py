"""A judge that fails on some edits never has them charged as 0, nor averaged away.

Defect (issue 10): with one of two documents failing, corpus semCER was null but the document mean
was reported over the one good document ({'cer': 0.5, 'documents': 2, 'semcer': 0.5}).
"""

from __future__ import annotations

import semcer
from semcer.judges import Judgement


class FailsOnDigits:
    """Fails on every edit whose output unit is a digit; charges 1.0 (level 4) on the others."""

    identity = "test-fails-on-digits"

    def judge(self, contexts):
        return [Judgement(None, failure="boom") if c.hyp_unit.isdigit() else Judgement((0.0, 0.0, 0.0, 0.0, 1.0))
                for c in contexts]


def test_document_mean_semcer_is_undefined_when_a_document_failed():
    # document a: "ab" -> "ax" (one substitution, judged: severity 1.0 over 2 units);
    # document b: "cd" -> "c1" (one substitution the judge fails on).
    ev = semcer.evaluate(["ab", "cd"], ["ax", "c1"], docs=["a", "b"], judge=FailsOnDigits())
    assert ev.corpus.cer == 0.5 and ev.document_mean_cer == 0.5  # both defined: 2 edits / 4 units
    assert ev.corpus.semcer is None
    assert ev.document_mean_semcer is None  # was 0.5: the failed document silently dropped
    d = ev.to_dict()["document_mean"]
    assert d["semcer"] is None and d["documents"] == 2 and d["documents_failed"] == 1
    assert ev.judge_summary["failures"] == 1


def test_document_mean_semcer_counts_only_documents_with_units():
    # a document without reference units is left out of both means (no units), not failed
    ev = semcer.evaluate(["ab", "", "cd"], ["ax", "zz", "cy"], docs=["a", "empty", "c"], judge=FailsOnDigits(),
                         empty_ref="insertions")
    assert ev.documents_defined == 2
    assert ev.document_mean_cer == 0.5
    assert ev.document_mean_semcer == 0.5  # (1/2 + 1/2) / 2: each substitution charged 1.0
    assert "documents_failed" not in ev.to_dict()["document_mean"]
