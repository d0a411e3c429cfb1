"""semcer.api.meta: the meta-evaluation against readers, every figure checked against another tool
(krippendorff, pingouin, scipy, statsmodels), a direct computation written here, or a hand count.

Fixtures (tests/fixtures/readers/, made by make_readers.py): 30 labelled dev edits rated by four
readers (r4 rated 12 of them: below half, not in the panel; r3 skipped two), and 21 rated pairs
(16 from examples/, tess_clean vs tess_noisy, and five hand-made ones, h1-h5).
"""

from __future__ import annotations

import dataclasses
import json
import math

import krippendorff
import numpy as np
import pandas as pd
import pingouin
import pytest
from helpers import ROOT, jsonl, write
from scipy.stats import pearsonr, rankdata, spearmanr
from statsmodels.stats.multitest import multipletests

import semcer
from semcer.api.meta import CER_CONVENTIONS, meta_eval
from semcer.errors import InputError
from semcer.io.json import dumps
from semcer.io.labels import load_labelled
from semcer.io.ratings import RatedPair, read_pairs
from semcer.judges import FixedJudge
from semcer.judges.distribution import Judgement
from semcer.judges.rubric import RubricJudge
from semcer.judges.rubric.classes import edit_class

READERS = ROOT / "tests" / "fixtures" / "readers"
PANEL = ("r1", "r2", "r3")


def _raw(name):
    return [json.loads(line) for line in (READERS / name).read_text(encoding="utf-8").splitlines()]


ITEMS = _raw("items.jsonl")
RATINGS = _raw("ratings.jsonl")


def _matrix(raters=PANEL, items=ITEMS):
    """(raters, items) levels / 4, NaN where not rated: built here from the raw file."""
    m = np.full((len(raters), len(items)), np.nan)
    col = {it["id"]: k for k, it in enumerate(items)}
    for r in RATINGS:
        if r["rater"] in raters and r["item"] in col:
            m[raters.index(r["rater"]), col[r["item"]]] = r["level"] / 4
    return m


@pytest.fixture(scope="module")
def result():
    return meta_eval(ratings=READERS / "ratings.jsonl", items=READERS / "items.jsonl", judges=["rubric"],
                     score_columns=["severity"], bands=["edit_class", "mode"], n_boot=200, seed=3, by_lang=True)


@pytest.fixture(scope="module")
def d(result):
    return result.to_dict()


@pytest.mark.filterwarnings("ignore")  # pingouin's own deprecation warnings
def test_reliability_is_krippendorff_and_pingouin_over_the_panel(d):
    rel = d["reliability"]
    assert rel["raters"] == list(PANEL) and rel["raters_dropped"] == ["r4"]  # 12 of 30 < half
    m = _matrix()
    assert rel["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal"),
                                         abs=1e-12)
    complete = [k for k in range(m.shape[1]) if not np.isnan(m[:, k]).any()]
    assert rel["items"] == 30 and rel["items_alpha"] == 30 and rel["items_complete"] == len(complete) == 28
    long = pd.DataFrame([(k, r, m[i, k]) for k in complete for i, r in enumerate(PANEL)],
                        columns=["item", "rater", "value"])
    icc = pingouin.intraclass_corr(data=long, targets="item", raters="rater", ratings="value")
    row = icc[icc["Type"].isin(["ICC2k", "ICC(A,k)"])]  # the name changed across pingouin versions
    assert rel["icc2k"] == pytest.approx(float(row["ICC"].iloc[0]), abs=1e-9)
    # the paper's rule is an option: with a share of 0.4, r4 joins the panel
    wide = meta_eval(ratings=READERS / "ratings.jsonl", min_rater_share=0.4, n_boot=0).to_dict()["reliability"]
    assert wide["raters"] == ["r1", "r2", "r3", "r4"] and wide["items_complete"] == 11  # r4 rated items 1-12; r3 skipped item 6
    assert wide["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=_matrix(("r1", "r2", "r3", "r4")),
                                                             level_of_measurement="ordinal"), abs=1e-12)


