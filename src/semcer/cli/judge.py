"""`semcer judge`: judge a corpus's edits into the store without scoring (pre-judging, resuming)."""

from __future__ import annotations

import argparse
import sys

from semcer.api import judge_corpus
from semcer.cli.common import check_paths, load_pairs
from semcer.cli.options import Once, add_input_options, add_judge_options, judge_from_args, output_file, show_progress
from semcer.errors import JudgeError, StoreError
from semcer.io.json import dumps, emit
from semcer.reports.text import render_judge_run
from semcer.store.sqlite import JudgedEditStore

HELP = """\
Judge every grapheme edit of HYPS against REFS into a judged-edit store, without scoring.

Run it once against a GPU server, then `semcer score ... --store PATH` (with the same judge
options) reads every severity from the store and sends nothing. A killed run resumes where it
stopped: each batch is stored as soon as it is judged, and only edits missing from the store are
sent. Edits that failed (no usable answer after the retries) are reported, not stored, and tried
again by the next run; the exit status is then 1. A store deleted, moved or replaced by another
file during the run is an error (exit status 2), after a warning that says how many judged edits
are not in it.

The offline judges (--judge compact, rubric) are recomputed rather than read back (cheaper than
reading, and a stored row can never change their scores): `semcer judge` with one of them fills the
store for `semcer store export`, `semcer study create --from STORE` or `semcer distill`, and a rerun
or a later `semcer score --store` judges every edit again.

examples:
  vllm serve Qwen/Qwen3-8B --port 8000 --enable-prefix-caching
  semcer judge refs.jsonl hyps.jsonl --judge llm --endpoint http://127.0.0.1:8000/v1 \\
      --model Qwen/Qwen3-8B --store judged.sqlite --concurrency 64
  semcer judge refs.jsonl hyps.jsonl --judge hf:/models/Qwen3-0.6B --store judged.sqlite
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help="judge a corpus's edits into a store without scoring (LLM pre-judging)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_options(p)
    p.add_argument("--json", action="store_true", help="print the run's summary as JSON")
    p.add_argument("--output", "-o", metavar="FILE", type=output_file, action=Once,
                   help="write the summary to FILE (atomically) instead of standard output (- is standard output)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--commit-every", type=int, metavar="N", dest="commit_every",
                   help="edits judged per store commit: a killed run loses at most this many "
                   "(default: 8 × concurrency, at least 256)")
    add_judge_options(p, default_judge="llm",
                      store_help="SQLite store the judged edits go into (required): with an LLM judge or a student:DIR "
                      "a rerun judges only the edits missing from it; the offline judges (compact, rubric) judge "
                      "every edit again and rewrite their rows (their stored judgements are never read back)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.commit_every is not None and args.commit_every < 1:
        raise JudgeError(f"--commit-every must be at least 1, got {args.commit_every}")
    if not args.store:
        raise JudgeError("semcer judge writes judged edits into a store: give --store PATH (e.g. --store judged.sqlite)")
    check_paths(args, {"REFS": args.refs, "HYPS": args.hyps})  # before any work
    paired = load_pairs(args)
    with judge_from_args(args) as judge, JudgedEditStore(args.store) as store:
        summary = judge_corpus(paired, judge=judge, store=store, unit=args.unit, policy=args.policy,
                               empty_ref=args.empty_ref, batch_size=args.commit_every, progress=show_progress(args))
    emit(dumps(summary) if args.json else render_judge_run(summary), args.output)
    if store.not_kept or store.gone():  # its close said how many edits are not in the store
        raise StoreError(_lost(store))
    if summary["failures"]:
        print(f"semcer: {summary['failures']} edit(s) could not be judged (not stored); rerun to retry only those",
              file=sys.stderr)
        return 1
    return 0


def _lost(store: JudgedEditStore) -> str:
    """The error of a run whose store was deleted, moved or replaced under it (after the store's
    warnings, which say how many judged edits are not in it): the store is all `semcer judge`
    makes, so the run failed (`semcer score` goes on: its scores are not affected)."""
    if store.not_kept:
        what = f"{store.not_kept} judged edit(s) of this run are not in it"
    else:  # gone after the last commit: the file now at the path (if any) is another
        what = "the file now at that path (if any) is not the one this run filled"
    return (f"{store.path}: the store was deleted, moved or replaced by another file during the run: {what}; "
            "judge again into a store that stays in place (with the same --store, only the edits missing "
            "from it are judged)")
