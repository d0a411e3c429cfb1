"""Throughput of the LLM judge's HTTP client against a loopback chat-completions server.

The server (tests/llm_server.py, its own process) answers every request at once with a fixed label
distribution, so what is measured is the client: prompt rendering, JSON, HTTP, reading the
distribution. Two numbers per concurrency level:

- edits/s: wall-clock rate of ``LLMJudge.judge`` (bounded here by the Python test server, which
  shares the machine's cores with the client);
- client requests per CPU-second: requests divided by the client process's CPU time (user + system,
  all its threads). The client holds the GIL, so this is the rate one core sustains: the ceiling
  the client puts on any server, however fast.

With ``--delay S`` the server waits S seconds per request (a stand-in for GPU time), which shows
the rate growing with concurrency as requests overlap.

    python bench/llm_client.py                 # concurrency 1, 8, 64; 4000 edits each
    python bench/llm_client.py --delay 0.02    # a 20 ms "GPU"
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import semcer  # noqa: E402
from semcer.io.collections import read_collection  # noqa: E402
from semcer.io.pairing import pair_collections  # noqa: E402
from semcer.judges import resolve_judge  # noqa: E402
from semcer.store.judging import line_contexts  # noqa: E402


def example_contexts(n: int) -> list:
    """``n`` edit contexts from the bundled example (real Tesseract errors in en, de, vi, zh), cycled."""
    paired = pair_collections(read_collection(str(ROOT / "examples/references.jsonl")),
                              read_collection(str(ROOT / "examples/tess_noisy.jsonl")))
    result = semcer.evaluate(paired, unit="grapheme", policy="nfc", empty_ref="error", edits=True)
    base, _ = line_contexts(result.lines)  # the contexts `semcer judge` sends
    return [dataclasses.replace(base[i % len(base)], line_id=str(i)) for i in range(n)]


def start_server(delay: float) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/llm_server.py"), "--fixed", "--delay", str(delay)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def measure(port: int, contexts: list, concurrency: int) -> dict:
    judge = resolve_judge("llm", endpoint=f"http://127.0.0.1:{port}/v1", model="bench", concurrency=concurrency)
    try:
        judge.judge(contexts[: max(16, concurrency)])  # connections open, code warm
        before = judge.stats.requests
        wall, cpu = time.perf_counter(), time.process_time()
        out = judge.judge(contexts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        judge.close()
    requests = judge.stats.requests - before
    failures = sum(1 for j in out if j.p is None)
    return {
        "concurrency": concurrency, "edits": len(contexts), "requests": requests, "failures": failures,
        "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "edits_per_s": round(len(contexts) / wall, 1),
        "client_requests_per_cpu_s": round(requests / cpu, 1) if cpu > 0 else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=4000, help="edits per measurement (default: %(default)s)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64])
    parser.add_argument("--delay", type=float, default=0.0, help="server seconds per request (default: 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()

    contexts = example_contexts(args.edits)
    proc, port = start_server(args.delay)
    try:
        rows = [measure(port, contexts if c > 1 or args.delay == 0 else contexts[: max(200, args.edits // 10)], c)
                for c in args.concurrency]
    finally:
        proc.kill()
        proc.wait()
    print(f"LLM judge client vs loopback server (fixed answers, delay {args.delay * 1000:g} ms), "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"{'concurrency':>11} {'edits':>6} {'edits/s':>9} {'client req/CPU-s':>17} {'failures':>9}")
    for r in rows:
        print(f"{r['concurrency']:>11} {r['edits']:>6} {r['edits_per_s']:>9.0f} {r['client_requests_per_cpu_s']:>17.0f} "
              f"{r['failures']:>9}")
    if args.json:
        Path(args.json).write_text(json.dumps({"delay_s": args.delay, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
