"""`semcer judge-eval`: how well a judge agrees with labelled edits."""

from __future__ import annotations

import argparse
import dataclasses
import math

from ..judges import DEFAULT_JUDGE, JUDGE_NAMES
from .common import dumps, emit

HELP = """\
Measure a judge against labelled edits (the JSONL format of data/severity/: one grapheme edit per
line with its marked pair and the labels' five-level distribution `p` and expected rating
`severity`).

Reported overall, per language and per edit class, each with a percentile bootstrap interval
(asymmetric [lo, hi], resampling edits):
  Spearman      rank correlation of the judge's severity with the labels' expected rating
  clear pairs   share of pairs whose label severities differ by >= 0.5 that the judge orders the
                same way (a tie in the judge's severity counts as a miss)
  mode acc.     the judge's most likely level equals the labels' most likely level
  MAE           mean absolute error of severity

examples:
  semcer judge-eval data/severity/dev.jsonl
  semcer judge-eval data/severity/dev.jsonl --judge rubric --by class
  semcer judge-eval labels.jsonl --judge student:ckpt/ --json -o eval.json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge-eval", help="measure a judge against labelled edits (Spearman, clear pairs, ...)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("labels", metavar="LABELS", help="labelled edits, JSONL (see data/severity/README.md)")
    p.add_argument("--judge", default=DEFAULT_JUDGE, metavar="NAME",
                   help=f"judge to measure (default: %(default)s; one of {', '.join(JUDGE_NAMES)})")
    p.add_argument("--by", choices=("lang", "class"), default="lang", help="grouping of the table (default: %(default)s)")
    p.add_argument("--n-boot", type=int, default=1000, metavar="N", help="bootstrap resamples (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.add_argument("--store", metavar="PATH", help="judged-edit store to reuse (useful for slow judges)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of standard output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..judge_eval import evaluate_judge, load_labelled
    from ..judges import resolve_judge
    from ..store import JudgedEditStore, judge_cached

    contexts, labels = load_labelled(args.labels)
    judge = resolve_judge(args.judge)
    store = JudgedEditStore(args.store) if args.store else None
    try:
        judgements, _ = judge_cached(judge, contexts, store)
    finally:
        if store is not None:
            store.close()
    report = evaluate_judge(judgements, labels, langs=[c.lang for c in contexts], n_boot=args.n_boot, seed=args.seed)
    if args.json:
        out = {"judge": judge.identity, "labels": str(args.labels), "n": len(labels),
               "n_failed": report.n_failed, "n_boot": report.n_boot, "seed": report.seed,
               "overall": _group(report.overall),
               "by_lang": {k: _group(v) for k, v in report.by_lang.items()},
               "by_class": {k: _group(v) for k, v in report.by_class.items()},
               "notes": list(report.notes)}
        emit(dumps(out), args.output)
    else:
        head = (f"judge {judge.identity} on {args.labels} ({len(labels)} edits; {report.n_boot} bootstrap "
                f"resamples, 95% intervals; clear pairs: label gap >= 0.5, ties count as misses)\n")
        extra = f"\n{report.n_failed} edit(s) the judge failed on are left out." if report.n_failed else ""
        emit(head + "\n" + report.to_markdown(args.by) + extra, args.output)
    return 0


def _group(g) -> dict:
    """A GroupStats as JSON (NaN, e.g. Spearman of a constant group, becomes null)."""

    def clean(v):
        if isinstance(v, float) and math.isnan(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        return v

    return clean(dataclasses.asdict(g))
