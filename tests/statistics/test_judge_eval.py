"""Judge evaluation metrics, checked against scipy and brute-force pair counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from semcer.judges.distribution import Judgement
from semcer.statistics.judge_eval import Label, clear_pair_share, evaluate_judge

# Severities on the rubric's grid and between it, so that ties and exact 0.5 gaps both occur.
_sev = st.sampled_from([0.0, 0.0125, 0.25, 0.2875, 0.4875, 0.5, 0.75, 0.9875, 1.0])


def brute_force_pairs(x, y, gap=0.5):
    total = good = 0
    for i in range(len(x)):
        for j in range(len(x)):
            if y[i] - y[j] >= gap - 1e-9:
                total += 1
                good += x[i] > x[j]
    return (good / total if total else math.nan), total


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_sev, _sev), min_size=0, max_size=40))
def test_clear_pairs_match_brute_force(pairs):
    x = [a for a, _ in pairs]
    y = [b for _, b in pairs]
    share, n = clear_pair_share(x, y)
    want_share, want_n = brute_force_pairs(x, y)
    assert n == want_n
    assert (math.isnan(share) and math.isnan(want_share)) or share == pytest.approx(want_share)


def test_ties_in_the_judge_are_misses():
    share, n = clear_pair_share([0.5, 0.5], [0.0, 1.0])
    assert n == 1 and share == 0.0
    share, n = clear_pair_share([0.2, 0.7], [0.0, 1.0])
    assert n == 1 and share == 1.0
    # an exact 0.5 gap made of float sums counts
    share, n = clear_pair_share([0.0, 1.0], [0.4875, 0.9875])
    assert n == 1 and share == 1.0


def test_report_groups_modes_and_intervals():
    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 5, n) / 4
    x = np.clip(y + rng.normal(0, 0.15, n), 0, 1)
    judgements = [Judgement(_one_hot(round(v * 4)), edit_class="letter" if i % 2 else "digit") for i, v in enumerate(x)]
    labels = [Label(float(v), round(v * 4)) for v in y]
    langs = ["vi" if i % 3 else "zh_CN" for i in range(n)]
    report = evaluate_judge(judgements, labels, langs=langs, n_boot=300, seed=1)
    sev = np.array([j.severity for j in judgements])
    assert report.overall.n == n and report.n_failed == 0
    assert report.overall.spearman.value == pytest.approx(spearmanr(sev, y).statistic)
    assert set(report.by_lang) == {"vi", "zh-CN"} and set(report.by_class) == {"letter", "digit"}
    vi = np.array([lang == "vi" for lang in langs])
    assert report.by_lang["vi"].spearman.value == pytest.approx(spearmanr(sev[vi], y[vi]).statistic)
    assert report.by_lang["vi"].n == vi.sum()
    acc = np.mean([j.mode == lab.mode for j, lab in zip(judgements, labels)])
    assert report.overall.mode_accuracy.value == pytest.approx(acc)
    assert report.overall.mae.value == pytest.approx(np.mean(np.abs(sev - y)))
    share, pairs = clear_pair_share(sev, y)
    assert report.overall.clear_pairs.value == pytest.approx(share) and report.overall.n_clear_pairs == pairs
    for est in (report.overall.spearman, report.overall.clear_pairs, report.overall.mae, report.overall.mode_accuracy):
        assert est.lo <= est.value <= est.hi or math.isclose(est.lo, est.value) or math.isclose(est.hi, est.value)
        assert est.lo < est.hi
    again = evaluate_judge(judgements, labels, langs=langs, n_boot=300, seed=1)
    assert again.overall == report.overall  # seeded: reproducible
    d = report.to_dict("judge-x", "labels.jsonl")
    assert (d["judge"], d["labels"], d["n"], d["n_failed"]) == ("judge-x", "labels.jsonl", n, 0)
    assert d["overall"]["spearman"]["value"] == report.overall.spearman.value and set(d["by_lang"]) == {"vi", "zh-CN"}


def test_bootstrap_interval_matches_a_plain_percentile_bootstrap():
    rng = np.random.default_rng(0)
    n = 120
    y = rng.random(n)
    x = y + rng.normal(0, 0.3, n)
    report = evaluate_judge(list(x), list(y), n_boot=2000, seed=5)
    boot_rng = np.random.default_rng(11)
    ref = []
    for _ in range(2000):
        idx = boot_rng.integers(0, n, n)
        ref.append(spearmanr(x[idx], y[idx]).statistic)
    lo, hi = np.quantile(ref, [0.025, 0.975])
    assert report.overall.spearman.lo == pytest.approx(lo, abs=0.04)
    assert report.overall.spearman.hi == pytest.approx(hi, abs=0.04)
    assert report.overall.mode_accuracy is None  # plain severities: no modes


def test_failed_judgements_are_left_out_and_counted():
    judgements = [Judgement(_one_hot(0)), Judgement(None, failure="timeout"), Judgement(_one_hot(4)), Judgement(_one_hot(2))]
    labels = [Label(0.0, 0), Label(1.0, 4), Label(1.0, 4), Label(0.5, 2)]
    report = evaluate_judge(judgements, labels, n_boot=0)
    assert report.n_failed == 1 and report.overall.n == 3
    assert report.overall.mode_accuracy.value == 1.0
    assert math.isnan(report.overall.spearman.lo)  # no bootstrap asked for
    d = report.to_dict("j", "l")
    assert d["n"] == 4 and d["n_failed"] == 1 and d["overall"]["spearman"]["lo"] is None  # NaN -> null


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        evaluate_judge([0.1, 0.2], [0.1])
    with pytest.raises(ValueError):
        evaluate_judge([0.1, 0.2], [0.1, 0.3], langs=["en"])


def _one_hot(level: int) -> tuple[float, float, float, float, float]:
    p = [0.0] * 5
    p[level] = 1.0
    return tuple(p)  # type: ignore[return-value]


def test_a_group_of_fewer_than_five_edits_has_no_interval():
    # 4 edits of class "x": a resample of 4 holds 2-3 distinct ones, so no interval is given there;
    # the 8 of class "y" and the 12 overall keep theirs
    sev = [0.1, 0.4, 0.2, 0.9] + [0.05 * k for k in range(8)]
    lab = [0.0, 0.5, 0.25, 1.0] + [0.06 * k for k in range(8)]
    report = evaluate_judge(sev, lab, classes=["x"] * 4 + ["y"] * 8, n_boot=200, seed=0)
    small, large = report.by_class["x"], report.by_class["y"]
    assert small.n == 4 and not math.isnan(small.spearman.value) and math.isnan(small.spearman.lo)
    assert math.isnan(small.mae.lo) and math.isnan(small.mae.hi)
    assert large.n == 8 and large.mae.lo <= large.mae.value <= large.mae.hi
    assert report.overall.spearman.lo <= report.overall.spearman.value <= report.overall.spearman.hi
