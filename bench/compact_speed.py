"""Throughput of the compact built-in scorer on one core, next to the rubric judge it builds on.

    PYTHONPATH=src python bench/compact_speed.py [--repeat 20] [--batch 256] [--rounds 5]

Warm: the dev edits repeated ``--repeat`` times, judged in batches of ``--batch`` (what
``semcer score`` sends through the judged-edit store), after one pass that fills the line, word and
Zipf caches, as for the many edits of one line or of a long corpus. Cold: those caches cleared
before each pass over the dev edits (the word lists themselves stay loaded, as they do after the
first edit of a run). Figures are edits per second of CPU time (``time.process_time``), the best of
``--rounds`` passes (the two judges take turns), so that other work on the machine counts as little
as possible; numpy is kept to one thread. The rubric judge is timed the same way in the same process: the compact scorer
computes the rubric's features plus its own, then runs the forest, so their ratio is the
machine-independent figure.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from semcer.io.labels import load_labelled  # noqa: E402
from semcer.judges.compact import CompactJudge  # noqa: E402
from semcer.judges.rubric import RubricJudge  # noqa: E402

#: Caches that hold the word lists themselves or the model: never cleared (loaded once per process).
_KEEP = frozenset({"table", "_simplified_map", "_available", "table_hash", "load_model",
                   "_table", "_newmm_dictionary", "_file_digest", "_mecab", "sources", "version"})  # extra lexicons, MeCab


def caches() -> list[Any]:
    """Every per-line, per-word and per-unit cache the two judges use (the judges' own and the
    script and grapheme caches of semcer.text they call), from semcer's registry of caches."""
    import importlib

    from semcer.caches import cache_sizes

    out = []
    for qualified in cache_sizes():
        module, _, name = qualified.rpartition(".")
        judge_side = (module.startswith("semcer.judges.") or module == "semcer.text.script"
                      or qualified == "semcer.text.units.graphemes")
        if judge_side and name not in _KEEP:
            out.append(getattr(importlib.import_module(module), name))
    return out


def rate(judge: Any, contexts: Sequence[Any], batch: int, before: Callable[[], None] | None = None) -> float:
    """Edits per CPU second for one pass over ``contexts`` in batches of ``batch``."""
    if before is not None:
        before()
    t = time.process_time()
    for i in range(0, len(contexts), batch):
        judge.judge(contexts[i : i + batch])
    return len(contexts) / max(time.process_time() - t, 1e-9)


def measure(judges: dict[str, Any], contexts: list[Any], repeat: int, batch: int, rounds: int) -> dict[str, dict[str, float]]:
    """Best rates per judge; the judges take turns within each round, so both see the same machine."""
    clear = caches()

    def cold_start() -> None:
        for fn in clear:
            fn.cache_clear()

    for judge in judges.values():
        judge.judge(contexts)  # warm up: caches filled, model loaded
    warm = contexts * repeat
    kinds: dict[str, Callable[[Any], float]] = {
        "warm": lambda j: rate(j, warm, batch),
        "warm_one_batch": lambda j: rate(j, warm, len(warm)),
        "cold": lambda j: rate(j, contexts, batch, cold_start),
    }
    best = {name: dict.fromkeys(kinds, 0.0) for name in judges}
    for _ in range(rounds):
        for kind, fn in kinds.items():
            for name, judge in judges.items():
                best[name][kind] = max(best[name][kind], fn(judge))
    for judge in judges.values():
        judge.judge(contexts)  # leave the caches warm
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="dev", help="dev or train (data/severity/<split>.jsonl), or a path")
    ap.add_argument("--repeat", type=int, default=20, help="warm: how many times the edits are repeated")
    ap.add_argument("--batch", type=int, default=256, help="edits per judge() call")
    ap.add_argument("--rounds", type=int, default=7, help="passes; the best is reported")
    args = ap.parse_args(argv)

    path = Path(args.split) if args.split.endswith(".jsonl") else ROOT / "data" / "severity" / f"{args.split}.jsonl"
    contexts, _ = load_labelled(path)
    judges = {"compact": CompactJudge(), "rubric": RubricJudge()}
    results = measure(judges, contexts, args.repeat, args.batch, args.rounds)
    print(f"One core, CPU time, best of {args.rounds} passes; `{path.name}`: {len(contexts):,} edits; "
          f"warm = edits x {args.repeat} ({len(contexts) * args.repeat:,}) with caches filled; cold = caches "
          f"cleared before each pass (word lists loaded).\n")
    print(f"| judge | warm, batches of {args.batch} | warm, one batch | cold, batches of {args.batch} |")
    print("|---|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {judges[name].identity} | {r['warm']:,.0f}/s | {r['warm_one_batch']:,.0f}/s | {r['cold']:,.0f}/s |")
    c, r = results["compact"], results["rubric"]
    print(f"\ncompact / rubric: warm {c['warm'] / r['warm']:.2f}, cold {c['cold'] / r['cold']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
