"""Options and plumbing shared by the scoring subcommands (`cer`, `score`, `judge`)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ..atomic import atomic_write
from ..evaluate import EMPTY_REF_POLICIES
from ..policy import DEFAULT_POLICY, PRESETS


def add_input_options(p: argparse.ArgumentParser) -> None:
    """REFS HYPS and the options that decide what is compared and how."""
    p.add_argument("refs", metavar="REFS", help="references: .jsonl, .tsv, .csv (columns id, text, optional doc, lang), "
                   "a plain-text file (one line per item, line number = id) or a directory of .txt pages")
    p.add_argument("hyps", metavar="HYPS", help="outputs to score, in the same form as REFS")
    p.add_argument("--unit", choices=("grapheme", "codepoint"), default="grapheme",
                   help="unit of comparison: extended grapheme clusters (default) or Unicode code points (as jiwer)")
    p.add_argument("--policy", default=DEFAULT_POLICY, metavar="NAME",
                   help=f"text policy applied to both sides before alignment: a preset ({', '.join(PRESETS)}) or "
                   "steps joined by '+', e.g. nfkc+casefold+collapse-ws (see `semcer policies`); default: %(default)s")
    p.add_argument("--empty-ref", choices=tuple(EMPTY_REF_POLICIES), default="error", dest="empty_ref",
                   help="what an empty reference does: " + "; ".join(f"{k}: {v}" for k, v in EMPTY_REF_POLICIES.items()))
    p.add_argument("--unmatched", choices=("error", "drop"), default="error",
                   help="ids present on one side only: stop with an error (default) or drop them and report how many")


def add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON for machines instead of the table")
    p.add_argument("--lines", action="store_true", help="with --json, include one row per line")
    p.add_argument("--output", "-o", metavar="FILE", help="write the result to FILE (atomically) instead of standard output")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")


def load_pairs(args: argparse.Namespace):
    """Read both collections and pair them by id, honouring --unmatched."""
    from ..evaluate import _no_cyclic_gc
    from ..readers import pair_collections, read_collection

    with _no_cyclic_gc():  # a corpus is millions of small acyclic objects
        refs = read_collection(args.refs)
        hyps = read_collection(args.hyps)
        return pair_collections(refs, hyps, unmatched=args.unmatched)


def show_progress(args: argparse.Namespace) -> bool:
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def dumps(obj: Any) -> str:
    """JSON with no Infinity/NaN (undefined values are null by construction; this asserts it)."""
    return json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False)


def emit(text: str, output: str | None) -> None:
    if output:
        with atomic_write(output) as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def pct(x: float | None, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{100 * x:.{digits}f} %"
