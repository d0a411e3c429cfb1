"""``semcer store``: look into a judged-edit store, and move judged edits in and out as Parquet."""

from __future__ import annotations

import argparse
from typing import Any

from semcer.errors import StoreError
from semcer.store.sqlite import JudgedEditStore

_DESCRIPTION = """\
A judged-edit store is an SQLite file in which every edit a judge has charged is kept, keyed by
the judge's identity and the edit's content (language, operation, marked pair), so that no edit
is judged twice: not in a rerun, not in a resumed run, not when the same error occurs on another
line.

  semcer store info STORE                    judges in the store and how many edits each
  semcer store export STORE OUT.parquet      write the judged edits to a Parquet file
  semcer store import STORE IN.parquet       add the judged edits of a Parquet file

Parquet files carry the columns of the labelled data in data/severity/ (lang, op, ref_unit,
hyp_unit, ref_pos, hyp_pos, marked_ref, marked_hyp, p, severity, mode) plus key, judge, edit_class,
flags and created; they need pyarrow (pip install "semcer[parquet]").
"""

_EXPORT = """\
Write the judged edits of STORE (all judges, or one with --judge) to OUT.parquet, one row per
edit with its five level probabilities `p`, its expected rating `severity` and its most likely
level `mode`. The file appears complete or not at all; an existing OUT is replaced.
"""

_IMPORT = """\
Add the judged edits of IN.parquet to STORE (created if missing), for instance a store shared by a
colleague or judged on another machine. Every row is checked first: the columns and their types,
five probabilities in [0, 1] summing to 1, a key that matches the judge and the edit. A bad row
stops the import with its row number, and then nothing is added. An edit already in STORE is kept
as it is.
"""

_INFO = "Print the store's schema version and, for each judge identity, how many edits it has judged."


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``semcer store`` and its subcommands."""
    parser = subparsers.add_parser(
        "store",
        help="inspect, export and import a judged-edit store",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(func=lambda args: _usage(parser))
    sub = parser.add_subparsers(dest="store_command", metavar="ACTION")

    def action(name: str, help: str, description: str, func: Any, *positionals: tuple[str, str, str]) -> Any:
        p = sub.add_parser(name, help=help, description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
        for dest, metavar, text in positionals:
            p.add_argument(dest, metavar=metavar, help=text)
        p.set_defaults(func=func)
        return p

    action("info", "judges in the store and their edit counts", _INFO, _info,
           ("store", "STORE", "the store file (SQLite)"))
    export = action("export", "write judged edits to a Parquet file", _EXPORT, _export,
                    ("store", "STORE", "the store file (SQLite)"), ("out", "OUT.parquet", "the Parquet file to write"))
    export.add_argument("--judge", metavar="IDENTITY", default=None,
                        help="export only the edits of this judge identity (as `semcer store info` lists it)")
    action("import", "add judged edits from a Parquet file", _IMPORT, _import,
           ("store", "STORE", "the store file (SQLite); created if missing"),
           ("source", "IN.parquet", "the Parquet file to read"))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _info(args: argparse.Namespace) -> int:
    with JudgedEditStore(args.store, readonly=True) as store:
        judges = store.judges()
        print(f"store: {args.store}")
        print(f"schema version: {store.schema_version}")
        print(f"edits: {sum(n for _, n in judges)}")
        print(f"judges: {len(judges)}")
        width = max((len(str(n)) for _, n in judges), default=1)
        for identity, n in judges:
            print(f"  {n:>{width}}  {identity}")
    return 0


def _export(args: argparse.Namespace) -> int:
    with JudgedEditStore(args.store, readonly=True) as store:
        if args.judge is not None and store.count(args.judge) == 0:
            known = ", ".join(repr(identity) for identity, _ in store.judges()) or "none"
            raise StoreError(f"{args.store}: no edits of judge {args.judge!r} (judges in the store: {known})")
        n = store.export_parquet(args.out, judge_identity=args.judge)
    print(f"exported {n} judged edits to {args.out}")
    return 0


def _import(args: argparse.Namespace) -> int:
    with JudgedEditStore(args.store) as store:
        inserted, present = store.import_parquet(args.source)
        total = len(store)
    print(f"imported {inserted} judged edits from {args.source} ({present} already present); {args.store} now holds {total}")
    return 0
