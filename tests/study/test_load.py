"""A bounded load test on loopback: 8 readers x 50 answers, each sent twice, from 8 threads with
httpx against a real `semcer study serve`; every answer stored exactly once."""

from __future__ import annotations

import re
import threading
import time

import pytest
from servers import Server
from studyhelpers import LINES, write_edits

from semcer.study.create import create_study, plan
from semcer.study.db import StudyDB

httpx = pytest.importorskip("httpx")
THREADS, POSTS = 8, 50


def _lines(n: int):
    """n distinct single-substitution lines (the fixture's lines with a numbered prefix)."""
    out = []
    for k in range(n):
        line_id, lang, ref, hyp, pos, cls, sev = LINES[k % len(LINES)]
        prefix = f"{k:03d} "
        out.append((f"{line_id}-{k}", lang, prefix + ref, prefix + hyp, pos + len(prefix), cls, sev))
    return out


def _reader(url: str, token: str, errors: list[str]) -> None:
    with httpx.Client(base_url=url, timeout=30) as c:
        pre = re.search(r'name="csrf" value="([^"]+)"', c.get("/signin").text).group(1)
        r = c.post("/signin", data={"csrf": pre, "token": token})
        csrf = re.search(r'name="csrf" value="([^"]+)"', c.get("/rate").text).group(1)
        for k in range(POSTS):
            for _ in range(2):  # a double submit: the second is ignored
                r = c.post("/rate", data={"csrf": csrf, "pos": str(k), "level": str(k % 5)}, headers={"origin": url})
                if r.status_code != 303:
                    errors.append(f"{r.status_code} {r.text[:100]}")


def test_concurrent_readers(tmp_path):
    edits = write_edits(tmp_path / "edits.jsonl", _lines(POSTS))
    names = [f"r{k}" for k in range(THREADS)]
    tokens = create_study(tmp_path / "l.study", plan([str(edits)], [], None, None, 0, 0), names)
    server = Server(tmp_path / "l.study").start()
    errors: list[str] = []
    try:
        threads = [threading.Thread(target=_reader, args=(server.url, tokens[n], errors)) for n in names]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        elapsed = time.perf_counter() - start
    finally:
        server.stop()
    assert errors == []
    db = StudyDB(tmp_path / "l.study")
    rows = db.ratings()
    keys = [(r.reader, r.item, r.rep) for r in rows]
    assert len(keys) == len(set(keys)) == THREADS * POSTS
    for n in names:
        levels = {db.slot(n, k).item: k % 5 for k in range(POSTS)}
        assert {r.item: r.level for r in rows if r.reader == n} == levels
    print(f"{2 * THREADS * POSTS} POSTs from {THREADS} threads in {elapsed:.2f} s")
    assert elapsed < 60
