"""Hostile inputs, faults and loads, end to end through the `semcer` command (issue 11, items 1-12).

One case per item, each a whole process of the command line on loopback only, with bounded sizes
and loops; the modules' own tests go deeper (tests/alignment/test_context.py, tests/store/,
tests/io/, tests/cli/, tests/judges/llm/test_hardening.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import ChatServer, fixed_backend

from semcer.store.sqlite import JudgedEditStore

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
KEY = "sk-hostile-0123456789abcdefXYZ"


def semcer(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300):
    return subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=timeout)


# VmHWM, the peak of this process's own memory (ru_maxrss would carry the parent's peak across exec)
_MEASURED = ("import atexit, sys, runpy\n"
             "rss = lambda: int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])\n"
             "atexit.register(lambda: sys.stderr.write(f'\\nMAXRSS_KB {rss()}\\n'))\n"
             "sys.argv = ['semcer', *sys.argv[1:]]\n"
             "runpy.run_module('semcer', run_name='__main__')\n")


def semcer_measured(*args: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, float]:
    """The command and its own peak resident memory in MB (VmHWM, read by the child itself at exit)."""
    p = subprocess.run([sys.executable, "-c", _MEASURED, *args], capture_output=True, text=True,
                       env={**os.environ, **(env or {})}, timeout=300)
    kb = [int(line.split()[1]) for line in p.stderr.splitlines() if line.startswith("MAXRSS_KB ")]
    assert kb, p.stderr[-2000:]
    return p, kb[-1] / 1024


def one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("semcer: error:"), p.stderr
    return lines[0]


def jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.fixture()
def server():
    with ChatServer(fixed_backend()) as s:
        yield s


# 1. a long line is ordinary input: bounded judge context, bounded store rows and memory
def test_1_a_200k_character_line(tmp_path):
    ref = ("Der Zug nach Berlin fährt um 12:30 Uhr ab. " * 5000)[:200_000]
    hyp = "".join("e" if (k % 97 == 5 and c == "a") else c for k, c in enumerate(ref))
    r = jsonl(tmp_path / "r.jsonl", [{"id": "1", "lang": "de", "text": ref}])
    h = jsonl(tmp_path / "h.jsonl", [{"id": "1", "lang": "de", "text": hyp}])
    p, peak_mb = semcer_measured("score", r, h, "--json", "--store", str(tmp_path / "s.sqlite"))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["corpus"]["substitutions"] > 50
    with JudgedEditStore(tmp_path / "s.sqlite", readonly=True) as store:
        assert max(len(r["marked_ref"]) for r in store.rows()) <= 203
    assert peak_mb < 400, peak_mb  # measured: 146 MB (semcer cer on a short line: 65 MB)


# 2. a tampered store row is reported and never used
def test_2_a_tampered_row_does_not_move_semcer(tmp_path):
    store = tmp_path / "s.sqlite"
    args = ["score", str(EX / "references.jsonl"), str(EX / "tess_noisy.jsonl"), "--json", "--store", str(store)]
    clean = json.loads(semcer(*args, "--judge", "rubric").stdout)["corpus"]["semcer"]
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE judged_edits SET p0 = 10.0, p4 = 'oops' WHERE rowid IN (SELECT rowid FROM judged_edits LIMIT 5)")
    again = semcer(*args, "--judge", "rubric")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["corpus"]["semcer"] == clean


# 3. exporting a store onto itself is refused, and forged rows of a deterministic judge change nothing
def test_3_export_onto_the_store_is_refused(tmp_path):
    store = tmp_path / "s.sqlite"
    semcer("score", str(EX / "references.jsonl"), str(EX / "tess_noisy.jsonl"), "--store", str(store), "--quiet")
    size = store.stat().st_size
    line = one_line_error(semcer("store", "export", str(store), str(store)))
    assert "store" in line and store.stat().st_size == size
    assert semcer("store", "info", str(store)).returncode == 0


# 4. one-hot fallbacks are used but not stored
def test_4_answers_without_probabilities_are_not_stored(tmp_path, server):
    server.fault_all = "no-logprobs"
    store = tmp_path / "s.sqlite"
    p = semcer("score", str(EX / "references.jsonl"), str(EX / "tess_noisy.jsonl"), "--judge", "llm", "--endpoint",
               server.url, "--model", "m", "--store", str(store), "--json", "--quiet")
    assert p.returncode == 0, p.stderr[-1000:]
    assert json.loads(p.stdout)["corpus"]["semcer"] is not None
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM judged_edits").fetchone()[0] == 0


# 5. a JSON array is read as such; a binary file is refused, naming what it is
def test_5_json_arrays_and_binary_files(tmp_path):
    refs = tmp_path / "refs.json"
    hyps = tmp_path / "hyps.json"
    refs.write_text(json.dumps([{"id": "1", "text": "abc"}, {"id": "2", "text": "abc"}]))
    hyps.write_text(json.dumps([{"id": "1", "text": "abc"}, {"id": "2", "text": "xyc"}]))
    p = semcer("cer", str(refs), str(hyps), "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["corpus"]["cer"] == pytest.approx(1 / 3)
    png = tmp_path / "scan.jsonl"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    assert "PNG" in one_line_error(semcer("cer", str(png), str(hyps)))


# 6. hostile JSON is one line
@pytest.mark.parametrize("line", ["[" * 100_000 + "]" * 100_000, '{"id": "1", "text": "a", "n": ' + "9" * 4301 + "}"])
def test_6_hostile_json(tmp_path, line):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(line + "\n")
    one_line_error(semcer("cer", str(bad), str(bad)))
    one_line_error(semcer("judge-eval", str(bad)))


# 7. outputs are checked before any work, and an input is never overwritten
def test_7_outputs_checked_first_and_inputs_never_overwritten(tmp_path):
    refs = tmp_path / "refs.jsonl"
    refs.write_bytes((EX / "references.jsonl").read_bytes())
    before = refs.read_bytes()
    t = time.monotonic()
    one_line_error(semcer("score", str(refs), str(EX / "tess_noisy.jsonl"), "-o", str(tmp_path / "no" / "x.json")))
    one_line_error(semcer("score", str(refs), str(EX / "tess_noisy.jsonl"), "--edits", str(refs)))
    one_line_error(semcer("score", str(refs), str(EX / "tess_noisy.jsonl"), "--edits", str(tmp_path / "e.tsv")))
    assert time.monotonic() - t < 30
    assert refs.read_bytes() == before


# 8. terminal control sequences are escaped; CSV cells cannot become formulas
def test_8_terminal_and_spreadsheet_injection(tmp_path):
    r = jsonl(tmp_path / "r.jsonl", [{"id": "\x1b]0;pwned\x07", "text": "=SUM(A1) total"}])
    h = jsonl(tmp_path / "h.jsonl", [{"id": "\x1b]0;pwned\x07", "text": "=SUM(A2) tota1"}])
    p = semcer("score", r, h, "--judge", "rubric", "--edits", str(tmp_path / "e.csv"))
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\x07" not in p.stdout
    cells = [c for row in (tmp_path / "e.csv").read_text().splitlines()[1:] for c in row.split(",")]
    assert not any(c.lstrip('"').startswith(("=", "+", "-", "@")) for c in cells)


# 9. the API key never leaks, not even in part
def test_9_a_server_echoing_the_key(tmp_path, server):
    server.fault_all = "echo-auth"
    p = semcer("score", str(EX / "references.jsonl"), str(EX / "tess_noisy.jsonl"), "--judge", "llm", "--endpoint",
               server.url, "--model", "m", "--max-retries", "0", "--edits", str(tmp_path / "e.jsonl"), "--json",
               env={"OPENAI_API_KEY": KEY})
    written = p.stdout + p.stderr + (tmp_path / "e.jsonl").read_text()
    assert "failure" in written
    assert not any(KEY[k : k + 8] in written for k in range(len(KEY) - 7))


# 10. a huge answer fails its edit without exhausting memory
def test_10_a_huge_answer(tmp_path, server):
    server.fault_all = "huge-chunked"
    server.huge_bytes = 30 * 2**20
    r = jsonl(tmp_path / "r.jsonl", [{"id": "1", "text": "abc"}])
    h = jsonl(tmp_path / "h.jsonl", [{"id": "1", "text": "abd"}])
    p, peak_mb = semcer_measured("score", r, h, "--judge", "llm", "--endpoint", server.url, "--model", "m", "--json")
    assert p.returncode == 1  # the edit failed: semCER undefined, exit status 1
    out = json.loads(p.stdout)
    assert out["corpus"]["semcer"] is None and out["judge"]["failures"] == 1
    assert peak_mb < 180, peak_mb  # a 30 MB answer held in memory (or parsed) would add 30-150 MB


# 11. a dead endpoint stops the run at once, with one line
def test_11_a_dead_endpoint(tmp_path):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    t = time.monotonic()
    line = one_line_error(semcer("score", str(EX / "references.jsonl"), str(EX / "tess_noisy.jsonl"), "--judge", "llm",
                                 "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "m"))
    assert time.monotonic() - t < 30 and "is the server running" in line


# 12. judge-eval takes the LLM judge's options like every other command
def test_12_judge_eval_with_an_llm_server(tmp_path, server):
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join((ROOT / "data" / "severity" / "dev.jsonl").read_text(encoding="utf-8").splitlines(True)[:20]),
                      encoding="utf-8")
    p = semcer("judge-eval", str(labels), "--judge", "llm", "--endpoint", server.url, "--model", "m", "--n-boot", "40",
               "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["judge"].startswith("llm/") and out["n"] == 20 and out["n_failed"] == 0


# 12. a server answering garbage: the run says on standard error how many edits failed and why
def test_12_failed_edits_are_said_on_stderr_with_their_reason(tmp_path, server):
    server.fault_all = "garbage"
    r = jsonl(tmp_path / "r.jsonl", [{"id": "1", "text": "Der Hund"}, {"id": "2", "text": "abc def"}])
    h = jsonl(tmp_path / "h.jsonl", [{"id": "1", "text": "Der Hand"}, {"id": "2", "text": "abd def"}])
    out = tmp_path / "out.json"
    p = semcer("score", r, h, "--judge", "llm", "--endpoint", server.url, "--model", "m", "--max-retries", "0",
               "--json", "--quiet", "-o", str(out))
    assert p.returncode == 1  # the edits failed: semCER undefined, exit status 1
    judge = json.loads(out.read_text())["judge"]
    assert judge["failures"] == 2 and sum(judge["failure_reasons"].values()) == 2
    (reason,) = judge["failure_reasons"]
    assert reason.startswith("malformed answer")
    assert p.stderr.splitlines() == [f"semcer: warning: 2 edit(s) could not be judged (2 × {reason}); semCER is "
                                     "undefined (n/a) until they are: rerun to retry only those"]
