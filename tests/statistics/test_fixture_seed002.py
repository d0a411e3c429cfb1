"""The seed document's corpus-versus-document-mean fixture ("What the score counts", LAB-001): six
documents, 49 reference characters, baseline 17 edits and candidate 20; corpus CER 34.69 % vs
40.82 %, document means 31.11 % vs 41.39 %.

The seed gives only the totals and the four rates, not the documents. FIXTURE is the first split
consistent with all of them under this rule (``search`` below, rerun by a test): document lengths
are the partitions of 49 into six parts, most even first (smallest max - min, then
lexicographic); for each, every assignment of 1 <= e_d <= n_d edits summing to 17 (baseline) and
20 (candidate) whose document mean rounds to 31.11 % and 41.39 %; the first lengths with both,
and the first (lexicographic) edits of each. Other splits fit as well, and the interval on the
difference depends on the split: it illustrates the computation, it is not the seed's number.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from semcer.statistics.paired import approximate_randomization, paired_bootstrap, system_values

# (reference characters, baseline edits, candidate edits) per document
FIXTURE = ((6, 1, 1), (6, 1, 2), (7, 2, 6), (9, 1, 4), (10, 5, 5), (11, 7, 2))
DEN = np.array([d for d, _, _ in FIXTURE], dtype=float)
NUM = np.array([[b for _, b, _ in FIXTURE], [c for _, _, c in FIXTURE]], dtype=float)


def _partitions(n, k, low=1):
    if k == 1:
        if n >= low:
            yield (n,)
        return
    for first in range(low, n // k + 1):
        for rest in _partitions(n - first, k - 1, first):
            yield (first, *rest)


def _edits(lengths, total, percent):
    """Edit vectors (1 <= e_d <= n_d, Σ = total) whose document mean rounds to ``percent``, in
    lexicographic order (the mean is Σ e_d w_d / (6 L) with w_d = L / n_d, L the lcm: one division per vector)."""
    lcm = math.lcm(*lengths)
    weights = [lcm // n for n in lengths]
    k = len(lengths)

    def rec(i, left, acc, prefix):
        if i == k:
            if left == 0 and round(100 * acc / (k * lcm), 2) == percent:
                yield prefix
            return
        rest = k - i - 1  # documents after this one, each needing at least one edit
        for e in range(max(1, left - sum(lengths[i + 1:])), min(lengths[i], left - rest) + 1):
            yield from rec(i + 1, left - e, acc + e * weights[i], (*prefix, e))

    return rec(0, total, 0, ())


def search():
    for lengths in sorted(_partitions(49, 6), key=lambda p: (max(p) - min(p), p)):
        base = next(_edits(lengths, 17, 31.11), None)
        cand = next(_edits(lengths, 20, 41.39), None) if base else None
        if base and cand:
            return tuple(zip(lengths, base, cand))
    return None


def test_the_fixture_is_what_the_search_finds():
    assert search() == FIXTURE


def pct(x):
    return round(float(x) * 100, 2)


def test_the_four_rates():
    assert (DEN.sum(), NUM[0].sum(), NUM[1].sum()) == (49, 17, 20)
    assert [pct(v) for v in system_values(NUM, DEN, "corpus")] == [34.69, 40.82]
    assert [pct(v) for v in system_values(NUM, DEN, "document_mean")] == [31.11, 41.39]


# the differences written out: (20 - 17) / 49, and the mean over documents of (c_d - b_d) / n_d
DIFF = {"corpus": 3 / 49, "document_mean": sum((c - b) / n for n, b, c in FIXTURE) / 6}


@pytest.mark.parametrize("agg", ["corpus", "document_mean"])
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_an_interval_on_the_difference(agg, method):
    (res,) = paired_bootstrap(NUM, DEN, agg, n_resamples=10_000, seed=0, method=method)
    want = {"corpus": (34.69, 40.82), "document_mean": (31.11, 41.39)}[agg]
    assert (pct(res.baseline.value), pct(res.value.value)) == want
    assert res.difference.value == pytest.approx(DIFF[agg], abs=1e-12)
    # six documents cannot settle a 6-10 point difference: the interval spans 0
    assert res.difference.lo < 0 < res.difference.value < res.difference.hi
    assert res.n_defined == 10_000 and res.n_documents == 6


@pytest.mark.parametrize("agg", ["corpus", "document_mean"])
def test_randomization_matches_the_exact_test_over_all_64_swaps(agg):
    base, cand = system_values(NUM, DEN, agg)
    observed = abs(cand - base)
    extreme = 0
    for swap in itertools.product([False, True], repeat=6):
        s = np.array(swap)
        swapped = np.where(s, NUM[::-1], NUM)
        b, c = system_values(swapped, DEN, agg)
        extreme += abs(c - b) >= observed - 1e-12
    (p,) = approximate_randomization(NUM, DEN, agg, n_permutations=20_000, seed=0)
    assert p == pytest.approx(extreme / 64, abs=0.015)