def _mean():
    return np.nanmean(_matrix(), axis=0)


def _rubric():
    contexts, _ = load_labelled(READERS / "items.jsonl")
    return RubricJudge().judge(contexts)


def test_spearman_with_the_panel_mean(d):
    mean = _mean()
    sev = np.array([it["severity"] for it in ITEMS])
    assert d["items"] == {"rated": 30, "scored": 30, "unrated": 0, "without_panel_rating": 0, "failed": 0}
    s = d["scorers"]
    assert list(s) == ["rubric", "rubric:mode", "column:severity"]
    assert s["column:severity"]["spearman"]["value"] == pytest.approx(spearmanr(sev, mean).statistic, abs=1e-12)
    judged = _rubric()
    assert s["rubric"]["spearman"]["value"] == pytest.approx(spearmanr([j.severity for j in judged], mean).statistic,
                                                             abs=1e-12)
    assert s["rubric:mode"]["spearman"]["value"] == pytest.approx(spearmanr([j.mode for j in judged], mean).statistic,
                                                                  abs=1e-12)
    assert s["rubric"]["kind"] == "judge" and s["rubric"]["source"].startswith("rubric-")
    for sc in s.values():
        lo, hi = sc["spearman"]["interval"]
        assert lo <= sc["spearman"]["value"] <= hi


def _partial_by_ols(x, y, band):
    """Pearson of the ranks' residuals after least squares on the band's indicator columns."""
    labels = sorted(set(band))
    dummies = np.array([[b == lab for lab in labels] for b in band], dtype=float)
    res = []
    for v in (rankdata(x), rankdata(y)):
        coef, *_ = np.linalg.lstsq(dummies, v, rcond=None)
        res.append(v - dummies @ coef)
    return pearsonr(*res).statistic


def test_partial_correlation_within_edit_class_and_mode(d):
    mean = _mean()
    sev = [it["severity"] for it in ITEMS]
    classes = [edit_class(it["ref_unit"], it["hyp_unit"]) for it in ITEMS]
    p = d["scorers"]["column:severity"]["partial_within"]
    assert p["edit_class"]["value"] == pytest.approx(_partial_by_ols(sev, mean, classes), abs=1e-9)
    assert p["edit_class"]["bands"] == len(set(classes))
    assert p["mode"] is None  # a column has no mode
    judged = _rubric()
    q = d["scorers"]["rubric"]["partial_within"]
    assert q["mode"]["value"] == pytest.approx(_partial_by_ols([j.severity for j in judged], mean,
                                                               [j.mode for j in judged]), abs=1e-9)


def _caught(score, damage, k):
    """Damage caught by the first k items in descending score order, a tie block charged its mean damage
    at each of its positions (ties broken at random, in expectation)."""
    order = sorted(range(len(score)), key=lambda i: -score[i])
    blocks, i = [], 0
    while i < len(order):
        j = i
        while j < len(order) and score[order[j]] == score[order[i]]:
            j += 1
        blocks.append([damage[t] for t in order[i:j]])
        i = j
    caught, taken = 0.0, 0
    for b in blocks:
        use = min(len(b), k - taken)
        caught += use * sum(b) / len(b)
        taken += use
        if taken == k:
            break
    return caught


def test_top_of_list_at_ten_percent_and_its_curve(d):
    mean = _mean()
    total = mean.sum()
    for name, score in (("column:severity", [it["severity"] for it in ITEMS]),
                        ("rubric:mode", [j.mode for j in _rubric()])):
        top = d["scorers"][name]["top_of_list"]
        assert d["scorers"][name]["top_of_list_10"] == pytest.approx(_caught(score, mean, 3) / total, abs=1e-12)
        assert top["ceiling"] == pytest.approx(np.sort(mean)[::-1][:3].sum() / total, abs=1e-12)
        assert top["random"] == 0.1 and top["curve"]["fractions"][-1] == 0.5 and len(top["curve"]["fractions"]) == 51
        assert top["curve"]["caught"][-1] == pytest.approx(_caught(score, mean, 15) / total, abs=1e-12)
        assert top["curve"]["ceiling"][10] == pytest.approx(top["ceiling"], abs=1e-12)


