"""Options shared by several subcommands: what is compared, how results are written, which judge.

The judge options are one set for every subcommand that judges (``score``, ``judge``,
``judge-eval``): the LLM judge's options are checked against the backend lists that
:mod:`semcer.judges.llm` owns, so a new option is added in one place.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Sized
from typing import Any

from semcer.alignment.engine import EMPTY_REF_POLICIES
from semcer.errors import InputError, JudgeError, SemcerError
from semcer.io.collections import LANGUAGE_TAG, PAGE_FORMATS, RECOGNISED, STDIN, detect_file_format, input_formats
from semcer.io.jsonl import json_type, parse_option
from semcer.io.pairing import UNMATCHED_POLICIES
from semcer.judges import DEFAULT_JUDGE, JUDGE_NAMES
from semcer.text.policy import DEFAULT_POLICY, PRESETS

#: LLM options as command-line destinations (each ``--endpoint`` etc. is None unless given).
LLM_ARGS = ("endpoint", "model", "model_revision", "api_key_env", "concurrency", "timeout", "max_retries",
            "max_response_bytes", "max_connection_failures", "extra_body", "labels", "device", "dtype", "batch_size",
            "chat_template_kwargs", "revision")


def add_input_options(p: argparse.ArgumentParser, *, many_hyps: bool = False) -> None:
    """REFS HYPS (several HYPS with ``many_hyps``: the systems of a comparison), their formats, and the
    options that decide what is compared and how."""
    p.add_argument("refs", metavar="REFS", help="references: JSONL or a JSON array of objects, TSV/CSV with a header "
                   "(id, text, optional doc, lang), Parquet with those columns or a directory of Parquet shards "
                   "(semcer[parquet]), a plain-text file (one line per item, line number = id; against one page "
                   "file: that page's text) or a directory of .txt "
                   "pages, a PAGE-XML, ALTO or hOCR page file or a directory of them; '-' reads standard input; .gz "
                   "is decompressed; the format is detected from the content (binary files are refused)")
    if many_hyps:
        p.add_argument("hyps", metavar="SYS", nargs="+",
                       help="the outputs of each system, in any of the forms of REFS; the first is the baseline")
    else:
        p.add_argument("hyps", metavar="HYPS", help="outputs to score, in any of the forms of REFS ('-': standard "
                       "input, for one of the two only)")
    formats = ", ".join(input_formats())
    p.add_argument("--format", metavar="FORMAT", type=_input_format,
                   help=f"read REFS and HYPS as FORMAT instead of detecting it: {formats}")
    p.add_argument("--ref-format", metavar="FORMAT", dest="ref_format", type=_input_format,
                   help="the format of REFS only (overrides --format)")
    p.add_argument("--hyp-format", metavar="FORMAT", dest="hyp_format", type=_input_format,
                   help="the format of HYPS only (overrides --format)")
    g = p.add_argument_group("page files (PAGE-XML, ALTO, hOCR)")
    g.add_argument("--level", choices=("region", "line"), default="region", action=StoreGiven,
                   help="whose text is read: regions (PAGE TextRegion, ALTO TextBlock, hOCR ocr_par; default) or lines")
    g.add_argument("--by-line", action=_TrueGiven, dest="by_line",
                   help="score each region or line as its own item (id PAGE#ELEMENT) instead of each page as one "
                   "text; elements pair by their id, which is each file's own (Tesseract's ALTO block_0 and hOCR par_1_1 "
                   "never pair): give both sides in one format from one tool; a page whose elements share no id is refused")
    g.add_argument("--page-dialect", choices=("auto", "semcer", "dinglehopper"), default="auto", dest="page_dialect",
                   action=StoreGiven,
                   help="extraction rules: semcer's (documented), or dinglehopper 0.11's; auto (default): dinglehopper's "
                   "with --policy dinglehopper, else semcer's")
    g.add_argument("--hyphen", choices=("keep", "join", "drop"), action=StoreGiven,
                   help="ALTO HYP: keep the hyphen as printed (default), join the word (SUBS_CONTENT), or drop the hyphen")
    g.add_argument("--keep-going", action="store_true", dest="keep_going",
                   help="a directory with a malformed page file: score the other pages and list the failures")
    p.add_argument("--lang", metavar="TAG", type=_language_tag,
                   help="the language of items that name none (a BCP 47 tag such as de, vi, zh-CN, or a locale name "
                   "such as zh_CN); without it a judge "
                   "guesses it from the script")
    p.add_argument("--unit", choices=("grapheme", "codepoint"), default="grapheme",
                   help="unit of comparison: extended grapheme clusters (default) or Unicode code points (as jiwer)")
    p.add_argument("--policy", default=DEFAULT_POLICY, metavar="NAME",
                   help=f"text policy applied to both sides before alignment: a preset ({', '.join(PRESETS)}) or "
                   "steps and presets joined by '+', e.g. nfkc+casefold+collapse-ws or strip-markdown+dinglehopper (a preset "
                   "stands for its steps there; casefold and nfc, both a preset and a step, are the step there, so "
                   "casefold+nfc is not the casefold preset; see `semcer policies`); default: %(default)s")
    p.add_argument("--empty-ref", choices=tuple(EMPTY_REF_POLICIES), default="error", dest="empty_ref",
                   help="what an empty reference does (with --wer also a reference without words, e.g. punctuation "
                   "only): " + "; ".join(f"{k}: {v}" for k, v in EMPTY_REF_POLICIES.items()))
    p.add_argument("--unmatched", choices=tuple(UNMATCHED_POLICIES), default="error",
                   help="ids present on one side only: " + "; ".join(f"{k}: {v}" for k, v in UNMATCHED_POLICIES.items()))


#: Where the destinations of the options given on the command line are noted (:func:`was_given`).
GIVEN = "given_options"


def _note_given(namespace: argparse.Namespace, dest: str) -> None:
    setattr(namespace, GIVEN, getattr(namespace, GIVEN, frozenset()) | {dest})


class StoreGiven(argparse._StoreAction):
    """``store``, noting that the option was given: its default alone cannot tell ``--level region``
    (given, and refused where it does not apply) from no ``--level`` at all."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        super().__call__(parser, namespace, values, option_string)
        _note_given(namespace, self.dest)


