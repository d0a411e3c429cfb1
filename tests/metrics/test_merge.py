"""Totals merged from shards equal the one-pass totals bit for bit (the exact severity accumulator).

Defect (issue 10): a document's or corpus's severity was one rounded float, so adding the totals of
two shards could differ from one pass over all lines in the last bits (about a quarter of random
two-shard splits); :func:`semcer.metrics.rows.merge` adds exact sums instead.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.alignment.line import LineStats
from semcer.metrics.rows import ExactSum, merge, total

severities = st.floats(min_value=0.0, max_value=60.0, allow_nan=False, allow_infinity=False)
lines = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 9), st.integers(0, 40), severities),
                 min_size=2, max_size=60)


@given(lines, st.randoms(use_true_random=False), st.integers(2, 5))
@settings(max_examples=400, deadline=None)
def test_merge_of_any_split_equals_one_pass(rows, rnd, k):
    stats = [LineStats(*r) for r in rows]
    one_pass = total(stats)
    shards: list[list[LineStats]] = [[] for _ in range(k)]
    for s in stats:
        shards[rnd.randrange(k)].append(s)
    rnd.shuffle(shards)
    merged = merge(total(s) for s in shards)
    assert merged.severity == one_pass.severity  # bit for bit
    assert merged[:5] == one_pass[:5]


@given(st.lists(severities, min_size=1, max_size=80))
@settings(max_examples=300, deadline=None)
def test_exact_sum_is_the_correctly_rounded_exact_sum(values):
    exact = sum(map(Fraction, values), Fraction(0))
    assert ExactSum.of(values).value == float(exact) == math.fsum(values)


def test_rounded_partial_sums_do_differ_so_the_test_above_can_fail():
    """The problem is real: fsum of two shards' rounded fsums differs from fsum of all often enough."""
    rng = random.Random(7)
    differ = 0
    for _ in range(2000):
        values = [rng.random() * rng.choice((1, 1e-3, 1e3)) for _ in range(rng.randrange(2, 40))]
        cut = rng.randrange(1, len(values))
        if math.fsum([math.fsum(values[:cut]), math.fsum(values[cut:])]) != math.fsum(values):
            differ += 1
    assert differ > 100  # measured: 429 of 2000 splits (about a fifth)


def test_merge_with_an_unknown_severity_is_unknown():
    a = total([LineStats(1, 0, 0, 3, 0.5), LineStats(0, 1, 0, 2, 0.25)])
    b = total([LineStats(1, 0, 0, 3, None)])
    m = merge([a, b])
    assert m.severity is None and m.exact is None and m.edits == 3 and m.units == 8 and m.lines == 3
    assert merge([]).lines == 0 and merge([]).severity is None
