"""The ``semcer`` command line: a thin layer over the Python API.

Each subcommand lives in its own module with ``register(subparsers)``; a user mistake (any
:class:`semcer.errors.SemcerError`) is printed as one line on standard error with exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from semcer.errors import SemcerError
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

REFS and HYPS are JSONL or TSV/CSV files (columns id, text, optional doc, lang), two line-aligned
text files, or two directories of .txt pages. Every number is printed with its signature: the
unit, the text policy (name and hash), the empty-reference policy, the aggregation, the judge, the
Unicode versions and the semcer version. Two numbers are comparable only when their signatures
match. `semcer COMMAND --help` is the manual of each command.

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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except SemcerError as exc:
        print(f"semcer: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("semcer: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
