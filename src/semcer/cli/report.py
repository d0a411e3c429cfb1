"""`semcer report`: the HTML report (one self-contained file) and the plots as files; and the
``--html FILE`` / ``--plots DIR`` options that ``semcer score`` and ``semcer compare`` share."""

from __future__ import annotations

import argparse
import copy
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from semcer.cli.options import (
    Once,
    StoreGiven,
    add_comparison_options,
    add_input_options,
    add_judge_options,
    add_scale_options,
    check_int,
    scale_from_args,
    show_progress,
)
from semcer.errors import SemcerError

HELP = """\
Write an HTML report: one self-contained file (no network, no external fonts or scripts; it works
offline and when e-mailed) with the summary (CER and semCER, corpus and document mean, per system
and per language, with intervals when systems are compared, and the signature), the ranked list of
the most severe error spans (filter by language, system, document, class and level; sort by
severity, worst edit or line), the line view (reference and output aligned, each edit shaded by its
severity; + an insertion, − a deletion, a dash an empty side), for several systems the same line
across systems and the lines where they differ most, and plots (severity distribution, CER against
semCER per document, per-language bars, and the top-of-list curve with --ratings).

  semcer report REFS SYS --html FILE          score one system (options as `semcer score`)
  semcer report REFS A B ... --html FILE      compare systems, the first the baseline (as `semcer compare`)
  semcer report SCORE.json --html FILE        from `semcer score --json --lines --spans N -o SCORE.json`;
                                              the page says what such a file cannot show

Every piece of OCR text is shown as text, never run: the data is embedded as escaped JSON, the
page builds its elements with textContent only, and its Content-Security-Policy allows nothing but
its own script and style. The page's size is bounded by --report-spans and --report-lines, not by
the corpus. --plots DIR writes the same plots as PNG and SVG (needs matplotlib: semcer[plots]).

examples:
  semcer report examples/references.jsonl examples/tess_noisy.jsonl --html report.html
  semcer report examples/references.jsonl examples/tess_clean.jsonl examples/tess_noisy.jsonl \\
      --names clean,noisy --html compare.html --plots plots/
  semcer score refs.jsonl hyps.jsonl --json --lines --spans 2000 -o score.json && \\
      semcer report score.json --html report.html
"""


def add_report_options(p: argparse.ArgumentParser) -> None:
    """--html, --plots, --report-lines, --report-spans, --ratings, --title."""
    g = p.add_argument_group("HTML report and plots")
    g.add_argument("--html", metavar="FILE", action=Once, help="write the HTML report to FILE (one self-contained file, written "
                   "atomically), after the score")
    g.add_argument("--plots", metavar="DIR", action=Once, help="write the report's plots as PNG and SVG files into DIR "
                   '(created if missing; needs matplotlib: pip install "semcer[plots]")')
    g.add_argument("--report-lines", type=int, default=500, metavar="N", dest="report_lines", action=StoreGiven,
                   help="lines shown in full in the report's line view, the most severe first (default: %(default)s)")
    g.add_argument("--report-spans", type=int, default=2000, metavar="M", dest="report_spans", action=StoreGiven,
                   help="error spans in the report's ranked list, the most severe first (default: %(default)s)")
    g.add_argument("--ratings", metavar="FILE", action=Once, help="reader ratings for the report's top-of-list curve, as `semcer "
                   "meta-eval --ratings` reads them (e.g. the ratings.jsonl of `semcer study export`): JSON Lines, or "
                   "CSV/TSV with a header; each record an item (EDIT_ID, as in --edits files), a rater (may be left "
                   "out here), and a level "
                   "0-4 or a rating in [0, 1]; an item's ratings are averaged")
    g.add_argument("--title", metavar="TEXT", help="the report's title (default: the systems and the references)")


