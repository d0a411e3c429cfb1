"""`semcer compare`: systems against a baseline, with paired intervals over documents, and a CI gate."""

from __future__ import annotations

import argparse
import sys

from semcer.cli.options import add_comparison_options, add_input_options, add_judge_options, add_output_options
from semcer.cli.report import add_report_options, check_report_options, report_compare

HELP = """\
Compare systems against the first one (the baseline) on the same references: CER and semCER of
every system, corpus and document mean, and for each system the difference from the baseline with
a paired bootstrap interval and a paired approximate-randomization p-value (Holm-adjusted when
several systems are compared).

What is resampled: documents. A bootstrap resample draws documents with replacement, keeping every
line or page of a document together, and scores every system on the same drawn documents (paired);
nothing is re-aligned or re-judged. The randomization test swaps the two systems' statistics per
document. Intervals are percentile intervals (asymmetric; BCa with --method bca); the count, seed
and method are in the signature; --n-resamples is at least 2 / (1 - confidence) (40 at 95 %), so
that each tail of an interval holds a resample. With fewer than 5 documents there is no interval and
no significance mark (a note says so): a line without a `doc` is a document of its own. Corpus
figures weigh long documents more; document means give each document one vote: decide which
question your decision asks.

Regression gate for model CI: --fail-if-worse METRIC[:MARGIN] (METRIC: cer, semcer,
cer.document_mean or semcer.document_mean; MARGIN in the metric's units, e.g. semcer:0.002) exits
with status 3, printing one line per failing system, when a system is worse than the baseline by more
than MARGIN and the whole interval lies above MARGIN; a gate on a difference without an interval
cannot decide and exits with status 2. Exit status 0 otherwise (1: a judge failed; 2: a usage or
input error).

examples:
  semcer compare examples/references.jsonl examples/tess_clean.jsonl examples/tess_noisy.jsonl
  semcer compare refs.jsonl base.jsonl new.jsonl --fail-if-worse semcer:0.002 --store judged.sqlite
  semcer compare refs.jsonl a.jsonl b.jsonl c.jsonl --names A,B,C --json -o comparison.json

in GitHub Actions (a step that fails the job when the new model is worse):
  - run: semcer compare data/refs.jsonl outputs/main.jsonl outputs/pr.jsonl --fail-if-worse cer:0.001
"""

#: Exit status when the gate trips.
GATE_FAILED = 3


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="systems against a baseline: paired intervals and p-values, a CI gate",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_options(p, many_hyps=True)
    add_output_options(p, lines=False)
    add_comparison_options(p)
    p.add_argument("--fail-if-worse", metavar="METRIC[:MARGIN]", dest="fail_if_worse", action="append",
                   help="exit 3 when a system is worse than the baseline by more than MARGIN, the interval excluding it "
                   "(repeatable)")
    add_report_options(p)
    add_judge_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from semcer.api.comparison import METRICS, Gate
    from semcer.cli.common import check_compared, check_paths, compare_from_args
    from semcer.io.json import dumps, emit
    from semcer.reports.text import render_comparison

    gates = [Gate.parse(g) for g in args.fail_if_worse or []]
    for gate in gates:  # a gate on semCER with --no-judge: refused before any work
        gate.check(("cer",) if args.no_judge else METRICS)
    check_paths(args, {"REFS": args.refs, **{f"SYS{k + 1}": h for k, h in enumerate(args.hyps)}})
    check_report_options(args)
    result, refs, systems = compare_from_args(args)
    check_compared(args, result)
    by = tuple(args.by or ())
    emit(dumps(result.to_dict(by=by)) if args.json else render_comparison(result, by=by), args.output)
    report_compare(args, result, refs, systems)
    failures = [line for gate in gates for line in gate.failures(result)]
    for line in failures:
        print(f"semcer: gate: {line}", file=sys.stderr)
    if failures:
        return GATE_FAILED
    return 1 if any(ev.judge_summary.get("failures") for ev in result.evaluations) else 0
