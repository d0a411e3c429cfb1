"""The ``semcer`` command line: a thin layer over the Python API.

Each subcommand lives in its own module with ``register(subparsers)``; a user mistake (any
:class:`semcer.errors.SemcerError`) is printed as one line on standard error with exit status 2.
An interrupted command ends the same way for every way of stopping it: Ctrl-C (SIGINT), ``kill``
(SIGTERM) or a closed terminal (SIGHUP) unwind the command like an error (worker processes
stopped, temporary files removed, no output half-written), say so in one line and exit with
``128 +`` the signal's number (130, 143, 129); worker processes ignore Ctrl-C and are stopped by
this process (:mod:`semcer.scale.workers`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any, NoReturn, TextIO

from semcer.errors import SemcerError
from semcer.scale.gc import freeze_for_exit
from semcer.version import __version__

#: Subcommand modules, in the order ``semcer --help`` lists them.
_COMMAND_MODULES: tuple[str, ...] = (
    "cer",
    "score",
    "compare",
    "report",
    "judge",
    "policies",
    "store",
    "judge-eval",
    "meta-eval",
    "analyze",
    "distill",
    "study",
)

_DESCRIPTION = """\
semcer measures OCR and VLM transcriptions against references.

  semcer cer REFS HYPS        character error rate, every convention declared
  semcer score REFS HYPS      CER and semCER: each grapheme edit charged a severity by a judge
  semcer compare REFS A B...  systems against a baseline: paired intervals over documents, a CI gate
  semcer report REFS SYS...   an HTML report: summary, ranked error spans, aligned lines, plots
  semcer judge REFS HYPS      judge a corpus's edits into a store (e.g. with an LLM server)
  semcer judge-eval LABELS    how well a judge agrees with labelled edits
  semcer meta-eval ...        scores against reader ratings and reader preferences
  semcer analyze REFS SYS...  the paper's analyses: grapheme load, real-word errors, equal-count contrasts
  semcer distill ...          train the paper's transformer student on judged edits
  semcer store ...            inspect, export and import the judged-edit store (Parquet)
  semcer study ...            reader studies: draw items, rate them in a local web app, export for meta-eval
  semcer policies             the text policies, exactly

