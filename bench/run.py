"""The speed benchmark: semcer against jiwer, dinglehopper and rapidfuzz, measured in one run.

    python bench/run.py                  # 100,000 lines (built by bench/make_corpus.py if missing)
    python bench/run.py --lines 10000    # a smaller corpus (a prefix of the same seeded stream)
    python bench/run.py --profile        # also profile semcer's headline call (cProfile)

Every same-process row times one callable on the same lines with ``time.perf_counter`` and keeps
the best of ``--repeat`` runs; lines/s = lines / best seconds. dinglehopper runs in its own venv
(``bench/.venv-dh``, see bench/README.md) on an evenly spaced subsample, because it is slow. The
end-to-end rows time whole processes (``semcer cer ... --json --output`` against
``bench/jiwer_script.py``). A peer that is not installed is skipped with a note. The Markdown
report is printed and written to ``bench/out/results.md``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
DH_PYTHON = BENCH / ".venv-dh" / "bin" / "python"
sys.path.insert(0, str(REPO / "src"))  # benchmark the working tree, not an installed copy
sys.path.insert(0, str(BENCH))

from rapidfuzz.distance import Levenshtein  # noqa: E402

import semcer  # noqa: E402
from semcer.alignment.engine import _fast_lines  # noqa: E402
from semcer.scale.gc import collector_paused  # noqa: E402

HEADLINE = "semcer graphemes + edits"
DIAGNOSTIC = "diagnostic: semcer graphemes + edits, then a full collection"
SUBSAMPLE = "semcer graphemes + edits on the dinglehopper subsample"
TARGETS = (  # (peer row, minimum ratio of the semcer row to it, semcer row)
    ("jiwer.cer per line", 5.0, HEADLINE),
    ("dinglehopper character_error_rate per line", 100.0, SUBSAMPLE),
    ("python bench/jiwer_script.py", 2.0, "semcer cer --json --output"),
)


@dataclass
class Row:
    """One measurement: ``lines`` processed in ``seconds`` (the best of ``repeat``)."""

    name: str
    call: str
    lines: int
    repeat: int
    seconds: float
    cer: float | None = None
    note: str = ""

    @property
    def lines_per_s(self) -> float:
        return self.lines / self.seconds


def best_of(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Best wall time of ``repeat`` calls of ``fn`` and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        result = None  # free the previous result before timing the next call
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def paused(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` run inside :func:`semcer.scale.gc.collector_paused`, as callers of large batches run
    ``semcer.evaluate`` (the command line does): the collector pauses while the per-line results
    are built and they are then settled in the oldest generation. The library itself leaves the
    collector alone; before the layered package, ``evaluate`` did this pause internally, so these
    rows time the same work as before."""
    def run() -> object:
        with collector_paused():
            return fn()
    return run


def ensure_corpus(n: int) -> tuple[Path, Path]:
    refs, hyps = OUT / f"refs.{n}.jsonl", OUT / f"hyps.{n}.jsonl"
    if not (refs.exists() and hyps.exists()):
        import make_corpus

        print(f"building the corpus ({n} lines) ...", file=sys.stderr)
        make_corpus.build(n)
    return refs, hyps


