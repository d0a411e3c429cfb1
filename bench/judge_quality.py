"""Agreement of a built-in judge (rubric or compact) with the labelled dev split, as a Markdown table.

    PYTHONPATH=src python bench/judge_quality.py [--judge rubric|compact] [--split dev] [--by lang|class]
        [--n-boot 1000] [--speed]
    PYTHONPATH=src python bench/judge_quality.py --readme [--split dev] [--n-boot 1000]

Prints per-group Spearman with the labels' expected rating, the share of clear pairs (label
severities >= 0.5 apart) ordered the same way (ties count as misses), n, the pooled rows (the main
and the small languages) and the overall row, each with a 95% percentile bootstrap interval over
edits. ``--readme`` prints README.md's judge table instead: both built-in judges side by side, per
language, pooled and overall. ``--speed`` also times the judge on one core:
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
from semcer.statistics.judge_eval import DEFAULT_POOLS, evaluate_judge  # noqa: E402

#: Caches that hold the word lists themselves or the model: never cleared (loaded once per process).
_KEEP = frozenset({"_table", "_newmm_dictionary", "_file_digest", "_available", "table_hash", "load_model"})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judge", default="rubric", choices=("rubric", "compact"))
    ap.add_argument("--split", default="dev", help="dev or train (data/severity/<split>.jsonl), or a path")
    ap.add_argument("--by", default="lang", choices=("lang", "class"))
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--speed", action="store_true", help="also time the judge (edits/s, one core)")
    ap.add_argument("--readme", action="store_true", help="README's table: compact and rubric side by side")
    args = ap.parse_args(argv)

    path = Path(args.split) if args.split.endswith(".jsonl") else ROOT / "data" / "severity" / f"{args.split}.jsonl"
    contexts, labels = load_labelled(path)
    if args.readme:
        print(readme_table(contexts, labels, args.n_boot, args.seed))
        return 0
    judge = resolve_judge(args.judge)
    speed = _speed(judge, contexts) if args.speed else ""  # before the statistics fill the heap
    judgements = judge.judge(contexts)
    report = evaluate_judge(
        judgements, labels, langs=[c.lang for c in contexts], n_boot=args.n_boot, seed=args.seed, pools=DEFAULT_POOLS
    )
    print(f"Judge `{judge.identity}` on `{path.name}` ({len(contexts)} edits), 95% bootstrap intervals "
          f"({args.n_boot} resamples of edits); clear pairs: label gap >= 0.5, ties count as misses.\n")
    print(render_judge_eval(report, args.by))
    if speed:
        print()
        print(speed)
    return 0


def readme_table(contexts: list, labels: list, n_boot: int, seed: int) -> str:
    """README.md's table: per language (largest first), pooled and overall, compact and rubric."""
    reports = {}
    for name in ("compact", "rubric"):
        judge = resolve_judge(name)
        reports[name] = evaluate_judge(judge.judge(contexts), labels, langs=[c.lang for c in contexts],
                                       n_boot=n_boot, seed=seed, pools=DEFAULT_POOLS)
    c, r = reports["compact"], reports["rubric"]
    rows = ["| language | n | compact Spearman | compact clear pairs | rubric Spearman | rubric clear pairs |",
            "|---|---:|---|---|---|---|"]
    groups = [(k, c.by_lang[k], r.by_lang[k]) for k in sorted(c.by_lang, key=lambda k: (-c.by_lang[k].n, k))]
    groups += [(f"*{k}*", c.pooled[k], r.pooled[k]) for k in c.pooled]
    for name, gc, gr in groups:
        rows.append(f"| {name} | {gc.n} | {_rho(gc)} | {_pairs(gc)} | {_rho(gr)} | {_pairs(gr)} |")
    oc, orb = c.overall, r.overall
    rows.append(f"| **all** | **{oc.n}** | **{_rho(oc)}** | **{_pairs(oc)}** | **{_rho(orb)}** | **{_pairs(orb)}** |")
    return "\n".join(rows)


def _rho(g: Any) -> str:
    e = g.spearman
    return "–" if e.value != e.value else f"{e.value:.3f} [{e.lo:.2f}, {e.hi:.2f}]"


def _pairs(g: Any) -> str:
    e, n = g.clear_pairs, g.n_clear_pairs
    if not n:
        return "no clear pairs"
    if n < 20:
        return f"{100 * e.value:.0f}% ({n} pairs)"
    if e.lo == e.hi == e.value:
        return f"{100 * e.value:.1f}%"
    return f"{100 * e.value:.1f}% [{100 * e.lo:.1f}, {min(100.0, 100 * e.hi):.0f}]" if e.hi >= 0.9995 else \
        f"{100 * e.value:.1f}% [{100 * e.lo:.1f}, {100 * e.hi:.1f}]"


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
