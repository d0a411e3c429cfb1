"""semcer.api.analysis: the paper's analyses on a hand-made corpus whose every edit, class and
severity is known (a fixed judge charges a level per edit class), so each figure is counted by hand;
real words are looked up in wordfreq directly; Holm against statsmodels."""

from __future__ import annotations

import string

import pytest
import wordfreq
from helpers import EXAMPLES, jsonl, write
from statsmodels.stats.multitest import multipletests

import semcer
from semcer.api.analysis import alphabet, analyze, word_test_language
from semcer.judges import FixedJudge
from semcer.judges.rubric.classes import edit_class

#: The fixed judge's level per edit class (rating = level / 4).
LEVEL = {"mark": 2, "letter": 3, "ideograph": 4, "digit": 4, "punct": 0, "whitespace": 0}


def _by_class(ctx):
    p = [0.0] * 5
    p[LEVEL.get(edit_class(ctx.ref_unit, ctx.hyp_unit), 1)] = 1.0
    return p


JUDGE = FixedJudge(name="by-class", fn=_by_class)

# id, lang, reference, system A, system B; the edits (counted by hand) are in the comments
CORPUS = [
    ("v1", "vi", "Tấm Cám", "Tám Cám", "Tấm Cá"),           # A: ấ->á mark S (0.5); B: m deleted, letter D (0.75)
    ("v2", "vi", "đấng", "đáng", "đấng"),                   # A: mark S (0.5); B: no edit
    ("e1", "en", "the cat sat", "the cot sat", "the cat sat."),  # A: a->o letter S (0.75); B: . inserted (0)
    ("e2", "en", "open the door", "open the dour", "opcn the door"),  # A: o->u letter S; B: e->c letter S
    ("e3", "en", "a b c d e f g", "x y z w v u t", "a b c d e f g"),  # A: 7 edits (beyond 5); B: none
    ("e4", "en", "Hello, world", "Hello world", "Hellp, world"),  # A: , deleted (0); B: o->p letter S (0.75)
    ("z1", "zh", "我们的", "我门的", "我门的"),                  # both: ideograph S (1.0)
    ("t1", "th", "แมว", "แมร", "แมว"),                        # A: letter S in Thai (no spaces: no word test)
    ("u1", "te", "తెలుగు", "తెనుగు", "తెలుగు"),                 # A: letter S in Telugu (no wordfreq list)
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    cols = {"refs": 2, "A": 3, "B": 4}
    return {name: write(d / f"{name}.jsonl", jsonl(*({"id": r[0], "lang": r[1], "text": r[k]} for r in CORPUS)))
            for name, k in cols.items()}


@pytest.fixture(scope="module")
def result(files):
    return analyze(files["refs"], [files["A"], files["B"]], names=["A", "B"], judge=JUDGE, n_boot=200, seed=5)


def _rows(rows, **key):
    return [r for r in rows if all(r[k] == v for k, v in key.items())]


def test_lines_in_the_filter(result):
    # A: every line but e3 (7 edits); B: v1, e1, e2, e4, z1 (v2, e3, t1, u1 have no edit)
    assert result.lines == {"A": {"read": 9, "analysed": 8, "failed": 0}, "B": {"read": 9, "analysed": 5, "failed": 0}}
    every = analyze({r[0]: r[2] for r in CORPUS}, [{r[0]: r[3] for r in CORPUS}], judge=JUDGE,
                    max_edits=0, n_boot=0)
    assert every.lines["system 1"]["analysed"] == 9  # --max-edits 0: e3 too


def test_grapheme_load_by_hand(result):
    gl = result.grapheme_load
    (a_vi,) = _rows(gl, lang="vi", system="A")
    assert (a_vi["mark_only"], a_vi["mark_edits"], a_vi["content_substitution"], a_vi["per_edit"], a_vi["edits"],
            a_vi["lines"]) == (0.5, 2, None, 0.5, 2, 2)
    (a_en,) = _rows(gl, lang="en", system="A")  # e1 0.75, e2 0.75, e4 0.0; e3 is out
    assert (a_en["mark_only"], a_en["content_substitution"], a_en["content_substitutions"], a_en["per_edit"],
            a_en["edits"], a_en["lines"]) == (None, 0.75, 2, pytest.approx(0.5), 3, 3)
    (b_vi,) = _rows(gl, lang="vi", system="B")  # a deletion is no content substitution
    assert (b_vi["mark_only"], b_vi["content_substitution"], b_vi["per_edit"]) == (None, None, 0.75)
    (b_en,) = _rows(gl, lang="en", system="B")  # e1 0.0, e2 0.75, e4 0.75
    assert (b_en["content_substitution"], b_en["per_edit"], b_en["edits"]) == (0.75, pytest.approx(0.5), 3)
    (b_zh,) = _rows(gl, lang="zh", system="B")
    assert (b_zh["content_substitution"], b_zh["per_edit"]) == (1.0, 1.0)


def test_severity_by_class(result):
    assert _rows(result.by_class, lang="en", system="B") == [
        {"lang": "en", "system": "B", "edit_class": "letter", "edits": 2, "severity": 0.75},
        {"lang": "en", "system": "B", "edit_class": "punct", "edits": 1, "severity": 0.0},
    ]


def _real(word):
    return wordfreq.zipf_frequency(word, "en") >= 2.0


def _chance(head, letter, tail):
    others = [c for c in string.ascii_lowercase if c != letter]
    return sum(_real(head + c + tail) for c in others) / len(others)


def test_real_words_against_wordfreq(result):
    assert alphabet("en") == tuple(string.ascii_lowercase)
    (a,) = _rows(result.real_word, lang="en", system="A")  # cat -> cot, door -> dour
    assert a["letter_errors"] == 2 and not a["reported"]  # fewer than 30
    assert a["observed"] == (_real("cot") + _real("dour")) / 2 == 1.0
    assert a["chance"] == pytest.approx((_chance("c", "a", "t") + _chance("do", "o", "r")) / 2)
    assert a["difference"] == pytest.approx(a["observed"] - a["chance"])
    (b,) = _rows(result.real_word, lang="en", system="B")  # open -> opcn, hello -> hellp
    assert b["observed"] == (_real("opcn") + _real("hellp")) / 2 == 0.0
    assert b["chance"] == pytest.approx((_chance("op", "e", "n") + _chance("hell", "o", "")) / 2)
    assert b["chance_interval"] is None and b["interval"] is None  # 2 letter errors: too few for an interval
    # Thai has no spaces between words; wordfreq has no Telugu list
    assert result.no_lexicon == [{"lang": "te", "reason": "no wordfreq lexicon", "letter_errors": {"A": 1}},
                                 {"lang": "th", "reason": "words are not separated by spaces", "letter_errors": {"A": 1}}]
    assert word_test_language("zh_CN")[0] is None and word_test_language("de") == ("de", "")


def test_equal_count_by_hand(result):
    ec = {r["lang"]: r for r in result.equal_count}
    assert set(ec) == {"vi", "en", "zh"}  # th, te: B makes no edit on t1, u1
    assert (ec["vi"]["difference"], ec["vi"]["lines"], ec["vi"]["edits"]) == (0.25, 1, 1)  # v1: 0.75 - 0.5
    # e1 0.0 - 0.75, e2 0.75 - 0.75, e4 0.75 - 0.0 (e3: 7 edits against none)
    assert (ec["en"]["difference"], ec["en"]["lines"], ec["en"]["edits"]) == (0.0, 3, 3)
    assert (ec["en"]["system_mean"], ec["en"]["baseline_mean"]) == (pytest.approx(0.5), pytest.approx(0.5))
    assert ec["zh"]["difference"] == 0.0
    assert all(r["baseline"] == "A" and r["system"] == "B" for r in ec.values())
    assert ec["vi"]["p_value"] == 1.0  # one line: every sign flip is as extreme


def test_equal_count_p_values_and_holm(tmp_path):
    # en: 10 lines, B worse by 0.75 on each (a letter where A drops a full stop); exact sign-flip p = 2/2^10.
    # de: 6 such lines, exact p = 2/2^6
    rows = [(f"e{k}", "en", f"cat {k}.", f"cat {k}", f"cot {k}.") for k in range(10)]
    rows += [(f"d{k}", "de", f"Haus {k}.", f"Haus {k}", f"Hous {k}.") for k in range(6)]
    refs = {r[0]: r[2] for r in rows}
    langs = {r[0]: r[1] for r in rows}
    out = analyze(refs, [{r[0]: r[3] for r in rows}, {r[0]: r[4] for r in rows}], names=["A", "B"], langs=langs,
                  judge=JUDGE, n_boot=100, n_permutations=20_000, seed=2)
    ec = {r["lang"]: r for r in out.equal_count}
    assert ec["en"]["difference"] == 0.75 and ec["en"]["interval"] == [0.75, 0.75] and ec["en"]["lines"] == 10
    assert ec["en"]["p_value"] == pytest.approx(2 / 2**10, abs=0.0008)
    assert ec["de"]["p_value"] == pytest.approx(2 / 2**6, abs=0.006)
    holm = multipletests([ec["de"]["p_value"], ec["en"]["p_value"]], method="holm")[1]
    assert [ec["de"]["p_value_holm"], ec["en"]["p_value_holm"]] == pytest.approx(list(holm))
    assert ec["en"]["significant"] and ec["de"]["significant"]


def test_the_example_in_a_few_seconds_and_against_direct_scores():
    import time

    refs, clean, noisy = (str(EXAMPLES / f) for f in ("references.jsonl", "tess_clean.jsonl", "tess_noisy.jsonl"))
    start = time.perf_counter()
    out = analyze(refs, [clean, noisy], n_boot=200)
    assert time.perf_counter() - start < 10
    ev = semcer.evaluate(refs, noisy, judge="compact", edits=True)
    kept = {line.id for line in ev.lines if 1 <= line.stats.edits <= 5}
    sev = [j.severity for j in ev.judged if j.line_id in kept and j.lang == "vi"]
    (row,) = _rows(out.grapheme_load, lang="vi", system=noisy)
    assert row["edits"] == len(sev) and row["per_edit"] == pytest.approx(sum(sev) / len(sev))
    assert out.to_dict()["baseline"] == clean and len(out.equal_count) >= 1


def test_mistakes(files):
    with pytest.raises(semcer.errors.InputError, match="at least one system"):
        analyze(files["refs"], [])
    with pytest.raises(semcer.errors.InputError, match="2 distinct names"):
        analyze(files["refs"], [files["A"], files["B"]], names=["A", "A"])
    with pytest.raises(semcer.errors.InputError, match="needs a judge"):
        analyze(files["refs"], [files["A"]], judge=None)


def test_lang_and_langs_are_one_or_the_other(files):
    with pytest.raises(semcer.errors.InputError, match="not both"):
        analyze(files["refs"], [files["A"]], langs="de", lang="en")


def test_the_same_file_twice_needs_names(files):
    with pytest.raises(semcer.errors.InputError, match="systems 1 and 2 are the same file"):
        analyze(files["refs"], [files["A"], files["A"]])
