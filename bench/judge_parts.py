"""Where the default judge's time goes on distinct edits: one process, the first N bench lines.

    python bench/judge_parts.py --lines 20000

The lines are aligned and their edit contexts built (timed), the distinct edits kept in corpus
order, and the compact judge run over them in the store's batches of 256 with every semcer cache
cleared first (the lexicon tables stay open, as in a run after its first line of each language).
The per-line analysis of the rubric features and its parts are timed by wrapping them (each wrapped
call adds well under a microsecond, so the parts are slightly overstated); the store's cost of the
same edits is its key, the packing of its marked pair, the check of its row and the write into a
fresh SQLite store (in a temporary folder) in the run's transactions. The parts of the per-line analysis
overlap a little (the tokenizers' lines are laid out by ``line_info`` too); the lexicon table lookups
(``FileTable.get``, the reads of the tables in place) are timed across all of them. Last, the same edits are
judged again in groups small enough for the line caches, each right after an untimed pass over it:
what a distinct edit costs once its lines and words have been analysed and looked up (the per-edit
steps and the forest alone). Printed as a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from semcer.alignment.engine import Pair, align_lines  # noqa: E402
from semcer.caches import clear_caches  # noqa: E402
from semcer.judges import resolve_judge  # noqa: E402
from semcer.judges.rubric import features  # noqa: E402
from semcer.judges.rubric.lexicon_store import FileTable  # noqa: E402
from semcer.scale.gc import collector_paused  # noqa: E402
from semcer.store.cached import DETERMINISTIC_WRITE_ROWS  # noqa: E402
from semcer.store.judging import line_contexts  # noqa: E402
from semcer.store.packing import pack_pair  # noqa: E402
from semcer.store.sqlite import COLUMNS, JudgedEditStore, ReadyRows, checked_values  # noqa: E402
from semcer.text.policy import get_policy  # noqa: E402

#: The per-line parts of the rubric features, timed (the names in semcer.judges.rubric.features).
PARTS = ("_lines", "_segmented", "_line_words", "line_info")
#: Edits judged together in the warm pass (about 470 bench lines: fewer than the line caches hold).
WARM_EDITS = 1_500


def _pairs(lines: int) -> list[Pair]:
    refs, hyps = HERE / "out" / "refs.100000.jsonl", HERE / "out" / "hyps.100000.jsonl"
    if not refs.is_file():
        raise SystemExit("no bench corpus: run python bench/make_corpus.py first")
    out = []
    with open(refs, encoding="utf-8") as rf, open(hyps, encoding="utf-8") as hf:
        for _, r, h in zip(range(lines), rf, hf):
            a, b = json.loads(r), json.loads(h)
            out.append(Pair(a["id"], a["text"], b["text"], a.get("doc") or a["id"], a.get("lang")))
    return out


def _timed(name: str, spent: Counter[str]) -> Callable[..., Any]:
    fn = getattr(features, name)

    def wrapper(*args: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args)
        finally:
            spent[name] += time.perf_counter() - t0

    return wrapper


def _judged(judge: Any, distinct: list[Any]) -> tuple[float, Counter[str], int, list[Any]]:
    """Seconds to judge ``distinct`` in batches of 256 with cleared caches, the seconds in each of
    :data:`PARTS`, how many line pairs the per-line analysis analysed, and the judgements."""
    judge.judge(distinct[:256])  # the lexicon tables opened, the forest loaded
    clear_caches()
    spent: Counter[str] = Counter()
    saved = {name: getattr(features, name) for name in PARTS}
    for name in PARTS:
        setattr(features, name, _timed(name, spent))
    get = FileTable.get

    def timed_get(table: FileTable, word: str) -> int:
        t0 = time.perf_counter()
        try:
            return get(table, word)
        finally:
            spent["lookups"] += time.perf_counter() - t0
            spent["lookup_calls"] += 1

    FileTable.get = timed_get  # type: ignore[method-assign]
    try:
        judgements: list[Any] = []
        t0 = time.perf_counter()
        for start in range(0, len(distinct), 256):
            judgements += judge.judge(distinct[start:start + 256])
        seconds = time.perf_counter() - t0
    finally:
        FileTable.get = get  # type: ignore[method-assign]
        for name, fn in saved.items():
            setattr(features, name, fn)
    return seconds, spent, saved["_lines"].cache_info().misses, judgements  # type: ignore[attr-defined]


def _warm(judge: Any, distinct: list[Any]) -> float:
    """Seconds to judge ``distinct`` again, :data:`WARM_EDITS` at a time, each group right after an
    untimed pass over it: every line and word it meets already analysed and looked up (the groups
    are small enough for the line caches), so what is left is the per-edit work and the forest."""
    seconds = 0.0
    for start in range(0, len(distinct), WARM_EDITS):
        group = distinct[start : start + WARM_EDITS]
        for a in range(0, len(group), 256):
            judge.judge(group[a : a + 256])
        t0 = time.perf_counter()
        for a in range(0, len(group), 256):
            judge.judge(group[a : a + 256])
        seconds += time.perf_counter() - t0
    return seconds


def _stored(identity: str, keys: list[str], distinct: list[Any], judgements: list[Any]) -> tuple[float, float]:
    """Seconds to check the judged rows as the store does before writing them (each key computed
    again from its edit, each distribution checked), and to write them, packed beforehand, into a
    fresh store in the run's transactions of ``DETERMINISTIC_WRITE_ROWS`` rows (the lookup of the
    rows present, the inserts, the commits)."""
    rows = list(zip(keys, [identity] * len(keys), distinct, judgements))
    t0 = time.perf_counter()
    checked = [checked_values(rows[a : a + DETERMINISTIC_WRITE_ROWS], "store")
               for a in range(0, len(rows), DETERMINISTIC_WRITE_ROWS)]
    t1 = time.perf_counter()
    m_ref, m_hyp = COLUMNS.index("marked_ref"), COLUMNS.index("marked_hyp")
    ready = [ReadyRows(tuple(v), tuple(pack_pair(r[m_ref], r[m_hyp]) for r in v)) for v in checked]
    with tempfile.TemporaryDirectory() as folder, JudgedEditStore(Path(folder) / "judged.sqlite") as store:
        t2 = time.perf_counter()
        for part in ready:
            store.overwrite_many(part)
        t3 = time.perf_counter()
    return t1 - t0, t3 - t2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=20000, help="bench lines (default 20000)")
    args = ap.parse_args()
    judge = resolve_judge("compact")
    with collector_paused():
        pairs = _pairs(args.lines)
        t0 = time.perf_counter()
        rows, _ = align_lines(pairs, "grapheme", get_policy("nfc"), "error", edits=True, offsets=False)
        t1 = time.perf_counter()
        contexts, _ = line_contexts(rows, judge.context_window)
        t2 = time.perf_counter()
        identity = judge.identity  # computed once, as a run does (it hashes the judge's sources)
        keys = [JudgedEditStore.key(identity, c) for c in contexts]
        t3 = time.perf_counter()
        first: dict[str, Any] = {}
        for k, c in zip(keys, contexts):
            first.setdefault(k, c)
        distinct = list(first.values())
        t4 = time.perf_counter()
        for c in distinct:
            pack_pair(c.marked_ref, c.marked_hyp)
        t5 = time.perf_counter()
        judged, spent, lines_analysed, judgements = _judged(judge, distinct)
        warm = _warm(judge, distinct)
        distinct_keys = list(first)
        checking, writing = _stored(identity, distinct_keys, distinct, judgements)
    n, m = len(distinct), len(contexts)
    parts = [  # (part, seconds, edits it is counted over, a part of the judge)
        ("align the lines", t1 - t0, m, False),
        ("build the edit contexts", t2 - t1, m, False),
        ("store keys (sha256)", t3 - t2, m, False),
        ("pack the marked pairs for the store (DEFLATE)", t5 - t4, n, False),
        ("check the rows for the store (keys again, distributions)", checking, n, False),
        (f"write the store (SQLite, transactions of {DETERMINISTIC_WRITE_ROWS:,} rows)", writing, n, False),
        ("judge (compact), in all", judged, n, True),
        (f"- per-line analysis (`_lines`: {lines_analysed:,} line pairs analysed)", spent["_lines"], n, True),
        ("  - Thai and Japanese tokenizers (`_segmented`)", spent["_segmented"], n, True),
        ("  - the output's words and what the lexicon knows of them (`_line_words`)", spent["_line_words"], n, True),
        ("  - unit layout of both lines (`line_info`)", spent["line_info"], n, True),
        ("- per-edit features and the forest (the rest)", judged - spent["_lines"], n, True),
        (f"- of all the above, lexicon table lookups (`FileTable.get`: {int(spent['lookup_calls']):,} lookups)",
         spent["lookups"], n, True),
        (f"judge again, {WARM_EDITS:,} edits at a time, every line and word of them analysed before", warm, n, True),
    ]
    print(f"{args.lines:,} bench lines, {m:,} edits, {n:,} distinct; one process, judge caches cleared; "
          f"the judge alone: {n / judged:,.0f} distinct edits/s\n")
    print("| part | seconds | µs per edit | share of the judge |")
    print("|---|---:|---:|---:|")
    for name, sec, count, in_judge in parts:
        share = f"{100 * sec / judged:.0f} %" if in_judge else ""
        print(f"| {name} | {sec:.2f} | {1e6 * sec / count:.1f} | {share} |")


if __name__ == "__main__":
    main()