def test_clear_pairs_against_a_brute_force(d):
    mean = _mean()
    for name, score in (("column:severity", [it["severity"] for it in ITEMS]),
                        ("rubric", [j.severity for j in _rubric()])):
        pairs = good = 0
        for i in range(30):
            for j in range(30):
                if mean[i] - mean[j] >= 0.5 - 1e-9:
                    pairs += 1
                    good += score[i] > score[j]
        cp = d["scorers"][name]["clear_pairs"]
        assert cp["pairs"] == pairs and cp["value"] == pytest.approx(good / pairs, abs=1e-12)


def test_by_language_each_language_is_its_own_pool(d):
    de = [it for it in ITEMS if it["lang"] == "de"]
    sub = d["by_lang"]["de"]
    assert sub["reliability"]["items"] == len(de) == 5
    m = _matrix(items=de)
    assert sub["reliability"]["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal"), abs=1e-12)
    assert sub["scorers"]["column:severity"]["spearman"]["value"] == pytest.approx(
        spearmanr([it["severity"] for it in de], np.nanmean(m, axis=0)).statistic, abs=1e-12)
    assert set(d["by_lang"]) == {it["lang"].replace("_", "-") for it in ITEMS}  # zh_CN is spelled zh-CN


def test_seeded_and_json_clean(result):
    again = meta_eval(ratings=READERS / "ratings.jsonl", items=READERS / "items.jsonl", judges=["rubric"],
                      score_columns=["severity"], bands=["edit_class", "mode"], n_boot=200, seed=3, by_lang=True)
    assert again.to_dict() == result.to_dict()
    text = dumps(result.to_dict())  # no NaN: undefined values are null
    assert "NaN" not in text and "Infinity" not in text


# ---- rated pairs ------------------------------------------------------------------------------------

HAND = [p for p in read_pairs(READERS / "pairs.jsonl") if p.id.startswith("h")]


def test_hand_made_pairs_counted_by_hand():
    """Majorities (panel q1-q3): h1 a, h2 a, h3 a, h4 a, h5 b. Edit counts (ref vs a / b) per
    convention, counted by hand (make_readers.py lists the texts):
      h1 raw/no-space/alnum/normalized/casefold: 1/2 everywhere (700 vs dolarz)     -> CER says b: miss
      h2 raw 1/2 (space and ! inserted), no-space 1/1, alnum 1/0, normalized 1/0, casefold 1/1
      h3 raw 4/2 (deleted "not "), others 3/2 or 3/1                                 -> a: hit everywhere
      h4 raw 1/2, no-space 1/2, alnum 1/1, normalized 1/1, casefold 1/2              -> miss everywhere
      h5 1/2 everywhere (fi1e vs 0pen, flle)                                         -> b: hit everywhere
    so CER agrees on h3 and h5, and with alnum and normalized also on h2."""
    d = meta_eval(pairs=HAND, judges={"compact": "compact"}, n_boot=100, n_permutations=500).to_dict()["pairs"]
    assert d["pairs"] == 5 and d["with_majority"] == 5
    expected = {"raw": 2 / 5, "no-space": 2 / 5, "alnum": 3 / 5, "normalized": 3 / 5, "casefold": 2 / 5}
    for conv, share in expected.items():
        assert d["scorers"][f"cer:{conv}"]["agreement"]["value"] == pytest.approx(share), conv
    # a reader against the others' strict majority, by hand: h1 3/3, h2 2/3, h3 3/3, h4 0/1, h5 2/3
    assert d["reader_agreement"]["value"] == pytest.approx(10 / 13)
    # semCER, each output scored directly
    majority = {"h1": "a", "h2": "a", "h3": "a", "h4": "a", "h5": "b"}
    hits = 0
    for p in HAND:
        sa, sb = (semcer.evaluate([p.ref], [t], judge="compact", langs=p.lang).corpus.severity for t in (p.a, p.b))
        hits += (sa > sb) if majority[p.id] == "a" else (sb > sa)
    assert d["scorers"]["semcer:compact"]["agreement"]["value"] == pytest.approx(hits / 5)


