"""The offline rubric judge: what must hold, each rule on real lines, the contract, and its agreement
with the labelled dev split."""

from __future__ import annotations

import json
import math

import pytest
from helpers import DATA, one_edit_context
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.alignment.context import EditContext
from semcer.io.labels import load_labelled
from semcer.judges import Judge, resolve_judge
from semcer.judges.rubric import RubricJudge
from semcer.judges.rubric.features import edit_features, feature_tuple
from semcer.judges.rubric.rules import RULES_BY_ID, rubric_rule
from semcer.statistics.judge_eval import DEFAULT_POOLS, evaluate_judge
from semcer.text.units import graphemes

ctx = one_edit_context


JUDGE = RubricJudge()


def judged(lang: str, ref: str, hyp: str):
    return JUDGE.judge([ctx(lang, ref, hyp)])[0]


# --- What must hold (issue 3) ------------------------------------------------------------------


def test_tone_mark_word_is_cheaper_than_name_becoming_another_name():
    # Paper, Figure 1: đấng -> đáng is recoverable, Tấm (the heroine of Tấm Cám) -> Tám is another name.
    dang = judged("vi", "Đức Chúa Trời là đấng tạo dựng muôn loài", "Đức Chúa Trời là đáng tạo dựng muôn loài")
    tam = judged("vi", "Truyện kể rằng cô Tấm hiền lành chăm chỉ", "Truyện kể rằng cô Tám hiền lành chăm chỉ")
    tam_cam = judged("vi", "Tấm Cám là truyện cổ tích", "Tám Cám là truyện cổ tích")
    assert dang.edit_class == tam.edit_class == "mark"
    assert dang.severity < tam.severity
    assert dang.severity < tam_cam.severity
    assert dang.mode <= 1 < tam.mode


def test_digit_in_amount_costs_more_than_case_or_space():
    ref = "Tổng cộng: 288.000 đ"
    digit = judged("vi", ref, "Tổng cộng: 238.000 đ")
    case = judged("vi", ref, "Tổng Cộng: 288.000 đ")
    space = judged("vi", ref, "Tổng cộng:288.000 đ")
    assert (digit.edit_class, case.edit_class, space.edit_class) == ("digit", "case", "whitespace")
    assert digit.severity > case.severity and digit.severity > space.severity
    assert digit.mode == 4 and case.mode == 0 and space.mode == 0


@pytest.mark.parametrize("ref,hyp", [("110-2", "11O-2"), ("Phòng 110-2", "Phòng 11O-2")])
def test_zero_read_as_letter_o_is_recoverable(ref, hyp):
    j = judged("vi", ref, hyp)
    assert j.edit_class == "digit"
    assert j.mode <= 1
    assert "rule:digit-letter" in j.flags


# --- Rules ----------------------------------------------------------------------------------


def test_non_word_and_real_word_letters():
    nonword = judged("de", "Die Zeile ist zu lang", "Die Zeie ist zu lang")
    assert nonword.mode == 1 and "rule:non-word" in nonword.flags
    f = edit_features(ctx("de", "Die Zeile ist zu lang", "Die Zeie ist zu lang"))
    assert f["ref_word"] == "Zeile" and f["hyp_word"] == "Zeie"
    assert f["ref_known"] is True and f["hyp_known"] is False
    realword = judged("de", "Es konnte nicht gestartet werden.", "Es konnte nicht gestartet werten.")
    assert "rule:real-word" in realword.flags
    assert realword.severity > nonword.severity


