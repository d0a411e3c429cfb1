"""``semcer study``: reader studies (create, add-reader, serve, export, status)."""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from typing import Any

from semcer.cli.options import Once, check_int, seed
from semcer.errors import InputError, SemcerError

_DESCRIPTION = """\
Collect readers' severity ratings and pair preferences on your own data, as the semCER paper did,
in a local web app; then measure any judge against them with semcer meta-eval.

  semcer study create OUT.study --from EDITS|SCORE.json|STORE -n 80 --reader ana --reader ben
  semcer study add-reader STUDY NAME          a new reader, with their own order and token
  semcer study serve STUDY [--port 8765]      the rating app, on 127.0.0.1 by default
  semcer study status STUDY [--json]          progress and self-consistency per reader
  semcer study export STUDY -o DIR            ratings.jsonl, items.jsonl, pairs.jsonl for meta-eval

Then: semcer meta-eval --ratings DIR/ratings.jsonl --items DIR/items.jsonl --judge compact
      semcer meta-eval --pairs DIR/pairs.jsonl --judge compact

A study is one SQLite file. Each reader signs in with their own token (printed once by create or
add-reader; the file keeps only its hash), sees every item in an order of their own, with a few
items shown twice to measure their consistency, and never sees a score or another reader's answer.
The app needs the extra: pip install "semcer[study]". See docs/study.md.
"""

_CREATE = """\
Draw a study and write it to OUT (a new file).

single edits (--from, repeatable): an edit list (semcer score --edits FILE: .jsonl, .csv, .parquet),
a `semcer score --json --lines` output, or a judged-edit store (SQLite). -n N edits are drawn,
stratified by language, edit class and severity band (the rubric level nearest the judge's
severity): shared out as evenly as the strata allow, a small stratum taken whole. With
--per-language, -n (and --pairs) count per language: each language its own pool, as the paper's.

pairs (--pairs-from, two or more `semcer score --json --lines` outputs of the same references, one
per system, named by the file name): the near-miss pairs, where CER (edit count) and semCER
(severity mass) disagree on which output is worse, as in the paper; --pairs N of them, stratified
by language. The two outputs are shown as A and B in an order drawn from the seed. The files must
cover the same lines and be scored alike: equal signatures (judge, text policy, unit...), but for
--unmatched and --hyphen, which may differ between systems.

A study needs at least one item: -n 0 (or --pairs 0) only beside the other kind of item. Every
option and reader name is checked before a source is read, and OUT is written all or nothing.

Every reader (--reader, repeatable) gets their own shuffle (from --seed and their name) and
--repeats items shown a second time. The tokens are printed once: hand each reader theirs.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("study", help="reader studies: create, serve (a local web app), export for meta-eval",
                                   description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(func=lambda args: _usage(parser))
    sub = parser.add_subparsers(dest="study_command", metavar="ACTION")
    raw = argparse.RawDescriptionHelpFormatter
    c = sub.add_parser("create", help="draw a study into a new study file", description=_CREATE, formatter_class=raw)
    c.add_argument("out", metavar="OUT.study", help="the study file to create")
    c.add_argument("--from", dest="sources", action="append", default=[], metavar="FILE",
                   help="edits to draw from: an edit list, a score JSON with --lines, or a judged-edit store (repeatable)")
    c.add_argument("-n", "--edits", dest="n_edits", type=int, default=None, metavar="N",
                   help="single edits to draw (default: all)")
    c.add_argument("--pairs-from", dest="pair_sources", action="append", default=[], metavar="SCORE.json",
                   help="a system's `semcer score --json --lines` output (two or more: the pair pool)")
    c.add_argument("--pairs", dest="n_pairs", type=int, default=None, metavar="N", help="pairs to draw (default: all)")
    c.add_argument("--judge", default=None, metavar="IDENTITY",
                   help="the judge whose edits to draw from a store that holds several (an identity, as "
                        "`semcer store info` lists them)")
    c.add_argument("--per-language", action="store_true", dest="per_language",
                   help="-n and --pairs count per language (each language its own pool, as in the paper)")
    c.add_argument("--reader", dest="readers", action="append", default=[], metavar="NAME", help="a reader (repeatable)")
    c.add_argument("--repeats", type=int, default=5, metavar="K", help="items each reader sees twice (default: %(default)s)")
    c.add_argument("--seed", type=seed, default=0, help="seed of the draw and of the shuffles (default: %(default)s)")
    c.set_defaults(func=_create)
    a = sub.add_parser("add-reader", help="add a reader (prints their token)", description="Add a reader to STUDY, "
                       "with their own order of the items; their token is printed once.")
    a.add_argument("study", metavar="STUDY")
    a.add_argument("name", metavar="NAME")
    a.set_defaults(func=_add_reader)
    s = sub.add_parser("serve", help="the rating app (loopback by default)", description=_SERVE, formatter_class=raw)
    s.add_argument("study", metavar="STUDY")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s, this machine only)")
    s.add_argument("--port", type=int, default=8765, help="port (default: %(default)s)")
    s.set_defaults(func=_serve)
    e = sub.add_parser("export", help="the answers in meta-eval's input format", description=_EXPORT, formatter_class=raw)
    e.add_argument("study", metavar="STUDY")
    e.add_argument("-o", "--output", required=True, metavar="DIR", action=Once, help="folder to write the files into (created)")
    e.set_defaults(func=_export)
    t = sub.add_parser("status", help="progress per reader", description="Progress of every reader: answered, "
                       "cannot judge, skipped, and how often a repeated item got the same answer.")
    t.add_argument("study", metavar="STUDY")
    t.add_argument("--json", action="store_true", help="print JSON")
    t.set_defaults(func=_status)


_SERVE = """\
Serve the rating app of STUDY. Readers open the printed address, sign in with their token, read the
rubric and rate: keys 0-4 (single edits) or a / e / b (pairs), s skips, x "cannot judge". Every
answer is saved at once; a reader who comes back continues at their next unanswered item.

