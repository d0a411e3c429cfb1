"""Lexicon table lookups: µs per lookup in C and in Python, on words of the list and non-words.

    python bench/lexicon_lookups.py [--lang en] [--words 20000]

The probes are wordfreq's top ``--words`` words of the language and as many non-words (each word
reversed, with a 'q' appended), looked up in the table of the semcer cache folder (built there on
first use), each probe once per pass; the best of five passes is reported, for the C lookup
(``_lexicon_speedups.get``, when it was built) and for the Python one (``FileTable._python_get``),
with the table's size on disk (and that of every table built so far) and how many of the probes it
holds. Both must give the same answers.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from semcer.judges.rubric import lexicon_store, wordfreq_tables  # noqa: E402


def _best(lookup, probes: list[str], passes: int = 5) -> tuple[float, list[int]]:
    best, answers = float("inf"), []
    for _ in range(passes):
        t0 = time.perf_counter()
        answers = list(map(lookup, probes))
        best = min(best, time.perf_counter() - t0)
    return best, answers


def main() -> None:
    import wordfreq

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="en", help="a wordfreq language (default en)")
    ap.add_argument("--words", type=int, default=20000, help="list words probed (default 20000), and as many non-words")
    args = ap.parse_args()
    table = wordfreq_tables.table(args.lang)
    if not isinstance(table, lexicon_store.FileTable):
        raise SystemExit("the table is held in memory (the cache folder cannot be written): nothing read in place")
    words = wordfreq.top_n_list(args.lang, args.words)
    probes = words + [w[::-1] + "q" for w in words]
    rows = []
    python_s, python_answers = _best(table._python_get, probes)
    if lexicon_store._fast_get() is not None:
        c_s, c_answers = _best(table.get, probes)
        if c_answers != python_answers:
            raise SystemExit("the C and the Python lookups disagree")
        rows.append(("C (`_lexicon_speedups.get`)", c_s))
    rows.append(("Python (`FileTable._python_get`)", python_s))
    path = lexicon_store.lexicon_dir() / f"wordfreq-{wordfreq_tables.wordfreq_version()}" / f"{args.lang}.lex"
    held = sum(a >= 0 for a in python_answers)
    print(f"{args.lang} table, format {lexicon_store.FORMAT_VERSION}: {len(table):,} words, "
          f"{path.stat().st_size / 1e6:.1f} MB on disk; {len(probes):,} probes, {held:,} in the table; best of 5 passes\n")
    tables = list(lexicon_store.lexicon_dir().rglob("*.lex"))
    print(f"tables in {lexicon_store.lexicon_dir()}: {len(tables)} files, {sum(t.stat().st_size for t in tables) / 1e6:.0f} MB\n")
    print("| lookup | µs per lookup |")
    print("|---|---:|")
    for name, seconds in rows:
        print(f"| {name} | {1e6 * seconds / len(probes):.2f} |")


if __name__ == "__main__":
    main()