REFS and HYPS are JSONL, TSV/CSV or Parquet files (columns id, text, optional doc, lang), two
line-aligned text files, two directories of .txt pages, or PAGE-XML, ALTO and hOCR page files (or
directories of them; one .txt file against one page file is that page's text). Every number is
printed with its signature: the unit, the text policy (name and hash), the empty-reference policy,
the aggregation, the judge, the Unicode versions and the semcer version; then, only where given or
departing from the defaults, unmatched: (--unmatched drop or empty) and, when page files were read,
level: (lines read instead of regions), dialect: (dinglehopper's extraction rules), hyphen: (ALTO
hyphens joined or dropped) and granularity: (--by-line: each region or line its own item). Two
numbers are comparable only when their signatures match. `semcer COMMAND --help` is the manual of
each command.

exit status: 0 done; 1 done, but a judge failed on some edits (a rerun with the same --store
retries only those); 2 an error, said in one line on standard error; 3 a `compare` gate tripped
(--fail-if-worse); 130, 143, 129 stopped by
Ctrl-C, SIGTERM, SIGHUP (nothing half-written; with --work-dir the same command resumes).

quick start:
  semcer score examples/references.jsonl examples/tess_noisy.jsonl
"""


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake reported as one line (like every other error) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"semcer: error: {self.prog.removeprefix('semcer').strip() or 'semcer'}: {message} "
                     f"(see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="semcer",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"semcer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name.replace('-', '_')}").register(sub)
    return parser


def run() -> int:
    """The ``semcer`` program (``python -m semcer``, the console script): :func:`main` on the
    process's arguments, then what is left alive frozen so that exiting does not walk it
    (:func:`semcer.scale.gc.freeze_for_exit`). Callers that go on running call :func:`main`.
    A warning raised on the way (a judge's answers without probabilities, say) is one line,
    ``semcer: warning: ...``, without the source line Python shows."""
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        try:
            status = main()
        except KeyboardInterrupt:  # Ctrl-C while the commands' modules were still being imported
            print("semcer: interrupted", file=sys.stderr)
            status = 128 + signal.SIGINT
    freeze_for_exit()
    return status


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      file: TextIO | None = None, line: str | None = None) -> None:
    print(f"semcer: warning: {message}", file=sys.stderr if file is None else file)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()  # imports the commands (here, not at import: a Ctrl-C now is answered)
    from semcer.cli.options import check_usage
    from semcer.store.guards import said_on_stderr  # the store's notes (a lock waited for) and warnings

    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if sys.stdout is None:  # started with standard output closed (`>&-`)
        if not getattr(args, "output", None):
            print("semcer: error: standard output is closed: redirect it (> FILE) or give -o FILE",
                  file=sys.stderr)
            return 2
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the process's stdout from now on)
    try:
        with _stop_signals_raise(), _guarded_stdout(), said_on_stderr(bool(getattr(args, "quiet", False))):
            check_usage(args)  # contradictory or inapplicable options: refused before any work
            status = int(args.func(args) or 0)
            sys.stdout.flush()  # a full disk under `> FILE` is this command's error, not the exit's
            return status
    except SemcerError as exc:
        _drop_unwritable_output()
        print(f"semcer: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("semcer: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except Stopped as exc:
        print(f"semcer: stopped by {exc.name}", file=sys.stderr)
        return 128 + exc.signum
    except BrokenPipeError:  # the reader went away (`| head`): what it read is what it wanted
        _silence_stdout()
        return 0


class StdoutError(SemcerError):
    """Standard output cannot be written (``> FILE`` on a full disk)."""


class _GuardedStdout:
    """Standard output whose write errors are a :class:`StdoutError` (one line, exit status 2)
    instead of a traceback; a pipe closed by its reader stays a BrokenPipeError."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        with _as_stdout_error():
            return self.inner.write(text)

    def flush(self) -> None:
        with _as_stdout_error():
            self.inner.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...
        return getattr(self.inner, name)


@contextlib.contextmanager
def _as_stdout_error() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise StdoutError(f"cannot write standard output ({exc.strerror or exc})") from None


@contextlib.contextmanager
def _guarded_stdout() -> Iterator[None]:
    guarded = _GuardedStdout(sys.stdout)
    sys.stdout = guarded
    try:
        yield
    finally:
        if sys.stdout is guarded:
            sys.stdout = guarded.inner


def _drop_unwritable_output() -> None:
    """Point standard output at the null device when it cannot take what is buffered for it (what a
    failed write left), so that exiting does not fail on it again."""
    try:
        sys.stdout.flush()
    except OSError:
        _silence_stdout()


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


class Stopped(BaseException):
    """A stop signal (SIGTERM, SIGHUP) received while a command ran: raised in the main thread, so
    that the command unwinds as it does for Ctrl-C. Not an :class:`Exception`: nothing that handles
    errors catches it on the way."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.name = signal.Signals(signum).name


#: The signals that stop a command the way Ctrl-C does (where the platform has them).
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _stop_signals_raise() -> Iterator[None]:
    """For the time of a command, SIGTERM and SIGHUP raise :class:`Stopped` where their action was
    the default one (an embedding program's own handlers are left alone); in the main thread only."""
    saved: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in _STOP_SIGNALS:
            if signal.getsignal(sig) is signal.SIG_DFL:
                saved[sig] = signal.signal(sig, _raise_stopped)
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


def _raise_stopped(signum: int, frame: Any) -> None:
    for sig in _STOP_SIGNALS:  # a second one while unwinding stops the process at once, as by default
        signal.signal(sig, signal.SIG_DFL)
    raise Stopped(signum)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