class _TrueGiven(argparse._StoreTrueAction):
    """``store_true``, noting that the option was given (as :class:`StoreGiven`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        super().__call__(parser, namespace, values, option_string)
        _note_given(namespace, self.dest)


#: Where :class:`Once` notes the value each of its options was first given.
_ONCE = "once_options"


class Once(argparse._StoreAction):
    """``store`` for an option that names one file or folder (an output, an input file): given again
    with another path it is refused, naming the option, instead of keeping the last silently (a
    second ``--edits`` would otherwise leave the first file unwritten). The same path twice is one."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        seen: dict[str, tuple[str | None, Any]] = getattr(namespace, _ONCE, {})
        if self.dest in seen and _one_path(seen[self.dest][1]) != _one_path(values):
            (flag, first), shown = seen[self.dest], lambda v: "-" if v is None else str(v)
            raise argparse.ArgumentError(self, f"given twice ({flag} {shown(first)}, then {option_string} "
                                         f"{shown(values)}); it takes one path: give it once")
        setattr(namespace, _ONCE, {**seen, self.dest: (option_string, values)})
        super().__call__(parser, namespace, values, option_string)


def _one_path(value: Any) -> Any:
    """What two spellings of one path (``a.txt``, ``./a.txt``) have in common, for :class:`Once`."""
    return os.path.normpath(value) if isinstance(value, str) and value not in ("", "-") else value


def was_given(args: argparse.Namespace, dest: str) -> bool:
    """Whether an option read with :class:`StoreGiven` or :class:`_TrueGiven` was on the command line."""
    return dest in getattr(args, GIVEN, ())


#: The largest seed (numpy's seeds are unsigned 32-bit numbers): every --seed takes 0 to this.
SEED_MAX = 2**32 - 1


