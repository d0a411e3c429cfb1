"""`semcer meta-eval`: scores against reader ratings and reader preferences (paper Tables 5-8,
Figures 3 and 7)."""

from __future__ import annotations

import argparse
import contextlib
import sys

from semcer.cli.options import LLM_ARGS, SEED_MAX, Once, add_judge_options, judge_from_args, output_file, seed
from semcer.judges import DEFAULT_JUDGE

#: Seeds of the bootstrap: what numpy's generators take.

HELP = """\
Measure scores against the people who read the errors, as the semCER paper did: reader ratings of
single edits, and readers' choices between two outputs of one reference.

inputs:
  --ratings FILE   one rating per record, JSON Lines or CSV/TSV with a header:
                     item   the rated item's id (string or integer)
                     rater  who rated it
                     level  the rubric level 0-4, or rating: a number in [0, 1] (level k = k/4)
  --items FILE     the rated items: labelled edits (the JSONL of data/severity/, keyed by `id`) or an
                   edit list written by `semcer score --edits` (.jsonl, .csv, .parquet; keyed by
                   `edit_id`, <line_id>:<op><ref_pos>,<hyp_pos>, stable across runs)
  --pairs FILE     rated pairs, JSON Lines, one pair per line:
                     {"pair": "p1", "ref": "Tấm Cám", "a": "Tám Cám", "b": "Tấm Cảm", "lang": "vi",
                      "choices": {"r1": "a", "r2": "equal", "r3": "a"}}
                   a choice names the output that damages a reader MORE (--chose better: the less
                   damaging one), "equal", or null (not rated); `lang` is optional
  --transcriptions FILE
                   rated whole transcriptions, JSON Lines, one output of one reference per line:
                     {"id": "t1", "ref": "Tổng 120 đồng", "out": "Tong 128 dong", "lang": "vi",
                      "levels": {"r1": 4, "r2": 3, "r3": null}}
                   each rater's rubric level 0-4 of the whole output, or null (not rated)

scores:
  --judge NAME         a judge (repeatable): it scores every item from its marked pair, and every pair
                       output and rated transcription as semCER; default: compact, unless --score-column
                       is given. --ratings without --items gives the panel's reliability only (a note
                       says so); a --judge or --score-column with nothing to score is an error
  --score-column COL   a numeric column of the items used as a score (repeatable), e.g. severity

rated edits, reported per scorer (the judge's severity, `NAME:mode` its most likely level, and
`column:COL`):
  reliability   Krippendorff's alpha (ordinal) and ICC(2,k) over the panel: the raters who rated at
                least --min-rater-share (0.5, the paper's rule) of the items; the panel's mean rating
                is what every score is compared with
  Spearman      rank correlation with the panel's mean rating
  within BAND   partial correlation within a band (--band, repeatable; default edit_class): the rank
                association left once the band is held fixed. Bands: edit_class (the items'
                edit_class, else semcer's classifier of the edited units; single edits share any
                CER band, so this is their natural band), mode (each judge's own level: "severity
                given the mode"), cer:E1,E2,... (the CER of the item's line pair cut at the edges),
                or any column of the items
  top 10%       share of all reader-rated damage caught after checking the first 10% of the items
                sorted by the score (the readers' own order is the ceiling, random order 10%); the
                JSON has the curve over the first half of the list (Figure 3)
  clear pairs   items whose mean ratings differ by >= --clear-gap (0.5) that the score orders as the
                readers do (a tie in the score counts as a miss)

rated pairs (Table 8, Figure 7): scorers are CER under the paper's five cumulative conventions (the
presets raw, no-space, alnum, normalized, casefold) and semCER with each judge (--policy, default
nfc). Each scorer's agreement with the panel's strict majority (a tie counts as a miss; pairs without
a majority are left out), on all pairs, on the near-miss pairs (semCER and CER under
--near-miss-against, default raw, disagree on which output is worse), on the normalization-proof
pairs (semCER disagrees with all five conventions) and on the near misses that are not
normalization-proof; the margins semCER minus each convention with paired bootstrap intervals and
sign-flip p-values, Holm-corrected over all margins; a single reader's agreement with the others'
majority; alpha and ICC(2,k) of the choices (a worse < equal < b worse).

rated transcriptions (Table 7): line CER under the five conventions and line semCER with each judge,
each with Spearman against the panel's mean rating; each convention's difference from semCER with
the first judge, with a paired bootstrap interval and a paired-permutation p-value (the two scores of
an item swapped), Holm-corrected over the five conventions.

Every interval is a percentile bootstrap (items, pairs). --by-lang repeats everything per language
(each language its own pool, panel and Holm family). Exit status 1 when a judge failed on an item
or pair (left out, counted).

examples:
  semcer meta-eval --ratings ratings.csv --items data/severity/dev.jsonl --judge compact --judge rubric
  semcer meta-eval --ratings r.jsonl --items edits.jsonl --score-column severity --band mode --by-lang
  semcer meta-eval --pairs pairs.jsonl --judge compact --json -o meta.json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("meta-eval", help="scores against reader ratings and reader preferences (Tables 5-8)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                       conflict_handler="resolve")
    p.add_argument("--ratings", metavar="FILE", action=Once, help="reader ratings: JSONL or CSV (item, rater, level or rating)")
    p.add_argument("--items", metavar="FILE", action=Once,
                   help="the rated items: labelled edits (key id) or an edit list (key edit_id)")
    p.add_argument("--pairs", metavar="FILE", action=Once, help="rated pairs, JSONL (pair, ref, a, b, lang, choices)")
    p.add_argument("--transcriptions", metavar="FILE", action=Once,
                   help="rated whole transcriptions, JSONL (id, ref, out, lang, levels)")
    p.add_argument("--score-column", metavar="COL", action="append", dest="score_column", default=[],
                   help="a numeric column of the items used as a score (repeatable)")
    p.add_argument("--band", metavar="BAND", action="append", dest="band",
                   help="band of the partial correlation: edit_class (default), mode, cer:E1,E2,... or a column (repeatable)")
    p.add_argument("--min-rater-share", type=float, default=0.5, metavar="X", dest="min_rater_share",
                   help="the panel: raters who rated at least this share of the items (default: %(default)s)")
    p.add_argument("--clear-gap", type=float, default=0.5, metavar="G", dest="clear_gap",
                   help="clear pairs: mean ratings at least this far apart (default: %(default)s)")
    p.add_argument("--near-miss-against", default="raw", metavar="CONV", dest="near_miss_against",
                   choices=("raw", "no-space", "alnum", "normalized", "casefold"),
                   help="the CER convention near misses are taken against (default: %(default)s)")
    p.add_argument("--chose", choices=("worse", "better"), default="worse",
                   help="what a pair choice names: the worse output (default) or the better one")
    p.add_argument("--policy", default=None, metavar="NAME", help="text policy of semCER on the pairs (default: nfc)")
    p.add_argument("--by-lang", action="store_true", dest="by_lang", help="also every result per language")
    p.add_argument("--n-boot", type=int, default=1000, metavar="N", dest="n_boot",
                   help="bootstrap resamples (default: %(default)s; 0: no intervals; else from 2 / (1 - confidence), "
                   "40 at 95%%, so that each tail holds one, to 1,000,000)")
    p.add_argument("--n-permutations", type=int, default=10_000, metavar="N", dest="n_permutations",
                   help="sign flips of the margins' p-values (default: %(default)s; from 1 / (1 - confidence) - 1, "
                   "19 at 95%%, so that p can reach 1 - confidence, to 1,000,000)")
    p.add_argument("--seed", type=seed, default=0, help=f"bootstrap seed, 0 to {SEED_MAX} (default: %(default)s)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the tables")
    p.add_argument("--output", "-o", metavar="FILE", type=output_file, action=Once,
                   help="write to FILE (atomically) instead of standard output (- is standard output)")
    add_judge_options(p, default_judge=None)
    p.add_argument("--judge", metavar="NAME", action="append", dest="judge",
                   help="judge scoring the items (--items), the pairs and the transcriptions (repeatable; default: "
                   "compact unless --score-column is given; names as for semcer score, e.g. compact, rubric, llm, "
                   "hf:PATH, student:DIR)")
    p.set_defaults(func=run)


def _judges(args: argparse.Namespace) -> list:
    """Each --judge built; the LLM options go to the LLM judges only."""
    from semcer.errors import InputError
    from semcer.judges.llm import is_llm_spec

    wanted = (args.items or args.pairs or args.transcriptions) and not args.score_column
    specs = [s.strip() for s in args.judge] if args.judge else [DEFAULT_JUDGE] if wanted else []
    if len(set(specs)) != len(specs):
        raise InputError("--judge: each judge once")
    any_llm = any(is_llm_spec(s) for s in specs)
    built = []
    for spec in specs:
        ns = argparse.Namespace(**vars(args))
        ns.judge = spec
        if any_llm and not is_llm_spec(spec):
            for name in LLM_ARGS:
                setattr(ns, name, None)
        built.append((spec, judge_from_args(ns)))
    return built


def run(args: argparse.Namespace) -> int:
    from semcer.api.meta import meta_eval
    from semcer.cli.common import check_paths
    from semcer.errors import SemcerError
    from semcer.io.json import dumps, emit
    from semcer.reports.meta import render_meta_eval
    from semcer.statistics.bootstrap import check_resampling

    check_resampling(args.confidence, args.n_boot, args.n_permutations, error=SemcerError)  # before any judge loads
    check_paths(args, {"--ratings": args.ratings, "--items": args.items, "--pairs": args.pairs,
                       "--transcriptions": args.transcriptions})
    with contextlib.ExitStack() as stack:
        judges = {name: stack.enter_context(j) for name, j in _judges(args)}
        result = meta_eval(ratings=args.ratings, items=args.items, pairs=args.pairs,
                           transcriptions=args.transcriptions, judges=judges,
                           score_columns=args.score_column, bands=args.band or ["edit_class"],
                           min_rater_share=args.min_rater_share, by_lang=args.by_lang, clear_gap=args.clear_gap,
                           near_miss_against=args.near_miss_against, chose=args.chose, policy=args.policy,
                           store=args.store, n_boot=args.n_boot, n_permutations=args.n_permutations,
                           seed=args.seed, confidence=args.confidence)
    d = result.to_dict()
    emit(dumps(d) if args.json else render_meta_eval(d), args.output)
    if args.ratings and not args.items:  # a named judge with nothing to score was refused before any work
        print("semcer: note: --ratings without --items: the rated edits get the panel's reliability only; the judges "
              f"(default {DEFAULT_JUDGE}) and --score-column score them only with --items FILE", file=sys.stderr)
    return 1 if result.failures else 0
