"""How long the HTML report of a large corpus takes, and how big it is.

    python bench/report_speed.py                 # 100,000 lines (bench/make_corpus.py's corpus, built if missing)
    python bench/report_speed.py --lines 10000   # a smaller prefix of the same stream
    python bench/report_speed.py --cli           # also time the whole `semcer report` command

It scores the corpus with the default judge (timed on its own: that is `semcer score`'s work), then
times what the report adds: building the report data from the evaluation (the spans ranked over
every edit, the most severe lines aligned, the per-language breakdown, the plots' data), drawing the
page and writing it. It prints both times and the file's size, and exits 1 when the report's own
time passes --max-seconds (30) or its size --max-mb (20).

**How the size is bounded.** The page holds at most ``--report-spans`` error spans (2,000 by
default), each with at most 60 graphemes of context on each side and 200 of its own text; at most
``--report-lines`` lines in full (500), and no more than 4,000,000 characters of line text in all;
at most 5,000 points per system in the per-document plot and 40 languages in the per-language
plot; everything else is a fixed number of table rows. So the size does not grow with the corpus:
a 100,000-line report weighs about what a 10,000-line one does.
"""

from __future__ import annotations

import argparse
import os
import subprocess
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

            t_cli = None
            if args.cli:
                env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "semcer", "report", str(refs), str(hyps), "--html",
                                str(Path(tmp) / "cli.html"), "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
                t_cli = time.perf_counter() - t0

    t_report = t_data + t_page
    print(f"corpus: {ev.corpus.lines:,} lines, {ev.corpus.edits:,} edits, {data['span_total']:,} error spans, "
          f"{len(ev.documents):,} documents")
    print(f"scoring (align + judge with {ev.signature.judge}): {t_score:.1f} s")
    print(f"report data: {t_data:.2f} s; page drawn and written: {t_page:.2f} s; report total: {t_report:.2f} s "
          f"(limit {args.max_seconds:g} s)")
    print(f"page size: {size / 1e6:.2f} MB (limit {args.max_mb:g} MB): {len(data['spans']):,} spans, "
          f"{len(data['lines']):,} lines in full")
    if t_cli is not None:
        print(f"`semcer report` end to end (read, score, report): {t_cli:.1f} s")
    ok = t_report < args.max_seconds and size < args.max_mb * 1e6
    print("OK" if ok else "FAILED: the report is too slow or too big")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
