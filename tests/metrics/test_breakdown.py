"""Breakdowns by language and document: each group scored like a corpus of its own lines."""

from __future__ import annotations

import pytest

import semcer
from semcer.metrics.breakdown import breakdown


def test_by_language_sums_and_means_by_hand():
    ev = semcer.evaluate(["abcd", "ab", "xyz"], ["abxd", "ab", "xz"], docs=["d1", "d1", "d2"],
                         langs=["de", "de", "vi"])
    groups = {g.key: g for g in breakdown(ev.lines, "lang", judged=False)}
    assert list(groups) == ["de", "vi"]
    de = groups["de"].aggregation
    assert de.corpus.edits == 1 and de.corpus.units == 6 and de.corpus.cer == pytest.approx(1 / 6)
    assert de.document_mean_cer == pytest.approx(1 / 6) and de.documents_defined == 1  # one document, d1
    assert groups["vi"].aggregation.corpus.cer == pytest.approx(1 / 3) and groups["vi"].lines == 1


def test_by_document_equals_the_evaluation_documents():
    ev = semcer.evaluate(["abcd", "ab", "xyz"], ["abxd", "ab", "xz"], docs=["d1", "d1", "d2"])
    groups = breakdown(ev.lines, "doc", judged=False)
    assert [(g.key, g.aggregation.corpus[:5]) for g in groups] == [(d.doc, d.totals[:5]) for d in ev.documents]


def test_unknown_breakdown():
    with pytest.raises(ValueError, match="unknown breakdown"):
        breakdown([], "system", judged=False)
