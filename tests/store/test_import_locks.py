"""A long import does not lock other writers out (issue 11, item 3b): the whole file is checked
first, then inserted in bounded transactions, so a concurrent `semcer score` writing the same
store waits for one batch, not for the whole file (before: 120 s, then "database is locked")."""

from __future__ import annotations

import multiprocessing
import time

import pytest
from helpers import make_ctx, p_of

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN, content_key
from semcer.judges.distribution import Judgement
from semcer.store.keys import edit_key
from semcer.store.sqlite import JudgedEditStore

ROWS = 200_000
IMPORTED = "imported:v1"
P = [0.125, 0.25, 0.25, 0.25, 0.125]


def _big_parquet(path, n):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    refs = [f"w{i:06d}" for i in range(n)]
    marked_ref = [f"{r}{MARK_OPEN}a{MARK_CLOSE}" for r in refs]  # a real edit: unit 7 of each line
    marked_hyp = [f"{MARK_OPEN}x{MARK_CLOSE}"] * n
    keys = [edit_key(IMPORTED, content_key("en", "S", mr, mh)) for mr, mh in zip(marked_ref, marked_hyp)]
    table = pa.table({
        "key": keys, "judge": [IMPORTED] * n, "lang": ["en"] * n, "op": ["S"] * n, "ref_unit": ["a"] * n,
        "hyp_unit": ["x"] * n, "ref_pos": [7] * n, "hyp_pos": [0] * n, "marked_ref": marked_ref,
        "marked_hyp": marked_hyp, "p": [P] * n,
    })
    pq.write_table(table, path)
    return keys


def _writer(path: str, ready, stop, queue) -> None:
    """Writes 10 edits per transaction until told to stop; reports every write's start and end."""
    try:
        spans = []
        i = 0
        with JudgedEditStore(path) as store:
            ready.set()
            while not stop.is_set():
                ctxs = [make_ctx(k) for k in range(i, i + 10)]
                started = time.monotonic()
                store.put_many([(store.key("writer:v1", c), "writer:v1", c, Judgement(p_of(c))) for c in ctxs])
                spans.append((started, time.monotonic()))
                i += 10
                time.sleep(0.005)
        queue.put((spans, i, ""))
    except BaseException as exc:  # reported to the parent, which fails the test
        queue.put(([], 0, f"{type(exc).__name__}: {exc}"))


def test_a_long_import_lets_a_concurrent_writer_in(tmp_path):
    source = tmp_path / "big.parquet"
    keys = _big_parquet(source, ROWS)
    path = tmp_path / "shared.sqlite"
    JudgedEditStore(path).close()

    mp = multiprocessing.get_context("spawn")
    ready, stop, queue = mp.Event(), mp.Event(), mp.Queue()
    proc = mp.Process(target=_writer, args=(str(path), ready, stop, queue))
    proc.start()
    try:
        assert ready.wait(timeout=60), "the writer did not start"
        time.sleep(0.2)
        with JudgedEditStore(path) as store:
            t0 = time.monotonic()
            result = store.import_parquet(source)
            t1 = time.monotonic()
        time.sleep(0.2)
    finally:
        stop.set()
        spans, written, error = queue.get(timeout=60)
        proc.join(timeout=60)
    assert error == ""
    assert (result.inserted, result.present, result.deterministic, result.one_hot) == (ROWS, 0, 0, 0)

    during = [(a, b) for a, b in spans if b > t0 and a < t1]  # writes that overlapped the import
    longest = max(b - a for a, b in during)
    print(f"import of {ROWS} rows: {t1 - t0:.2f} s; {len(during)} concurrent writes, longest {longest * 1000:.0f} ms")
    assert len(during) >= 10
    assert longest < 2.0 and longest < (t1 - t0) / 4  # the writer waited for a batch, not for the file

    with JudgedEditStore(path, readonly=True) as store:
        assert store.count(IMPORTED) == ROWS and store.count("writer:v1") == written
        sample = keys[:: ROWS // 1000]
        found = store.get_many(sample)
        assert len(found) == len(sample) and all(j.p == tuple(P) for j in found.values())
        writer_keys = [store.key("writer:v1", make_ctx(k)) for k in range(written)]
        assert len(store.get_many(writer_keys)) == written
