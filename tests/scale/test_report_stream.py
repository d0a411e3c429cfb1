"""The HTML report of a streamed run (`semcer score --html` on large corpora) against the one-pass
report: the same report data (summary, ranked spans, line view, plots, top-of-list curve), whatever
the chunking and the number of workers, and the same page as `semcer report REFS SYS --html`, which
scores in memory with every edit kept."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
import semcer.cli
import semcer.cli.score
from semcer.api.report import Limits, evaluation_report, severity_bins
from semcer.io.edits import edit_id
from semcer.reports.html import render
from semcer.scale.pipeline import StreamSettings, score_stream, unmatched_of
from semcer.scale.report_fold import ReportAsk

ROOT = Path(__file__).resolve().parents[2]
REFS, HYPS = ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"


@settings(max_examples=6, deadline=None)
@given(chunk=st.integers(1, 260), spans=st.integers(1, 80), lines=st.integers(1, 60), every=st.integers(1, 9))
def test_streamed_report_data_is_the_one_pass_report(paired, judge, whole, chunk, spans, lines, every):
    rated = [edit_id(x.line_id, x.edit.op, x.edit.ref_pos, x.edit.hyp_pos) for x in whole.judged][::every]
    ratings = {i: (k % 5) / 4 for k, i in enumerate(rated)} | {"no-such-line:S0,0": 1.0}
    limits = Limits(lines=lines, spans=spans)
    want = evaluation_report(whole, limits=limits, ratings=ratings)
    got = score_stream(paired.pairs, judge=judge, unmatched=unmatched_of(paired),
                       settings=StreamSettings(chunk_lines=chunk, report=ReportAsk(spans, frozenset(ratings))))
    assert got.digest is not None and got.evaluation.judged is None  # no edit was kept
    data = evaluation_report(got.evaluation, limits=limits, ratings=ratings, digest=got.digest)
    assert data == want
    assert len(data["spans"]) == spans and len(data["lines"]) == lines
    assert {p["id"] for p in data["plots"]} == {"severity", "documents", "languages", "top-of-list"}


def test_the_histogram_counts_every_judged_edit_once(paired, judge, whole):
    got = score_stream(paired.pairs, judge=judge, settings=StreamSettings(chunk_lines=13, report=ReportAsk(5)))
    sev = [x.severity for x in whole.judged]
    assert sum(got.digest.bins) == len(sev) == whole.judge_summary["edits"]
    assert list(got.digest.bins) == severity_bins(sev)
    # by hand: bin k holds [k/20, (k+1)/20), the last one also 1.0
    assert severity_bins([0.0, 0.049, 0.05, 0.5, 0.999, 1.0]) == [2, 1] + [0] * 8 + [1] + [0] * 8 + [2]


def test_cli_html_streams_with_workers_and_equals_the_in_memory_report(judge, whole, tmp_path, capsys, monkeypatch):
    """`semcer score --html` and `semcer report REFS SYS --html` read the .jsonl inputs a chunk at a
    time (never whole), with two workers, and write the page the in-memory API writes from an
    evaluation that kept every edit."""
    limits = Limits(lines=25, spans=40)
    want = render(evaluation_report(whole, name=str(HYPS), references=str(REFS), limits=limits))

    def read_whole(*a, **k):
        raise AssertionError("the inputs were read whole")

    monkeypatch.setattr(semcer.cli.score, "load_pairs", read_whole)
    got, again = tmp_path / "got.html", tmp_path / "again.html"
    sizes = ["--report-spans", "40", "--report-lines", "25", "--workers", "2", "--chunk-lines", "50"]
    assert semcer.cli.main(["score", str(REFS), str(HYPS), "--html", str(got), *sizes, "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["corpus"]["lines"] == 240
    assert semcer.cli.main(["report", str(REFS), str(HYPS), "--html", str(again), *sizes, "--quiet"]) == 0
    assert got.read_text(encoding="utf-8") == want
    assert again.read_text(encoding="utf-8") == want


def test_json_spans_stream_without_lines_and_equal_the_one_pass_block(tmp_path, capsys, monkeypatch):
    """`--json --spans N` alone streams (the spans block from the chunks' most severe spans); with
    --lines it runs in memory (each line row gets its edits). The two spans blocks are the same."""
    assert semcer.cli.main(["score", str(REFS), str(HYPS), "--json", "--lines", "--spans", "30", "--quiet"]) == 0
    want = json.loads(capsys.readouterr().out)

    def read_whole(*a, **k):
        raise AssertionError("the inputs were read whole")

    monkeypatch.setattr(semcer.cli.score, "load_pairs", read_whole)
    assert semcer.cli.main(["score", str(REFS), str(HYPS), "--json", "--spans", "30", "--quiet", "--workers", "2",
                            "--chunk-lines", "31"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert len(got["spans"]) == 30 and got["spans"] == want["spans"]
    assert got["corpus"] == want["corpus"] and "lines" not in got
