"""The fast copies of a line's row equal what NamedTuple._replace makes (the reference)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.alignment.engine import Pair, align_lines
from semcer.alignment.line import LineResult, LineStats, with_severity, without_alignment
from semcer.text.policy import get_policy

texts = st.text(alphabet="ab é\u0301क\u093f1", max_size=20)


@given(st.lists(st.tuples(texts.filter(str.strip), texts), min_size=1, max_size=5),
       st.one_of(st.none(), st.floats(0, 50)))
@settings(max_examples=200, deadline=None)
def test_without_alignment_and_with_severity_are_replace(lines, severity):
    pairs = [Pair(f"l{k}", r, h, "d", "en") for k, (r, h) in enumerate(lines)]
    rows, _ = align_lines(pairs, "grapheme", get_policy("nfc"), "insertions", edits=True, offsets=False)
    for r in rows:
        bare = without_alignment(r)
        assert type(bare) is LineResult and bare == r._replace(alignment=None) and bare.alignment is None
        judged = with_severity(r, severity)
        assert type(judged) is LineResult and type(judged.stats) is LineStats
        assert judged == r._replace(stats=r.stats._replace(severity=severity))
        assert judged.stats.severity == severity and judged.alignment is r.alignment