def check_report_options(args: argparse.Namespace) -> None:
    """Before any work: the report options are sound, the plots folder can be written, matplotlib
    is there for --plots, and the ratings file reads (kept on ``args`` for later)."""
    check_int(args, "report_lines", 0)
    check_int(args, "report_spans", 0)
    html_path = getattr(args, "html", None)
    plots = getattr(args, "plots", None)
    if plots is not None:
        from semcer.reports.plots import PLOTS_HINT, matplotlib_missing

        _check_folder(plots)
        if html_path is not None and os.path.realpath(html_path) == os.path.realpath(plots):
            raise SemcerError(f"--html {html_path} and --plots {plots} are the same path; give each its own")
        if matplotlib_missing():
            raise SemcerError(f"--plots {plots}: {PLOTS_HINT}")
    args.report_ratings = None
    if getattr(args, "ratings", None):
        if html_path is not None and os.path.realpath(html_path) == os.path.realpath(args.ratings):
            raise SemcerError(f"--html {html_path} is --ratings {args.ratings}: writing it would destroy the ratings; "
                              "choose another file")
        from semcer.api.report import read_ratings

        args.report_ratings = read_ratings(args.ratings)


def _check_folder(path: str) -> None:
    """--plots DIR: a folder to write into, or a new one made in an existing folder (the rule of
    every output's folder: :func:`semcer.cli.common.folder_problem`)."""
    from semcer.cli.common import folder_problem

    if not path.strip():
        raise SemcerError("--plots is empty: give a folder (it is created when missing), e.g. --plots plots")
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise SemcerError(f"--plots {path}: is a file; give a folder (it is created when missing)")
    problem = folder_problem(p if p.is_dir() else p.parent)  # the plots are written into it, or it is made there
    if problem:
        raise SemcerError(f"--plots {path}: {problem}")


def wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "html", None) or getattr(args, "plots", None))


def _limits(args: argparse.Namespace) -> Any:
    from semcer.api.report import Limits

    return Limits(lines=args.report_lines, spans=args.report_spans)


def report_score(args: argparse.Namespace, result: Any, *, references: str, system: str, digest: Any = None) -> None:
    """The report of one scored system (`semcer score --html/--plots`), when asked for (``digest``:
    what a streamed run kept of its edits for it)."""
    if not wanted(args):
        return
    from semcer.api.report import evaluation_report

    data = evaluation_report(result, name=system, references=references, limits=_limits(args),
                             ratings=getattr(args, "report_ratings", None), title=getattr(args, "title", None),
                             digest=digest)
    write_report(args, data)


def report_compare(args: argparse.Namespace, result: Any, refs: Any, systems: Any) -> None:
    """The report of a comparison (`semcer compare --html/--plots`), when asked for."""
    if not wanted(args):
        return
    from semcer.api.report import comparison_report

    data = comparison_report(result, references=refs, systems=systems, unmatched=args.unmatched, policy=args.policy,
                             reference_name=args.refs, limits=_limits(args),
                             ratings=getattr(args, "report_ratings", None), title=getattr(args, "title", None))
    write_report(args, data)


def write_report(args: argparse.Namespace, data: dict[str, Any], *, announce: bool = False) -> None:
    """Write --html and the --plots files (each atomically); with ``announce`` say what was written."""
    from semcer.atomic import atomic_write
    from semcer.io.json import emit

    said = []
    if getattr(args, "html", None):
        from semcer.reports.html import render

        page = render(data)
        emit(page, args.html)
        said.append(f"wrote {args.html} ({len(page.encode('utf-8')) / 1e6:.1f} MB): {len(data['spans']):,} of "
                    f"{data['span_total']:,} error spans, {len(data['lines']):,} of {data['line_total']:,} lines")
    if getattr(args, "plots", None):
        from semcer.reports.plots import files

        folder = Path(args.plots)
        try:
            folder.mkdir(exist_ok=True)
            written = []
            for plot in data["plots"]:
                for ext, content in files(plot, signature=data["signature"],
                                          judge=data["signature_fields"].get("judge")).items():
                    target = folder / f"{plot['id']}.{ext}"
                    with atomic_write(target, "wb") as fh:
                        fh.write(content)
                    written.append(target.name)
        except OSError as exc:
            raise SemcerError(f"cannot write the plots into {args.plots}: {exc.strerror or exc}") from None
        said.append(f"wrote {len(written)} plot files into {args.plots} ({', '.join(written)})")
    if said and (announce or not getattr(args, "quiet", False)):
        for line in said:
            print(f"semcer: {line}", file=sys.stdout if announce else sys.stderr)


