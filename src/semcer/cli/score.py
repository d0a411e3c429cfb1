"""`semcer score`: CER and semCER, with the most damaging edits named."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from semcer.api import evaluate
from semcer.api.report import score_json_blocks, spans_json
from semcer.cli.common import (
    Steps,
    batch_work,
    beside_blocks,
    beside_cer,
    check_paths,
    check_scored,
    item_name,
    read_pairs,
)
from semcer.cli.options import (
    Once,
    add_input_options,
    add_judge_options,
    add_measure_options,
    add_output_options,
    add_scale_options,
    check_int,
    judge_from_args,
    scale_from_args,
    show_progress,
    use_color,
)
from semcer.cli.report import add_report_options, check_report_options, report_score, wanted
from semcer.errors import SemcerError
from semcer.io.edits import check_path as check_edits_path
from semcer.io.edits import ranked, write_edits
from semcer.io.json import dumps, emit
from semcer.judges import DEFAULT_JUDGE, JUDGE_NAMES
from semcer.metrics.results import LeftOut, Unmatched
from semcer.metrics.spans import judged_spans, ranked_spans
from semcer.reports.text import LEVEL_LEGEND, render_evaluation, render_top_edits, render_top_spans
from semcer.scale.chunks import CER_ONLY, Beside
from semcer.scale.pipeline import Streamed, score_stream, unmatched_of
from semcer.scale.reading import jsonl_source
from semcer.scale.report_fold import ReportAsk
from semcer.scale.workers import prestart
from semcer.text.policy import get_policy

HELP = f"""\
Compute CER and semCER of HYPS against REFS.

semCER keeps CER's alignment and denominator but charges each grapheme edit a severity in [0, 1]
from a judge: the expected rating over the rubric's five levels (0 cosmetic · 1 non-word, context
recovers · 2 valid alternative · 3 detectable, not recoverable · 4 reads perfectly, is false; level
k has rating k/4). semCER = Σ severities / reference units, aggregated exactly like CER (corpus and
document mean). The judge's identity is part of the signature.

judges:
{chr(10).join(f"  {k:<10} {v}" for k, v in JUDGE_NAMES.items())}
  default: {DEFAULT_JUDGE}

examples:
  semcer score examples/references.jsonl examples/tess_noisy.jsonl
  semcer score refs.jsonl hyps.jsonl --store judged.sqlite --edits edits.parquet --top 20
  semcer score refs.jsonl hyps.jsonl --json -o result.json
  semcer score refs.jsonl hyps.jsonl --judge llm --endpoint http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B \\
      --store judged.sqlite --concurrency 64
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="CER and semCER: every grapheme edit charged a severity by a judge",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_options(p)
    add_output_options(p)
    add_measure_options(p)
    p.add_argument("--edits", metavar="FILE", action=Once,
                   help="write every edit, most severe first, to FILE (.jsonl, .csv or .parquet; in CSV a cell "
                   "beginning with = + - @, tab, CR or ' gets a leading ' so that spreadsheets do not run it), "
                   "after the score")
    p.add_argument("--top", type=int, default=10, metavar="N",
                   help="show the N most severe error spans (or edits, --by-edit) with their marked pair (default: "
                   "%(default)s; 0 hides the list; not in --json)")
    p.add_argument("--by-edit", action="store_true", dest="by_edit",
                   help="list single edits in the top list instead of error spans (adjacent edits of a line together)")
    p.add_argument("--spans", type=int, metavar="N",
                   help="with --json, add the N most severe error spans (marked pairs, severities, classes, levels); with "
                   "--lines too, each line row gets its ref/hyp after the text policy and its edits (what `semcer report "
                   "SCORE.json` needs for the ranked list and the line view)")
    add_report_options(p)
    add_judge_options(p)
    add_scale_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_int(args, "top", 0, meaning=" (0 hides the edits)")
    if args.by_edit and (args.top == 0 or args.json):  # it shapes the top list only: silently nothing otherwise
        raise SemcerError("--by-edit lists single edits in the top list, and " + (
            "--json prints none: leave --by-edit out (--spans N adds the error spans to the JSON, --edits FILE "
            "writes every edit)" if args.json
            else "--top 0 hides it: give --top N (N at least 1) or leave --by-edit out"))
    check_int(args, "spans", 1)
    if args.spans is not None and not args.json:
        raise SemcerError("--spans N adds the spans to the JSON: give --json too")
    check_paths(args, {"REFS": args.refs, "HYPS": args.hyps})  # before any work
    check_report_options(args)
    settings = scale_from_args(args, top=0 if args.json else args.top, by_edit=args.by_edit, edits=args.edits)
    if wanted(args) or args.spans:  # the report's and the JSON's spans, kept chunk by chunk
        spans = max(args.report_spans if wanted(args) else 0, args.spans or 0)
        settings = replace(settings, report=ReportAsk(spans, frozenset(args.report_ratings or ())))
    if args.edits:
        check_edits_path(args.edits)
    steps = Steps(args)
    if args.spans and args.lines:  # each line row's edits: every edit with its alignment, one pass in memory
        with steps.step("read and paired the inputs"):
            paired, left_out = read_pairs(args)
        return _run_whole(args, paired, left_out, steps)
    streamed = stream_scored(args, settings, steps, before_edits=lambda s: _emit_streamed(args, s, steps),
                             beside=_beside(args))
    report_score(args, streamed.evaluation, references=args.refs, system=args.hyps, digest=streamed.digest)
    return 1 if streamed.evaluation.judge_summary.get("failures") else 0


