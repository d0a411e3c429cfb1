"""`semcer cer`: character error rate with every convention declared."""

from __future__ import annotations

import argparse
from dataclasses import replace

from semcer.api import evaluate
from semcer.cli.common import Steps, batch_work, beside_cer, check_paths, check_scored, item_name, read_pairs
from semcer.cli.options import add_input_options, add_measure_options, add_output_options, show_progress, use_color
from semcer.io.json import dumps, emit
from semcer.reports.text import render_evaluation

HELP = """\
Compute character error rate (CER) of HYPS against REFS.

CER = (S + D + I) / N over a minimum-edit alignment of units, N = reference units. Both corpus CER
(Σ edits / Σ units: long documents weigh more) and document-mean CER (mean over documents of each
document's CER, its pages combined first) are reported, always with the signature that pins the
unit, the text policy, the empty-reference policy and the versions and, where they depart from the
defaults, how ids were paired (--unmatched) and page files read (--level, --page-dialect, --by-line,
--hyphen).

examples:
  semcer cer examples/references.jsonl examples/tess_noisy.jsonl
  semcer cer refs.txt hyps.txt --unit codepoint --policy jiwer    # what jiwer.cer computes
  semcer cer refs/ hyps/ --policy normalized --json -o result.json
  semcer cer refs.json hyps.jsonl.gz                               # a JSON array; gzip
  ocr-engine page.png | semcer cer ref.txt - --format text         # standard input
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cer", help="character error rate with every convention declared",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_options(p)
    add_output_options(p)
    add_measure_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_paths(args, {"REFS": args.refs, "HYPS": args.hyps})  # before any work
    steps = Steps(args)
    with steps.step("read and paired the inputs"):
        paired, left_out = read_pairs(args)
    with steps.step(f"aligned {len(paired.pairs)} {item_name(args)}"), batch_work():
        result = replace(evaluate(paired, unit=args.unit, policy=args.policy, empty_ref=args.empty_ref,
                                  progress=show_progress(args)), left_out=left_out)
    check_scored(args, result)
    blocks, extra = beside_cer(args, paired)
    by = tuple(args.by or ())
    if args.json:
        emit(dumps({**result.to_dict(lines=args.lines, by=by), **blocks}), args.output)
    else:
        text = render_evaluation(result, refs=args.refs, hyps=args.hyps, by=by, color=use_color(args),
                                 items=item_name(args))
        emit(text + (f"\n\n{extra}" if extra else ""), args.output)
    return 0