def seed(text: str) -> int:
    """An argparse type: ``--seed``, a whole number from 0 to :data:`SEED_MAX`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to {SEED_MAX}, got {text!r}") from None
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"must be from 0 to {SEED_MAX}, got {value}")
    return value


def output_file(text: str) -> str | None:
    """An argparse type: ``-o FILE``, where ``-`` is standard output (None, as when it is left out)."""
    if text == "-":
        return None
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: give a file name, or - for standard output")
    return text


def _language_tag(text: str) -> str:
    """An argparse type: ``--lang``, a language tag (:data:`semcer.io.collections.LANGUAGE_TAG`), as in input files."""
    if LANGUAGE_TAG.fullmatch(text):
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not a language tag (BCP 47 such as de, vi, zh-CN, or a locale "
                                     "name such as zh_CN)")


def add_measure_options(p: argparse.ArgumentParser) -> None:
    """Word error rate and the reading-order-robust page score, beside CER."""
    g = p.add_argument_group("beside CER")
    g.add_argument("--wer", action="store_true", help="also word error rate and the bag-of-words error")
    g.add_argument("--tokenizer", choices=("uax29", "whitespace", "auto"), default="uax29", action=StoreGiven,
                   help="words for --wer: UAX #29 word boundaries without punctuation-only tokens (default, as OCR-D "
                   "counts words), whitespace-separated tokens, or auto (a dictionary tokenizer for Chinese and "
                   "Japanese; WER undefined for Thai, Lao, Khmer, Burmese, Tibetan)")
    g.add_argument("--page-score", action="store_true", dest="page_score",
                   help="also the reading-order-robust page score: lines matched one-to-one by least edit distance "
                   "before alignment, so regions or columns read in another order cost nothing")


def add_output_options(p: argparse.ArgumentParser, *, lines: bool = True) -> None:
    p.add_argument("--json", action="store_true", help="print JSON for machines instead of the table")
    if lines:
        p.add_argument("--lines", action="store_true", help="with --json, include one row per line")
    p.add_argument("--output", "-o", metavar="FILE", type=output_file, action=Once,
                   help="write the result to FILE (atomically) instead of standard output (- is standard output)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also say, on standard error, what each step did and how long it took")
    p.add_argument("--by", action="append", choices=("lang", "doc"), metavar="lang|doc",
                   help="add a breakdown per language or per document (every document) to the table and the JSON "
                   "(repeatable)")


def use_color(args: argparse.Namespace) -> bool:
    """Colour in tables: only on a terminal, not into a file, not with NO_COLOR (https://no-color.org)."""
    import os

    return not getattr(args, "json", False) and not getattr(args, "output", None) and sys.stdout.isatty() \
        and not os.environ.get("NO_COLOR")


#: What a store does for each kind of judge (:func:`semcer.store.cached.judge_cached`): an LLM or
#: student judge's stored answers are read back; the offline judges' are written, never read.
STORE_READ = ("an LLM judge (llm, hf:PATH, vllm:MODEL) or a student:DIR reads it back: an edit already in it is "
              "not judged again, in this run or a later one")
STORE_WRITTEN = ("the offline judges (compact, rubric) only write it, for `semcer store export`, `semcer study create "
                 "--from STORE` or `semcer distill`: their judgements are recomputed, never read back (cheaper than "
                 "reading, and a stored row can never change their scores)")
STORE_HELP = f"SQLite store of judged edits: {STORE_READ}; {STORE_WRITTEN}"


def add_judge_options(parser: argparse.ArgumentParser, *, default_judge: str | None = DEFAULT_JUDGE,
                      store_help: str = STORE_HELP) -> None:
    """``--judge``, ``--store`` and the LLM judge's options."""
    parser.add_argument("--judge", default=default_judge, metavar="NAME",
                        help=f"judge charging each edit (default: %(default)s; one of {', '.join(JUDGE_NAMES)})")
    parser.add_argument("--store", metavar="PATH", action=Once, help=store_help)
    parser.add_argument("--context-window", type=int, metavar="N", dest="context_window",
                        help="grapheme units the judge sees on each side of an edit (default: 100; a line no longer "
                        "than that is seen whole); part of the judge's identity")
    g = parser.add_argument_group("LLM judge (--judge llm, hf:PATH or vllm:MODEL)")
    g.add_argument("--endpoint", metavar="URL",
                   help="base URL of an OpenAI-compatible server, as for the OpenAI client, e.g. http://127.0.0.1:8000/v1")
    g.add_argument("--model", metavar="NAME", help="the served model's name (what the server lists at /v1/models)")
    g.add_argument("--model-revision", metavar="REV", dest="model_revision",
                   help="what pins the served weights beyond the name (commit, quantisation); part of the judge identity")
    g.add_argument("--api-key-env", metavar="VAR", dest="api_key_env",
                   help="environment variable holding the API key (default: OPENAI_API_KEY; no key is sent when it is unset)")
    g.add_argument("--concurrency", type=int, metavar="N", help="requests in flight at most (default: 16)")
    g.add_argument("--timeout", type=float, metavar="S", help="seconds to wait for one answer (default: 60)")
    g.add_argument("--max-retries", type=int, metavar="K", dest="max_retries",
                   help="retries of a request after 429, 5xx, a timeout, a lost connection or a malformed answer (default: 5)")
    g.add_argument("--max-response-bytes", type=int, metavar="N", dest="max_response_bytes",
                   help="largest answer body read, in bytes (default: 1048576); a longer answer fails its edit, not retried")
    g.add_argument("--max-connection-failures", type=int, metavar="N", dest="max_connection_failures",
                   help="connection failures in a row that stop the run: at once when the server never answered, "
                   "else the edits left fail (default: 3; 0: never stop)")
    g.add_argument("--extra-body", metavar="JSON", dest="extra_body", type=_json_object("--extra-body"),
                   help='JSON merged into every request, e.g. \'{"chat_template_kwargs": {"enable_thinking": false}}\'')
    g.add_argument("--labels", metavar="SET",
                   help="answer labels: digits (0-4, default), letters (A-E), or five comma-separated strings")
    g.add_argument("--device", metavar="DEV", help="hf: and student: torch device (default: cuda when available, "
                   "else cpu)")
    g.add_argument("--dtype", metavar="DTYPE", help="hf:/vllm: weights dtype: auto (default), bfloat16, float16, float32")
    g.add_argument("--batch-size", type=int, metavar="N", dest="batch_size",
                   help="hf: prompts per forward pass (default: 8); student: edits per forward pass (default: 16)")
    g.add_argument("--chat-template-kwargs", metavar="JSON", dest="chat_template_kwargs",
                   type=_json_object("--chat-template-kwargs"),
                   help='hf:/vllm: options of the chat template, e.g. \'{"enable_thinking": false}\'')
    g.add_argument("--revision", metavar="REV", help="vllm: model revision to load")


#: The judge options the distilled student takes from the command line (``student:DIR``).
STUDENT_OPTIONS = frozenset({"device", "batch_size"})


def judge_from_args(args: argparse.Namespace) -> Any:
    """The judge named by ``--judge``, configured by the LLM options when it is an LLM judge."""
    from semcer.judges import resolve_judge
    from semcer.judges.llm import is_llm_spec, llm_options

    spec = (getattr(args, "judge", None) or "").strip()
    if not spec:
        raise JudgeError("no judge: give --judge llm (with --endpoint and --model), --judge hf:PATH or another judge name")
    given = {name: getattr(args, name) for name in LLM_ARGS if getattr(args, name, None) is not None}
    flags = lambda names: ", ".join("--" + k.replace("_", "-") for k in names)
    window = getattr(args, "context_window", None)
    common = {} if window is None else {"context_window": window}
    if spec.startswith("student:"):  # a transformer too: where it runs and how many edits a forward pass takes
        wrong = [k for k in given if k not in STUDENT_OPTIONS]
        if wrong:
            raise JudgeError(f"{flags(wrong)} {_agree(wrong, 'does', 'do')} not apply to --judge student:DIR (it "
                             f"takes {flags(sorted(STUDENT_OPTIONS))})")
        return resolve_judge(spec, **given, **common)
    if not is_llm_spec(spec):
        if given:
            raise JudgeError(f"{flags(given)} {_agree(given, 'applies', 'apply')} to the LLM judge only (--judge llm, "
                             f"hf:PATH or vllm:MODEL), not to {spec!r}")
        return resolve_judge(spec, **common)
    wrong = [k for k in given if k not in llm_options(spec)]
    if wrong:
        kind = "--judge llm" if spec == "llm" else "--judge hf:PATH" if spec.startswith("hf:") else "--judge vllm:MODEL"
        raise JudgeError(f"{flags(wrong)} {_agree(wrong, 'does', 'do')} not apply to {kind}")
    return resolve_judge(spec, **given, **common)


def _agree(names: Sized, one: str, many: str) -> str:
    """``one`` for a single option named, ``many`` for several: "--x applies", "--x, --y apply"."""
    return one if len(names) == 1 else many


def _json_object(flag: str) -> Callable[[str], dict]:
    """An argparse type: a JSON object, parsed by the one JSON reader (semcer.io.jsonl), so hostile
    JSON (nesting, huge integers, escaped NULs) is refused as in every input file."""

    def parse(text: str) -> dict:
        try:
            value = parse_option(text, flag)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{flag}: ")) from None
        if type(value) is not dict:
            raise argparse.ArgumentTypeError(f"expected a JSON object {{...}}, got {json_type(value)}")
        return value

    return parse


def _input_format(name: str) -> str:
    if name in input_formats():
        return name
    if name in RECOGNISED:
        raise argparse.ArgumentTypeError(f"{RECOGNISED[name]} ({name}) is recognised but not supported yet; "
                                         f"one of {', '.join(input_formats())}")
    raise argparse.ArgumentTypeError(f"unknown format {name!r}; one of {', '.join(input_formats())}")


def check_int(args: argparse.Namespace, dest: str, lo: int, hi: int | None = None, meaning: str = "",
              flag: str | None = None) -> None:
    """A SemcerError (one line, exit 2) when the integer option ``dest`` is outside [lo, hi]; ``flag``:
    the option's name when it is not ``dest`` spelt as a flag."""
    value = getattr(args, dest)
    if value is None or (value >= lo and (hi is None or value <= hi)):
        return
    flag = flag or "--" + dest.replace("_", "-")
    span = f"at least {lo}" if hi is None else f"from {lo} to {hi}"
    raise SemcerError(f"{flag} must be {span}{meaning}, got {value}")


def show_progress(args: argparse.Namespace) -> bool:
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def add_comparison_options(p: argparse.ArgumentParser, scope: str = "") -> None:
    """The options of a comparison of systems (``scope`` prefixes their help, e.g. "compare: ")."""
    p.add_argument("--names", metavar="A,B,...", help="names of the systems, comma-separated (default: the paths)")
    p.add_argument("--n-resamples", type=int, default=10_000, metavar="N", dest="n_resamples", action=StoreGiven,
                   help=f"{scope}bootstrap resamples, and randomizations (default: %(default)s)")
    p.add_argument("--seed", type=seed, default=0, action=StoreGiven,
                   help=f"{scope}seed of the resampling (default: %(default)s)")
    p.add_argument("--confidence", type=float, default=0.95, action=StoreGiven,
                   help=f"{scope}interval level (default: %(default)s)")
    p.add_argument("--method", choices=("percentile", "bca"), default="percentile", action=StoreGiven,
                   help=f"{scope}bootstrap interval: percentile (default) or bias-corrected and accelerated")
    p.add_argument("--no-judge", action="store_true", dest="no_judge", help="CER only (no semCER)")


def add_scale_options(p: argparse.ArgumentParser) -> None:
    """``--workers``, ``--chunk-lines``, ``--engine``, ``--ray-address``, ``--work-dir``."""
    from semcer.scale.chunks import DEFAULT_CHUNK_LINES

    g = p.add_argument_group("scale (docs/scale.md)")
    g.add_argument("--workers", type=int, metavar="N",
                   help="worker processes aligning and running the offline judges, chunk by chunk (default: every "
                   "core this process may use); with --engine ray, judge actors; the result does not depend on N")
    g.add_argument("--chunk-lines", type=int, default=DEFAULT_CHUNK_LINES, metavar="N", dest="chunk_lines",
                   help="lines per chunk: memory holds a few chunks per worker, not the corpus (default: %(default)s)")
    g.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local (default): this machine; ray: a Ray cluster, chunks prepared with Ray Data and judges "
                   "in Ray actors (needs semcer[ray])")
    g.add_argument("--ray-address", metavar="ADDR", dest="ray_address",
                   help="with --engine ray: the cluster to join (e.g. ray://head:10001 or auto; default: a local Ray)")
    g.add_argument("--ray-gpus", type=float, default=0.0, metavar="G", dest="ray_gpus",
                   help="with --engine ray: GPUs each judge actor reserves (a student:DIR or hf: judge on GPU nodes; "
                   "default: 0, as for the offline judges and an LLM judge on a server)")
    g.add_argument("--work-dir", metavar="DIR", dest="work_dir", action=Once,
                   help="keep a completion marker per finished chunk in DIR (an existing folder, or a new one whose "
                   "parent exists): a killed run started again with the same DIR (and --store) goes on where it "
                   "stopped, judging no edit twice")


