"""Train the compact built-in scorer and write its artifact (``src/semcer/data/compact_forest.npz`` + ``compact.json``).

    python tools/train_compact.py [--folds 5] [--seed 0] [--quick]

Steps, all deterministic (fixed seeds, ``deterministic=True``, one thread), so that rerunning the
script rewrites the same artifact:

1. features of every edit of ``data/severity/train.jsonl`` (:func:`semcer.judges.compact.features.featurize`);
2. soft labels by replication: each edit appears five times, with label k and weight p_k, so that
   LightGBM's multiclass log-loss is the cross-entropy with the labelled distribution;
3. a small grid of hyperparameters and the number of rounds chosen by cross-validation on the
   train split, folds grouped by reference line (``line_id``): the pooled out-of-fold Spearman
   correlation of the expected rating with the labels' expected rating (cross-entropy breaks ties);
4. the chosen model fitted on all of train, compiled to numpy arrays
   (:meth:`semcer.judges.compact.forest.Forest.from_lightgbm_dump`) and checked against LightGBM's own
   predictions;
5. only then the dev split is scored, for the record: dev figures go into ``compact.json`` and are
   never used to choose anything.

LightGBM is needed here only; the package reads the artifact with numpy.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from semcer.io.labels import load_labelled  # noqa: E402
from semcer.judges.compact.features import FEATURE_NAMES, featurize  # noqa: E402
from semcer.judges.compact.forest import Forest  # noqa: E402
from semcer.judges.compact.judge import COMPACT_VERSION  # noqa: E402
from semcer.judges.compact.model import FOREST_FILE, META_FILE, CompactModel  # noqa: E402
from semcer.judges.distribution import RATINGS  # noqa: E402
from semcer.judges.rubric import extra_lexicons  # noqa: E402
from semcer.judges.rubric.lexicon import wordfreq_version  # noqa: E402
from semcer.statistics.correlation import spearman as _spearman  # noqa: E402
from semcer.statistics.judge_eval import Label, clear_pair_share  # noqa: E402

TRAIN = ROOT / "data" / "severity" / "train.jsonl"
DEV = ROOT / "data" / "severity" / "dev.jsonl"
OUT = ROOT / "src" / "semcer" / "data"

#: Settings shared by every model (LightGBM names).
BASE_PARAMS: dict[str, Any] = {
    "objective": "multiclass",
    "num_class": 5,
    "deterministic": True,
    "force_col_wise": True,
    "num_threads": 1,
    "verbose": -1,
    "max_bin": 63,
    "min_data_in_leaf": 5,  # replicated rows; the hessian floor below is what binds
    "bagging_freq": 0,
    # Trees of depth <= 3 are what the fast evaluator (semcer.judges.compact.table.TableForest) reads.
    "max_depth": 3,
    "num_leaves": 8,
}

#: The grid searched by cross-validation (every combination).
GRID: dict[str, tuple[Any, ...]] = {
    "learning_rate": (0.1, 0.2, 0.3),
    "min_sum_hessian_in_leaf": (0.5, 2.0),
    "feature_fraction": (0.5, 0.8),
    "lambda_l2": (1.0, 5.0),
}
#: At most 100 rounds (500 trees): the forest's share of the scorer's time stays a few microseconds
#: per edit (throughput target: 50k edits/s on one core, features included).
MAX_ROUNDS = 100
CHECK_EVERY = 10


def spearman(s: Any, y: Any) -> float:
    """Spearman's rho, NaN where it is undefined (the library's spearman says None there)."""
    rho = _spearman(s, y)
    return math.nan if rho is None else rho


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def replicate(X: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows repeated once per level with a positive probability: (X, label, weight)."""
    n, k = P.shape
    rows = np.repeat(np.arange(n), k)
    labels = np.tile(np.arange(k), n)
    weights = P.reshape(-1)
    keep = weights > 0
    return X[rows[keep]], labels[keep], weights[keep]


def fold_ids(line_ids: list[str], n_folds: int, seed: int) -> np.ndarray:
    """Fold of each edit: reference lines shuffled (seeded) and dealt round-robin into folds."""
    lines = sorted(set(line_ids))
    order = np.random.default_rng(seed).permutation(len(lines))
    fold_of = {lines[j]: i % n_folds for i, j in enumerate(order)}
    return np.array([fold_of[x] for x in line_ids])


