"""Long inputs as ordinary input: memory and store size of `semcer score` on pages and on one huge line.

    python bench/pages.py                       # 20 pages of 20,000 characters, and one 1,000,000-character line
    python bench/pages.py --pages 5 --chars 5000 --huge 0

Each case is a whole `semcer score REFS HYPS --json --store STORE` process of the working tree (default
judge, a fresh store), timed, with its peak resident memory (the kernel's VmHWM of that process, read by
the process itself as it exits: `ru_maxrss` would also count the bench's own memory, which the child
carries until it calls exec) and the store's size on disk. Pages are built from the bench corpus's generator (seeded,
multilingual lines joined into pages, OCR-like noise at 2-10 % of the graphemes). The judge sees a
bounded window of grapheme units around each edit (`semcer.alignment.context`), so memory and the
store grow with edits x window, not with edits x page length.

Targets (issue 11): 20 pages of 20,000 characters under 300 MB peak RSS with a store under 20 MB; a
1,000,000-character line scored without error.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import make_corpus  # noqa: E402


def pages(n: int, chars: int, seed: int) -> tuple[list[dict], list[dict]]:
    """``n`` reference pages of about ``chars`` code points each, and their noisy outputs."""
    rng = random.Random(seed)
    words = make_corpus.word_lists()
    langs = [lang for lang in make_corpus.LANGS if lang in words or lang == "th"]
    refs, hyps = [], []
    for k in range(n):
        lang = langs[k % len(langs)]
        lines: list[str] = []
        while sum(len(x) + 1 for x in lines) < chars:
            lines.append(make_corpus.make_line(rng, lang, words[lang]))
        ref = "\n".join(lines)[:chars]
        hyp = "\n".join(make_corpus.add_noise(rng, line, lang) for line in ref.split("\n"))
        refs.append({"id": f"p{k:03d}", "lang": lang, "text": ref})
        hyps.append({"id": f"p{k:03d}", "lang": lang, "text": hyp})
    return refs, hyps


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


#: Runs ``python -m semcer ARGS`` and, at exit, writes the process's own peak resident memory to stderr.
_MEASURED = ("import atexit, sys, runpy\n"
             "rss = lambda: int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])\n"
             "atexit.register(lambda: sys.stderr.write(f'\\nMAXRSS_KB {rss()}\\n'))\n"
             "sys.argv = ['semcer', *sys.argv[1:]]\n"
             "runpy.run_module('semcer', run_name='__main__')\n")


def run_case(name: str, refs: list[dict], hyps: list[dict]) -> dict:
    """One whole `semcer score` process on the case; its wall time, peak RSS and store size."""
    with tempfile.TemporaryDirectory() as tmp:
        r, h, store = Path(tmp) / "refs.jsonl", Path(tmp) / "hyps.jsonl", Path(tmp) / "store.sqlite"
        _write(r, refs)
        _write(h, hyps)
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _MEASURED, "score", str(r), str(h), "--json", "--quiet",
                               "--store", str(store)], capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - t
        if done.returncode not in (0, 1):
            raise SystemExit(f"{name}: semcer score failed ({done.returncode}): {done.stderr[-2000:]}")
        peak_kb = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("MAXRSS_KB ")][-1]
        out = json.loads(done.stdout)
        store_bytes = sum(p.stat().st_size for p in Path(tmp).glob("store.sqlite*"))
        chars = sum(len(x["text"]) for x in refs)
        return {"case": name, "chars": chars, "seconds": round(seconds, 2),
                "peak_rss_mb": round(peak_kb / 1024, 1), "store_mb": round(store_bytes / 2**20, 2),
                "edits": out["judge"]["edits"], "cer": out["corpus"]["cer"], "semcer": out["corpus"]["semcer"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--chars", type=int, default=20_000, help="code points per page (default 20000)")
    ap.add_argument("--huge", type=int, default=1_000_000, help="code points of the single huge line (0: skip)")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    results = []
    refs, hyps = pages(args.pages, args.chars, args.seed)
    results.append(run_case(f"{args.pages} pages x {args.chars:,} chars", refs, hyps))
    if args.huge:
        refs, hyps = pages(1, args.huge, args.seed + 1)
        results.append(run_case(f"1 line of {args.huge:,} chars", refs, hyps))
    print("| case | chars | edits | wall s | peak RSS MB | store MB | CER | semCER |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['case']} | {r['chars']:,} | {r['edits']:,} | {r['seconds']} | {r['peak_rss_mb']} | "
              f"{r['store_mb']} | {100 * r['cer']:.2f} % | {100 * (r['semcer'] or 0):.2f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