def scale_from_args(args: argparse.Namespace, *, top: int, by_edit: bool, edits: str | None) -> Any:
    """The :class:`semcer.scale.pipeline.StreamSettings` the scale options ask for (checked before any work)."""
    from semcer.scale.executors import all_cores
    from semcer.scale.pipeline import StreamSettings

    check_int(args, "workers", 1)
    check_int(args, "chunk_lines", 1)
    if (args.ray_address or args.ray_gpus) and args.engine != "ray":
        raise SemcerError("--ray-address and --ray-gpus apply to --engine ray")
    if args.ray_gpus < 0:
        raise SemcerError(f"--ray-gpus must be at least 0, got {args.ray_gpus}")
    if args.work_dir is not None:
        from semcer.scale.markers import check_work_dir

        check_work_dir(args.work_dir)
    if args.engine == "ray":
        from semcer.scale.ray_engine import import_ray

        import_ray()
    elif args.workers is not None and args.workers > all_cores():
        print(f"semcer: note: --workers {args.workers} is more than the {all_cores()} core(s) this process may use: "
              "the workers share them (the result is the same, only slower than with "
              f"--workers {all_cores()})", file=sys.stderr)
    return StreamSettings(chunk_lines=args.chunk_lines, workers=args.workers or all_cores(), engine=args.engine,
                          ray_address=args.ray_address, ray_gpus=args.ray_gpus, top=top, by_edit=by_edit, edits=edits,
                          work_dir=args.work_dir)


