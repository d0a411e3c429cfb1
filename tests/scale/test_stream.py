"""The streamed pipeline (semcer.scale.pipeline) against the one-pass evaluate(): every number, the
top lists and the edit list equal, whatever the chunk size and the number of worker processes.

The reference is semcer.evaluate over the whole corpus at once (the path `semcer score` took before
streaming), on the bundled multilingual example (de, en, vi, zh_CN; 20 documents of several lines).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
import semcer.cli
import semcer.cli.score
import semcer.store.sqlite
from semcer.api.evaluation import page_scores, word_errors
from semcer.io.edits import ranked, write_edits
from semcer.metrics.spans import judged_spans, ranked_spans
from semcer.scale.chunks import Beside
from semcer.scale.executors import split
from semcer.scale.pipeline import StreamSettings, score_stream, unmatched_of
from semcer.scale.ranking import TopList

ROOT = Path(__file__).resolve().parents[2]
REFS, HYPS = ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"


def _streamed(paired, judge, **kw):
    return score_stream(paired.pairs, judge=judge, unmatched=unmatched_of(paired), settings=StreamSettings(**kw))


@settings(max_examples=8, deadline=None)
@given(chunk=st.integers(1, 260), top=st.integers(1, 40), by_edit=st.booleans())
def test_any_chunking_gives_the_one_pass_result(paired, judge, whole, chunk, top, by_edit):
    got = _streamed(paired, judge, chunk_lines=chunk, top=top, by_edit=by_edit)
    assert got.evaluation.to_dict(lines=True, by=("lang", "doc")) == whole.to_dict(lines=True, by=("lang", "doc"))
    want = ranked(whole.judged)[:top] if by_edit else ranked_spans(judged_spans(whole.judged))[:top]
    key = (lambda j: (j.line_id, j.edit)) if by_edit else (lambda s: (s.span_id, s.severity))
    assert [key(x) for x in got.top] == [key(x) for x in want]


def test_the_judge_block_counts_distinct_edits_once_across_chunks(paired, judge, whole):
    got = _streamed(paired, judge, chunk_lines=7)
    summary = got.evaluation.judge_summary
    distinct = len({semcer.store.sqlite.JudgedEditStore.key(judge.identity, j.context) for j in whole.judged})
    assert summary["edits"] == len(whole.judged) and summary["unique_edits"] == distinct == summary["sent"]
    assert summary == whole.judge_summary


def test_two_worker_processes_give_the_same_json_and_store(paired, judge, whole, tmp_path):
    got = _streamed(paired, judge, chunk_lines=30, workers=2, top=5)
    assert got.evaluation.to_dict(lines=True) == whole.to_dict(lines=True)
    with semcer.store.sqlite.JudgedEditStore(tmp_path / "a.sqlite") as a:
        score_stream(paired.pairs, judge=judge, store=a, settings=StreamSettings(chunk_lines=30, workers=2))
        rows_a = a.rows()
    with semcer.store.sqlite.JudgedEditStore(tmp_path / "b.sqlite") as b:
        semcer.evaluate(paired, judge=judge, store=b)
        rows_b = b.rows()
    assert rows_a == rows_b and len(rows_a) == whole.judge_summary["unique_edits"]


@pytest.mark.parametrize("ext", ["jsonl", "csv", "parquet"])
def test_the_edit_list_is_the_one_pass_list(paired, judge, whole, tmp_path, ext):
    streamed = tmp_path / f"s.{ext}"
    _streamed(paired, judge, chunk_lines=13, edits=str(streamed))
    write_edits(tmp_path / f"w.{ext}", whole.judged)
    if ext == "parquet":
        import pyarrow.parquet as pq

        assert pq.read_table(streamed).to_pylist() == pq.read_table(tmp_path / f"w.{ext}").to_pylist()
    else:
        assert streamed.read_bytes() == (tmp_path / f"w.{ext}").read_bytes()


@given(values=st.lists(st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.0])), max_size=60),
       n=st.integers(0, 12), cut=st.integers(1, 9))
def test_top_list_is_sorted_prefix_with_ties_in_order(values, n, cut):
    items = list(enumerate(values))
    key = lambda it: (it[1] is None, -(it[1] or 0.0))
    top = TopList(n, key)
    for part in split(items, cut):
        top.offer(part)
    assert top.items() == sorted(items, key=key)[:n]


def test_cli_workers_and_chunks_do_not_change_the_json(tmp_path, capsys):
    outs = []
    for extra in (["--workers", "1", "--chunk-lines", "100000"], ["--workers", "2", "--chunk-lines", "50"]):
        assert semcer.cli.main(["score", str(REFS), str(HYPS), "--json", "--lines", "--quiet", *extra]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and json.loads(outs[0])["corpus"]["lines"] == 240


def test_bad_scale_options_are_one_line_errors(capsys):
    for extra, needle in ((["--workers", "0"], "--workers must be at least 1"),
                          (["--chunk-lines", "0"], "--chunk-lines must be at least 1"),
                          (["--ray-address", "auto"], "--ray-address and --ray-gpus apply to --engine ray")):
        assert semcer.cli.main(["score", str(REFS), str(HYPS), *extra]) == 2
        err = capsys.readouterr().err
        assert needle in err and "Traceback" not in err


def test_engine_ray_without_ray_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as when it is not installed
    assert semcer.cli.main(["score", str(REFS), str(HYPS), "--engine", "ray"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("--engine ray needs Ray: pip install 'semcer[ray]'") and "\n" not in err


@settings(max_examples=4, deadline=None)
@given(chunk=st.integers(1, 260))
def test_wer_and_page_scores_in_the_same_pass_equal_the_in_memory_ones(paired, judge, chunk):
    """--wer and --page-score computed chunk by chunk (in workers, folded by the parent) are the
    in-memory word_errors and page_scores of the same pairs, whatever the chunking."""
    got = score_stream(paired.pairs, judge=judge, settings=StreamSettings(chunk_lines=chunk),
                       beside=Beside("uax29", True))
    want_w = word_errors(paired, tokenizer="uax29")
    want_p = page_scores(paired)
    assert got.wer is not None and got.pages is not None
    assert got.wer.to_dict() == want_w.to_dict() and got.wer.lines == want_w.lines and got.wer.bags == want_w.bags
    assert got.pages.to_dict() == want_p.to_dict() and got.pages.pages == want_p.pages


def test_cli_streams_wer_from_jsonl_with_workers_and_resumes(tmp_path, capsys, monkeypatch):
    """`semcer score --wer --page-score` reads two .jsonl files a chunk at a time (never whole), with
    two workers and a work folder; a second run loads every chunk from its markers; all give the JSON of
    `semcer cer` (in memory) for the WER and page-score blocks."""
    assert semcer.cli.main(["cer", str(REFS), str(HYPS), "--wer", "--page-score", "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    def whole(*a, **k):
        raise AssertionError("the inputs were read whole")

    monkeypatch.setattr(semcer.cli.score, "read_pairs", whole)
    outs = []
    for _ in range(2):
        assert semcer.cli.main(["score", str(REFS), str(HYPS), "--wer", "--page-score", "--json", "--quiet",
                                "--workers", "2", "--chunk-lines", "37", "--work-dir", str(tmp_path / "w")]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    for got in outs:
        assert got["wer"] == want["wer"] and got["line_assignment"] == want["line_assignment"]
    first, again = ({k: v for k, v in out.items() if k != "judge"} for out in outs)
    assert first == again and len(list((tmp_path / "w").glob("chunk-*.pkl"))) == 7
    was = outs[0]["judge"]
    assert outs[1]["judge"] == {**was, "sent": 0, "judged": 0,  # the second run judged nothing: it says so
                                "resumed": {"chunks": 7, "cache_hits": 0, "sent": was["sent"], "judged": was["judged"],
                                            "failures": 0}}


def test_workers_writing_the_store_overwrite_forged_rows_as_one_process_does(paired, judge, tmp_path):
    """With workers the judged edits are written by the workers themselves: a store holding three forged
    rows (one made unreadable) ends as one process leaves it, with the same three counted overwritten."""
    import shutil
    import sqlite3

    first = tmp_path / "first.sqlite"
    with semcer.store.sqlite.JudgedEditStore(first) as s:
        score_stream(paired.pairs, judge=judge, store=s, settings=StreamSettings(chunk_lines=50))
        keys = sorted(r["key"] for r in s.rows())[:3]
    with sqlite3.connect(first) as conn:
        conn.execute("UPDATE judged_edits SET p0 = 1, p1 = 0, p2 = 0, p3 = 0, p4 = 0 WHERE key IN (?, ?)", keys[:2])
        conn.execute("UPDATE judged_edits SET p0 = 'x' WHERE key = ?", keys[2:])
    conn.close()
    results = {}
    for workers in (1, 2):
        path = tmp_path / f"w{workers}.sqlite"
        shutil.copy(first, path)
        with semcer.store.sqlite.JudgedEditStore(path) as s:
            got = score_stream(paired.pairs, judge=judge, store=s, settings=StreamSettings(chunk_lines=50, workers=workers))
            results[workers] = (got.evaluation.judge_summary, [{k: v for k, v in r.items() if k != "created"}
                                                                for r in s.rows()])
    assert results[1][0]["overwritten"] == 3
    assert results[1] == results[2]


@pytest.mark.parametrize("by_edit", [False, True])
def test_chunks_held_by_three_workers_give_the_one_pass_edit_list_and_top(paired, judge, whole, tmp_path, by_edit):
    """With a deterministic judge each chunk stays in the worker that prepared it (its contexts never
    reach the parent); the edit list, the top list and every number are still the one-pass ones."""
    from semcer.scale.held import HeldPoolExecutor
    from semcer.scale.pipeline import _executor

    held = _executor(StreamSettings(workers=3), judge, 5, None, held=True)
    try:
        assert isinstance(held, HeldPoolExecutor)
    finally:
        held.close()
    streamed = tmp_path / "s.jsonl"
    got = _streamed(paired, judge, chunk_lines=11, workers=3, top=25, by_edit=by_edit, edits=str(streamed))
    write_edits(tmp_path / "w.jsonl", whole.judged)
    assert streamed.read_bytes() == (tmp_path / "w.jsonl").read_bytes()
    assert got.evaluation.to_dict(lines=True, by=("lang", "doc")) == whole.to_dict(lines=True, by=("lang", "doc"))
    want = ranked(whole.judged)[:25] if by_edit else ranked_spans(judged_spans(whole.judged))[:25]
    key = (lambda j: (j.line_id, j.edit, j.severity)) if by_edit else (lambda s: (s.span_id, s.severity))
    assert [key(x) for x in got.top] == [key(x) for x in want]
    assert got.evaluation.judge_summary == whole.judge_summary


def test_worker_processes_take_the_callers_collector_state():
    import gc

    from semcer.scale.executors import close_workers, start_workers
    from semcer.scale.gc import collector_paused

    with collector_paused():
        paused = start_workers(1)
    running = start_workers(1)
    try:
        assert paused[0].submit(gc.isenabled).get() is False
        assert running[0].submit(gc.isenabled).get() is True
    finally:
        close_workers(paused + running)


@given(p=st.one_of(st.none(), st.lists(st.floats(0, 1), min_size=5, max_size=5).map(tuple)),
       cls=st.text(max_size=5), flags=st.lists(st.text(max_size=4), max_size=3).map(tuple), failure=st.text(max_size=5))
def test_a_judgement_pickles_to_an_equal_one(p, cls, flags, failure):
    import pickle

    from semcer.judges.distribution import Judgement

    j = Judgement(p, cls, flags, failure)
    back = pickle.loads(pickle.dumps(j, protocol=5))
    assert back == j and type(back) is Judgement and back.severity == j.severity


@pytest.mark.parametrize("limit", [1 << 18, 6])
def test_a_held_chunk_asks_only_for_what_its_worker_has_not_seen(paired, judge, monkeypatch, limit):
    """A worker fills the repeats of edits it judged or was sent without asking the parent; once it
    has forgotten some (a small bound), it asks for those again. Either way the finished chunk is
    the one finished with every edit judged directly."""
    from semcer.scale import held
    from semcer.scale.chunks import chunk_tasks, prepare_chunk
    from semcer.scale.finishing import FinishAsk, finish_chunk
    from semcer.text.policy import get_policy

    monkeypatch.setattr(held, "_KNOWN", {})
    monkeypatch.setattr(held, "KNOWN_LIMIT", limit)
    first = list(paired.pairs[:30])
    again = [p._replace(id=p.id + "~1", doc=p.doc + "~1") for p in first]
    tasks = list(chunk_tasks(first + again, 30, unit="grapheme", policy=get_policy(None), empty_ref="error",
                             window=judge.context_window, identity=judge.identity))
    ask = FinishAsk(top=7)
    spec = judge.spec().to_json()

    def direct(task):
        prep = prepare_chunk(task)
        every = judge.judge(list(prep.contexts))
        return prep, every, finish_chunk(prep, every, [j.severity for j in every], ask)

    prep0, every0, want0 = direct(tasks[0])
    a = held.prepare_held(tasks[0])
    assert a.keys == tuple(dict.fromkeys(prep0.keys)) and a.edits == len(prep0.keys) >= len(a.keys) > 12
    held.judge_held(0, range(len(a.keys)), spec, judge.identity, None, False)
    assert held.finish_held(0, [], ask) == want0
    assert len(held._KNOWN) == (len(a.keys) if limit > len(a.keys) else limit // 2)

    _, _, want1 = direct(tasks[1])
    b = held.prepare_held(tasks[1])
    by_key = dict(zip(prep0.keys, every0))
    if limit > len(a.keys):
        assert b.keys == () and b.edits == a.edits  # every edit repeats one this worker judged
    else:
        assert b.keys == a.keys[: len(a.keys) - limit // 2]  # the oldest were forgotten: asked for again
    got = held.finish_held(1, [by_key[k] for k in b.keys], ask)
    assert got == want1 and got != want0  # the same edits, other line ids
    assert not (held._HELD or held._ASKED or held._LOCAL or held._JUDGED)


@pytest.mark.parametrize("block", [1, 7, 1000])
def test_lines_kept_on_disk_in_blocks_give_the_one_pass_result(paired, judge, whole, monkeypatch, block):
    """The run's lines in blocks on disk (here of 1 or 7 lines, and none written): the same JSON, the
    same rows by index and by iteration, and the blocks' folder removed with the result."""
    import gc

    from semcer.scale import lines

    monkeypatch.setattr(lines, "BLOCK_LINES", block)
    got = _streamed(paired, judge, chunk_lines=5)
    kept = got.evaluation.lines
    assert isinstance(kept, lines.SpilledLines)
    assert (kept.blocks_written > 0) is (block < len(whole.lines)) and len(kept._tail) < max(block, 5)
    assert got.evaluation.to_dict(lines=True, by=("lang", "doc")) == whole.to_dict(lines=True, by=("lang", "doc"))
    want = [r._replace(edits=None, alignment=None) for r in whole.lines]  # a streamed run keeps no edits
    assert list(kept) == want and kept == want and len(kept) == len(want)
    assert [kept[k] for k in (-1, 0, len(kept) // 2, 3)] == [want[k] for k in (-1, 0, len(kept) // 2, 3)]
    assert kept[2:9] == tuple(want[2:9])
    folder = kept._folder
    del got, kept
    gc.collect()
    assert folder is None or not folder.exists()


def test_lines_that_cannot_be_kept_on_disk_are_a_clear_error(tmp_path, monkeypatch):
    """A temporary folder with no room (here: one that does not exist) is a one-line error naming it
    and TMPDIR, not a traceback; a block gone before it is read back is one too."""
    import tempfile

    from semcer.alignment.line import LineResult, LineStats
    from semcer.errors import SemcerError
    from semcer.scale.lines import SpilledLines

    rows = [LineResult(f"l{k}", "d", "en", LineStats(1, 0, 0, 3, 0.25)) for k in range(4)]
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    kept = SpilledLines(block=2)
    with pytest.raises(SemcerError, match="TMPDIR"):
        kept.extend(rows)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    kept = SpilledLines(block=2)
    kept.extend(rows)
    assert kept.blocks_written == 1 and list(kept) == rows  # one extend of 4 lines: one block of 4
    gone = SpilledLines(block=2)
    gone.extend(rows)
    for f in gone._folder.iterdir():
        f.unlink()
    with pytest.raises(SemcerError, match="cannot be read back"):
        list(gone)


def _with_empty_last(tmp_path, ref_text):
    """The example's first 40 lines and a last line whose reference is ``ref_text``, as two .jsonl files."""
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    refs.write_text("".join(REFS.read_text().splitlines(keepends=True)[:40])
                    + json.dumps({"id": "zz", "text": ref_text}) + "\n")
    hyps.write_text("".join(HYPS.read_text().splitlines(keepends=True)[:40]) + json.dumps({"id": "zz", "text": "x"}) + "\n")
    return refs, hyps


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize(("ref_text", "policy", "why"), [
    ("", "nfc", "the reference is empty, so"),
    ("  ", "jiwer", "the reference is empty after policy 'jiwer' (raw reference '  ')"),
])
def test_a_late_empty_reference_stops_the_run_before_any_edit_is_judged(tmp_path, capsys, workers, ref_text,
                                                                         policy, why):
    """The 41st of 41 lines has an empty reference (as written, or after the policy): in chunks of 5,
    over one or two workers, the run stops with the one-pass error before judging a chunk, so the
    store holds no edit (it held the first 40 lines' 117 when the error came at that chunk)."""
    refs, hyps = _with_empty_last(tmp_path, ref_text)
    store = tmp_path / "s.sqlite"
    status = semcer.cli.main(["score", str(refs), str(hyps), "--store", str(store), "--workers", workers,
                              "--chunk-lines", "5", "--policy", policy, "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(f"semcer: error: line 'zz': {why}")
    if store.exists():
        with semcer.store.sqlite.JudgedEditStore(store) as st:
            assert len(st) == 0


def test_a_late_empty_reference_of_pairs_in_memory_stops_before_judging():
    from helpers import RecordingJudge

    from semcer.alignment.engine import Pair

    pairs = [Pair(str(k), "abc", "abd", "d", None) for k in range(30)] + [Pair("e", "!!", "x", "d", None)]
    judge = RecordingJudge()
    with pytest.raises(semcer.EmptyReferenceError, match="line 'e': the reference is empty after policy"):
        score_stream(pairs, judge=judge, policy="alnum", settings=StreamSettings(chunk_lines=5))
    assert judge.calls == []  # nothing judged: the lines before it came to no chunk
