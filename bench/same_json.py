"""Check that a refactor changed no number: record `semcer score --json --lines` runs, then compare.

    python bench/same_json.py record     # before the change: writes bench/out/same_json/*.json
    python bench/same_json.py check      # after it: the same runs must give byte-identical JSON

Two runs are recorded: the bundled example (examples/references.jsonl vs tess_noisy.jsonl) and the
100,000-line bench corpus (built by bench/make_corpus.py when missing), both with the default judge
and a fresh store, as whole `semcer` processes of the working tree. `check` prints the first
differing JSON path of a run that differs and exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out" / "same_json"

RUNS: dict[str, tuple[str, str]] = {
    "example": ("examples/references.jsonl", "examples/tess_noisy.jsonl"),
    "bench100k": ("bench/out/refs.100000.jsonl", "bench/out/hyps.100000.jsonl"),
}


def _ensure_corpus() -> None:
    if not (ROOT / RUNS["bench100k"][0]).exists():
        subprocess.run([sys.executable, str(HERE / "make_corpus.py"), "--lines", "100000"], check=True, cwd=ROOT)


def _score(refs: str, hyps: str) -> bytes:
    """The JSON of one `semcer score --json --lines` run, with a fresh store."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "store.sqlite")
        cmd = [sys.executable, "-m", "semcer.cli", "score", refs, hyps, "--json", "--lines", "--quiet",
               "--store", store]
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True)
    if done.returncode not in (0, 1):
        sys.exit(f"semcer score failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    return done.stdout


def _first_difference(a: object, b: object, path: str = "$") -> str | None:
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):  # type: ignore[arg-type]
            if k not in a or k not in b:  # type: ignore[operator]
                return f"{path}.{k}: present on one side only"
            d = _first_difference(a[k], b[k], f"{path}.{k}")  # type: ignore[index]
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):  # type: ignore[arg-type]
            return f"{path}: {len(a)} vs {len(b)} items"  # type: ignore[arg-type]
        for i, (x, y) in enumerate(zip(a, b)):  # type: ignore[call-overload]
            d = _first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=("record", "check"))
    ap.add_argument("--only", choices=tuple(RUNS), help="one run only")
    args = ap.parse_args(argv)
    names = [n for n in RUNS if not args.only or n == args.only]
    missing = [str(OUT / f"{n}.json") for n in names if not (OUT / f"{n}.json").is_file()]
    if args.action == "check" and missing:
        print(f"same_json: nothing recorded to check against ({', '.join(missing)}): run "
              "`python bench/same_json.py record` before the change first", file=sys.stderr)
        return 2
    _ensure_corpus()
    OUT.mkdir(parents=True, exist_ok=True)
    failed = False
    for name, (refs, hyps) in RUNS.items():
        if args.only and name != args.only:
            continue
        got = _score(refs, hyps)
        digest = hashlib.sha256(got).hexdigest()[:16]
        path = OUT / f"{name}.json"
        if args.action == "record":
            path.write_bytes(got)
            print(f"{name}: recorded {len(got):,} bytes, sha256 {digest}")
            continue
        want = path.read_bytes()
        if got == want:
            print(f"{name}: identical ({len(got):,} bytes, sha256 {digest})")
            continue
        failed = True
        where = _first_difference(json.loads(want), json.loads(got))
        print(f"{name}: DIFFERS (sha256 {hashlib.sha256(want).hexdigest()[:16]} recorded, {digest} now): {where}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
