"""Scale bench: whole `semcer score` processes over N lines, with 1 and 2 workers and the Ray engine.

    python bench/scale.py                         # 1,000,000 lines: 1 worker, 2 workers, Ray (2 workers)
    python bench/scale.py --lines 100000 --lines 300000 --runs 1,2
    python bench/scale.py --lines 3000000 --runs 2

The corpus is the bench corpus (bench/make_corpus.py, 100,000 lines, 13 languages) repeated with new
ids and documents (``ID~k``, ``DOC~k``) up to N lines, written once to bench/out/scale/. Each run is a
cold `semcer score REFS HYPS --json -o FILE --quiet` process of the working tree with the default judge
and no store. Reported: wall time, CPU time (user + system of the child, from ``os.wait4``),
lines/s, edits judged per second (every edit of the corpus charged a severity; the distinct ones are
judged once, the others reuse that judgement), and peak memory two ways: ``rss_wait4``, what the
kernel reports for the child with ``os.wait4`` (on Linux the larger of the child's own peak and that
of any worker it has reaped: a maximum, not a sum), and ``rss_tree``, the largest sum of resident
memory over the child and all its descendants, sampled every 0.2 s from /proc (workers and Ray's
processes included), and ``pss_tree``, the same with each shared page (the memory-mapped lexicons
every worker maps) counted once. The worker processes are started by a forkserver, so they are not
the child's children for ``os.wait4``: its CPU time and peak are the parent's (and the forkserver's)
alone; the tree figures include the workers. Results: bench/out/scale.json and a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
BASE = 100_000


def _base() -> tuple[Path, Path]:
    refs, hyps = OUT / f"refs.{BASE}.jsonl", OUT / f"hyps.{BASE}.jsonl"
    if not refs.exists() or not hyps.exists():
        subprocess.run([sys.executable, str(HERE / "make_corpus.py"), "--lines", str(BASE)], check=True, cwd=ROOT)
    return refs, hyps


def corpus(n: int) -> tuple[Path, Path]:
    """The N-line corpus: the bench corpus repeated with new ids and documents (built once)."""
    folder = OUT / "scale"
    folder.mkdir(parents=True, exist_ok=True)
    refs, hyps = folder / f"refs.{n}.jsonl", folder / f"hyps.{n}.jsonl"
    if refs.exists() and hyps.exists():
        return refs, hyps
    src = _base()
    for s, dst in zip(src, (refs, hyps)):
        lines = s.read_text(encoding="utf-8").splitlines()
        tmp = dst.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for k in range(n):
                rec = json.loads(lines[k % len(lines)])
                copy = k // len(lines)
                if copy:
                    rec["id"] = f"{rec['id']}~{copy}"
                    if rec.get("doc"):
                        rec["doc"] = f"{rec['doc']}~{copy}"
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        tmp.replace(dst)
    return refs, hyps


def _tree_rss(root: int) -> tuple[int, int]:
    """Resident bytes (RSS, and PSS) of ``root`` and all its descendants, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, pss, stack, seen = 0, 0, [root], set()
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += rss.get(pid, 0)
        pss += _pss(pid)
        stack.extend(children.get(pid, ()))
    return total, pss


def _pss(pid: int) -> int:
    """Proportional set size: shared pages (the memory-mapped lexicons) counted once over the processes."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run(cmd: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0, 0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            rss, pss = _tree_rss(proc.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"failed ({code}): {' '.join(cmd)}\n{err.decode(errors='replace')[-2000:]}")
    return {"wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "rss_wait4_mb": round(usage.ru_maxrss / 1024), "rss_tree_mb": round(peak[0] / 2**20),
            "pss_tree_mb": round(peak[1] / 2**20)}


def measure(n: int, runs: list[str], chunk: int | None) -> list[dict]:
    refs, hyps = corpus(n)
    out = []
    for name in runs:
        result = OUT / "scale" / f"score.{n}.{name}.json"
        cmd = [sys.executable, "-m", "semcer.cli", "score", str(refs), str(hyps), "--json", "-o", str(result), "--quiet"]
        cmd += ["--engine", "ray", "--workers", "2"] if name == "ray" else ["--workers", name]
        if chunk:
            cmd += ["--chunk-lines", str(chunk)]
        row = {"lines": n, "run": "ray (2 workers)" if name == "ray" else f"{name} worker(s)", **run(cmd)}
        judge = json.loads(result.read_text())["judge"]
        row["edits"], row["distinct"] = judge["edits"], judge["unique_edits"]
        row["lines_per_s"] = round(n / row["wall_s"])
        row["edits_per_s"] = round(judge["edits"] / row["wall_s"])
        out.append(row)
        print(json.dumps(row), flush=True)
    return out


def table(rows: list[dict]) -> str:
    head = ("| lines | run | wall | CPU (parent) | lines/s | edits judged/s | edits (distinct) | peak RSS wait4 | "
            "peak RSS tree | peak PSS tree |")
    lines = [head, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['lines']:,} | {r['run']} | {r['wall_s']} s | {r.get('cpu_s', '?')} s | {r['lines_per_s']:,} | "
                     f"{r['edits_per_s']:,} | "
                     f"{r['edits']:,} ({r['distinct']:,}) | {r['rss_wait4_mb']:,} MB | {r['rss_tree_mb']:,} MB | "
                     f"{r.get('pss_tree_mb', '?')} MB |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, action="append", help="lines per corpus (repeatable; default 1000000)")
    ap.add_argument("--runs", default="1,2,ray", help="comma-separated: worker counts and/or ray (default: 1,2,ray)")
    ap.add_argument("--chunk-lines", type=int, dest="chunk", help="--chunk-lines of the runs (default: semcer's)")
    args = ap.parse_args(argv)
    rows = []
    for n in args.lines or [1_000_000]:
        rows += measure(n, args.runs.split(","), args.chunk)
    (OUT / "scale.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
