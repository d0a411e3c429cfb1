"""The HTML report of a streamed run (`semcer score --html` on large corpora) against the one-pass
report: the same report data (summary, ranked spans, line view, plots, top-of-list curve), whatever
the chunking and the number of workers, and the same page as `semcer report REFS SYS --html`, which
scores in memory with every edit kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
import semcer.cli
import semcer.cli.score
from semcer.api.report import Limits, evaluation_report, severity_bins
from semcer.io.collections import read_collection
from semcer.io.edits import edit_id
from semcer.io.pairing import pair_collections
from semcer.reports.html import render
from semcer.scale import reading
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

    monkeypatch.setattr(semcer.cli.score, "read_pairs", read_whole)
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

    monkeypatch.setattr(semcer.cli.score, "read_pairs", read_whole)
    assert semcer.cli.main(["score", str(REFS), str(HYPS), "--json", "--spans", "30", "--quiet", "--workers", "2",
                            "--chunk-lines", "31"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert len(got["spans"]) == 30 and got["spans"] == want["spans"]
    assert got["corpus"] == want["corpus"] and "lines" not in got


@pytest.mark.parametrize("every", [48, 3])  # 5 skipped lines (the shown lines read alone), 80 (read again whole)
def test_the_line_view_of_a_streamed_run_with_skipped_lines_finds_its_lines(judge, tmp_path, monkeypatch, every):
    """Row k of a run with s skipped lines is one of lines k..k+s: the report reads only those
    (up to 64 skipped lines) or the whole input again, and shows what the in-memory report shows."""
    records = [json.loads(x) for x in REFS.read_text(encoding="utf-8").splitlines()]
    for k in range(0, len(records), every):
        records[k]["text"] = ""
    refs = tmp_path / "refs.jsonl"
    refs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    paired = pair_collections(read_collection(str(refs)), read_collection(str(HYPS)))
    limits = Limits(lines=60, spans=30)
    whole = semcer.evaluate(paired, judge=judge, edits=True, empty_ref="skip")
    assert len(whole.skipped_empty) == len(range(0, len(records), every))
    near = []
    real = reading.JsonlSource.pairs_near
    monkeypatch.setattr(reading.JsonlSource, "pairs_near", lambda self, *a: near.append(a) or real(self, *a))
    source = reading.jsonl_source(str(refs), str(HYPS), formats=(None,), lang=None)
    got = score_stream(source, judge=judge, empty_ref="skip",
                       settings=StreamSettings(chunk_lines=37, report=ReportAsk(30)))
    data = evaluation_report(got.evaluation, limits=limits, digest=got.digest)
    assert bool(near) == (len(whole.skipped_empty) <= 64)
    assert data == evaluation_report(whole, limits=limits)
    assert len(data["lines"]) == 60 and all(v["segs"] for line in data["lines"] for v in line["sys"])