def _on(args: argparse.Namespace, dest: str) -> bool:
    """Whether option ``dest`` is set: a flag given, a value other than None (absent options: not set)."""
    return getattr(args, dest, None) not in (None, False)


def _scores_one_system_with_a_judge(args: argparse.Namespace) -> bool:
    """Whether ``semcer report`` streams (one SYS, judged): what --work-dir resumes (cli.report)."""
    hyps = getattr(args, "hyps", None)
    return not _on(args, "no_judge") and (isinstance(hyps, str) or (isinstance(hyps, list) and len(hyps) == 1))


#: The options of a comparison of systems (:func:`add_comparison_options`).
_COMPARISON = ("n_resamples", "seed", "confidence", "method")

#: The combinations of options refused before any work, each with its one-line reason: an option
#: that only means something beside another, or two that contradict each other. Every subcommand
#: is checked against every rule (:func:`check_usage`); an option a subcommand lacks is not set.
USAGE_RULES: tuple[tuple[Callable[[argparse.Namespace], bool], str], ...] = (
    (lambda a: _on(a, "lines") and not _on(a, "json"), "--lines adds one row per line to the JSON: give --json too"),
    (lambda a: was_given(a, "tokenizer") and not _on(a, "wer"),
     "--tokenizer chooses the words of --wer: give --wer too"),
    (lambda a: _on(a, "quiet") and _on(a, "verbose"),
     "--quiet and --verbose contradict each other: give one of them"),
    (lambda a: _on(a, "store") and _on(a, "no_judge"),
     "--store keeps judged edits, and --no-judge judges none: leave one of them out"),
    (lambda a: hasattr(a, "report_lines")  # the report's options (meta-eval has a --ratings of its own)
     and (any(was_given(a, d) for d in ("report_lines", "report_spans")) or _on(a, "ratings") or _on(a, "title"))
     and not (_on(a, "html") or _on(a, "plots")),
     "--report-lines, --report-spans, --ratings and --title shape the HTML report: give --html FILE (or --plots DIR) "
     "too, or leave them out"),
    (lambda a: getattr(a, "command", None) == "report" and len(getattr(a, "hyps", None) or ()) == 1
     and (any(was_given(a, d) for d in _COMPARISON) or len((getattr(a, "names", None) or "").split(",")) > 1),
     "--names with several names, --n-resamples, --seed, --confidence and --method compare systems: the report of "
     "one system has none of them; give two systems or more, or leave them out"),
    (lambda a: getattr(a, "unit", "grapheme") != "grapheme" and getattr(a, "judge", None) is not None
     and not _on(a, "no_judge"),
     "--unit codepoint with a judge: semCER charges grapheme edits, and the judges read an edit's place in graphemes; "
     "judge with --unit grapheme (the default), or compute code point CER without a judge (semcer cer --unit "
     "codepoint, or --no-judge with compare and report)"),
    (lambda a: _on(a, "work_dir") and not _scores_one_system_with_a_judge(a),
     "--work-dir resumes the streamed scoring of one system with a judge; with --no-judge, several systems or "
     "a SCORE.json nothing is streamed: leave it out"),
    (lambda a: (_on(a, "workers") or getattr(a, "engine", None) == "ray" or _on(a, "ray_address"))
     and not _scores_one_system_with_a_judge(a),
     "--workers, --engine ray and --ray-address run the streamed scoring of one system with a judge; with "
     "--no-judge, several systems or a SCORE.json nothing is streamed: leave them out"),
)

