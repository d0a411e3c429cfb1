"""``semcer store``: look into a judged-edit store, and move judged edits in and out as Parquet."""

from __future__ import annotations

import argparse
from typing import Any

from semcer.errors import StoreError
from semcer.judges.distribution import SEVERITY_TOLERANCE
from semcer.store.sqlite import JudgedEditStore

_DESCRIPTION = """\
A judged-edit store is an SQLite file in which every edit a judge has charged is kept, keyed by
the judge's identity and the edit's content (language, operation, marked pair). An LLM judge
(llm, hf:PATH, vllm:MODEL) and a student:DIR read it back, so that no edit is judged twice by them:
not in a rerun, not in a resumed run, not when the same error occurs on another line. The offline
judges (compact, rubric) only write it (for export, `semcer study create --from STORE` and
`semcer distill`): their judgements are recomputed, never read back.

  semcer store info STORE                    judges in the store and how many edits each
  semcer store check STORE [--delete]        check every stored row; remove the corrupt ones
  semcer store export STORE OUT.parquet      write the judged edits to a Parquet file
  semcer store import STORE IN.parquet       add the judged edits of a Parquet file

Every stored row is checked when it is read (its types, five probabilities in [0, 1] summing to
1, a key that matches its content): a corrupt row is never used; a scoring run judges that edit
again and replaces the row. `info`, `check` and `export` open the store read-only; a store in a
read-only directory is then opened immutable (SQLite assumes nobody writes it meanwhile).

Parquet files carry the columns of the labelled data in data/severity/ (lang, op, ref_unit,
hyp_unit, ref_pos, hyp_pos, marked_ref, marked_hyp, p, severity, mode) plus key, judge, edit_class,
flags and created; they need pyarrow (pip install "semcer[parquet]").
"""

_EXPORT = """\
Write the judged edits of STORE (all judges, or one with --judge) to OUT.parquet, one row per
edit with its five level probabilities `p`, its expected rating `severity` and its most likely
level `mode`. OUT must be named .parquet (the export is always Parquet; any other name is refused
before anything is read). The file appears complete or not at all; an existing OUT is replaced
when it is a Parquet file (never the store itself, nor any other kind of file).

Every row is checked first; a corrupt row stops the export (nothing written) unless
--skip-corrupt leaves it out. `semcer store check STORE --delete` removes corrupt rows.
"""

_IMPORT = f"""\
Add the judged edits of IN.parquet to STORE (created if missing), for instance a store shared by a
colleague or judged on another machine. Every row is checked first: the columns and their types,
five probabilities in [0, 1] summing to 1, a key that matches the judge and the edit, and, where
the file has those columns, a `severity` and `mode` that are the expected rating (within
{SEVERITY_TOLERANCE:g}) and the most likely level of `p` (the store keeps `p` and derives both, so a
disagreeing row is refused, as `semcer judge-eval` refuses one in a label file). A bad row stops
the import with its row number, and then nothing is added: IN.parquet is checked whole before
STORE is opened, so a missing STORE is not created either. An edit already in STORE is kept as it
is. Rows are added in transactions of 5,000, so a `semcer score` writing the same store meanwhile
waits for one batch, not for the whole file.

Skipped and counted: rows of the deterministic built-in judges (identities compact-..., rubric-...),
whose judgements are recomputed locally and never taken from a file, and one-hot fallbacks (LLM
answers without probabilities), which the store never keeps.
"""

_CHECK = """\
Check every row of STORE as it would be checked when read (types, five probabilities in [0, 1]
summing to 1, flags, a key that matches the judge and the edit) and list the corrupt ones. Exit
status 1 while corrupt rows remain. With --delete they are removed (a later run judges those edits
again); without it the store is opened read-only and nothing changes.
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
    check = action("check", "check every stored row; remove the corrupt ones", _CHECK, _check,
                   ("store", "STORE", "the store file (SQLite)"))
    check.add_argument("--delete", action="store_true", help="remove the corrupt rows (opens the store for writing)")
    export = action("export", "write judged edits to a Parquet file", _EXPORT, _export,
                    ("store", "STORE", "the store file (SQLite)"), ("out", "OUT.parquet", "the Parquet file to write"))
    export.add_argument("--judge", metavar="IDENTITY", default=None,
                        help="export only the edits of this judge identity (as `semcer store info` lists it)")
    export.add_argument("--skip-corrupt", action="store_true",
                        help="leave corrupt rows out (and count them) instead of refusing to export")
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
        if store.immutable:
            print("note: opened immutable (SQLite cannot lock the store here: its directory or file is not "
                  "writable); the counts are right unless another process writes the store meanwhile")
        width = max((len(str(n)) for _, n in judges), default=1)
        for identity, n in judges:
            print(f"  {n:>{width}}  {identity}")
    return 0


_SHOWN = 10  # corrupt rows listed by `store check`


def _check(args: argparse.Namespace) -> int:
    with JudgedEditStore(args.store, readonly=not args.delete, create=False) as store:
        report = store.check(delete=args.delete)
    print(f"store: {args.store}")
    print(f"rows checked: {report.rows}")
    print(f"corrupt: {len(report.corrupt)}")
    for key, reason in list(report.corrupt.items())[:_SHOWN]:
        print(f"  {key[:16]}  {reason}")
    if len(report.corrupt) > _SHOWN:
        print(f"  ... and {len(report.corrupt) - _SHOWN} more")
    if report.one_hot:
        print(f"one-hot fallbacks: {report.one_hot} (stored by an older semcer; never reused, the next run asks again)")
    if args.delete:
        print(f"deleted: {report.deleted}")
        return 0
    if report.corrupt:
        print(f"corrupt rows are never used; `semcer store check {args.store} --delete` removes them")
        return 1
    return 0


def _export(args: argparse.Namespace) -> int:
    from semcer.store.parquet import check_output

    check_output(args.store, args.out)  # before the store is opened
    with JudgedEditStore(args.store, readonly=True) as store:
        if args.judge is not None and store.count(args.judge) == 0:
            known = ", ".join(repr(identity) for identity, _ in store.judges()) or "none"
            raise StoreError(f"{args.store}: no edits of judge {args.judge!r} (judges in the store: {known})")
        result = store.export_parquet(args.out, judge_identity=args.judge, skip_corrupt=args.skip_corrupt)
    skipped = f" ({result.corrupt} corrupt rows left out)" if result.corrupt else ""
    print(f"exported {result.written} judged edits to {args.out}{skipped}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from semcer.store.parquet import open_source

    source = open_source(args.source)  # checked whole before STORE is opened, or created
    with JudgedEditStore(args.store) as store:  # a STORE made here is removed if nothing gets into it
        result = store.import_parquet(source)
        total = len(store)
    print(f"imported {result.inserted} judged edits from {args.source} ({result.present} already present); "
          f"{args.store} now holds {total}")
    if result.deterministic:
        print(f"skipped {result.deterministic} rows of deterministic built-in judges (compact-..., rubric-...): "
              "their judgements are recomputed locally, never taken from a file")
    if result.one_hot:
        print(f"skipped {result.one_hot} one-hot fallbacks (answers without probabilities): the store never keeps "
              "them, the next run asks the judge again")
    return 0
