"""Agreement of a built-in judge (rubric or compact) with the labelled dev split, as a Markdown table.

    PYTHONPATH=src python bench/judge_quality.py [--judge rubric|compact] [--split dev] [--by lang|class]
        [--n-boot 1000] [--speed]

Prints per-group Spearman with the labels' expected rating, the share of clear pairs (label
severities >= 0.5 apart) ordered the same way (ties count as misses), n, and the overall row, each
with a 95% percentile bootstrap interval over edits. ``--speed`` also times the judge on one core:
warm (the dev edits repeated, so every line and word lookup is cached, as for the many edits of one
line) and cold (caches cleared before each pass, lexicon files already loaded).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from semcer.io.labels import load_labelled  # noqa: E402
from semcer.judges import resolve_judge  # noqa: E402
from semcer.reports.text import render_judge_eval  # noqa: E402
from semcer.statistics.judge_eval import evaluate_judge  # noqa: E402

#: Caches that hold the word lists themselves or the model: never cleared (loaded once per process).
_KEEP = frozenset({"_freq_dict", "_available", "table_hash", "load_model"})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judge", default="rubric", choices=("rubric", "compact"))
    ap.add_argument("--split", default="dev", help="dev or train (data/severity/<split>.jsonl), or a path")
    ap.add_argument("--by", default="lang", choices=("lang", "class"))
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--speed", action="store_true", help="also time the judge (edits/s, one core)")
    args = ap.parse_args(argv)

    path = Path(args.split) if args.split.endswith(".jsonl") else ROOT / "data" / "severity" / f"{args.split}.jsonl"
    contexts, labels = load_labelled(path)
    judge = resolve_judge(args.judge)
    speed = _speed(judge, contexts) if args.speed else ""  # before the statistics fill the heap
    judgements = judge.judge(contexts)
    report = evaluate_judge(
        judgements, labels, langs=[c.lang for c in contexts], n_boot=args.n_boot, seed=args.seed
    )
    print(f"Judge `{judge.identity}` on `{path.name}` ({len(contexts)} edits), 95% bootstrap intervals "
          f"({args.n_boot} resamples of edits); clear pairs: label gap >= 0.5, ties count as misses.\n")
    print(render_judge_eval(report, args.by))
    if speed:
        print()
        print(speed)
    return 0


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


def _speed(judge: Any, contexts: list) -> str:
    """Edits per second of CPU time: warm (repeated edits) and cold (caches cleared each pass)."""
    batch = contexts * 20
    warm = max(_rate(judge, batch) for _ in range(5))
    clear = caches()
    cold_rates = []
    for _ in range(3):
        for fn in clear:
            fn.cache_clear()
        cold_rates.append(_rate(judge, contexts))
    cold = max(cold_rates)
    return (
        f"Throughput (one core, CPU time): warm {warm:,.0f} edits/s ({len(batch):,} = dev x 20); "
        f"cold {cold:,.0f} edits/s (line, word and zipf caches cleared before each pass)."
    )


def _rate(judge: Any, contexts: list) -> float:
    t = time.process_time()
    judge.judge(contexts)
    return len(contexts) / max(time.process_time() - t, 1e-9)


if __name__ == "__main__":
    raise SystemExit(main())
