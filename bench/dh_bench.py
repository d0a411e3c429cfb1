"""Time dinglehopper's ``character_error_rate`` per line; run by ``bench/run.py`` in the dinglehopper venv.

    bench/.venv-dh/bin/python bench/dh_bench.py REFS.jsonl HYPS.jsonl --lines 2000 --repeat 1

Reads the same JSONL corpus as the rest of the benchmark, takes an evenly spaced subsample of
``--lines`` lines (every k-th line, so all languages are represented), and prints one JSON object:
lines timed, best time, lines/s, and the dinglehopper and uniseg versions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib.metadata import version


def read_texts(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("refs")
    ap.add_argument("hyps")
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    from dinglehopper.character_error_rate import character_error_rate

    refs, hyps = read_texts(args.refs), read_texts(args.hyps)
    step = max(1, len(refs) // args.lines)
    idx = list(range(0, len(refs), step))[: args.lines]
    r, h = [refs[i] for i in idx], [hyps[i] for i in idx]
    best = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for a, b in zip(r, h):
            character_error_rate(a, b)
        best = min(best, time.perf_counter() - t0)
    print(json.dumps({
        "lines": len(r), "step": step, "seconds": best, "lines_per_s": len(r) / best,
        "dinglehopper": version("dinglehopper"), "uniseg": version("uniseg"),
        "python": sys.version.split()[0],
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
