"""The deterministic built-in judges are recomputed, never trusted from a store or a file (issue 11,
item 3c): a forged but self-consistent row (its key matches) imported from Parquet, or already in
the store, never changes a compact or rubric score."""

from __future__ import annotations

import sqlite3
import time

import pytest
from helpers import EXAMPLES, P_STORED, RecordingJudge, dump, make_ctx, p_of, read_jsonl

import semcer
import semcer.store.cached
from semcer.judges import resolve_judge
from semcer.judges.distribution import Judgement
from semcer.store.cached import judge_cached
from semcer.store.keys import edit_key, is_deterministic
from semcer.store.sqlite import COLUMNS, JudgedEditStore, ready_rows

FORGED = (1.0, 0.0, 0.0, 0.0, 0.0)  # "every edit is harmless": semCER 0


@pytest.fixture(scope="module")
def corpus():
    refs = read_jsonl(EXAMPLES / "references.jsonl")
    noisy = {r["id"]: r["text"] for r in read_jsonl(EXAMPLES / "tess_noisy.jsonl")}
    return {r["id"]: r["text"] for r in refs}, {r["id"]: noisy[r["id"]] for r in refs}


def _forged_rows(identity, contexts):
    """One forged row per distinct edit, with a key that matches (what anyone can compute)."""
    rows = {}
    for c in contexts:
        key = edit_key(identity, c.content_key())
        rows[key] = {"key": key, "judge": identity, "lang": c.lang, "op": c.op, "ref_unit": c.ref_unit,
                     "hyp_unit": c.hyp_unit, "ref_pos": c.ref_pos, "hyp_pos": c.hyp_pos,
                     "marked_ref": c.marked_ref, "marked_hyp": c.marked_hyp, "p": list(FORGED)}
    return list(rows.values())


@pytest.mark.parametrize("name", ["compact", "rubric"])
def test_forged_rows_never_change_a_deterministic_score(tmp_path, corpus, name):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    refs, hyps = corpus
    judge = resolve_judge(name)
    assert is_deterministic(judge.identity)
    honest = semcer.evaluate(refs, hyps, judge=judge)
    assert honest.judged is not None and honest.corpus.semcer is not None
    assert honest.corpus.semcer > 0.01  # the forgery below would show as 0

    rows = _forged_rows(judge.identity, [j.context for j in honest.judged])
    forged = tmp_path / "forged.parquet"
    pq.write_table(pa.Table.from_pylist(rows), forged)
    path = tmp_path / "s.sqlite"
    with JudgedEditStore(path) as store:
        result = store.import_parquet(forged)
        assert (result.inserted, result.present, result.deterministic) == (0, 0, len(rows))
        assert len(store) == 0

    # A store that already holds forged rows (imported by an older semcer, or written by hand).
    with JudgedEditStore(path) as store:
        assert store.insert_values([(*(r[c] for c in COLUMNS[:10]), *FORGED, "", "[]", time.time()) for r in rows]) \
            == len(rows)
    scored = semcer.evaluate(refs, hyps, judge=judge, store=path)
    assert scored.corpus.semcer == honest.corpus.semcer
    assert str(scored.signature) == str(honest.signature)
    assert scored.judge_run is not None and scored.judge_run.cache_hits == 0

    # ... and the store now holds the recomputed judgements, not the forged ones.
    recomputed = {edit_key(judge.identity, j.context.content_key()): j.judgement.p for j in honest.judged}
    stored = {r[0]: r[P_STORED] for r in dump(path)}
    assert stored == recomputed