def stream_scored(args: argparse.Namespace, settings: Any, steps: Steps, *,
                  before_edits: Callable[[Streamed], None] | None = None, beside: Beside = CER_ONLY) -> Streamed:
    """Score ``args.refs`` against ``args.hyps`` (one system) with the judge the options name,
    streamed: two plain .jsonl files are read a chunk at a time, anything else read whole first."""
    if _needs_workers(args.refs, settings):
        prestart()  # the workers' code is imported by their forkserver while the inputs are read and checked
    source = jsonl_source(args.refs, args.hyps, formats=(args.format, args.ref_format, args.hyp_format),
                          lang=getattr(args, "lang", None), workers=settings.workers,
                          empty_error=get_policy(args.policy) if args.empty_ref == "error" else None,
                          sizes=(get_policy(args.policy), args.unit))
    with steps.step("read and paired the inputs"):
        paired, left_out = read_pairs(args) if source is None else (None, LeftOut())  # two .jsonl: no pages
    pairs: Any = source if source is not None else paired.pairs  # type: ignore[union-attr]
    told = None if before_edits is None else lambda s: before_edits(_with_left_out(s, left_out))
    with judge_from_args(args) as judge, batch_work(judge), \
            steps.step(f"aligned and judged {len(pairs)} {item_name(args)}"):
        streamed = score_stream(pairs, unit=args.unit, policy=args.policy, empty_ref=args.empty_ref, judge=judge,
                                store=args.store, settings=settings, progress=show_progress(args), before_edits=told,
                                beside=beside, unmatched=Unmatched(policy=args.unmatched) if paired is None else
                                unmatched_of(paired), provenance=None if paired is None else paired.provenance,
                                reading=() if paired is None else paired.reading)
    done, total = streamed.resumed
    if done and not getattr(args, "quiet", False):
        print(f"semcer: note: resumed {done} of {total} chunk(s) from {args.work_dir} (their lines were not aligned "
              "or judged again)", file=sys.stderr)
    return _with_left_out(streamed, left_out)


def _with_left_out(streamed: Streamed, left_out: LeftOut) -> Streamed:
    """The streamed run with what reading its inputs left out in its evaluation (for the JSON and the notes)."""
    return replace(streamed, evaluation=replace(streamed.evaluation, left_out=left_out))


#: A short reference line's bytes: a file smaller than this times the chunk size is taken to be one
#: chunk, which no worker is started for (a guess from the size alone, before the file is read; the
#: bench corpus's lines take about 200 bytes).
_BYTES_PER_LINE_GUESS = 40


