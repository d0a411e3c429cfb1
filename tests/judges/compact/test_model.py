"""The shipped compact model: small, recording its training data, and refused when it does not fit."""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers import DATA, SRC

from semcer.errors import JudgeError
from semcer.judges.compact import CompactJudge
from semcer.judges.compact.features import FEATURE_NAMES
from semcer.judges.compact.model import FOREST_FILE, META_FILE, load_model

ARTIFACT = SRC / "semcer" / "data"


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


def test_model_with_other_features_is_refused(tmp_path):
    (tmp_path / FOREST_FILE).write_bytes((ARTIFACT / FOREST_FILE).read_bytes())
    (tmp_path / META_FILE).write_text(json.dumps({"feature_names": ["a", "b"]}), encoding="utf-8")
    with pytest.raises(JudgeError, match="train_compact"):
        CompactJudge(tmp_path)
    with pytest.raises(JudgeError, match="cannot read"):
        CompactJudge(tmp_path / "missing")
