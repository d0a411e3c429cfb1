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
from semcer.judges.rubric import extra_lexicons
from semcer.statistics.correlation import spearman
from semcer.statistics.judge_eval import DEFAULT_POOLS, clear_pair_share, evaluate_judge
from semcer.text.units import graphemes

ctx = one_edit_context

#: The dev figures below hold for the word lists the shipped forest was trained with (compact.json's
#: "extra_lexicons"); on a machine without them (no PyThaiNLP, no Debian aspell-te/-kn/-mr) the Thai,
#: Telugu, Kannada and Marathi features differ, so those figures are not this model's there.
_TRAINED_WITH = load_model().meta.get("extra_lexicons", {})
same_lexicons = pytest.mark.skipif(
    extra_lexicons.version() != _TRAINED_WITH.get("version"),
    reason=f"the compact forest was trained with {_TRAINED_WITH.get('sources')}; this machine has "
    f"{list(extra_lexicons.sources())} (pip install 'semcer[thai]'; apt-get install aspell-te aspell-kn aspell-mr)",
)


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


#: Measured on data/severity/dev.jsonl (915 edits; README.md "How well the built-in judges agree with
#: labels"; src/semcer/data/compact.json): Spearman 0.883, clear pairs 99.2 % of 74,535, mode accuracy
#: 0.835, MAE 0.068. The shipped model is deterministic, so each bound sits just below its measured
#: value, by MARGIN (a correlation or a share) or MARGIN_PAIRS (clear pairs): a drop of that much
#: is a regression.
MARGIN = 0.02
MARGIN_PAIRS = 0.01
DEV = {"spearman": 0.883, "clear_pairs": 0.992, "mode_accuracy": 0.835, "mae": 0.068}
#: Per language, all nineteen: (n, Spearman, clear pairs), measured (the twelve smaller languages
#: have 24-46 dev edits each, so their figures carry wide intervals: README.md).
DEV_BY_LANG = {
    "de": (99, 0.935, 1.000), "vi": (87, 0.874, 1.000), "es": (84, 0.897, 0.997),
    "zh-CN": (75, 0.865, 1.000), "hi": (74, 0.808, 0.996), "fr": (67, 0.847, 0.993), "en": (41, 0.826, 0.957),
    "mr": (46, 0.802, 1.000), "te": (40, 0.919, 1.000), "el": (39, 0.896, 1.000), "ar": (36, 0.862, 1.000),
    "ko": (32, 0.772, 1.000), "bn": (31, 0.701, 1.000), "he": (30, 0.909, 1.000), "ta": (30, 0.903, 1.000),
    "th": (29, 0.756, 1.000), "ru": (26, 0.952, 1.000), "ja": (25, 0.726, 1.000), "kn": (24, 0.857, 1.000),
}
#: The pooled rows of `semcer judge-eval` (statistics.judge_eval.DEFAULT_POOLS): (n, Spearman, clear pairs).
DEV_POOLED = {"main languages pooled": (527, 0.883, 0.991), "small languages pooled": (388, 0.875, 0.994)}


@pytest.fixture(scope="module")
def dev_report(judge, dev):
    contexts, labels = dev
    judgements = judge.judge(contexts)
    return judgements, evaluate_judge(judgements, labels, langs=[c.lang for c in contexts], n_boot=0,
                                      pools=DEFAULT_POOLS)


@same_lexicons
def test_dev_agreement(dev_report, dev):
    judgements, report = dev_report
    o = report.overall
    assert o.n == 915 and report.n_failed == 0
    assert o.spearman.value >= DEV["spearman"] - MARGIN
    assert o.clear_pairs.value >= DEV["clear_pairs"] - MARGIN_PAIRS and o.n_clear_pairs == 74_535
    assert o.mode_accuracy.value >= DEV["mode_accuracy"] - MARGIN
    assert o.mae.value <= DEV["mae"] + MARGIN
    # the same figures from the plain functions
    s = np.array([j.severity for j in judgements])
    y = np.array([lab.severity for lab in dev[1]])
    assert spearman(s, y) == pytest.approx(o.spearman.value, abs=1e-12)
    assert clear_pair_share(s, y) == (pytest.approx(o.clear_pairs.value, abs=1e-12), o.n_clear_pairs)


@same_lexicons
@pytest.mark.parametrize("lang", list(DEV_BY_LANG))
def test_dev_agreement_per_language(dev_report, lang):
    n, rho, pairs = DEV_BY_LANG[lang]
    g = dev_report[1].by_lang[lang]
    assert g.n == n
    assert g.spearman.value >= rho - MARGIN, g.spearman
    assert g.clear_pairs.value >= pairs - MARGIN_PAIRS, g.clear_pairs


@same_lexicons
@pytest.mark.parametrize("name", list(DEV_POOLED))
def test_dev_agreement_pooled(dev_report, name):
    n, rho, pairs = DEV_POOLED[name]
    g = dev_report[1].pooled[name]
    assert g.n == n
    assert g.spearman.value >= rho - MARGIN, g.spearman
    assert g.clear_pairs.value >= pairs - MARGIN_PAIRS, g.clear_pairs


@pytest.mark.xfail(
    strict=True,
    reason="the labels do not support it: in the train split a Vietnamese mark edit that gives a more "
    "frequent word is labelled higher the more frequent the new word (Spearman 0.54 over 118 edits), and "
    "name-to-word edits there are country names labelled 0.44 on average; the model retrained on 3,792 "
    "edits charges đáng 0.43 and Tám 0.41 (the rubric judge, which has the rule, passes this test)",
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


@pytest.mark.parametrize("ref,hyp", [
    ("Phòng 110-2", "Phòng 11O-2"),
    ("Room 110-2", "Room 11O-2"),
    pytest.param("110-2", "11O-2", marks=pytest.mark.xfail(
        strict=True, reason="with nothing but the code on the line the model charges 0.57 (mode 3): in the "
        "train split a letter read for a digit inside a number is labelled 0.56 on average (39 edits), and a "
        "line made only of the number gives no context that says it was a code")),
])
def test_zero_read_as_letter_o_is_recoverable(judge, ref, hyp):
    # Paper, Figure 1: 110-2 -> 11O-2 is visibly wrong and recoverable, unlike another digit.
    lang = "en" if ref.startswith("Room") else "vi"
    letter, digit = judge.judge([ctx(lang, ref, hyp), ctx(lang, ref, ref.replace("110-2", "170-2"))])
    assert letter.edit_class == digit.edit_class == "digit"
    assert letter.mode <= 1 and letter.severity < digit.severity
