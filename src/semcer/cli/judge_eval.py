"""`semcer judge-eval`: how well a judge agrees with labelled edits."""

from __future__ import annotations

import argparse

from semcer.cli.common import check_paths
from semcer.cli.options import SEED_MAX, Once, add_judge_options, judge_from_args, output_file, seed
from semcer.judges.distribution import SEVERITY_TOLERANCE

#: Seeds of the bootstrap: what numpy's generators take, and JSON keeps exactly.
#: The level of judge-eval's intervals (it has no --confidence).
CONFIDENCE = 0.95

HELP = f"""\
Measure a judge against labelled edits (the JSONL format of data/severity/: one grapheme edit per
line with its marked pair and the labels' five-level distribution `p` and expected rating
`severity`). Every row is checked, and one whose fields disagree is refused, naming the file and
the line: a position past its line, a unit or ⟦ ⟧ marks that are not at the position (positions
count extended grapheme clusters, as the labels were made), a severity or mode that is not the one
`p` gives (severity within {SEVERITY_TOLERANCE:g}: files round it), an id used twice.

Reported overall, per language and per edit class, each with a percentile bootstrap interval
(asymmetric [lo, hi], resampling edits):
  Spearman      rank correlation of the judge's severity with the labels' expected rating
  clear pairs   share of pairs whose label severities differ by >= 0.5 that the judge orders the
                same way (a tie in the judge's severity counts as a miss)
  mode acc.     the judge's most likely level equals the labels' most likely level
  MAE           mean absolute error of severity

With --by lang, two pooled rows follow the languages where the labels have two or more of their
languages: "main languages pooled" (en de fr es vi zh hi) and "small languages pooled" (ru ja ar th
ko te ta bn mr el he kn), each language's edits together.

examples:
  semcer judge-eval data/severity/dev.jsonl
  semcer judge-eval data/severity/dev.jsonl --judge rubric --by class
  semcer judge-eval labels.jsonl --judge student:ckpt/ --json -o eval.json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge-eval", help="measure a judge against labelled edits (Spearman, clear pairs, ...)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("labelled", metavar="LABELS", help="labelled edits, JSONL (see data/severity/README.md)")
    p.add_argument("--by", choices=("lang", "class"), default="lang", help="grouping of the table (default: %(default)s)")
    p.add_argument("--n-boot", type=int, default=1000, metavar="N",
                   help="bootstrap resamples (default: %(default)s; 0: no intervals, the point estimates only; else "
                   "from 40, so that each tail of a 95%% interval holds one, to 1,000,000)")
    p.add_argument("--seed", type=seed, default=0, help=f"bootstrap seed, 0 to {SEED_MAX} (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.add_argument("--output", "-o", metavar="FILE", type=output_file, action=Once,
                   help="write to FILE (atomically) instead of standard output (- is standard output)")
    add_judge_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from semcer.api.evaluation import opened_store
    from semcer.errors import SemcerError
    from semcer.io.json import dumps, emit
    from semcer.io.labels import load_labelled  # scipy: imported only by the commands that need it
    from semcer.reports.meta import resampling_line
    from semcer.reports.text import render_judge_eval
    from semcer.statistics.bootstrap import check_resampling
    from semcer.statistics.judge_eval import DEFAULT_POOLS, evaluate_judge
    from semcer.store.cached import judge_cached

    check_resampling(CONFIDENCE, args.n_boot, error=SemcerError)  # before any judge loads
    check_paths(args, {"LABELS": args.labelled})  # before any work
    contexts, labels = load_labelled(args.labelled)
    with judge_from_args(args) as judge, opened_store(args.store) as store:  # a failed run leaves no new empty store
        judgements, _ = judge_cached(judge, contexts, store, batch_size=judge.preferred_batch_size)
    report = evaluate_judge(judgements, labels, langs=[c.lang for c in contexts], n_boot=args.n_boot, seed=args.seed,
                            confidence=CONFIDENCE, pools=DEFAULT_POOLS)
    if args.json:
        emit(dumps(report.to_dict(judge.identity, str(args.labelled))), args.output)
    else:
        boot = resampling_line(report.n_boot, report.confidence, report.seed)
        head = (f"judge {judge.identity} on {args.labelled} ({len(labels)} edits; {boot}; "
                "clear pairs: label gap >= 0.5, ties count as misses)\n")
        extra = f"\n{report.n_failed} edit(s) the judge failed on are left out." if report.n_failed else ""
        sig = f"\n\nsignature: {report.signature(judge.identity)}"
        emit(head + "\n" + render_judge_eval(report, args.by) + extra + sig, args.output)
    return 0