def severity(P: np.ndarray) -> np.ndarray:
    return P @ np.asarray(RATINGS)


def cross_entropy(P: np.ndarray, Q: np.ndarray) -> float:
    """Mean cross-entropy of predicted distributions Q with target distributions P."""
    return float(-(P * np.log(np.clip(Q, 1e-12, 1.0))).sum(axis=1).mean())


def fit(params: dict[str, Any], X: np.ndarray, P: np.ndarray, rounds: int) -> Any:
    """A LightGBM booster on the soft labels ``P`` (rows of X replicated per level)."""
    import lightgbm as lgb

    Xr, yr, wr = replicate(X, P)
    data = lgb.Dataset(Xr, yr, weight=wr)
    return lgb.train(params, data, num_boost_round=rounds)


def cross_validate(
    params: dict[str, Any], X: np.ndarray, P: np.ndarray, folds: np.ndarray, rounds: int, every: int
) -> list[dict[str, float]]:
    """Pooled out-of-fold figures after every ``every`` rounds."""
    checkpoints = list(range(every, rounds + 1, every))
    oof = np.zeros((len(checkpoints), *P.shape))
    for k in np.unique(folds):
        tr, va = folds != k, folds == k
        booster = fit(params, X[tr], P[tr], rounds)
        for c, r in enumerate(checkpoints):
            oof[c][va] = booster.predict(X[va], num_iteration=r)
    y = severity(P)
    out = []
    for c, r in enumerate(checkpoints):
        s = severity(oof[c])
        share, _ = clear_pair_share(s, y)
        out.append({"rounds": r, "spearman": spearman(s, y), "clear_pairs": share, "cross_entropy": cross_entropy(P, oof[c])})
    return out


def grid_search(
    X: np.ndarray, P: np.ndarray, folds: np.ndarray, grid: dict[str, tuple[Any, ...]], seed: int, log: Any
) -> tuple[dict[str, Any], int, list[dict[str, Any]]]:
    """Every combination of ``grid``; the best by pooled OOF Spearman, then cross-entropy."""
    keys = list(grid)
    results = []
    for values in itertools.product(*(grid[k] for k in keys)):
        setting = dict(zip(keys, values))
        params = {**BASE_PARAMS, **setting, "seed": seed}
        t = time.time()
        curve = cross_validate(params, X, P, folds, MAX_ROUNDS, CHECK_EVERY)
        best = max(curve, key=lambda c: (round(c["spearman"], 4), -c["cross_entropy"]))
        results.append({"setting": setting, **best})
        log(f"  {setting} -> rounds {best['rounds']}: Spearman {best['spearman']:.4f}, clear pairs "
            f"{best['clear_pairs']:.4f}, CE {best['cross_entropy']:.4f} ({time.time() - t:.0f}s)")
    top = max(results, key=lambda r: (round(r["spearman"], 4), -r["cross_entropy"]))
    return top["setting"], int(top["rounds"]), results