def test_lost_negation_is_false_and_fluent():
    # One item per deleted grapheme of the negation word; the output lacks the whole word.
    ref, hyp = "The file was not found", "The file was found"
    c = EditContext("en", "D", "n", "", 13, 13, ref, hyp, "The file was ⟦n⟧ot found", "The file was ⟦⟧found")
    j = JUDGE.judge([c])[0]
    assert j.mode == 4 and "rule:negation" in j.flags
    # A garbled negation is a non-word that readers repair.
    garbled = judged("de", "Die Nummer ist nicht gültig", "Die Nummer ist nlcht gültig")
    assert "rule:non-word" in garbled.flags
    # French: "pas" lost while "n'" still stands there.
    ref, hyp = "Le démon n'est pas en cours", "Le démon n'est en cours"
    c = EditContext("fr", "D", "p", "", 15, 15, ref, hyp, "Le démon n'est ⟦p⟧as en cours", "Le démon n'est ⟦⟧en cours")
    partial = JUDGE.judge([c])[0]
    assert "rule:negation-partial" in partial.flags and partial.severity < j.severity


def test_negation_rule_on_labelled_rows():
    rows = [json.loads(line) for line in (DATA / "dev.jsonl").read_text(encoding="utf-8").splitlines()]
    neg = [r for r in rows if r["system"] == "targeted_negation" and r["op"] == "D" and r["severity"] > 0.8]
    assert neg, "the dev split has deleted negations"
    fields = ("lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos", "ref", "hyp", "marked_ref", "marked_hyp")
    contexts = [EditContext(**{k: r[k] for k in fields}) for r in neg]
    modes = [j.mode for j in JUDGE.judge(contexts)]
    assert sum(m == 4 for m in modes) / len(modes) > 0.8


def test_number_rules():
    same = judged("de", "Debian 6.0 »Squeeze«", "Debian 6.00 »Squeeze«")
    assert "rule:number-same" in same.flags and same.mode == 1
    year = judged("es", "Vencimiento: 21 de febrero de 2024", "Vencimiento: 21 de febrero de 2824")
    assert "rule:number-implausible" in year.flags and year.mode == 3
    merged = judged("de", "Debian 3.1 »Sarge«", "Debian 31 »Sarge«")
    assert "rule:number-punct" in merged.flags and merged.mode == 4
    dash = judged("de", "Copyright (C) 2009–2022", "Copyright (C) 2009-2022")
    assert dash.mode == 0


def test_cosmetic_edits():
    assert judged("fr", "Total : 12,50 €", "Total ： 12,50 €").mode == 0
    assert judged("el", "του μενού", "του μενoύ").edit_class == "homoglyph"
    assert judged("en", "You must put 'deb-src' URIs", "You must put ‘deb-src' URIs").mode == 0


def test_language_without_lexicon_is_flagged():
    j = judged("lo", "ບໍ່ສາມາດລຶບ", "ບໍ່ສາມາຄລຶບ")  # Lao: no wordfreq list, no extra lexicon
    assert "no-lexicon" in j.flags and j.mode == 1
    assert "no-lexicon" not in judged("de", "Die Zeile", "Die Zeie").flags


def test_chinese_character_with_and_without_a_word():
    nonword = judged("zh_CN", "无法打开文件", "无法打开又件")
    assert nonword.edit_class == "ideograph" and nonword.mode == 1


# --- Contract -------------------------------------------------------------------------------


def test_judge_contract_and_identity():
    judge = resolve_judge("rubric")
    assert isinstance(judge, Judge) and isinstance(judge, RubricJudge)
    ident = judge.identity
    assert ident.startswith("rubric-1.") and "+wordfreq-" in ident
    assert RubricJudge(mode_mass=1.0).identity != ident
    with pytest.raises(ValueError):
        RubricJudge(mode_mass=0.3)
    one_hot = RubricJudge(mode_mass=1.0).judge([ctx("de", "Die Zeile", "Die Zeie")])[0]
    assert one_hot.p == (0.0, 1.0, 0.0, 0.0, 0.0)


_CTX_TEXT = st.text(alphabet=st.sampled_from(list("ab đấng文件 .,0123Oः्ि-\u0301")), max_size=12)


@settings(max_examples=300, deadline=None)
@given(ref=_CTX_TEXT, hyp=_CTX_TEXT, op=st.sampled_from("SID"), rp=st.integers(-2, 14), hp=st.integers(-2, 14),
       lang=st.sampled_from(["vi", "zh_CN", "th", "de", "ko", "", "xx-YY"]))