#: The options that apply to page files only (destinations and flags): how PAGE-XML, ALTO and hOCR are read.
PAGE_ONLY = {"level": "--level", "by_line": "--by-line", "page_dialect": "--page-dialect", "hyphen": "--hyphen"}


def check_usage(args: argparse.Namespace) -> None:
    """Refuse, before any work, a combination of :data:`USAGE_RULES`, and the page-file options when
    no input is a page file as far as can be told without reading the inputs (a directory, standard
    input and gzip data are known only once read: :func:`check_page_options` again then). One line,
    a SemcerError (exit status 2)."""
    for refused, why in USAGE_RULES:
        if refused(args):
            raise SemcerError(why)
    if getattr(args, "endpoint", None) is not None:  # before the inputs are read, not when the judge is built
        from semcer.judges.llm.openai_backend import check_endpoint

        check_endpoint(args.endpoint)
    inputs = input_paths(args)
    if getattr(args, "keep_going", False) and inputs and not any(_folder(path) for path, _ in inputs):
        raise SemcerError("--keep-going applies to folders of pages (a malformed page is listed and the others "
                          "scored), and no input is a folder: leave it out")
    if not any(was_given(args, dest) for dest in PAGE_ONLY):
        return  # nothing to check: the inputs' first bytes are not read for it
    if inputs:
        known = [_page_file(path, fmt) for path, fmt in inputs]
        if None not in known:
            check_page_options(args, (bool(k) for k in known))