def labels_matrix(labels: list[Label]) -> np.ndarray:
    P = np.array([lab.p for lab in labels], np.float64)
    return P / P.sum(axis=1, keepdims=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="one grid point only (for a smoke run)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    import lightgbm as lgb

    log = lambda msg: print(msg, file=sys.stderr, flush=True)
    contexts, labels = load_labelled(TRAIN)
    X, _ = featurize(contexts)
    P = labels_matrix(labels)
    folds = fold_ids([c.line_id for c in contexts], args.folds, args.seed)
    grid = {k: v[:1] for k, v in GRID.items()} if args.quick else GRID
    log(f"train: {len(contexts)} edits, {X.shape[1]} features, {len({c.line_id for c in contexts})} lines, "
        f"{args.folds} folds grouped by line_id")
    setting, rounds, results = grid_search(X, P, folds, grid, args.seed, log)
    params = {**BASE_PARAMS, **setting, "seed": args.seed}
    log(f"chosen: {setting}, {rounds} rounds")

    booster = fit(params, X, P, rounds)
    forest = Forest.from_lightgbm_dump(booster.dump_model())
    args.out.mkdir(parents=True, exist_ok=True)
    forest_path = args.out / FOREST_FILE
    _save_reproducibly(forest, forest_path)
    model = CompactModel(forest_path.read_bytes(), {"feature_names": list(FEATURE_NAMES)}, str(forest_path))
    expected = booster.predict(X)
    for name, got in (("forest", forest.predict_proba(X)), ("shipped path", model.predict_proba(X))):
        gap = float(np.abs(got - expected).max())
        if gap > 1e-9:
            raise SystemExit(f"{name} differs from LightGBM's predictions by {gap}")

    # Dev: for the record only, after everything is fixed.
    dev_contexts, dev_labels = load_labelled(DEV)
    dev_P = model.predict_proba(featurize(dev_contexts)[0])
    dev_s, dev_y = severity(dev_P), np.array([lab.severity for lab in dev_labels])
    cv_best = next(r for r in results if r["setting"] == setting)
    meta = {
        "name": "compact",
        "version": COMPACT_VERSION,
        "forest_file": FOREST_FILE,
        "forest_sha256": sha256_file(forest_path),
        "forest_bytes": forest_path.stat().st_size,
        "feature_names": list(FEATURE_NAMES),
        "training_data": {"path": "data/severity/train.jsonl", "sha256": sha256_file(TRAIN), "edits": len(contexts)},
        "soft_labels": "each edit replicated per level k with weight p_k (multiclass log-loss = cross-entropy with p)",
        "params": params,
        "rounds": rounds,
        "trees": int(forest.roots.size),
        "max_depth": forest.depth,
        "selection": {
            "folds": args.folds,
            "grouped_by": "line_id",
            "fold_seed": args.seed,
            "criterion": "pooled out-of-fold Spearman of the expected rating (then cross-entropy)",
            "grid": {k: list(v) for k, v in grid.items()},
            "max_rounds": MAX_ROUNDS,
            "check_every": CHECK_EVERY,
            "cv_best": {k: cv_best[k] for k in ("spearman", "clear_pairs", "cross_entropy")},
            "all": results,
        },
        "dev": {
            "note": "measured after training, for the record; never used to choose anything",
            "path": "data/severity/dev.jsonl",
            "sha256": sha256_file(DEV),
            **_figures(dev_s, dev_y, dev_P, labels_matrix(dev_labels)),
            "by_lang": {
                lang: _figures(dev_s[m], dev_y[m])
                for lang in sorted({c.lang for c in dev_contexts})
                for m in [np.array([c.lang == lang for c in dev_contexts])]
            },
        },
        "lightgbm": lgb.__version__,
        "numpy": np.__version__,
        "wordfreq": wordfreq_version(),
        "extra_lexicons": {"version": extra_lexicons.version(), "sources": list(extra_lexicons.sources())},
    }
    (args.out / META_FILE).write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    log(f"wrote {forest_path} ({forest_path.stat().st_size:,} bytes, {forest.roots.size} trees) and {META_FILE}; "
        f"dev Spearman {meta['dev']['spearman']:.4f}, clear pairs {meta['dev']['clear_pairs']:.4f}")
    return 0


def _figures(s: np.ndarray, y: np.ndarray, P: np.ndarray | None = None, Y: np.ndarray | None = None) -> dict[str, Any]:
    share, pairs = clear_pair_share(s, y)
    out: dict[str, Any] = {"edits": len(y), "spearman": _num(spearman(s, y)), "clear_pairs": _num(share), "n_clear_pairs": pairs}
    if P is not None and Y is not None:
        out["cross_entropy"] = cross_entropy(Y, P)
    return out


def _num(x: float) -> float | None:
    """JSON has no NaN: an undefined figure is null."""
    return None if x != x else x


def _save_reproducibly(forest: Forest, path: Path) -> None:
    """``np.savez_compressed`` with fixed zip timestamps, so the same forest gives the same bytes."""
    import io
    import zipfile

    arrays = {"feature": forest.feature, "threshold": forest.threshold, "left": forest.left, "right": forest.right,
              "value": forest.value, "roots": forest.roots, "meta": np.asarray([forest.n_classes, forest.depth], np.int64)}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, arr in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arr), allow_pickle=False)
            zf.writestr(info, member.getvalue())
    path.write_bytes(buf.getvalue())


if __name__ == "__main__":
    raise SystemExit(main())