def read_texts(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def _raw_cer(refs: list[str], hyps: list[str], dist: list[int]) -> float:
    return sum(dist) / sum(len(r) for r in refs)


def same_process(refs: list[str], hyps: list[str], repeat: int, notes: list[str]) -> list[Row]:
    """Rows timed in this interpreter on the whole corpus, repetitions interleaved across rows.

    Round ``k`` times every row once, so a burst of load from elsewhere on the machine lands on
    all rows alike rather than on whichever row happened to be running; each row keeps its best.
    """
    n = len(refs)
    corpus_cer = lambda ev: ev.corpus.cer
    none = lambda res: None

    def then_collect(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            result = fn()
            gc.collect()  # walks the result objects that the pause settled in the oldest generation
            return result
        return run

    plan: list[tuple[str, str, Callable[[], object], Callable[[object], float | None]]] = [
        (HEADLINE, 'semcer.evaluate(refs, hyps, unit="grapheme", edits=True)',
         paused(lambda: semcer.evaluate(refs, hyps, unit="grapheme", edits=True)), corpus_cer),
        ("semcer graphemes, counts only", 'semcer.evaluate(refs, hyps, unit="grapheme")',
         paused(lambda: semcer.evaluate(refs, hyps, unit="grapheme")), corpus_cer),
        ("semcer code points, counts only", 'semcer.evaluate(refs, hyps, unit="codepoint")',
         paused(lambda: semcer.evaluate(refs, hyps, unit="codepoint")), corpus_cer),
        ("semcer code points + edits", 'semcer.evaluate(refs, hyps, unit="codepoint", edits=True)',
         paused(lambda: semcer.evaluate(refs, hyps, unit="codepoint", edits=True)), corpus_cer),
        ("semcer.cer per line", "[semcer.cer(r, h) for r, h in pairs]",
         lambda: [semcer.cer(r, h) for r, h in zip(refs, hyps)], none),
        (DIAGNOSTIC, "the headline call, then gc.collect() with its result alive",
         then_collect(paused(lambda: semcer.evaluate(refs, hyps, unit="grapheme", edits=True))), corpus_cer),
    ]
    if find_spec("jiwer") is None:
        notes.append("jiwer is not installed: its rows are skipped (`pip install jiwer`).")
    else:
        import jiwer

        plan += [
            ("jiwer.cer per line", "[jiwer.cer(r, h) for r, h in pairs]",
             lambda: [jiwer.cer(r, h) for r, h in zip(refs, hyps)], none),
            ("jiwer.cer on the whole list", "jiwer.cer(refs, hyps)", lambda: jiwer.cer(refs, hyps), lambda res: res),
        ]
    plan += [
        ("rapidfuzz Levenshtein.distance (floor)", "[Levenshtein.distance(r, h) for r, h in pairs]",
         lambda: [Levenshtein.distance(r, h) for r, h in zip(refs, hyps)], lambda res: _raw_cer(refs, hyps, res)),
        ("rapidfuzz Levenshtein.editops", "[Levenshtein.editops(r, h) for r, h in pairs]",
         lambda: [Levenshtein.editops(r, h) for r, h in zip(refs, hyps)], none),
    ]
    best = [float("inf")] * len(plan)
    cers: list[float | None] = [None] * len(plan)
    for k in range(repeat):
        for i, (name, _, fn, cer) in enumerate(plan):
            print(f"  round {k + 1}/{repeat}: {name} ...", file=sys.stderr)
            s, res = best_of(fn, 1)
            best[i] = min(best[i], s)
            cers[i] = cer(res)
            del res
    return [Row(name, call, n, repeat, best[i], cers[i]) for i, (name, call, _, _) in enumerate(plan)]


def dinglehopper(refs_path: Path, hyps_path: Path, lines: int, repeat: int, python: Path, notes: list[str]) -> list[Row]:
    """dinglehopper timed in its own interpreter (see dh_bench.py) on an evenly spaced subsample."""
    if not python.exists():
        notes.append(f"dinglehopper skipped: no interpreter at {python} (see bench/README.md to create its venv).")
        return []
    print(f"  timing dinglehopper on {lines} lines (slow) ...", file=sys.stderr)
    cmd = [str(python), str(BENCH / "dh_bench.py"), str(refs_path), str(hyps_path),
           "--lines", str(lines), "--repeat", str(repeat)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        notes.append(f"dinglehopper skipped: its run failed ({last}).")
        return []
    res = json.loads(proc.stdout)
    notes.append(
        f"dinglehopper {res['dinglehopper']} (uniseg {res['uniseg']}, Python {res['python']}) ran in "
        f"{python.parent.parent.relative_to(REPO)} on a subsample of {res['lines']} lines (every "
        f"{res['step']}th line, all languages), best of {repeat}: it is too slow to run on the whole corpus."
    )
    return [Row("dinglehopper character_error_rate per line", "[character_error_rate(r, h) for r, h in subsample]",
                res["lines"], repeat, res["seconds"])]


def subsample_row(refs: list[str], hyps: list[str], lines: int, repeat: int) -> Row:
    """The headline call timed on exactly dinglehopper's subsample, for a like-for-like ratio."""
    step = max(1, len(refs) // lines)
    r, h = refs[::step][:lines], hyps[::step][:lines]
    s, ev = best_of(paused(lambda: semcer.evaluate(r, h, unit="grapheme", edits=True)), max(repeat, 3))
    return Row(SUBSAMPLE, 'semcer.evaluate(subsample refs, hyps, unit="grapheme", edits=True)', len(r),
               max(repeat, 3), s, ev.corpus.cer)


def end_to_end(refs_path: Path, hyps_path: Path, n: int, repeat: int, notes: list[str]) -> list[Row]:
    """Whole processes: the semcer CLI and the jiwer script, each reading the JSONL files and writing JSON."""
    rows = []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory() as tmp:
        cmds = []
        if find_spec("semcer.cli.cer") is None:
            notes.append("`semcer cer` skipped: src/semcer/cli/cer.py does not exist yet.")
        else:
            cmds.append(("semcer cer --json --output", "semcer cer REFS HYPS --json --output OUT.json",
                         [sys.executable, "-m", "semcer.cli",
                          "cer", str(refs_path), str(hyps_path), "--json", "--output", f"{tmp}/semcer.json"],
                         f"{tmp}/semcer.json"))
        if find_spec("jiwer") is not None:
            cmds.append(("python bench/jiwer_script.py", "python bench/jiwer_script.py REFS HYPS --output OUT.json",
                         [sys.executable, str(BENCH / "jiwer_script.py"), str(refs_path), str(hyps_path),
                          "--output", f"{tmp}/jiwer.json"], f"{tmp}/jiwer.json"))
        best = [float("inf")] * len(cmds)
        failed: dict[int, str] = {}
        for k in range(repeat):  # interleaved, like the same-process rows
            for i, (name, _, cmd, _) in enumerate(cmds):
                if i in failed:
                    continue
                print(f"  round {k + 1}/{repeat}: {name} (whole process) ...", file=sys.stderr)
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env)
                best[i] = min(best[i], time.perf_counter() - t0)
                if proc.returncode != 0:
                    failed[i] = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        for i, (name, shown, _, out) in enumerate(cmds):
            if i in failed:
                notes.append(f"`{name}` skipped: it exited non-zero ({failed[i]}).")
                continue
            result = json.loads(Path(out).read_text(encoding="utf-8"))
            cer = result.get("cer") if "cer" in result else result.get("corpus", {}).get("cer")
            rows.append(Row(name, shown, n, repeat, best[i], cer))
    return rows


def profile_headline(refs: list[str], hyps: list[str], limit: int = 20000) -> str:
    """cProfile of the headline call on up to ``limit`` lines: the top functions by own time."""
    r, h = refs[:limit], hyps[:limit]
    prof = cProfile.Profile()
    prof.runcall(paused(lambda: semcer.evaluate(r, h, unit="grapheme", edits=True)))
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("tottime").print_stats(15)
    return (f"cProfile of `{HEADLINE}` on {len(r)} lines (profiler overhead inflates Python-level calls):\n\n"
            f"```\n{buf.getvalue().strip()}\n```\n")


def _v(pkg: str) -> str:
    try:
        return version(pkg)
    except PackageNotFoundError:
        return "not installed"


def render(same: list[Row], e2e: list[Row], notes: list[str], corpus: dict) -> str:
    head = next((r for r in same if r.name == HEADLINE), None)
    out = ["# semcer speed benchmark", ""]
    out.append(f"Corpus: {corpus.get('lines', '?')} lines, seed {corpus.get('seed', '?')}, "
               f"{len(corpus.get('lines_per_lang', {}))} languages ({', '.join(corpus.get('lines_per_lang', {}))}); "
               f"{corpus.get('exact', '?')} exact lines, {corpus.get('nfd_refs', '?')} NFD references, "
               f"{corpus.get('nfd_hyps', '?')} NFD outputs (bench/make_corpus.py).")
    out += ["", "## Same process", "",
            f"| measurement | call | lines | best of | seconds | lines/s | {HEADLINE} ÷ this | corpus CER |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    sub = next((r for r in same if r.name == SUBSAMPLE), None)
    for r in same:
        base = sub if r.name.startswith("dinglehopper") and sub else head
        ratio = f"{base.lines_per_s / r.lines_per_s:,.2f}×{'¹' if base is sub else ''}" if base else "—"
        cer = f"{r.cer:.4f}" if r.cer is not None else "—"
        out.append(f"| {r.name} | `{r.call}` | {r.lines:,} | {r.repeat} | {r.seconds:.3f} | {r.lines_per_s:,.0f} "
                   f"| {ratio} | {cer} |")
    cli = next((r for r in e2e if r.name.startswith("semcer")), None)
    if e2e:
        out += ["", "## End to end (whole processes: start, read JSONL, score, write JSON)", "",
                "| command | lines | best of | seconds | lines/s | semcer CLI ÷ this | corpus CER |",
                "|---|---|---:|---:|---:|---:|---:|"]
        for r in e2e:
            ratio = f"{r.seconds / cli.seconds:,.2f}×" if cli else "—"
            cer = f"{r.cer:.4f}" if r.cer is not None else "—"
            out.append(f"| `{r.call}` | {r.lines:,} | {r.repeat} | {r.seconds:.3f} | {r.lines_per_s:,.0f} | {ratio} | {cer} |")
    by_name = {r.name: r for r in same + e2e}
    out += ["", "## Targets", "", "| target | measured | met |", "|---|---:|---|"]
    for peer, need, mine in TARGETS:
        if peer in by_name and mine in by_name:
            got = by_name[mine].lines_per_s / by_name[peer].lines_per_s
            out.append(f"| {mine} ≥ {need:g}× {peer} | {got:,.2f}× | {'yes' if got >= need else '**no**'} |")
        else:
            out.append(f"| {mine} ≥ {need:g}× {peer} | not measured | — |")
    out += ["", "## Notes", ""]
    if sub:
        out.append("- ¹ dinglehopper's ratio is against semcer timed on the same subsample (the row above it).")
    if any(r.name == DIAGNOSTIC for r in same):
        out.append("- The diagnostic row is not a peer. The `semcer.evaluate` rows run inside "
                   "`semcer.scale.gc.collector_paused()`, as a caller of large batches (and the command line) runs "
                   "it: Python's cyclic garbage collector pauses while the acyclic per-line results are built, which "
                   "are then moved to the oldest generation, so no young collection walks them; a later full "
                   "collection in the caller's program walks them once. The row charges one such full collection "
                   "(with the corpus and everything else alive) to semcer.")
    out += [f"- {n}" for n in notes]
    out += ["- Corpus CER differs between rows by convention, not by error: semcer applies the `nfc` policy and "
            "counts graphemes (or code points); jiwer strips each line and counts raw code points; the "
            "rapidfuzz row is raw code points.",
            "", "## Environment", "",
            f"- Python {platform.python_version()} ({platform.python_implementation()}), {platform.platform()}, "
            f"{os.cpu_count()} CPUs visible",
            f"- semcer {semcer.__version__} (working tree), jiwer {_v('jiwer')}, rapidfuzz {_v('rapidfuzz')}, "
            f"regex {_v('regex')}, wordfreq {_v('wordfreq')}",
            f"- run at {time.strftime('%Y-%m-%d %H:%M:%S %Z')}; the machine may be shared, so absolute numbers move "
            "between runs: compare ratios measured in the same run", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="semcer speed benchmark (see bench/README.md)")
    ap.add_argument("--lines", type=int, default=100_000, help="corpus size (default 100000)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions per same-process row and per process (best is kept)")
    ap.add_argument("--dh-lines", type=int, default=2000, help="dinglehopper subsample size (default 2000)")
    ap.add_argument("--dh-repeat", type=int, default=1, help="dinglehopper repetitions (default 1: one run takes ~20 s)")
    ap.add_argument("--dh-python", type=Path, default=DH_PYTHON, help="interpreter with dinglehopper installed")
    ap.add_argument("--no-cli", action="store_true", help="skip the end-to-end (whole process) rows")
    ap.add_argument("--profile", action="store_true", help="append a cProfile of the headline call to the report")
    args = ap.parse_args(argv)

    refs_path, hyps_path = ensure_corpus(args.lines)
    manifest = OUT / f"corpus.{args.lines}.json"
    corpus = json.loads(manifest.read_text(encoding="utf-8")) if manifest.exists() else {}
    refs, hyps = read_texts(refs_path), read_texts(hyps_path)
    notes: list[str] = []
    if _fast_lines() is None:
        notes.append("**semcer ran its pure-Python loop**: the C extension `semcer.alignment._speedups` is not built "
                     "in `src/` (build it with `pip install -e .`) or `SEMCER_PURE_PYTHON` is set.")
    else:
        notes.append("semcer's per-line loop ran in C (`semcer.alignment._speedups`, built in `src/` by "
                     "`pip install -e .`).")
    same = same_process(refs, hyps, args.repeat, notes)
    dh = dinglehopper(refs_path, hyps_path, min(args.dh_lines, len(refs)), args.dh_repeat, args.dh_python, notes)
    if dh:
        dh.insert(0, subsample_row(refs, hyps, min(args.dh_lines, len(refs)), args.repeat))
    same += dh
    e2e = [] if args.no_cli else end_to_end(refs_path, hyps_path, len(refs), args.repeat, notes)
    report = render(same, e2e, notes, corpus)
    if args.profile:
        report += "\n## Profile\n\n" + profile_headline(refs, hyps)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.md").write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
