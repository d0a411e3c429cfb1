"""Plumbing shared by the subcommands: checking every path before any work, reading the two
collections, pausing the collector."""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from semcer.api.evaluation import left_out, with_lang  # --lang: the one rule, shared with compare and analyze
from semcer.atomic import probe_folder, refused_reason, written_path
from semcer.cli.options import check_page_options, was_given
from semcer.errors import InputError, SemcerError
from semcer.io.collections import PAGE_FORMATS, STDIN, Collection, PageOptions, parquet_shards, read_collection
from semcer.io.edits import check_path as check_edits_path
from semcer.io.pairing import Paired, pair_collections
from semcer.metrics.results import LeftOut
from semcer.scale.gc import collector_paused

#: Output options (argparse destinations) and their flags, in the order they are checked.
OUTPUT_OPTIONS = {"output": "--output", "edits": "--edits", "store": "--store", "html": "--html"}
_EXAMPLE_NAMES = {"--output": "result.json", "--edits": "edits.jsonl", "--store": "judged.sqlite", "--html": "report.html"}


def check_paths(args: argparse.Namespace, inputs: Mapping[str, str | None]) -> None:
    """Check every output path of a command before it reads or computes anything.

    ``inputs`` maps how the usage names each input (``"REFS"``, ``"HYPS"``, ``"LABELS"``) to its
    path. Each output given (``--output``, ``--edits``, ``--store``, ``--html``) must be a file name, not a
    directory, in a folder that exists and that this process can create files in; ``--edits`` must
    have a known extension and its format's extra installed; an existing ``--store`` must be
    writable. No output may be the same file as another output or as an input (compared by device
    and inode where both exist, so links and other spellings count; standard input too when it is a
    file), and none may be a page that an input directory would read (a ``.txt`` file below it).
    At most one input may be ``-`` (standard input). Raises SemcerError, one line naming the flag.
    """
    stdin = [name for name, path in inputs.items() if path == STDIN]
    if len(stdin) > 1:
        raise InputError(f"{' and '.join(stdin)} are both '-': only one of them can be read from standard input")
    outputs = [(flag, str(getattr(args, dest))) for dest, flag in OUTPUT_OPTIONS.items()
               if getattr(args, dest, None) is not None]
    for flag, path in outputs:
        _check_writable(flag, path)
        if flag == "--edits":
            check_edits_path(path, flag)
    for i, (flag, path) in enumerate(outputs):
        for other_flag, other in outputs[:i]:
            if _same(path, other):
                raise SemcerError(f"{other_flag} {other} and {flag} {path} are the same file; give each its own")
        for name, source in inputs.items():
            if source is None:
                continue
            if source == STDIN:
                if _is_stdin(path):
                    raise SemcerError(f"{flag} {path} is the file standard input ({name}) reads; "
                                      "writing it would destroy the input; choose another file")
            elif os.path.isdir(source):
                if _is_page_of(path, source):
                    raise SemcerError(f"{flag} {path} would be a page of {name} ({source}): the next run would "
                                      "read it as one; write it outside that directory or not as .txt")
            elif _same(path, source):
                raise SemcerError(f"{flag} {path} is {name} ({source}): writing it would destroy the input; "
                                  "choose another file")


def _check_writable(flag: str, path: str) -> None:
    if not path.strip():
        raise SemcerError(f"{flag} is empty: give a file name, e.g. {flag} {_EXAMPLE_NAMES.get(flag, 'out')}")
    p = written_path(path)  # a link's target folder is where the atomic writer works
    if p.is_dir():
        raise SemcerError(f"{flag} {path}: is a directory; give a file name, e.g. "
                          f"{p / _EXAMPLE_NAMES.get(flag, 'out')}")
    if p.exists() and not p.is_file():  # /dev/null, /dev/stdout, a named pipe: written directly
        if not os.access(p, os.W_OK):
            raise SemcerError(f"{flag} {path}: cannot write it (no permission)")
        return
    problem = folder_problem(p.parent)  # what the atomic writer will do there: create a file beside the target
    if problem:
        how = "" if flag == "--store" or not p.is_file() else (f"; the output is written to a new file there, then "
                                                              f"renamed over {p.name}")
        raise SemcerError(f"{flag} {path}: {problem}{how}")
    if flag == "--store" and p.exists() and not os.access(p, os.R_OK | os.W_OK):
        raise SemcerError(f"{flag} {path}: cannot write the store (the file is read-only)")
    if flag in ("--output", "--html") and p.is_file():
        _check_not_data(flag, path)


def folder_problem(folder: Path) -> str | None:
    """Why no file can be created in ``folder`` (None: one can), one rule for every output: a path
    that is, or lies under, a file; a folder that does not exist; one where creating a file fails
    (said by its error number: :func:`semcer.atomic.refused_reason`)."""
    shown = str(folder) if str(folder) not in ("", ".") else "the current folder"
    try:
        if not folder.is_dir():
            blocker = next((a for a in (folder, *folder.parents) if a.exists() or a.is_symlink()), None)
            if blocker is not None and not blocker.is_dir():
                return f"{blocker} is a file, not a folder"
            return f"folder {folder} does not exist; create it first (mkdir -p {folder})"
        probe_folder(folder)
    except OSError as exc:
        return f"cannot write into {shown} ({refused_reason(exc)})"
    return None