def _direct_pair_scores(pairs):
    out = {}
    for conv in CER_CONVENTIONS:
        out[f"cer:{conv}"] = [[semcer.evaluate([p.ref], [t], policy=conv, empty_ref="insertions").corpus.edits
                               for t in (p.a, p.b)] for p in pairs]
    out["semcer:compact"] = [[semcer.evaluate([p.ref], [t], judge="compact", langs=p.lang).corpus.severity
                              for t in (p.a, p.b)] for p in pairs]
    return {k: np.array(v, dtype=float) for k, v in out.items()}


def _majority(p):
    a = sum(c == "a" for c in p.choices.values())
    b = sum(c == "b" for c in p.choices.values())
    return "a" if a > b else "b" if b > a else None


@pytest.fixture(scope="module")
def pairs_result():
    return meta_eval(pairs=READERS / "pairs.jsonl", judges=["compact"], n_boot=200, n_permutations=2000, seed=1)


def test_pools_agreements_and_margins_on_the_whole_fixture(pairs_result):
    pairs = read_pairs(READERS / "pairs.jsonl")
    d = pairs_result.to_dict()["pairs"]
    direct = _direct_pair_scores(pairs)
    maj = [_majority(p) for p in pairs]  # every rater is in the panel (q3 answered 19 of 21)
    assert d["reliability"]["raters"] == ["q1", "q2", "q3"]
    assert d["with_majority"] == sum(m is not None for m in maj)

    def sign(k):
        return np.sign(direct[k][:, 0] - direct[k][:, 1])

    sem = sign("semcer:compact")
    near = (sem != 0) & (sign("cer:raw") == -sem)
    proof = (sem != 0) & np.all([sign(f"cer:{c}") == -sem for c in CER_CONVENTIONS], axis=0)
    masks = {"all": np.ones(len(pairs), dtype=bool), "near_miss": near, "normalization_proof": proof,
             "near_miss_not_proof": near & ~proof}
    assert near.sum() >= 2 and proof.sum() >= 1  # the hand-made pairs h1 and h2 at least
    for pool in d["pools"]:
        mask = masks[pool["pool"]]
        assert pool["pairs"] == mask.sum()
        assert pool["with_majority"] == sum(m is not None for m, k in zip(maj, mask) if k)
        for name, scores in direct.items():
            got = [(s[0] > s[1]) if m == "a" else (s[1] > s[0]) for s, m, k in zip(scores, maj, mask) if k and m]
            want = pool["agreement"][name]["value"]
            assert (want is None and not got) or want == pytest.approx(sum(got) / len(got)), (pool["pool"], name)
    # margins: semCER minus each convention on the same pairs, Holm over all of them
    margins = d["margins"]
    assert len(margins) == 4 * 5
    by_pool = {p["pool"]: p for p in d["pools"]}
    for m in margins:
        agree = by_pool[m["pool"]]["agreement"]
        if m["pairs"]:
            assert m["difference"] == pytest.approx(agree[m["scorer"]]["value"] - agree[m["baseline"]]["value"])
    raw = [m["p_value"] for m in margins]
    defined = [p for p in raw if p is not None]
    adjusted = multipletests(defined, method="holm")[1]
    assert [m["p_value_holm"] for m in margins if m["p_value"] is not None] == pytest.approx(list(adjusted))
    for m in margins:
        assert m["significant"] == (m["p_value_holm"] is not None and m["p_value_holm"] <= 0.05)


def test_pair_reliability_is_alpha_of_the_ordered_choices(pairs_result):
    pairs = read_pairs(READERS / "pairs.jsonl")
    code = {"a": 0.0, "equal": 1.0, "b": 2.0, None: np.nan}
    m = np.array([[code[p.choices.get(q)] for p in pairs] for q in ("q1", "q2", "q3")])
    rel = pairs_result.to_dict()["pairs"]["reliability"]
    assert rel["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal"),
                                         abs=1e-12)
    assert rel["items_complete"] == 19  # q3 left out p03 and p09


