"""The compact built-in scorer as a judge: identity, predictions on every path, agreement with the dev
labels, and the cases that must hold."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import DATA, one_edit_context
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.alignment.context import EditContext
from semcer.io.labels import load_labelled
from semcer.judges import JUDGE_NAMES, Judge, resolve_judge
from semcer.judges.compact import CompactJudge
from semcer.judges.compact.features import featurize
from semcer.judges.compact.model import CHUNK, load_model
from semcer.statistics.correlation import spearman
from semcer.statistics.judge_eval import clear_pair_share, evaluate_judge
from semcer.text.units import graphemes

ctx = one_edit_context


@pytest.fixture(scope="module")
def judge() -> CompactJudge:
    return CompactJudge()


@pytest.fixture(scope="module")
def dev():
    return load_labelled(DATA / "dev.jsonl")


def test_identity_names_the_artifact(judge):
    assert re.fullmatch(r"compact-1\.0\+[0-9a-f]{10}\+wordfreq-\S+", judge.identity)
    assert judge.identity.split("+")[1] == load_model().sha256[:10]


def test_resolve_judge():
    j = resolve_judge("compact")
    assert isinstance(j, Judge) and isinstance(j, CompactJudge)
    assert "compact" in JUDGE_NAMES


# --- Predictions ---------------------------------------------------------------------------------


def test_predictions_are_distributions(judge, dev):
    contexts, _ = dev
    out = judge.judge(contexts)
    P = np.array([j.p for j in out])
    assert P.shape == (len(contexts), 5) and np.isfinite(P).all()
    assert (P >= 0).all() and np.allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert all(0.0 <= j.severity <= 1.0 and j.edit_class for j in out)
    assert judge.judge([]) == []
    # The batched path (one-hot codes, no dense matrix) equals the dense feature matrix path.
    X, _ = featurize(contexts)
    assert np.abs(judge.model.predict_proba(X) - P).max() < 1e-12
    assert np.abs(judge.model.forest.predict_proba(X) - P).max() < 1e-12
    # A batch gives the same answers as one edit at a time.
    assert [judge.judge([c])[0].p for c in contexts[:20]] == [j.p for j in out[:20]]


def test_every_path_gives_the_same_floats(judge, dev):
    """One call over several chunks, smaller batches, predict_proba and the dense matrix agree exactly."""
    contexts, _ = dev
    assert len(contexts) > 2 * CHUNK
    one = [j.p for j in judge.judge(contexts)]
    assert [j.p for i in range(0, len(contexts), 100) for j in judge.judge(contexts[i : i + 100])] == one
    assert judge.predict_proba(contexts).tolist() == [list(p) for p in one]
    assert judge.model.predict_proba(featurize(contexts)[0]).tolist() == [list(p) for p in one]
    assert all(type(x) is float for p in one[:10] for x in p)


_CTX_TEXT = st.text(alphabet=st.sampled_from(list("ab đấng文件 .,0123Oः्ि-\u0301")), max_size=12)


@settings(max_examples=150, deadline=None)
@given(ref=_CTX_TEXT, hyp=_CTX_TEXT, op=st.sampled_from("SID"), rp=st.integers(-2, 14), hp=st.integers(-2, 14),
       lang=st.sampled_from(["vi", "zh_CN", "th", "de", "ko", "", "xx-YY"]))
def test_any_context_gets_a_distribution(judge, ref, hyp, op, rp, hp, lang):
    ru = "" if op == "I" else (graphemes(ref)[rp] if 0 <= rp < len(graphemes(ref)) else "a")
    hu = "" if op == "D" else (graphemes(hyp)[hp] if 0 <= hp < len(graphemes(hyp)) else "b")
    c = EditContext(lang, op, ru, hu, rp, hp, ref, hyp, ref, hyp)
    j = judge.judge([c])[0]
    assert j.p is not None and abs(sum(j.p) - 1.0) < 1e-12 and all(x >= 0 for x in j.p)
    assert judge.judge([c, c])[1] == j


#: Measured on data/severity/dev.jsonl (689 edits; README.md "How well the built-in judges agree with
#: labels"; src/semcer/data/compact.json): Spearman 0.874, clear pairs 99.0 % of 45,434, mode accuracy
#: 0.842, MAE 0.067. The shipped model is deterministic, so each bound sits just below its measured
#: value, by MARGIN (a correlation or a share) or MARGIN_PAIRS (clear pairs): a drop of that much
#: is a regression.
MARGIN = 0.02
MARGIN_PAIRS = 0.01
DEV = {"spearman": 0.874, "clear_pairs": 0.990, "mode_accuracy": 0.842, "mae": 0.067}
#: Per language, for the languages with 60 or more dev edits: (n, Spearman, clear pairs), measured.
DEV_BY_LANG = {
    "de": (99, 0.948, 1.000), "vi": (87, 0.907, 1.000), "es": (84, 0.920, 1.000),
    "zh_CN": (75, 0.851, 0.997), "hi": (74, 0.850, 0.996), "fr": (67, 0.866, 1.000),
}


@pytest.fixture(scope="module")
def dev_report(judge, dev):
    contexts, labels = dev
    judgements = judge.judge(contexts)
    return judgements, evaluate_judge(judgements, labels, langs=[c.lang for c in contexts], n_boot=0)


def test_dev_agreement(dev_report, dev):
    judgements, report = dev_report
    o = report.overall
    assert o.n == 689 and report.n_failed == 0
    assert o.spearman.value >= DEV["spearman"] - MARGIN
    assert o.clear_pairs.value >= DEV["clear_pairs"] - MARGIN_PAIRS and o.n_clear_pairs == 45_434
    assert o.mode_accuracy.value >= DEV["mode_accuracy"] - MARGIN
    assert o.mae.value <= DEV["mae"] + MARGIN
    # the same figures from the plain functions
    s = np.array([j.severity for j in judgements])
    y = np.array([lab.severity for lab in dev[1]])
    assert spearman(s, y) == pytest.approx(o.spearman.value, abs=1e-12)
    assert clear_pair_share(s, y) == (pytest.approx(o.clear_pairs.value, abs=1e-12), o.n_clear_pairs)


@pytest.mark.parametrize("lang", list(DEV_BY_LANG))
def test_dev_agreement_per_language(dev_report, lang):
    n, rho, pairs = DEV_BY_LANG[lang]
    g = dev_report[1].by_lang[lang]
    assert g.n == n
    assert g.spearman.value >= rho - MARGIN, g.spearman
    assert g.clear_pairs.value >= pairs - MARGIN_PAIRS, g.clear_pairs


@pytest.mark.xfail(
    strict=True,
    reason="the labels do not support it: in the train split a Vietnamese mark edit that gives a more "
    "frequent word is labelled higher the more frequent the new word (Spearman 0.54 over 118 edits), and "
    "name-to-word edits there are country names labelled 0.44 on average; the model charges đáng 0.40 and "
    "Tám 0.38 (the rubric judge, which has the rule, passes this test)",
)
def test_tone_mark_word_is_cheaper_than_name_becoming_another_name(judge):
    # Paper, Figure 1: đấng -> đáng is recoverable, Tấm (the heroine of Tấm Cám) -> Tám is another name.
    dang, tam = judge.judge([
        ctx("vi", "Đức Chúa Trời là đấng tạo dựng muôn loài", "Đức Chúa Trời là đáng tạo dựng muôn loài"),
        ctx("vi", "Truyện kể rằng cô Tấm hiền lành chăm chỉ", "Truyện kể rằng cô Tám hiền lành chăm chỉ"),
    ])
    assert dang.edit_class == tam.edit_class == "mark"
    assert dang.severity < tam.severity


def test_digit_in_amount_costs_more_than_case_or_space(judge):
    ref = "Tổng cộng: 288.000 đ"
    digit, case, space = judge.judge([
        ctx("vi", ref, "Tổng cộng: 238.000 đ"),
        ctx("vi", ref, "Tổng Cộng: 288.000 đ"),
        ctx("vi", ref, "Tổng cộng:288.000 đ"),
    ])
    assert (digit.edit_class, case.edit_class, space.edit_class) == ("digit", "case", "whitespace")
    assert digit.severity > case.severity and digit.severity > space.severity
    assert digit.mode >= 3 and case.mode == 0 and space.mode == 0