def _needs_workers(refs: str, settings: Any) -> bool:
    """Whether a run will probably start worker processes: local workers asked for, and a reference
    file large enough for more than one chunk."""
    if settings.engine != "local" or settings.workers < 2:
        return False
    try:
        info = os.stat(refs)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size > _BYTES_PER_LINE_GUESS * settings.chunk_lines


def _beside(args: argparse.Namespace) -> Beside:
    """--wer and --page-score, measured in the same pass over the chunks."""
    return Beside(args.tokenizer if getattr(args, "wer", False) else None, bool(getattr(args, "page_score", False)))


def _emit_streamed(args: argparse.Namespace, streamed: Streamed, steps: Steps) -> None:
    result = streamed.evaluation
    check_scored(args, result)  # before the score, the edit list and the report are written
    steps.say(f"judge {result.signature.judge}: {result.judge_summary}")
    blocks, extra = beside_blocks(streamed.wer, streamed.pages)
    _emit_score(args, result, blocks, extra, top=streamed.top, digest=streamed.digest)


def _run_whole(args: argparse.Namespace, paired: Any, left_out: LeftOut, steps: Steps) -> int:
    blocks, extra = beside_cer(args, paired)  # before the judge: a line --wer cannot score stops the run first
    with judge_from_args(args) as judge, batch_work(judge), steps.step(f"aligned and judged {len(paired.pairs)} "
                                                                         f"{item_name(args)}"):
        result = replace(evaluate(paired, unit=args.unit, policy=args.policy, empty_ref=args.empty_ref, judge=judge,
                                  store=args.store, edits=True, progress=show_progress(args)), left_out=left_out)
    check_scored(args, result)
    steps.say(f"judge {result.signature.judge}: {result.judge_summary}")
    top = None
    if args.top > 0 and result.judged and not args.json:
        top = ranked(result.judged)[: args.top] if args.by_edit else ranked_spans(judged_spans(result.judged))[: args.top]
    _emit_score(args, result, blocks, extra, top=top)  # the score first: a failing edits file cannot lose it
    report_score(args, result, references=args.refs, system=args.hyps)
    if args.edits:
        write_edits(args.edits, result.judged or [], signature=result.signature)
    return 1 if result.judge_summary.get("failures") else 0


def _emit_score(args: argparse.Namespace, result: Any, blocks: dict[str, Any], extra: str, *,
                top: Sequence[Any] | None, digest: Any = None) -> None:
    by, failures = tuple(args.by or ()), failure_note(result.judge_summary)
    if args.json:
        payload = {**result.to_dict(lines=args.lines, by=by), **blocks}
        if args.spans and digest is not None:
            payload["spans"] = spans_json(digest.spans[: args.spans])
        elif args.spans:
            score_json_blocks(result, payload, args.spans)
        emit(dumps(payload), args.output)
    else:
        text = render_evaluation(result, refs=args.refs, hyps=args.hyps, by=by, color=use_color(args),
                                 items=item_name(args)) + (f"\n\n{extra}" if extra else "")
        if args.top > 0 and top:
            text += "\n\n" + (render_top_edits(top) if args.by_edit else render_top_spans(top))
            text += "\n" + LEVEL_LEGEND
        if failures:
            text += f"\n\nwarning: {failures}"
        emit(text, args.output)
    if failures and (args.json or args.output):  # the terminal shows nothing else of it
        print(f"semcer: warning: {failures}", file=sys.stderr)


def failure_note(summary: dict[str, Any]) -> str:
    """What a run with failed edits says of them ('' when none failed): how many, the commonest
    reasons, and that semCER waits for them."""
    failures = summary.get("failures")
    if not failures:
        return ""
    reasons = "; ".join(f"{n} × {why}" for why, n in summary.get("failure_reasons", {}).items())
    return (f"{failures} edit(s) could not be judged{f' ({reasons})' if reasons else ''}; semCER is undefined "
            "(n/a) until they are: rerun to retry only those")
