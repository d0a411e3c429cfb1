"""The line-assignment CER (the reading-order-robust page score): swapped columns cost nothing, line order
never matters, recognition errors are still charged, and the assignment is the cheapest one (checked
against a brute force over every partial matching, with an independent edit distance)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.metrics.fca import line_assignment_cer

LEFT = ["In diesem Jahre sind zwey", "Mondfinsternisse, davon ist", "nur Eine bey uns sichtbar,"]
RIGHT = ["und zwar am 30sten März", "des Morgens nach 4 Uhr,", "und währt bis nach 6 Uhr."]


def test_swapped_columns_cost_nothing_where_the_page_cer_is_high():
    ref = "\n".join(LEFT + RIGHT)
    hyp = "\n".join(RIGHT + LEFT)
    robust = line_assignment_cer(ref, hyp)
    assert robust.edits == 0 and robust.rate == 0.0 and robust.accuracy == 1.0
    assert robust.units == sum(len(x) for x in LEFT + RIGHT)  # the line breaks are not units here
    assert semcer.cer(ref, hyp) > 0.5


def test_a_recognition_error_is_still_charged_wherever_the_line_stands():
    hyp = RIGHT + [LEFT[0], LEFT[1].replace("Mond", "Moud"), LEFT[2]]
    r = line_assignment_cer(LEFT + RIGHT, hyp)
    assert r.edits == 1
    assert (1, 4, 1) in r.matches  # reference line 1 matched to output line 4 at distance 1


def test_missing_and_extra_lines_are_deletions_and_insertions_of_their_length():
    r = line_assignment_cer(["abc", "defg"], ["defg", "xy", "zz"])
    # "abc" vs "xy" (3) or "zz" (3): matching one costs 3, leaving abc/xy/zz apart 3 + 2 + 2 = 7
    assert r.edits == 3 + 2 and r.units == 7
    assert len(r.matches) == 2 and len(r.inserted) == 1 and r.deleted == ()
    nothing = line_assignment_cer(["abc"], [])
    assert (nothing.edits, nothing.deleted, nothing.rate) == (3, (0,), 1.0)
    assert line_assignment_cer([], ["x"]).rate is None  # no reference units


def test_units_graphemes_and_policy():
    nfd = "Vie\u0323\u0302t"
    assert line_assignment_cer([nfd], ["Việt"]).edits == 0  # NFC policy by default, one cluster each
    assert line_assignment_cer(["ệ"], ["e"], unit="grapheme").edits == 1
    assert line_assignment_cer(["e\u0323\u0302"], ["e"], unit="codepoint", policy="raw").edits == 2
    assert line_assignment_cer(["A b"], ["a B"], policy="casefold").edits == 0


def _distance(a: str, b: str) -> int:
    """Textbook Levenshtein distance (independent of rapidfuzz)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _brute_force(ref: list[str], hyp: list[str]) -> int:
    """Cheapest cost over every one-to-one partial matching."""
    best = sum(map(len, ref)) + sum(map(len, hyp))
    for k in range(1, min(len(ref), len(hyp)) + 1):
        for rs in itertools.combinations(range(len(ref)), k):
            for hs in itertools.permutations(range(len(hyp)), k):
                cost = sum(_distance(ref[i], hyp[j]) for i, j in zip(rs, hs))
                cost += sum(len(ref[i]) for i in range(len(ref)) if i not in rs)
                cost += sum(len(hyp[j]) for j in range(len(hyp)) if j not in hs)
                best = min(best, cost)
    return best


LINES = st.lists(st.text(alphabet="abc", min_size=1, max_size=5), min_size=0, max_size=4)


@settings(max_examples=200, deadline=None)
@given(LINES, LINES)
def test_the_assignment_is_the_cheapest_partial_matching(ref, hyp):
    assert line_assignment_cer(ref, hyp, unit="codepoint", policy="raw").edits == _brute_force(ref, hyp)


@settings(max_examples=100, deadline=None)
@given(LINES, LINES, st.randoms(use_true_random=False))
def test_permuting_lines_changes_nothing(ref, hyp, rnd):
    base = line_assignment_cer(ref, hyp)
    r2, h2 = ref[:], hyp[:]
    rnd.shuffle(r2)
    rnd.shuffle(h2)
    again = line_assignment_cer(r2, h2)
    assert (again.edits, again.units) == (base.edits, base.units)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="abc ", min_size=1, max_size=6), st.text(alphabet="abc ", max_size=6)),
                min_size=1, max_size=5))
def test_never_more_than_the_line_by_line_cer_of_the_same_order(pairs):
    refs, hyps = [p[0] for p in pairs], [p[1] for p in pairs]
    by_line = semcer.evaluate(refs, hyps, empty_ref="insertions").corpus.edits
    assert line_assignment_cer(refs, hyps).edits <= by_line


@pytest.mark.parametrize("text", ["a\n\nb", "a\n   \nb"])
def test_lines_without_units_are_left_out(text):
    r = line_assignment_cer(text, "b\na", policy="collapse-ws")
    assert r.edits == 0 and r.units == 2
