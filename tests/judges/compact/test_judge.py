"""The compact built-in scorer: the shipped artifact, exact forest inference, agreement with the dev labels."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from semcer.errors import JudgeError
from semcer.judge_eval import clear_pair_share, load_labelled, spearman
from semcer.judges import JUDGE_NAMES, Judge, resolve_judge
from conftest import one_edit_context

from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.judges.base import EditContext
from semcer.judges.compact import (
    CHUNK,
    FEATURE_NAMES,
    FOREST_FILE,
    META_FILE,
    CompactJudge,
    CompactModel,
    TableForest,
    featurize,
    load_model,
)
from semcer.judges.edit_class import graphemes
from semcer.judges.forest import Forest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "severity"
ARTIFACT = ROOT / "src" / "semcer" / "data"
EXAMPLES = ROOT / "examples"

#: Dev agreement the shipped model must keep (the issue's targets; measured: see compact.json).
DEV_SPEARMAN = 0.85
DEV_CLEAR_PAIRS = 0.95


ctx = one_edit_context


@pytest.fixture(scope="module")
def judge() -> CompactJudge:
    return CompactJudge()


@pytest.fixture(scope="module")
def dev():
    return load_labelled(DATA / "dev.jsonl")


# --- The artifact ------------------------------------------------------------------------------


def test_artifact_is_small_and_records_its_training_data():
    npz, meta_path = ARTIFACT / FOREST_FILE, ARTIFACT / META_FILE
    assert npz.stat().st_size < 5 * 2**20
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    train_hash = hashlib.sha256((DATA / "train.jsonl").read_bytes()).hexdigest()
    assert meta["training_data"]["sha256"] == train_hash
    assert meta["forest_sha256"] == hashlib.sha256(npz.read_bytes()).hexdigest()
    assert tuple(meta["feature_names"]) == FEATURE_NAMES
    assert meta["lightgbm"] and meta["params"]["deterministic"] and meta["params"]["num_threads"] == 1
    assert meta["selection"]["grouped_by"] == "line_id"
    model = load_model()
    assert model.sha256 == meta["forest_sha256"]
    assert model.forest.roots.size == meta["trees"] <= 1500 and model.forest.depth <= 3


def test_identity_names_the_artifact(judge):
    assert re.fullmatch(r"compact-1\.0\+[0-9a-f]{10}\+wordfreq-\S+", judge.identity)
    assert judge.identity.split("+")[1] == load_model().sha256[:10]


def test_resolve_judge():
    j = resolve_judge("compact")
    assert isinstance(j, Judge) and isinstance(j, CompactJudge)
    assert "compact" in JUDGE_NAMES


def test_model_with_other_features_is_refused(tmp_path):
    (tmp_path / FOREST_FILE).write_bytes((ARTIFACT / FOREST_FILE).read_bytes())
    (tmp_path / META_FILE).write_text(json.dumps({"feature_names": ["a", "b"]}), encoding="utf-8")
    with pytest.raises(JudgeError, match="train_compact"):
        CompactJudge(tmp_path)
    with pytest.raises(JudgeError, match="cannot read"):
        CompactJudge(tmp_path / "missing")


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


def test_features_have_no_missing_values(dev):
    X, classes = featurize(dev[0])
    assert X.shape == (len(dev[0]), len(FEATURE_NAMES)) and np.isfinite(X).all()
    assert len(classes) == len(dev[0])


def test_dev_agreement(judge, dev):
    contexts, labels = dev
    s = np.array([j.severity for j in judge.judge(contexts)])
    y = np.array([lab.severity for lab in labels])
    share, pairs = clear_pair_share(s, y)
    assert spearman(s, y) >= DEV_SPEARMAN
    assert pairs > 40_000 and share >= DEV_CLEAR_PAIRS


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


def test_score_cli_with_compact_judge(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "semcer", "score", str(EXAMPLES / "references.jsonl"),
         str(EXAMPLES / "tess_noisy.jsonl"), "--judge", "compact", "--json", "--store", str(tmp_path / "s.sqlite")],
        capture_output=True, text=True,
    )
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["signature_fields"]["judge"].startswith("compact-1.0+")
    assert 0 < d["corpus"]["semcer"] < d["corpus"]["cer"]


# --- Forest inference against LightGBM -----------------------------------------------------------


def _one_hot_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """Numeric columns (with repeated values, so that some equal a threshold) and two one-hot groups."""
    rng = np.random.default_rng(seed)
    numeric = np.column_stack([
        rng.normal(size=n), rng.integers(-1, 4, size=n).astype(float), rng.random(n).round(1),
    ])
    codes = np.column_stack([3 + rng.integers(0, 4, size=n), 7 + rng.integers(0, 3, size=n)])
    X = np.zeros((n, 10))
    X[:, :3] = numeric
    X[np.arange(n)[:, None], codes] = 1.0
    groups = [-1, -1, -1, 0, 0, 0, 0, 1, 1, 1]
    return X, numeric, codes, groups


@pytest.mark.parametrize("max_depth", [3, 6])
def test_numpy_forest_equals_lightgbm(max_depth):
    lgb = pytest.importorskip("lightgbm")
    X, numeric, codes, groups = _one_hot_data(600, seed=max_depth)
    score = X[:, 0] + X[:, 1] * X[:, 4] - 2 * X[:, 8] + 0.5 * X[:, 2]
    y = np.digitize(score, np.quantile(score, [0.2, 0.4, 0.6, 0.8]))
    params = {"objective": "multiclass", "num_class": 5, "num_leaves": 8 if max_depth == 3 else 31,
              "max_depth": max_depth, "learning_rate": 0.3, "min_data_in_leaf": 3, "verbose": -1,
              "num_threads": 1, "deterministic": True, "seed": 0}
    booster = lgb.train(params, lgb.Dataset(X, y), num_boost_round=15)
    expected = booster.predict(X)
    forest = Forest.from_lightgbm_dump(booster.dump_model())
    assert np.abs(forest.predict_proba(X) - expected).max() < 1e-12
    if max_depth <= 3:
        fast = TableForest(forest, groups)
        raw = booster.predict(X, raw_score=True)
        assert np.abs(fast.raw_scores(X) - raw).max() < 1e-12
        assert np.abs(fast.raw_scores_parts(numeric, codes) - raw).max() < 1e-12
    else:
        with pytest.raises(ValueError, match="depth"):
            TableForest(forest)


def test_table_forest_one_hot_conditions_that_always_or_never_hold():
    """On a 0/1 column, a threshold of 1 or more always holds and one below 0 never does."""
    # Column 0 numeric, columns 1 and 2 the one-hot group 0. Tree 0: x2 <= 1.5 (always), then
    # x1 <= -0.5 (never); tree 1: x0 <= 0.3, then x1 <= 0.5 (x1 not set).
    feature = np.array([2, 1, -1, -1, -1, 0, 1, -1, -1, -1], np.int32)
    threshold = np.array([1.5, -0.5, 0, 0, 0, 0.3, 0.5, 0, 0, 0])
    left = np.array([1, 3, 2, 3, 4, 6, 7, 7, 8, 9], np.int32)
    right = np.array([2, 4, 2, 3, 4, 9, 8, 7, 8, 9], np.int32)
    value = np.array([0, 0, 3.0, 1.0, 2.0, 0, 0, 0.25, -0.75, 0.5])
    forest = Forest(feature, threshold, left, right, value, np.array([0, 5], np.int32), 1, 2)
    rng = np.random.default_rng(0)
    numeric = rng.random((50, 1))
    codes = 1 + rng.integers(0, 2, size=(50, 1))
    X = np.zeros((50, 3))
    X[:, 0] = numeric[:, 0]
    X[np.arange(50), codes[:, 0]] = 1.0
    fast = TableForest(forest, [-1, 0, 0])
    expected = forest.raw_scores(X)
    assert np.array_equal(fast.raw_scores_parts(numeric, codes), expected)
    assert np.array_equal(fast.raw_scores(X), expected)
    assert set(expected[:, 0]) == {2.25, 1.25, 2.5}


def test_training_is_reproducible(tmp_path):
    """Two fits with the script's settings give byte-identical artifacts (a small subset, few rounds)."""
    pytest.importorskip("lightgbm")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import train_compact as tc
    finally:
        sys.path.remove(str(ROOT / "tools"))
    contexts, labels = load_labelled(DATA / "train.jsonl")
    X, _ = featurize(contexts[:400])
    P = tc.labels_matrix(labels[:400])
    params = {**tc.BASE_PARAMS, "learning_rate": 0.2, "feature_fraction": 0.5, "seed": 0}
    blobs = []
    for i in range(2):
        forest = Forest.from_lightgbm_dump(tc.fit(params, X, P, 10).dump_model())
        path = tmp_path / f"{i}.npz"
        tc._save_reproducibly(forest, path)
        blobs.append(path.read_bytes())
    assert blobs[0] == blobs[1]
    model = CompactModel(blobs[0], {"feature_names": list(FEATURE_NAMES)}, "test")
    assert np.abs(model.predict_proba(X) - tc.fit(params, X, P, 10).predict(X)).max() < 1e-12