The app listens on 127.0.0.1 (this machine) unless --host says otherwise; a non-loopback address
makes it reachable by others on the network over plain HTTP (tokens are still required; put it
behind a TLS proxy). Stop it with Ctrl-C.
"""

_EXPORT = """\
Write the answers of STUDY into the folder DIR, in the input format of semcer meta-eval:
ratings.jsonl (item, rater, level) and items.jsonl (an edit list keyed by edit_id) for the single
edits, pairs.jsonl (pair, ref, a, b, lang, choices) for the pairs, and repeats.jsonl (both answers
of each repeated item). A repeat and a "cannot judge" are not ratings.
"""


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _check_out(path: str) -> None:
    from pathlib import Path

    from semcer.cli.common import folder_problem

    p = Path(path)
    if p.exists():
        raise SemcerError(f"{path}: already exists; a study is created once (add readers with semcer study add-reader)")
    problem = folder_problem(p.parent)  # the one rule of every output's folder
    if problem:
        raise SemcerError(f"{path}: {problem}")


def _create(args: argparse.Namespace) -> int:
    from semcer.study.create import check_options, create_study, plan

    check_int(args, "n_edits", 0, flag="--edits")
    check_int(args, "n_pairs", 0, flag="--pairs")
    check_int(args, "repeats", 0)
    _check_out(args.out)
    check_options(args.sources, args.pair_sources, args.n_edits, args.n_pairs, args.repeats, args.readers)
    p = plan(args.sources, args.pair_sources, args.n_edits, args.n_pairs, args.seed, args.repeats,
             per_language=args.per_language, judge=args.judge)
    tokens = create_study(args.out, p, args.readers)
    print(f"created {args.out}: {p.n_edits} single edits (of {p.n_candidates}), {p.n_pairs} pairs "
          f"(of {p.n_pair_candidates} near misses), {p.repeats} repeats per reader, seed {p.seed}")
    langs = Counter(i.lang for i in p.items)
    print("items per language: " + ", ".join(f"{lang} {n}" for lang, n in sorted(langs.items())))
    for note in _fewer_than_asked(args, p):
        print(f"note: {note}", file=sys.stderr)
    _print_tokens(tokens)
    if not args.readers:
        print(f"note: no --reader given; add readers with semcer study add-reader {args.out} NAME", file=sys.stderr)
    return 0


def _fewer_than_asked(args: argparse.Namespace, p: Any) -> list[str]:
    """A line for each kind of item (-n, --pairs) of which fewer were drawn than asked: every
    candidate there was was taken (in each language that had fewer, with --per-language)."""
    out = []
    for kind, asked, flag, what, pool in (("edit", args.n_edits, "-n", "single edits", p.n_candidates),
                                          ("pair", args.n_pairs, "--pairs", "pairs", p.n_pair_candidates)):
        drawn = Counter(i.lang for i in p.items if i.kind == kind)
        if asked is None or not pool:
            continue
        if not args.per_language:
            if sum(drawn.values()) < asked:
                out.append(f"{flag} {asked}: drew {sum(drawn.values())} {what} of the {asked} asked (all the "
                           f"{pool} the sources hold)")
            continue
        short = sorted((lang, k) for lang, k in drawn.items() if k < asked)
        if short:
            out.append(f"{flag} {asked} per language: drew fewer {what} than asked in {len(short)} language(s), "
                       "all they hold: " + ", ".join(f"{lang} {k}" for lang, k in short))
    return out


def _print_tokens(tokens: dict[str, str]) -> None:
    if not tokens:
        return
    print("reader tokens (shown once; the study keeps only their hashes; hand each reader theirs):")
    width = max(len(n) for n in tokens)
    for name, token in tokens.items():
        print(f"  {name:<{width}}  {token}")


def _add_reader(args: argparse.Namespace) -> int:
    from semcer.study.create import add_reader
    from semcer.study.db import StudyDB

    token = add_reader(StudyDB(args.study), args.name)
    _print_tokens({args.name: token})
    return 0


def _serve(args: argparse.Namespace) -> int:
    check_int(args, "port", 1, 65535)
    from semcer.study.listen import listen, resolve_host

    where = resolve_host(args.host)  # before anything is printed or opened: one line for "", 999.1.1.1, HOST:PORT
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        raise SemcerError('semcer study serve needs starlette and uvicorn: pip install "semcer[study]"') from None
    from semcer.study.db import StudyDB
    from semcer.study.web import create_app

    db = StudyDB(args.study)
    if not db.readers():
        raise InputError(f"{args.study}: the study has no reader; add one with semcer study add-reader {args.study} NAME")
    db.check_writable()  # a read-only or immutable file or folder: one line here, not a 503 at the first sign-in
    app = create_app(db, allowed_hosts=where.allowed_hosts())  # reads every item: a damaged study is one line here
    sock = listen(where, args.port)  # bound here: uvicorn exits with status 3 on a port in use
    if not where.loopback:
        print(f"WARNING: serving on {args.host}, reachable from other machines over plain HTTP: anyone on the network "
              "can reach the sign-in page (every reader still needs their token). Prefer 127.0.0.1 with an SSH "
              "tunnel, or a TLS proxy.", file=sys.stderr)
    print(f"serving {args.study} at http://{where.shown}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
    return 0


def _export(args: argparse.Namespace) -> int:
    from semcer.study.db import StudyDB
    from semcer.study.export import export

    if not args.output.strip():
        raise SemcerError("-o is empty: give the folder to write the files into (created when missing)")
    _check_export_folder(args.output)
    counts = export(StudyDB(args.study), args.output)
    print("wrote " + ", ".join(f"{os.path.join(args.output, name)} ({n} records)" for name, n in counts.items()))
    return 0


def _check_export_folder(path: str) -> None:
    """-o DIR of export, created with its missing parents: the nearest folder that exists on the way
    must take new files (an existing DIR that is a file: the export's own error)."""
    from pathlib import Path

    from semcer.cli.common import folder_problem

    p = Path(path)
    if p.exists():
        return
    existing = next((a for a in p.parents if a.exists() or a.is_symlink()), Path("."))
    problem = folder_problem(existing)
    if problem:
        raise SemcerError(f"-o {path}: {problem}")


def _status(args: argparse.Namespace) -> int:
    from semcer.io.json import dumps, emit
    from semcer.reports.text import table
    from semcer.study.db import StudyDB
    from semcer.study.export import reader_status

    db = StudyDB(args.study)
    rows = reader_status(db)
    if args.json:
        meta = db.meta()
        emit(dumps({"study": args.study, "edits": int(meta["edits"]), "pairs": int(meta["pairs"]),
                    "readers": [r.to_dict() for r in rows]}), None)
        return 0
    if not rows:
        print(f"{args.study}: no reader yet (semcer study add-reader {args.study} NAME)")
        return 0
    print(table(["reader", "answered", "of", "rated", "cannot judge", "skipped", "repeats", "same answer", "mean gap"],
                [_status_row(r) for r in rows]))
    return 0


def _status_row(r: Any) -> list[str]:
    same = f"{r.repeats_same}/{r.repeats_answered}" if r.repeats_answered else "-"
    gap = "-" if r.repeats_mean_level_gap is None else f"{r.repeats_mean_level_gap:.2f}"
    return [r.reader, str(r.done), str(r.slots), str(r.rated), str(r.cannot_judge), str(r.skipped),
            str(r.repeats_answered), same, gap]