def test_choices_that_name_the_better_output(pairs_result):
    flip = {"a": "b", "b": "a", "equal": "equal", None: None}
    better = [RatedPair(p.id, p.ref, p.a, p.b, p.lang, {q: flip[c] for q, c in p.choices.items()}, p.where)
              for p in read_pairs(READERS / "pairs.jsonl")]
    d = meta_eval(pairs=better, judges=["compact"], chose="better", n_boot=200, n_permutations=2000, seed=1).to_dict()
    want = pairs_result.to_dict()
    assert d["pairs"]["pools"] == want["pairs"]["pools"] and d["pairs"]["margins"] == want["pairs"]["margins"]
    assert d["pairs"]["reliability"] == want["pairs"]["reliability"]


# ---- failures and mistakes --------------------------------------------------------------------------

class _FailsOnDigits(FixedJudge):
    """Level 2 for every edit; fails on edits of a digit (as a server that keeps answering garbage)."""

    def judge(self, contexts):
        return [Judgement(None, failure="garbage") if any(ch.isdigit() for ch in c.ref_unit + c.hyp_unit)
                else Judgement((0.0, 0.0, 1.0, 0.0, 0.0)) for c in contexts]


def test_failed_items_and_pairs_are_left_out_and_counted():
    digits = sum(any(ch.isdigit() for ch in it["ref_unit"] + it["hyp_unit"]) for it in ITEMS)
    r = meta_eval(ratings=READERS / "ratings.jsonl", items=READERS / "items.jsonl", judges={"f": _FailsOnDigits()},
                  score_columns=["severity"], n_boot=0)
    d = r.to_dict()
    assert digits >= 1 and d["items"]["failed"] == digits and d["items"]["scored"] == 30 - digits
    assert d["scorers"]["column:severity"]["items"] == 30 - digits  # every scorer on the same items
    assert r.failures == digits
    p = meta_eval(pairs=HAND, judges={"f": _FailsOnDigits()}, n_boot=0, n_permutations=19).to_dict()["pairs"]
    assert p["failed"] == 3 and p["pairs"] == 2  # h1, h4 and h5 hold a digit edit


def test_mistakes_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="nothing to meta-evaluate"):
        meta_eval()
    with pytest.raises(InputError, match="the ratings are missing"):
        meta_eval(items=READERS / "items.jsonl")
    with pytest.raises(InputError, match="give them with --items"):
        meta_eval(ratings=READERS / "ratings.jsonl", score_columns=["severity"])
    stray = write(tmp_path / "r.jsonl", jsonl({"item": ITEMS[0]["id"], "rater": "a", "level": 1},
                                              {"item": "nowhere", "rater": "a", "level": 2}))
    with pytest.raises(InputError, match=r"r\.jsonl:2: item 'nowhere' is not in the items file"):
        meta_eval(ratings=stray, items=READERS / "items.jsonl", score_columns=["severity"])
    sparse = write(tmp_path / "s.jsonl", jsonl(*({"item": f"i{k}", "rater": f"q{k}", "level": 1} for k in range(3))))
    with pytest.raises(InputError, match="no panel; lower --min-rater-share"):
        meta_eval(ratings=sparse)
    with pytest.raises(InputError, match="CER edges must be positive and increasing"):
        meta_eval(ratings=READERS / "ratings.jsonl", bands=["cer:0.2,0.1"])
    with pytest.raises(semcer.errors.SemcerError, match="--near-miss-against"):
        meta_eval(pairs=HAND, near_miss_against="nfc")


