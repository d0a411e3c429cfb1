"""Pooled-language rows of a judge evaluation, checked against scipy on the pooled edits, and the
table and JSON that show them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from semcer.reports.text import render_judge_eval
from semcer.statistics.judge_eval import DEFAULT_POOLS, MAIN_LANGS, SMALL_LANGS, evaluate_judge


def _data(langs, seed=5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, len(langs)) / 4
    x = np.clip(y + rng.normal(0, 0.2, len(langs)), 0, 1)
    return x, y


def test_pooled_rows_are_the_pooled_edits():
    langs = ["th", "te", "kn", "ru", "de", "zh_CN", "en", "xx"] * 40
    x, y = _data(langs)
    report = evaluate_judge(list(x), list(y), langs=langs, n_boot=200, seed=2, pools=DEFAULT_POOLS)
    assert set(report.pooled) == {"main languages pooled", "small languages pooled"}
    small = np.array([lang in ("th", "te", "kn", "ru") for lang in langs])
    main = np.array([lang in ("de", "zh_CN", "en") for lang in langs])  # zh_CN counts as zh; xx in no pool
    for name, mask in (("small languages pooled", small), ("main languages pooled", main)):
        g = report.pooled[name]
        assert g.n == mask.sum()
        assert g.spearman.value == pytest.approx(spearmanr(x[mask], y[mask]).statistic)
        assert g.spearman.lo < g.spearman.value < g.spearman.hi  # with an interval
    d = report.to_dict("j", "labels.jsonl")
    assert d["pooled"]["small languages pooled"]["n"] == small.sum()
    table = render_judge_eval(report)
    lines = table.splitlines()
    assert lines[-3].startswith("| *main languages pooled* | 120 |")
    assert lines[-2].startswith("| *small languages pooled* | 160 |") and lines[-1].startswith("| **all** | 320 |")
    assert "pooled" not in render_judge_eval(report, "class")


def test_a_pool_needs_two_of_its_languages():
    langs = ["th"] * 30 + ["de"] * 30
    x, y = _data(langs)
    report = evaluate_judge(list(x), list(y), langs=langs, n_boot=0, pools=DEFAULT_POOLS)
    assert report.pooled == {}
    assert evaluate_judge(list(x), list(y), langs=langs, n_boot=0).pooled == {}  # no pools asked for


def test_default_pools_are_the_nineteen_languages():
    assert len(SMALL_LANGS) == 12 and len(MAIN_LANGS) == 7 and not set(SMALL_LANGS) & set(MAIN_LANGS)