def test_judge_cached_never_reads_for_a_deterministic_judge_and_overwrites_what_differs(tmp_path):
    ctxs = [make_ctx(i) for i in range(10)]
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        judge_cached(RecordingJudge(), ctxs, store)
        keys = sorted(store.key(RecordingJudge.identity, c) for c in ctxs)
        with sqlite3.connect(store.path) as conn:
            conn.execute("UPDATE judged_edits SET p0 = 1, p1 = 0, p2 = 0, p3 = 0, p4 = 0 WHERE key IN (?, ?)", keys[:2])
            conn.execute("UPDATE judged_edits SET p0 = 'x' WHERE key = ?", keys[2:3])
            created = dict(conn.execute("SELECT key, created FROM judged_edits"))
        conn.close()

        judge = RecordingJudge()
        results, stats = judge_cached(judge, ctxs, store, deterministic=True)
        assert sorted(c.content_key() for c in judge.calls[0]) == sorted(c.content_key() for c in ctxs)  # all judged
        assert stats.hits == 0 and stats.judged == 10 and stats.overwritten == 3
        assert [r.p for r in results] == [p_of(c) for c in ctxs]
        rows = {r[0]: r for r in dump(store.path)}
        assert {k: r[P_STORED] for k, r in rows.items()} == {store.key(judge.identity, c): p_of(c) for c in ctxs}
        assert [k for k in keys if rows[k][-1] != created[k]] == keys[:3]  # the rows that agreed were not rewritten

        # deterministic=False reads the (now repaired) store as for any other judge
        _, stats = judge_cached(RecordingJudge(), ctxs, store, deterministic=False)
        assert stats.hits == 10 and stats.judged == 0


def test_overwrite_many_inserts_and_overwrites(tmp_path):
    a, b = make_ctx(0), make_ctx(1)
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        ka, kb = store.key("j", a), store.key("j", b)
        assert store.overwrite_many([(ka, "j", a, Judgement(p_of(a)))]) == (1, 0)
        assert store.overwrite_many([(ka, "j", a, Judgement(p_of(a))), (kb, "j", b, Judgement(p_of(b)))]) == (1, 0)
        assert store.overwrite_many([(ka, "j", a, Judgement(FORGED, "digit"))]) == (0, 1)
        assert store.get_many([ka])[ka] == Judgement(FORGED, "digit")
        assert store.overwrite_many([(ka, "j", a, Judgement(None, failure="x"))]) == (0, 0)  # failures never stored


def test_rows_made_ready_elsewhere_store_what_the_rows_store(tmp_path):
    """ready_rows (a worker's half of overwrite_many) gives the same store, and the same counts."""
    ctxs = [make_ctx(i) for i in range(6)]
    rows = [(JudgedEditStore.key("j", c), "j", c, Judgement(p_of(c))) for c in ctxs]
    forged = [(k, j, c, Judgement(FORGED, "digit")) for k, j, c, _ in rows[:2]]
    with JudgedEditStore(tmp_path / "a.sqlite") as a, JudgedEditStore(tmp_path / "b.sqlite") as b:
        for store in (a, b):
            assert store.overwrite_many(forged) == (2, 0)
        assert a.overwrite_many(rows) == b.overwrite_many(ready_rows(rows)) == (4, 2)  # 4 new, the 2 forged replaced
        assert ready_rows([(rows[0][0], "j", ctxs[0], Judgement(None, failure="x"))]).values == ()  # failures never stored
        assert [r[:-1] for r in dump(a.path)] == [r[:-1] for r in dump(b.path)]  # all but the time written
    with pytest.raises(ValueError, match="does not belong"):
        ready_rows([(rows[0][0], "j", ctxs[1], Judgement(p_of(ctxs[1])))])


def test_a_deterministic_judge_is_written_in_few_large_transactions(tmp_path, monkeypatch):
    """Rows accumulate over judge batches and are written once at least DETERMINISTIC_WRITE_ROWS wait, and at
    the end: 12 edits in batches of 2 with a group of 5 are two writes of 6 rows (by hand)."""
    monkeypatch.setattr(semcer.store.cached, "DETERMINISTIC_WRITE_ROWS", 5)
    ctxs = [make_ctx(i) for i in range(12)]
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        sizes: list[int] = []
        write = store.overwrite_many
        monkeypatch.setattr(store, "overwrite_many", lambda rows: (sizes.append(len(rows)), write(rows))[1])
        _, stats = judge_cached(RecordingJudge(), ctxs, store, batch_size=2, deterministic=True)
        assert sizes == [6, 6] and stats.judged == 12 and len(store) == 12