def test_ratings_alone_give_the_reliability_only():
    d = meta_eval(ratings=READERS / "ratings.csv", n_boot=0).to_dict()
    assert d["scorers"] == {} and d["pairs"] is None
    assert d["reliability"]["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=_matrix(), level_of_measurement="ordinal"), abs=1e-12)
    assert not math.isnan(d["reliability"]["icc2k"])


def test_items_without_edits_have_no_edit_class_band(tmp_path):
    """A plain items file (id, lang, a score): no edit class, so no partial within it, said in a note."""
    items = write(tmp_path / "items.jsonl", jsonl(*({"id": it["id"], "lang": it["lang"], "s": it["severity"]}
                                                   for it in ITEMS)))
    r = meta_eval(ratings=READERS / "ratings.jsonl", items=items, score_columns=["s"], by_lang=True, n_boot=0)
    d = r.to_dict()
    assert d["scorers"]["column:s"]["partial_within"] == {"edit_class": None}
    assert d["by_lang"]["de"]["scorers"]["column:s"]["partial_within"] == {"edit_class": None}
    assert any("no edit_class" in n for n in d["notes"])
    assert d["scorers"]["column:s"]["spearman"]["value"] == pytest.approx(
        spearmanr([it["severity"] for it in ITEMS], _mean()).statistic, abs=1e-12)


def test_each_judge_against_each_column_the_table_6_daggers(d):
    mean = _mean()
    sev = np.array([it["severity"] for it in ITEMS])
    judged = np.array([j.severity for j in _rubric()])
    (lead,) = d["leads"]  # one judge (rubric; its mode is no judge of its own) and one column
    assert (lead["scorer"], lead["baseline"]) == ("rubric", "column:severity")
    diff = spearmanr(judged, mean).statistic - spearmanr(sev, mean).statistic
    assert lead["spearman_difference"]["difference"] == pytest.approx(diff, abs=1e-12)
    top = (_caught(judged, mean, 3) - _caught(sev, mean, 3)) / mean.sum()
    assert lead["top_of_list_10_difference"]["difference"] == pytest.approx(top, abs=1e-12)
    for key, flag in (("spearman_difference", "leads_spearman"), ("top_of_list_10_difference", "leads_top_of_list_10")):
        lo, hi = lead[key]["interval"]
        assert lo <= lead[key]["difference"] <= hi
        assert lead[flag] == (lo > 0)
    for lang, block in d["by_lang"].items():
        assert len(block["leads"]) == 1, lang


def test_a_led_baseline_is_marked_with_a_dagger_in_the_table(d):
    from semcer.reports.meta import render_meta_eval

    marked = {**d, "leads": [{**d["leads"][0], "leads_spearman": True, "leads_top_of_list_10": False}]}
    whole = render_meta_eval(marked).split("== language")[0]  # the pooled table (leads given for it only)
    rows = {line.split()[0]: line for line in whole.splitlines() if line.startswith(("rubric", "column"))}
    assert rows["column:severity"].split()[4].endswith("]†")  # the Spearman interval, not the top-of-list one
    assert rows["column:severity"].count("†") == 1 and "†" not in rows["rubric"]
    assert "† a baseline that a judge leads significantly" in render_meta_eval(marked)
    unmarked = {**d, "leads": [{**d["leads"][0], "leads_spearman": False, "leads_top_of_list_10": False}]}
    assert "†" not in render_meta_eval(unmarked)


# ---- too-small panels and undefined reliability ---------------------------------------------------

def _three_raters_two_items(tmp_path):
    """Three raters on the first two items, ordered against the severity column: Spearman -1."""
    ids = [it["id"] for it in ITEMS[1:3]]  # severities 0.975 and 0.3125
    sev = {it["id"]: it["severity"] for it in ITEMS[1:3]}
    low = min(ids, key=sev.get)
    rows = [{"item": i, "rater": r, "level": 4 if i == low else 0} for r in ("a", "b", "c") for i in ids]
    return write(tmp_path / "r.jsonl", jsonl(*rows))


def test_two_items_give_values_without_intervals(tmp_path):
    from semcer.reports.meta import render_meta_eval

    d = meta_eval(ratings=_three_raters_two_items(tmp_path), items=READERS / "items.jsonl",
                  score_columns=["severity"], n_boot=200).to_dict()
    sp = d["scorers"]["column:severity"]["spearman"]
    assert sp["value"] == pytest.approx(-1.0) and sp["interval"] is None
    usable = sp["resamples"]["usable"]  # a resample repeating one item (1 in 2) has no Spearman
    assert sp["resamples"]["drawn"] == 200 and 70 < usable < 130
    assert sp["no_interval"] == f"defined on only {usable} of 200 resamples"
    assert any("2 items compared, fewer than 5" in n for n in d["notes"])
    text = render_meta_eval(d)
    assert "-1.000 (no CI)" in text and "[-1.00, -1.00]" not in text and "(no CI): no interval" in text


def test_one_pair_two_readers_no_interval_on_the_reader_agreement():
    from semcer.reports.meta import render_meta_eval

    one = [dataclasses.replace(HAND[2], choices={"x": "a", "y": "a"})]
    d = meta_eval(pairs=one, n_boot=100, n_permutations=19).to_dict()
    assert d["pairs"]["reader_agreement"]["value"] == pytest.approx(1.0)
    assert d["pairs"]["reader_agreement"]["interval"] is None
    assert "100.0% (no CI)" in render_meta_eval(d) and "[100.0, 100.0]" not in render_meta_eval(d)
    assert any(n.startswith("rated pairs: 1 pairs with a strict majority compared") for n in d["notes"])


def test_the_usable_resamples_are_counted_and_too_few_give_no_interval():
    from semcer.api.meta import _est
    from semcer.reports.meta import _est as shown
    from semcer.statistics.bootstrap import Estimate, percentile_estimate
    from semcer.statistics.bootstrap import guarded as _guarded

    half = percentile_estimate(0.5, [0.1, np.nan, 0.9, np.nan, np.nan], 0.95)  # 2 of 5 usable
    assert (half.n_boot, half.n_usable) == (5, 2) and not math.isnan(half.lo)
    assert math.isnan(_guarded(half, 10).lo)  # under half usable: no interval
    j = _est(_guarded(half, 10))
    assert j["interval"] is None and j["resamples"] == {"drawn": 5, "usable": 2}
    assert j["no_interval"] == "defined on only 2 of 5 resamples"
    most = _guarded(percentile_estimate(0.5, [0.1, 0.9, 0.5, np.nan], 0.95), 10)  # 3 of 4: kept
    assert shown(_est(most)) == "0.500 [0.12, 0.88] (3/4)"
    assert _guarded(Estimate(0.5, 0.1, 0.9, 4, 4), 4) == Estimate(0.5, math.nan, math.nan)  # 4 items < 5


def test_reliability_undefined_says_why(tmp_path):
    from semcer.reports.meta import render_meta_eval

    ids = [it["id"] for it in ITEMS[:6]]
    alone = write(tmp_path / "one.jsonl", jsonl(*({"item": i, "rater": "solo", "level": k % 5}
                                                  for k, i in enumerate(ids))))
    d = meta_eval(ratings=alone, n_boot=0).to_dict()
    assert d["reliability"]["alpha"] is None and d["reliability"]["icc2k"] is None
    assert d["notes"][-1:] == d["reliability"]["notes"] == [
        "warning: rated edits: the panel is a single reader (solo): no agreement to measure, so no alpha or "
        "ICC(2,k), and the readers' rating is that one reader's"]
    assert "note: warning: rated edits: the panel is a single reader (solo)" in render_meta_eval(d)
    same = write(tmp_path / "same.jsonl", jsonl(*({"item": i, "rater": r, "level": 2} for r in "xy" for i in ids)))
    d = meta_eval(ratings=same, n_boot=0).to_dict()
    assert d["reliability"]["alpha"] is None and d["reliability"]["icc2k"] is None
    assert d["notes"][-1:] == d["reliability"]["notes"] == [
        "rated edits: every panel rating is the same (0.5): no variation in the ratings, so alpha and ICC(2,k) "
        "are undefined"]
    assert meta_eval(ratings=READERS / "ratings.csv", n_boot=0).to_dict()["reliability"]["notes"] == []
