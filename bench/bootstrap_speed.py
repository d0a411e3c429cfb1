"""Speed of the paired bootstrap and the randomization test over documents, on one core.

    python bench/bootstrap_speed.py [--resamples 10000] [--documents 10000] [--systems 3] [--repeat 3]

Synthetic per-document statistics (reference units 20-2,000 per document, edits around a
document-specific difficulty) for ``--systems`` systems; times ``paired_bootstrap`` (percentile
and BCa) and ``approximate_randomization`` with ``time.perf_counter``, best of ``--repeat``.
numpy's BLAS is kept to one thread, so the figure is one core's. Target: 10,000 resamples of
10,000 documents for a few systems in under 5 s.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from semcer.statistics.paired import approximate_randomization, paired_bootstrap  # noqa: E402


def synthetic(systems: int, documents: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Edits (systems, documents) and reference units (documents,) of a synthetic corpus."""
    rng = np.random.default_rng(seed)
    den = rng.integers(20, 2000, size=documents)
    difficulty = rng.beta(2, 20, size=documents)
    rates = np.clip(difficulty[None, :] + rng.normal(0, 0.02, size=(systems, documents)), 0, 1)
    return rng.binomial(den[None, :], rates).astype(float), den.astype(float)


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--documents", type=int, default=10_000)
    ap.add_argument("--systems", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    num, den = synthetic(args.systems, args.documents)
    b, d, s = args.resamples, args.documents, args.systems
    print(f"{b:,} resamples x {d:,} documents x {s} systems, one core, best of {args.repeat}")
    for agg in ("corpus", "document_mean"):
        for method in ("percentile", "bca"):
            t = best(lambda a=agg, m=method: paired_bootstrap(num, den, a, n_resamples=b, method=m), args.repeat)
            print(f"  paired_bootstrap          {agg:14s} {method:10s} {t:6.2f} s")
        t = best(lambda a=agg: approximate_randomization(num, den, a, n_permutations=b), args.repeat)
        print(f"  approximate_randomization {agg:14s} {'':10s} {t:6.2f} s")


if __name__ == "__main__":
    main()
