"""`semcer analyze`: the semCER paper's analyses of a scored corpus (Tables 10-12)."""

from __future__ import annotations

import argparse

from semcer.cli.options import (
    SEED_MAX,
    Once,
    add_input_options,
    add_judge_options,
    check_int,
    judge_from_args,
    output_file,
    seed,
    show_progress,
)

#: Seeds of the bootstrap: what numpy's generators take.

HELP = """\
The semCER paper's analyses of one or more systems on the same references, every edit judged once
(--judge, default compact; --store reuses judged edits). Every analysis reads the lines with one to
--max-edits edits (default 5, the paper's filter; 0: every line with an edit).

  grapheme load (Table 11)   per language and system: the mean severity of a mark-only edit (edit
                             class mark: another diacritic, tone mark or vowel sign on the same
                             letters), of a content substitution (letter or ideograph) and of all
                             edits; beside it, severity per edit by language and edit class
  real words (Table 12)      the share of letter errors (substitutions of class letter) whose
                             reference word, with that letter replaced by the output's, is a word
                             the wordfreq lexicon knows (Zipf >= 2.0, as the rubric judge), observed
                             against chance (the same letter replaced by a random letter of the
                             language's alphabet: the letters of wordfreq's 10,000 most frequent
                             words, in the same script, making a letter error too), with bootstrap
                             intervals over letter errors; languages without a lexicon or without
                             spaces between words are listed; fewer than --min-letter-errors (30):
                             a dash
  equal-count (Table 10)     each system against the first (the baseline), per language: the mean
                             severity per edit, system minus baseline, on the lines where both make
                             the same number of edits; paired over lines (bootstrap interval,
                             sign-flip p-value), Holm-corrected over the (language, system) family

Edit classes are semcer's (the rubric and compact judges' classes, from the edited units).

examples:
  semcer analyze examples/references.jsonl examples/tess_clean.jsonl examples/tess_noisy.jsonl
  semcer analyze refs.jsonl easyocr.jsonl vlm1.jsonl vlm2.jsonl --names EasyOCR,VLM1,VLM2 --store judged.sqlite
  semcer analyze refs.jsonl sys.jsonl --judge rubric --json -o analysis.json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="the paper's analyses: grapheme load, real-word errors, equal-count contrasts",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_options(p, many_hyps=True)
    p.add_argument("--names", metavar="A,B,...", help="names of the systems, comma-separated (default: the paths)")
    p.add_argument("--max-edits", type=int, default=5, metavar="N", dest="max_edits",
                   help="read the lines with 1 to N edits (default: %(default)s; 0: every line with an edit)")
    p.add_argument("--min-letter-errors", type=int, default=30, metavar="N", dest="min_letter_errors",
                   help="real words: show a share only with at least N letter errors (default: %(default)s)")
    p.add_argument("--n-boot", type=int, default=1000, metavar="N", dest="n_boot",
                   help="bootstrap resamples (default: %(default)s; 0: no intervals; else from 2 / (1 - confidence), "
                   "40 at 95%%, so that each tail holds one, to 1,000,000)")
    p.add_argument("--n-permutations", type=int, default=10_000, metavar="N", dest="n_permutations",
                   help="sign flips of the equal-count p-values (default: %(default)s; from 1 / (1 - confidence) - 1, "
                   "19 at 95%%, so that p can reach 1 - confidence, to 1,000,000)")
    p.add_argument("--seed", type=seed, default=0, help=f"bootstrap seed, 0 to {SEED_MAX} (default: %(default)s)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the tables")
    p.add_argument("--output", "-o", metavar="FILE", type=output_file, action=Once,
                   help="write to FILE (atomically) instead of standard output (- is standard output)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    add_judge_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from semcer.api.analysis import analyze
    from semcer.cli.common import batch_work, check_paths, load_collections
    from semcer.errors import SemcerError
    from semcer.io.json import dumps, emit
    from semcer.reports.meta import render_analysis
    from semcer.statistics.bootstrap import check_resampling

    check_int(args, "max_edits", 0, meaning=" (0: every line)")
    check_int(args, "min_letter_errors", 0)
    check_resampling(args.confidence, args.n_boot, args.n_permutations, error=SemcerError)  # before any work
    check_paths(args, {"REFS": args.refs, **{f"SYS{k + 1}": h for k, h in enumerate(args.hyps)}})
    names = args.names.split(",") if args.names else None  # None: the paths (semcer.api.comparison.system_names)
    refs, systems = load_collections(args)
    with judge_from_args(args) as judge, batch_work(judge):
        result = analyze(refs, systems, names=names, unit=args.unit, policy=args.policy, empty_ref=args.empty_ref,
                         unmatched=args.unmatched, lang=args.lang, judge=judge, store=args.store,
                         max_edits=args.max_edits, min_letter_errors=args.min_letter_errors, n_boot=args.n_boot,
                         n_permutations=args.n_permutations, seed=args.seed, confidence=args.confidence,
                         progress=show_progress(args))
    d = result.to_dict()
    emit(dumps(d) if args.json else render_analysis(d), args.output)
    return 1 if result.failures else 0