#: The first bytes of files that a text output must not replace: a judged-edit store or a study
#: (SQLite), a Parquet file (edits, a store's export).
_DATA_SIGNATURES = {b"SQLite format 3\x00": "an SQLite database (a judged-edit store or a study?)",
                    b"PAR1": "a Parquet file"}


def _check_not_data(flag: str, path: str) -> None:
    """Refuse to write a report or a result over a store, a study or a Parquet file."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError:
        return  # the write will say why
    for magic, what in _DATA_SIGNATURES.items():
        if head.startswith(magic):
            raise SemcerError(f"{flag} {path}: is {what}; writing the {'report' if flag == '--html' else 'result'} "
                              "would destroy it: choose another file name (or remove it first)")


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): the same name is still the same file
        return os.path.realpath(a) == os.path.realpath(b)


def _is_stdin(path: str) -> bool:
    """Whether standard input is redirected from the regular file ``path``."""
    try:
        fd_stat, out_stat = os.fstat(sys.stdin.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISREG(fd_stat.st_mode) and (fd_stat.st_dev, fd_stat.st_ino) == (out_stat.st_dev, out_stat.st_ino)


def _is_page_of(path: str, directory: str) -> bool:
    """Whether ``path`` is a file that reading ``directory`` (format ``directory``) would take as a page."""
    root, target = Path(os.path.realpath(directory)), Path(os.path.realpath(path))
    try:
        rel = target.relative_to(root)
    except ValueError:
        return False
    return rel.suffix.lower() == ".txt" and not any(part.startswith(".") for part in rel.parts)


def load_pairs(args: argparse.Namespace) -> Paired:
    """The pairs of :func:`read_pairs`, without what reading left out."""
    return read_pairs(args)[0]


def read_pairs(args: argparse.Namespace) -> tuple[Paired, LeftOut]:
    """Read both collections (each in its --ref-format / --hyp-format / --format, or detected) and
    pair them by id, honouring --unmatched; the page-file options refused, before any scoring, when
    neither was read from page files (known only now for a directory or standard input). Also what
    reading left out (page elements skipped, files that could not be read), for the result."""
    both = getattr(args, "format", None)
    if args.refs == STDIN and args.hyps == STDIN:
        raise InputError("REFS and HYPS are both '-': only one of them can be read from standard input")
    pages = page_options(args)
    with collector_paused():  # a corpus is millions of small acyclic objects
        refs = _read(args, args.refs, getattr(args, "ref_format", None) or both, pages)
        hyps = _read(args, args.hyps, getattr(args, "hyp_format", None) or both, pages)
        report_failures(refs, hyps)
        check_page_options(args, map(_has_pages, (refs, hyps)))
        paired = with_lang(pair_collections(refs, hyps, unmatched=args.unmatched), getattr(args, "lang", None))
        return paired, left_out(refs, hyps)


#: What the page reader says of an hOCR file read with dinglehopper's rules (:mod:`semcer.io.formats.read`).
_DINGLEHOPPER_HOCR = "dinglehopper reads no hOCR"


def _read(args: argparse.Namespace, path: str, fmt: str | None, pages: PageOptions) -> Collection:
    """One input, read as the options say; an hOCR file refused under dinglehopper's rules that no
    --page-dialect asked for is told where they came from (the reader's message names the flag)."""
    try:
        return read_collection(path, format=fmt, pages=pages)
    except InputError as exc:
        if pages.dialect != "dinglehopper" or _DINGLEHOPPER_HOCR not in str(exc) or was_given(args, "page_dialect"):
            raise
        raise InputError(f"{exc}; --policy dinglehopper reads page files with dinglehopper's rules unless "
                         "--page-dialect says otherwise") from None


def item_name(args: argparse.Namespace) -> str:
    """What the scored items are, for tables: "pages" for page files and directories of pages (each
    page one item), else "lines"."""
    if getattr(args, "by_line", False):
        return "lines"
    paths = [getattr(args, "refs", None), *([args.hyps] if isinstance(getattr(args, "hyps", None), str) else [])]
    for path in paths:
        if path and path != STDIN and ((os.path.isdir(path) and not parquet_shards(Path(path)))
                                       or path.lower().endswith((".xml", ".html", ".hocr"))):
            return "pages"
    return "lines"


def check_scored(args: argparse.Namespace, result: Any) -> None:
    """Refuse a result that scored nothing: every line skipped for its empty reference (--empty-ref
    skip), every number n/a. Called before anything is written, so that a script or a CI job cannot
    take such a run for a score (the Python API returns it as it is)."""
    if result.corpus.lines or not result.skipped_empty:
        return
    n, items = len(result.skipped_empty), item_name(args)
    which = f"the only {items.removesuffix('s')} has" if n == 1 else f"all {n} {items} have"
    raise SemcerError(f"nothing was scored: {which} an empty reference after --policy {args.policy}, and --empty-ref "
                      "skip left every one out (each number would be n/a); check the references and the --policy")


def check_compared(args: argparse.Namespace, result: Any) -> None:
    """:func:`check_scored` for a comparison: its systems share the references, so the lines that an
    empty reference leaves out are the same for every one."""
    for ev in result.evaluations:
        check_scored(args, ev)


class Steps:
    """--verbose: what each step did and how long it took, on standard error."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.on = bool(getattr(args, "verbose", False))

    @contextlib.contextmanager
    def step(self, what: str) -> Iterator[None]:
        import time

        t = time.perf_counter()
        yield
        if self.on:
            print(f"semcer: {what}: {time.perf_counter() - t:.2f} s", file=sys.stderr)

    def say(self, text: str) -> None:
        if self.on:
            print(f"semcer: {text}", file=sys.stderr)


def page_options(args: argparse.Namespace) -> PageOptions:
    """How page files are read, from --level, --by-line, --page-dialect, --hyphen, --keep-going."""
    dialect = getattr(args, "page_dialect", "auto")
    if dialect == "auto":
        dialect = "dinglehopper" if getattr(args, "policy", None) == "dinglehopper" else "semcer"
    return PageOptions(level=getattr(args, "level", "region"), granularity="segment" if getattr(args, "by_line", False)
                       else "page", dialect=dialect, hyphen=getattr(args, "hyphen", None),
                       keep_going=getattr(args, "keep_going", False))


def report_failures(*collections: Any) -> None:
    """The page files that could not be read (--keep-going), one line each on standard error."""
    for coll in collections:
        for path, message in coll.failures:  # a message names its file, most with the place in it
            where = "" if message.startswith(path) else f"{path}: "
            print(f"semcer: skipped {where}{message}", file=sys.stderr)


def load_collections(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The references and each system's outputs (``args.hyps`` a list), read in their formats."""
    both = getattr(args, "format", None)
    if [args.refs, *args.hyps].count(STDIN) > 1:
        raise InputError("only one input can be read from standard input ('-')")
    pages = page_options(args)
    with collector_paused():
        refs = _read(args, args.refs, getattr(args, "ref_format", None) or both, pages)
        systems = [_read(args, h, getattr(args, "hyp_format", None) or both, pages) for h in args.hyps]
        report_failures(refs, *systems)
        check_page_options(args, map(_has_pages, (refs, *systems)))
        return refs, systems


def _has_pages(coll: Collection) -> bool:
    """Whether a collection was read from page files (one, or some of a directory's)."""
    return coll.format in PAGE_FORMATS or bool(coll.pages)


@contextlib.contextmanager
def batch_work(judge: Any = None) -> Iterator[None]:
    """The collector paused around scoring, unless a judge that may make cyclic garbage runs
    (network clients, models); the offline judges make none."""
    from semcer.judges.compact import CompactJudge
    from semcer.judges.rubric import RubricJudge

    if judge is None or isinstance(judge, (CompactJudge, RubricJudge)):
        with collector_paused():
            yield
    else:
        yield


def beside_cer(args: argparse.Namespace, paired: Paired) -> tuple[dict[str, Any], str]:
    """--wer and --page-score of pairs in memory: their JSON blocks, and their lines for the terminal."""
    from semcer.api.evaluation import page_scores, word_errors

    w = (word_errors(paired, tokenizer=args.tokenizer, policy=args.policy, empty_ref=args.empty_ref)
         if getattr(args, "wer", False) else None)
    ps = page_scores(paired, unit=args.unit, policy=args.policy) if getattr(args, "page_score", False) else None
    return beside_blocks(w, ps)


def beside_blocks(w: Any, ps: Any) -> tuple[dict[str, Any], str]:
    """The JSON blocks and terminal lines of a WER result and page scores (either may be None)."""
    from semcer.reports.text import render_page_scores, render_word_errors

    blocks: dict[str, Any] = {}
    text = []
    if w is not None:
        blocks["wer"] = w.to_dict()
        text.append(render_word_errors(w))
    if ps is not None:
        blocks["line_assignment"] = ps.to_dict()
        text.append(render_page_scores(ps))
    return blocks, "\n".join(text)


def compare_from_args(args: argparse.Namespace) -> tuple[Any, Any, list[Any]]:
    """The comparison the options ask for (judged unless --no-judge), with the references and systems read."""
    from semcer.api.comparison import compare
    from semcer.cli.options import judge_from_args, show_progress

    names = args.names.split(",") if args.names else None  # None: the paths (semcer.api.comparison.system_names)
    refs, systems = load_collections(args)
    judge = None if args.no_judge else judge_from_args(args)
    with judge if judge is not None else contextlib.nullcontext(), batch_work(judge):
        result = compare(refs, systems, names=names, unit=args.unit, policy=args.policy, empty_ref=args.empty_ref,
                         unmatched=args.unmatched, judge=judge, store=args.store, n_resamples=args.n_resamples,
                         seed=args.seed, confidence=args.confidence, method=args.method, lang=args.lang,
                         progress=show_progress(args))
    return result, refs, systems
