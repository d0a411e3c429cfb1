"""How long the HTML report of a large corpus takes, and how big it is.

    python bench/report_speed.py                 # 100,000 lines (bench/make_corpus.py's corpus, built if missing)
    python bench/report_speed.py --lines 10000   # a smaller prefix of the same stream
    python bench/report_speed.py --cli           # also time whole `semcer report` / `semcer score --html` commands

It scores the corpus with the default judge (timed on its own: that is `semcer score`'s work), then
times what the report adds: building the report data from the evaluation (the spans ranked over
every edit, the most severe lines aligned, the per-language breakdown, the plots' data), drawing the
page and writing it. It prints both times and the file's size, and exits 1 when the report's own
time passes --max-seconds (30) or its size --max-mb (20). With ``--cli`` it also runs whole
commands, cold, each a fresh process with no store: `semcer report REFS HYPS --html FILE` and
`semcer score REFS HYPS --html FILE` with ``--workers 1`` and ``--workers 2`` (both stream the corpus:
memory holds the report's limits, not every edit), with wall time and peak RSS (the largest sum
over the process tree, sampled from /proc every 0.2 s).

**How the size is bounded.** The page holds at most ``--report-spans`` error spans (2,000 by
default), each with at most 60 graphemes of context on each side and 200 of its own text; at most
``--report-lines`` lines in full (500), and no more than 4,000,000 characters of line text in all;
at most 5,000 points per system in the per-document plot and 40 languages in the per-language
plot; everything else is a fixed number of table rows. So the size does not grow with the corpus:
a 100,000-line report weighs about what a 10,000-line one does.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import make_corpus  # noqa: E402

from semcer.api import evaluate  # noqa: E402
from semcer.api.report import Limits, evaluation_report  # noqa: E402
from semcer.io.json import emit  # noqa: E402
from semcer.reports.html import render  # noqa: E402
from semcer.scale.gc import collector_paused  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--report-lines", type=int, default=500)
    ap.add_argument("--report-spans", type=int, default=2000)
    ap.add_argument("--max-seconds", type=float, default=30.0)
    ap.add_argument("--max-mb", type=float, default=20.0)
    ap.add_argument("--cli", action="store_true", help="also time `semcer report REFS HYPS --html FILE` end to end")
    args = ap.parse_args(argv)

    refs, hyps = make_corpus.OUT / f"refs.{args.lines}.jsonl", make_corpus.OUT / f"hyps.{args.lines}.jsonl"
    if not refs.exists() or not hyps.exists():
        refs, hyps = make_corpus.build(args.lines)

    with collector_paused():
        t0 = time.perf_counter()
        ev = evaluate(str(refs), str(hyps), judge="compact", edits=True)
        t_score = time.perf_counter() - t0

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "report.html"
            t0 = time.perf_counter()
            data = evaluation_report(ev, name=str(hyps), references=str(refs),
                                     limits=Limits(lines=args.report_lines, spans=args.report_spans))
            t_data = time.perf_counter() - t0
            t0 = time.perf_counter()
            page = render(data)
            emit(page, str(out))
            t_page = time.perf_counter() - t0
            size = out.stat().st_size

            cli = []
            if args.cli:
                html = str(Path(tmp) / "cli.html")
                for name, cmd in (("semcer report REFS HYPS --html FILE", ["report", str(refs), str(hyps), "--html", html]),
                                  *((f"semcer score REFS HYPS --html FILE --workers {w}",
                                     ["score", str(refs), str(hyps), "--html", html, "--workers", str(w), "--json",
                                      "-o", str(Path(tmp) / "s.json")]) for w in (1, 2))):
                    cli.append((name, *_whole_process(cmd)))

    t_report = t_data + t_page
    print(f"corpus: {ev.corpus.lines:,} lines, {ev.corpus.edits:,} edits, {data['span_total']:,} error spans, "
          f"{len(ev.documents):,} documents")
    print(f"scoring (align + judge with {ev.signature.judge}): {t_score:.1f} s")
    print(f"report data: {t_data:.2f} s; page drawn and written: {t_page:.2f} s; report total: {t_report:.2f} s "
          f"(limit {args.max_seconds:g} s)")
    print(f"page size: {size / 1e6:.2f} MB (limit {args.max_mb:g} MB): {len(data['spans']):,} spans, "
          f"{len(data['lines']):,} lines in full")
    for name, wall, rss in cli:
        print(f"`{name}` end to end (read, score, report): {wall:.1f} s, peak RSS {rss} MB (process tree)")
    ok = t_report < args.max_seconds and size < args.max_mb * 1e6
    print("OK" if ok else "FAILED: the report is too slow or too big")
    return 0 if ok else 1


def _whole_process(argv: list[str]) -> tuple[float, int]:
    """Wall time and the peak resident memory (MB, process tree) of one `semcer` command."""
    import scale  # bench/scale.py: the same /proc sampling as the scale bench

    got = scale.run([sys.executable, "-m", "semcer", *argv, "-q"])
    return got["wall_s"], got["rss_tree_mb"]


if __name__ == "__main__":
    sys.exit(main())
