"""End to end, cold: whole `semcer score` processes on the bench corpus, the figure a user sees.

    python bench/score_e2e.py                    # the first 20,000 lines of the 100,000-line bench corpus
    python bench/score_e2e.py --lines 5000 --lines 20000
    python bench/score_e2e.py --lines 20000 --cold   # plus a run that first builds the lexicon tables

Each run is one fresh process of the working tree (`PYTHONPATH=src`) with a fresh judged-edit store:
`semcer score REFS HYPS --json --quiet --store STORE` with the default judge, so every edit is
judged and every lexicon is mapped from disk in that process. The lexicons are compact tables built
once per machine into semcer's cache folder (`judges/rubric/lexicon_store.py`); `--cold` also runs
each size once with `SEMCER_CACHE_DIR` pointing at an empty folder, so that the one-time build is
reported apart from the usual run (warm disk cache, cold process). Beside it, on the same lines and in
the same run: `semcer cer --json` (no judge) and the jiwer user's script (`bench/jiwer_script.py`).
`semcer score` runs twice: with every core (the default; its worker processes are started by a
forkserver, so they are not the child's children and its CPU seconds are the parent's alone) and with
`--workers 1` (everything in one process: its edits per CPU second are the per-core figure).
Reported per process: wall seconds, CPU seconds (user + system, the figure that holds on a shared
machine), lines/s, judged edits/s (edits / wall, and edits / CPU second), and peak resident
memory read from the kernel for that child alone (`os.wait4`). Compare it with the warm judge
microbenchmark (`bench/compact_speed.py`): the difference is what loading and the pipeline cost.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import make_corpus  # noqa: E402

CORPUS_LINES = 100_000


def _prefix(src: Path, dst: Path, n: int) -> None:
    with src.open(encoding="utf-8") as f, dst.open("w", encoding="utf-8") as out:
        for k, line in enumerate(f):
            if k == n:
                break
            out.write(line)


def run(cmd: list[str], cache_dir: str | None = None) -> tuple[float, float, str, float]:
    """Wall seconds, peak RSS in MB, stdout and CPU seconds (user + system) of one child process
    (``cache_dir``: its ``SEMCER_CACHE_DIR``, else the caller's)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    if cache_dir is not None:
        env["SEMCER_CACHE_DIR"] = cache_dir
    with tempfile.TemporaryFile() as out:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode() if proc.stderr else ""
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd[:4])} failed ({proc.returncode}): {err[-2000:]}")
        out.seek(0)
        return seconds, usage.ru_maxrss / 1024, out.read().decode(), usage.ru_utime + usage.ru_stime


def _score(py: str, r: Path, h: Path, store: Path, cache_dir: str | None = None,
           workers: int | None = None) -> tuple[float, float, int, float]:
    more = [] if workers is None else ["--workers", str(workers)]
    s, rss, out, cpu = run([py, "-m", "semcer.cli", "score", str(r), str(h), "--json", "--quiet", "--store", str(store),
                            *more], cache_dir)
    return s, rss, json.loads(out)["judge"]["edits"], cpu


def measure(n: int, refs: Path, hyps: Path, cold: bool = False) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        r, h = Path(tmp) / "refs.jsonl", Path(tmp) / "hyps.jsonl"
        _prefix(refs, r, n)
        _prefix(hyps, h, n)
        rows = []
        py = sys.executable
        if cold:
            empty = Path(tmp) / "empty-cache"
            empty.mkdir()
            s, rss, edits, cpu = _score(py, r, h, Path(tmp) / "store-cold.sqlite", str(empty))
            rows.append({"run": "semcer score, empty lexicon cache (builds the tables)", "lines": n, "seconds": s,
                         "rss": rss, "edits": edits, "cpu": cpu})
        s, rss, edits, cpu = _score(py, r, h, Path(tmp) / "store.sqlite")
        rows.append({"run": "semcer score (default judge, fresh store; all cores: CPU s is the parent's alone)",
                     "lines": n, "seconds": s, "rss": rss, "edits": edits, "cpu": cpu})
        s, rss, edits, cpu = _score(py, r, h, Path(tmp) / "store-1.sqlite", workers=1)
        rows.append({"run": "semcer score --workers 1 (one core: per CPU s is judged edits per core-second)",
                     "lines": n, "seconds": s, "rss": rss, "edits": edits, "cpu": cpu})
        s, rss, _, cpu = run([py, "-m", "semcer.cli", "cer", str(r), str(h), "--json", "--quiet"])
        rows.append({"run": "semcer cer --json", "lines": n, "seconds": s, "rss": rss, "edits": None, "cpu": cpu})
        o = Path(tmp) / "jiwer.json"
        s, rss, _, cpu = run([py, str(HERE / "jiwer_script.py"), str(r), str(h), "--output", str(o)])
        rows.append({"run": "jiwer script (jiwer.cer on the lists)", "lines": n, "seconds": s, "rss": rss,
                     "edits": None, "cpu": cpu})
        return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, action="append", help="lines per run (repeatable; default 20000)")
    ap.add_argument("--cold", action="store_true",
                    help="also time a run with an empty lexicon cache (SEMCER_CACHE_DIR), which builds the tables")
    args = ap.parse_args(argv)
    sizes = args.lines or [20_000]
    if max(sizes) > CORPUS_LINES:
        raise SystemExit(f"--lines at most {CORPUS_LINES:,} (the bench corpus)")
    refs, hyps = make_corpus.OUT / f"refs.{CORPUS_LINES}.jsonl", make_corpus.OUT / f"hyps.{CORPUS_LINES}.jsonl"
    if not refs.exists() or not hyps.exists():
        make_corpus.build(CORPUS_LINES)
    print("| run | lines | wall s | CPU s | lines/s | judged edits | judged edits/s (wall) | per CPU s | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        for row in measure(n, refs, hyps, args.cold):
            e = row["edits"]
            count, rate, per_cpu = ((f"{e:,}", f"{e / row['seconds']:,.0f}", f"{e / row['cpu']:,.0f}") if e is not None
                                    else ("–", "–", "–"))
            print(f"| {row['run']} | {n:,} | {row['seconds']:.1f} | {row['cpu']:.1f} | {n / row['seconds']:,.0f} | "
                  f"{count} | {rate} | {per_cpu} | {row['rss']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