def input_paths(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """Each input path (REFS, then every HYPS or SYS) with the format forced for it, if any."""
    refs, hyps = getattr(args, "refs", None), getattr(args, "hyps", None)
    if refs is None:
        return []
    both = getattr(args, "format", None)
    ref_format, hyp_format = getattr(args, "ref_format", None) or both, getattr(args, "hyp_format", None) or both
    return [(refs, ref_format), *((h, hyp_format) for h in ([hyps] if isinstance(hyps, str) else hyps or []))]


def _folder(path: str) -> bool:
    """Whether ``path`` names a folder; a path that cannot be looked at counts as one (the reader
    then says what is wrong with it)."""
    try:
        return path != STDIN and (os.path.isdir(path) or not os.path.exists(path))
    except (OSError, ValueError):
        return True


def _page_file(path: str, forced: str | None) -> bool | None:
    """Whether ``path`` is read as a page file; None when only reading it can tell."""
    if forced is not None:
        return forced in PAGE_FORMATS
    if path == STDIN:
        return None
    fmt = detect_file_format(path)
    return None if fmt is None else fmt in PAGE_FORMATS


def check_page_options(args: argparse.Namespace, page_inputs: Iterable[bool]) -> None:
    """Refuse --level, --by-line, --page-dialect and --hyphen when no input (``page_inputs``: whether each is page
    files) is PAGE-XML, ALTO or hOCR: they would change nothing, silently."""
    given = [flag for dest, flag in PAGE_ONLY.items() if was_given(args, dest)]
    if given and not any(page_inputs):
        raise SemcerError(f"{', '.join(given)} {_agree(given, 'applies', 'apply')} to page files only (PAGE-XML, "
                          f"ALTO, hOCR), and no input is one: leave {_agree(given, 'it', 'them')} out")