# ---------------------------------------------------------------------------------------------
# semcer report


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="an HTML report: summary, ranked error spans, aligned lines, plots",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_options(p, many_hyps=True)
    for action in p._actions:  # REFS alone is a score JSON: the systems are optional here
        if action.dest == "refs":
            action.metavar = "REFS|SCORE.json"
        if action.dest == "hyps":
            action.nargs = "*"
            action.help = ("the outputs of one system (scored) or several (compared, the first the baseline); none when "
                           "the first argument is a JSON written by `semcer score --json --lines --spans N`")
    add_report_options(p)
    add_comparison_options(p, scope="compare: ")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    add_judge_options(p)
    add_scale_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from semcer.cli.common import check_paths

    if not wanted(args):
        raise SemcerError("semcer report writes files: give --html FILE (and/or --plots DIR)")
    if not args.hyps:
        check_paths(args, {"SCORE.json": args.refs})
        check_report_options(args)
        return _from_json(args)
    inputs = {"REFS": args.refs, **{f"SYS{k + 1}": h for k, h in enumerate(args.hyps)}}
    check_paths(args, inputs)
    check_report_options(args)
    if len(args.hyps) == 1:
        return _score(args)
    return _compare(args)


def _from_json(args: argparse.Namespace) -> int:
    from semcer.api.report import read_score_json, score_json_report

    data = score_json_report(read_score_json(args.refs), source=args.refs, limits=_limits(args),
                             ratings=args.report_ratings, title=args.title)
    write_report(args, data, announce=True)
    return 0


def _score(args: argparse.Namespace) -> int:
    from semcer.api.report import evaluation_report
    from semcer.cli.common import check_scored

    one = copy.copy(args)
    one.hyps = args.hyps[0]
    name = args.names.split(",")[0] if args.names else one.hyps
    if args.no_judge:
        result, digest = _cer_only(one), None
    else:  # streamed, as `semcer score --html` (cli.score imports this module: imported here)
        from semcer.cli.common import Steps
        from semcer.cli.score import stream_scored
        from semcer.scale.report_fold import ReportAsk

        settings = replace(scale_from_args(one, top=0, by_edit=False, edits=None),
                           report=ReportAsk(args.report_spans, frozenset(args.report_ratings or ())))
        streamed = stream_scored(one, settings, Steps(one))
        result, digest = streamed.evaluation, streamed.digest
    check_scored(one, result)
    data = evaluation_report(result, name=name, references=args.refs, limits=_limits(args), ratings=args.report_ratings,
                             title=args.title, digest=digest)
    write_report(args, data, announce=True)
    return 1 if result.judge_summary.get("failures") else 0


def _cer_only(args: argparse.Namespace) -> Any:
    from semcer.api import evaluate
    from semcer.cli.common import read_pairs

    paired, left_out = read_pairs(args)
    return replace(evaluate(paired, unit=args.unit, policy=args.policy, empty_ref=args.empty_ref, judge=None,
                            edits=True, progress=show_progress(args)), left_out=left_out)


def _compare(args: argparse.Namespace) -> int:
    from semcer.api.report import comparison_report
    from semcer.cli.common import check_compared, compare_from_args

    result, refs, systems = compare_from_args(args)
    check_compared(args, result)
    data = comparison_report(result, references=refs, systems=systems, unmatched=args.unmatched, policy=args.policy,
                             reference_name=args.refs, limits=_limits(args), ratings=args.report_ratings,
                             title=args.title)
    write_report(args, data, announce=True)
    return 1 if any(ev.judge_summary.get("failures") for ev in result.evaluations) else 0

