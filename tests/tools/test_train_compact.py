"""tools/train_compact.py: two fits with the script's settings give byte-identical artifacts."""

import sys

import numpy as np
import pytest
from helpers import DATA, ROOT

from semcer.io.labels import load_labelled
from semcer.judges.compact.features import FEATURE_NAMES, featurize
from semcer.judges.compact.forest import Forest
from semcer.judges.compact.model import CompactModel


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