def test_any_context_gets_a_valid_distribution(ref, hyp, op, rp, hp, lang):
    ru = "" if op == "I" else (graphemes(ref)[rp] if 0 <= rp < len(graphemes(ref)) else "a")
    hu = "" if op == "D" else (graphemes(hyp)[hp] if 0 <= hp < len(graphemes(hyp)) else "b")
    c = EditContext(lang, op, ru, hu, rp, hp, ref, hyp, ref, hyp)
    j = JUDGE.judge([c])[0]
    assert j.p is not None and math.isclose(sum(j.p), 1.0) and all(x >= 0 for x in j.p)
    rule_id, tilt = rubric_rule(edit_features(c))
    assert j.mode == RULES_BY_ID[rule_id].level
    assert rubric_rule(feature_tuple(c)) == (rule_id, tilt)


# --- Agreement with the labels (dev split) ------------------------------------------------

#: Measured on data/severity/dev.jsonl (915 edits; README.md "How well the built-in judges agree with
#: labels", docs/rubric.md): Spearman 0.812, clear pairs 98.4 % of 74,535, mode accuracy 0.797, MAE
#: 0.122. The judge is deterministic, so each bound sits just below its measured value, by MARGIN
#: (a correlation or a share) or MARGIN_PAIRS (clear pairs): a drop of that much is a regression.
MARGIN = 0.02
MARGIN_PAIRS = 0.01
DEV = {"spearman": 0.812, "clear_pairs": 0.984, "mode_accuracy": 0.797, "mae": 0.122}
#: Per language, for the languages with 60 or more dev edits: (n, Spearman, clear pairs), measured.
DEV_BY_LANG = {
    "de": (99, 0.896, 1.000), "vi": (87, 0.792, 0.994), "es": (84, 0.829, 0.990),
    "zh-CN": (75, 0.828, 0.997), "hi": (74, 0.765, 1.000), "fr": (67, 0.757, 0.987),
}
#: The twelve smaller languages pooled (388 edits): Spearman 0.810, clear pairs 98.0 %, measured.
DEV_SMALL_POOLED = (388, 0.810, 0.980)


@pytest.fixture(scope="module")
def dev_report():
    contexts, labels = load_labelled(DATA / "dev.jsonl")
    judgements = JUDGE.judge(contexts)
    return judgements, evaluate_judge(judgements, labels, langs=[c.lang for c in contexts], n_boot=0,
                                      pools=DEFAULT_POOLS)


def test_dev_agreement_meets_targets(dev_report):
    judgements, report = dev_report
    o = report.overall
    assert o.n == 915 and report.n_failed == 0
    assert o.spearman.value >= DEV["spearman"] - MARGIN
    assert o.clear_pairs.value >= DEV["clear_pairs"] - MARGIN_PAIRS and o.n_clear_pairs == 74_535
    assert o.mode_accuracy.value >= DEV["mode_accuracy"] - MARGIN
    assert o.mae.value <= DEV["mae"] + MARGIN
    # the mode follows the table: every judgement's mode is its rule's level
    for j in judgements:
        assert j.mode == RULES_BY_ID[j.flags[0].removeprefix("rule:")].level


@pytest.mark.parametrize("lang", list(DEV_BY_LANG))
def test_dev_agreement_per_language(dev_report, lang):
    n, rho, pairs = DEV_BY_LANG[lang]
    g = dev_report[1].by_lang[lang]
    assert g.n == n
    assert g.spearman.value >= rho - MARGIN, g.spearman
    assert g.clear_pairs.value >= pairs - MARGIN_PAIRS, g.clear_pairs


def test_dev_agreement_small_languages_pooled(dev_report):
    n, rho, pairs = DEV_SMALL_POOLED
    g = dev_report[1].pooled["small languages pooled"]
    assert g.n == n
    assert g.spearman.value >= rho - MARGIN, g.spearman
    assert g.clear_pairs.value >= pairs - MARGIN_PAIRS, g.clear_pairs
