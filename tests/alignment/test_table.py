"""The compact line table: a sequence equal to the rows appended, however it was grown."""

from __future__ import annotations

import pickle
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.alignment.line import LineResult, LineStats
from semcer.alignment.table import LineTable

_IDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6) | st.sampled_from(
    ["a", "b", "doc", "\ud800x", "é"])  # a lone surrogate, as JSON "\ud800" decodes
_SEV = st.none() | st.floats(min_value=0, max_value=1e6, allow_nan=False) | st.sampled_from([0.0, -0.0, 5e-324])


@st.composite
def rows(draw: st.DrawFn) -> LineResult:
    line_id = draw(_IDS)
    doc = draw(st.sampled_from([line_id, "d1", "d2", "a", "\ud800x"]) | _IDS)
    counts = draw(st.tuples(*[st.integers(0, 2**32 - 1)] * 4))
    stats = LineStats(*counts, draw(_SEV))
    return LineResult(line_id, doc, draw(st.sampled_from([None, "en", "zh", ""])), stats)


def _same(a: LineResult, b: LineResult) -> bool:
    """Equal, severities bit for bit (-0.0 is not 0.0 here)."""
    return a == b and repr(a.stats.severity) == repr(b.stats.severity)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(rows(), max_size=8), max_size=5))
def test_a_table_is_the_rows_appended_however_it_was_grown(parts: list[list[LineResult]]) -> None:
    flat = [r for p in parts for r in p]
    one = LineTable(flat)
    grown = LineTable()
    for p in parts:
        grown.extend(LineTable(p))  # as the parent folds chunks' tables
    back = pickle.loads(pickle.dumps(grown))
    for table in (one, grown, back):
        assert len(table) == len(flat)
        assert all(_same(a, b) for a, b in zip(table, flat, strict=True))
        assert all(_same(table[k], flat[k]) for k in range(len(flat)))
        assert table == flat and table == tuple(flat)
        if flat:
            assert _same(table[-1], flat[-1])
            assert table[1:3] == tuple(flat[1:3])
    back.extend(flat[:2])  # a table read back from a marker still grows
    assert back == flat + flat[:2]


def test_out_of_range_and_inequality() -> None:
    table = LineTable([LineResult("a", "a", None, LineStats(1, 0, 0, 2, 0.5))])
    try:
        table[1]
    except IndexError:
        pass
    else:
        raise AssertionError("no IndexError")
    assert table != [LineResult("a", "a", None, LineStats(1, 0, 0, 2, None))]
    assert table != []


def test_a_table_is_small_beside_the_rows() -> None:
    """The reason for the table: a million lines in tens of MB, not hundreds."""
    flat = [LineResult(f"fr-{k:07d}", f"fr/d{k // 50:05d}", "fr", LineStats(k % 7, 1, 0, 80 + k % 300, 0.25 * (k % 5)))
            for k in range(20_000)]
    table = LineTable(flat)
    per_line = table.nbytes / len(flat)
    assert per_line < 60, per_line  # 10 id bytes + 8 + 4 + 4 + 16 + 8
    as_objects = sum(sys.getsizeof(r) + sys.getsizeof(r.id) + sys.getsizeof(r.stats) for r in flat) / len(flat)
    assert as_objects > 4 * per_line
    assert len(pickle.dumps(table)) < 70 * len(flat)
