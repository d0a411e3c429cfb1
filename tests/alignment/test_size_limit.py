"""A line pair beyond MAX_ALIGN_CELLS (reference units × output units) is refused, naming the line,
before any line is aligned: the aligner cannot be interrupted inside a line, and two unrelated
lines of a million graphemes take about a minute."""

from __future__ import annotations

import pytest

import semcer
from semcer.alignment import engine
from semcer.errors import InputError


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(engine, "MAX_ALIGN_CELLS", 100)


def test_the_default_limit_is_a_million_units_on_each_side():
    assert engine.MAX_ALIGN_CELLS == 1_000_000 * 1_000_000


def test_a_pair_beyond_the_limit_is_refused_naming_it(small_limit, monkeypatch):
    aligned = []
    real = engine.Levenshtein.editops
    monkeypatch.setattr(engine.Levenshtein, "editops", lambda a, b: aligned.append(a) or real(a, b))
    refs, hyps = ["ok", "x" * 11, "fine"], ["ko", "y" * 10, "fine"]  # 11 × 10 = 110 > 100
    with pytest.raises(InputError) as info:
        semcer.evaluate(refs, hyps)
    assert str(info.value).startswith("line '2': 11 reference graphemes against 10 output graphemes is beyond what "
                                      "semcer aligns")
    assert "split it into lines or pages" in str(info.value)


@pytest.mark.parametrize("ref, hyp", [("x" * 10, "y" * 10), ("x" * 50, "x" * 50), ("x" * 500, "")])
def test_pairs_within_the_limit_equal_lines_and_empty_sides_are_aligned(small_limit, ref, hyp):
    ev = semcer.evaluate([ref], [hyp])
    assert ev.corpus.edits == (0 if ref == hyp else max(len(ref), len(hyp)))


def test_the_one_line_path_with_offsets_has_the_same_limit(small_limit):
    with pytest.raises(InputError, match="a line: 11 reference codepoints against 10 output codepoints"):
        semcer.align("x" * 11, "y" * 10, unit="codepoint")
    with pytest.raises(InputError, match="line '1': 11 reference graphemes"):
        semcer.evaluate(["x" * 11], ["y" * 10], offsets=True, edits=True)
