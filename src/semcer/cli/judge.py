"""`semcer judge`: judge a corpus's edits into the store without scoring (pre-judging, resuming).

Also home of the LLM judge's command-line options: ``semcer score`` calls :func:`add_llm_options`
and :func:`judge_from_args` to offer the same ``--judge llm --endpoint ... --model ...``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import Counter
from typing import Any, Sequence

from ..errors import JudgeError
from .common import add_input_options, dumps, emit, load_pairs, show_progress

HELP = """\
Judge every grapheme edit of HYPS against REFS into a judged-edit store, without scoring.

Run it once against a GPU server, then `semcer score ... --store PATH` (with the same judge
options) reads every severity from the store and sends nothing. A killed run resumes where it
stopped: each batch is stored as soon as it is judged, and only edits missing from the store are
sent. Edits that failed (no usable answer after the retries) are reported, not stored, and tried
again by the next run; the exit status is then 1.

examples:
  vllm serve Qwen/Qwen3-8B --port 8000 --enable-prefix-caching
  semcer judge refs.jsonl hyps.jsonl --judge llm --endpoint http://127.0.0.1:8000/v1 \\
      --model Qwen/Qwen3-8B --store judged.sqlite --concurrency 64
  semcer judge refs.jsonl hyps.jsonl --judge hf:/models/Qwen3-0.6B --store judged.sqlite
"""

#: Options added by add_llm_options (besides --judge and --store), all None unless given.
_OPENAI_ARGS = ("endpoint", "model", "model_revision", "api_key_env", "concurrency", "timeout",
                "max_retries", "extra_body")
_LOCAL_ARGS = ("device", "dtype", "batch_size", "chat_template_kwargs", "revision")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help="judge a corpus's edits into a store without scoring (LLM pre-judging)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_options(p)
    p.add_argument("--json", action="store_true", help="print the run's summary as JSON")
    p.add_argument("--output", "-o", metavar="FILE", help="write the summary to FILE (atomically) instead of standard output")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--commit-every", type=int, metavar="N", dest="commit_every",
                   help="edits judged per store commit: a killed run loses at most this many "
                   "(default: 8 × concurrency, at least 256)")
    add_llm_options(p, default_judge="llm")
    p.set_defaults(func=run)


def add_llm_options(parser: argparse.ArgumentParser, *, default_judge: str | None = None) -> None:
    """The LLM judge's options; ``--judge`` and ``--store`` are added only when the parser lacks them."""
    have = getattr(parser, "_option_string_actions", {})
    if "--judge" not in have:
        parser.add_argument("--judge", default=default_judge, metavar="NAME",
                            help="llm (an OpenAI-compatible server), hf:PATH (a local Hugging Face model), "
                            "vllm:MODEL (vLLM's offline engine), or another judge name (default: %(default)s)")
    if "--store" not in have:
        parser.add_argument("--store", metavar="PATH",
                            help="SQLite store of judged edits: reused across runs, so no edit is judged twice")
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
    g.add_argument("--extra-body", metavar="JSON", dest="extra_body", type=_json_object,
                   help='JSON merged into every request, e.g. \'{"chat_template_kwargs": {"enable_thinking": false}}\'')
    g.add_argument("--labels", metavar="SET",
                   help="answer labels: digits (0-4, default), letters (A-E), or five comma-separated strings")
    g.add_argument("--device", metavar="DEV", help="hf: torch device (default: cuda when available, else cpu)")
    g.add_argument("--dtype", metavar="DTYPE", help="hf:/vllm: weights dtype: auto (default), bfloat16, float16, float32")
    g.add_argument("--batch-size", type=int, metavar="N", dest="batch_size", help="hf: prompts per forward pass (default: 8)")
    g.add_argument("--chat-template-kwargs", metavar="JSON", dest="chat_template_kwargs", type=_json_object,
                   help='hf:/vllm: options of the chat template, e.g. \'{"enable_thinking": false}\'')
    g.add_argument("--revision", metavar="REV", help="vllm: model revision to load")


def judge_from_args(args: argparse.Namespace) -> Any:
    """The judge named by ``--judge``, configured by the LLM options when it is an LLM judge."""
    from ..judges import resolve_judge
    from ..judges.llm import is_llm_spec

    spec = (getattr(args, "judge", None) or "").strip()
    if not spec:
        raise JudgeError("no judge: give --judge llm (with --endpoint and --model), --judge hf:PATH or another judge name")
    given = {name: getattr(args, name, None) for name in (*_OPENAI_ARGS, *_LOCAL_ARGS, "labels")}
    given = {k: v for k, v in given.items() if v is not None}
    if not is_llm_spec(spec):
        if given:
            flags = ", ".join("--" + k.replace("_", "-") for k in given)
            raise JudgeError(f"{flags} apply to the LLM judge only (--judge llm, hf:PATH or vllm:MODEL), not to {spec!r}")
        return resolve_judge(spec)
    if spec == "llm":
        allowed, kind = (*_OPENAI_ARGS, "labels"), "--judge llm"
    elif spec.startswith("hf:"):
        allowed, kind = ("device", "dtype", "batch_size", "chat_template_kwargs", "labels"), "--judge hf:PATH"
    else:
        allowed, kind = ("dtype", "chat_template_kwargs", "revision", "labels"), "--judge vllm:MODEL"
    wrong = [k for k in given if k not in allowed]
    if wrong:
        raise JudgeError(f"{', '.join('--' + k.replace('_', '-') for k in wrong)} do not apply to {kind}")
    return resolve_judge(spec, **given)


def _json_object(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("expected a JSON object {...}")
    return value


# -- the run -----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    from ..store import JudgedEditStore

    if args.commit_every is not None and args.commit_every < 1:
        raise JudgeError(f"--commit-every must be at least 1, got {args.commit_every}")
    if not args.store:
        raise JudgeError("semcer judge writes judged edits into a store: give --store PATH (e.g. --store judged.sqlite)")
    paired = load_pairs(args)
    contexts = corpus_contexts(paired, unit=args.unit, policy=args.policy, empty_ref=args.empty_ref)
    judge = judge_from_args(args)
    try:
        with JudgedEditStore(args.store) as store:
            judgements, summary = judge_into_store(judge, contexts, store, progress=show_progress(args),
                                                   batch_size=args.commit_every)
    finally:
        close = getattr(judge, "close", None)
        if close is not None:
            close()
    summary["store"] = str(args.store)
    emit(dumps(summary) if args.json else render_summary(summary), args.output)
    if summary["failures"]:
        print(f"semcer: {summary['failures']} edit(s) could not be judged (not stored); rerun to retry only those",
              file=sys.stderr)
        return 1
    return 0


def corpus_contexts(paired: Any, *, unit: str, policy: str, empty_ref: str) -> list:
    """The judge contexts of every edit of a corpus, built exactly as ``semcer score`` builds them."""
    from ..context import edit_contexts
    from ..evaluate import evaluate

    result = evaluate(paired, unit=unit, policy=policy, empty_ref=empty_ref, edits=True)
    contexts = []
    for row in result.lines:
        if row.edits:
            al = row.alignment
            contexts.extend(edit_contexts(row.edits, al.ref_units, al.hyp_units, lang=row.lang, line_id=row.id, doc=row.doc))
    return contexts


def judge_into_store(judge: Any, contexts: Sequence, store: Any, *, progress: bool = False,
                     batch_size: int | None = None) -> tuple[list, dict]:
    """Judge ``contexts`` through ``store`` (cache hits are not sent); returns judgements and a summary."""
    from ..store import JudgedEditStore, judge_cached

    started = time.monotonic()
    identity = judge.identity
    keys = [JudgedEditStore.key(identity, c) for c in contexts]
    unique = list(dict.fromkeys(keys))
    found = store.get_many(unique)
    first: dict[str, Any] = {}
    for key, ctx in zip(keys, contexts):
        first.setdefault(key, ctx)
    misses = [first[k] for k in unique if k not in found]
    size = batch_size or getattr(judge, "preferred_batch_size", 256)
    bar = _Progress(len(unique), len(found), judge) if progress and misses else None
    try:
        judged, cache = judge_cached(judge, misses, store, batch_size=size, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    results = dict(found)
    results.update(zip((JudgedEditStore.key(identity, c) for c in misses), judged))
    judgements = [results[k] for k in keys]
    summary = run_summary(judge, [results[k] for k in unique], total=len(contexts),
                          hits=len(found) + cache.hits, sent=cache.judged, seconds=time.monotonic() - started)
    return judgements, summary


def run_summary(judge: Any, unique_judgements: Sequence, *, total: int, hits: int, sent: int,
                seconds: float) -> dict:
    """Requests, tokens, cache hits, failures and label-mass statistics of one run, as a dict.

    ``unique_judgements`` holds one judgement per distinct edit (failures and one-hot readings are
    counted once however often the edit occurs); ``total`` counts every edit.
    """
    from ..judges.llm import ONE_HOT_FLAG, MassSummary

    stats = getattr(judge, "stats", None)
    failed = [j for j in unique_judgements if j.p is None]
    reasons = Counter(j.failure for j in failed)
    summary: dict[str, Any] = {
        "judge": judge.identity,
        "edits": total,
        "unique_edits": len(unique_judgements),
        "cache_hits": hits,
        "judged": sent,
        "failures": len(failed),
        "failure_reasons": dict(reasons.most_common(5)),
        "one_hot": sum(1 for j in unique_judgements if ONE_HOT_FLAG in j.flags),
        "seconds": round(seconds, 3),
        "edits_per_second": round(sent / seconds, 1) if seconds > 0 and sent else None,
        "label_mass": MassSummary.of(unique_judgements).as_dict(),
    }
    if stats is not None:
        summary["requests"] = stats.requests
        summary["retries"] = stats.retries
        summary["prompt_tokens"] = stats.prompt_tokens if stats.tokens_reported else None
        summary["completion_tokens"] = stats.completion_tokens if stats.tokens_reported else None
    return summary


def render_summary(s: dict) -> str:
    """The summary as a few aligned lines for people."""
    mass = s["label_mass"]
    rows = [
        ("judge", s["judge"]),
        ("edits", f"{s['edits']} ({s['unique_edits']} distinct)"),
        ("cache hits", str(s["cache_hits"])),
        ("judged now", f"{s['judged']}" + (f" at {s['edits_per_second']} edits/s" if s.get("edits_per_second") else "")),
    ]
    if "requests" in s:
        rows.append(("requests", f"{s['requests']} ({s['retries']} retries)"))
        if s.get("prompt_tokens") is not None:
            rows.append(("tokens", f"{s['prompt_tokens']} prompt, {s['completion_tokens']} completion"))
    rows.append(("failures", str(s["failures"])))
    for reason, n in s.get("failure_reasons", {}).items():
        rows.append(("", f"{n} × {reason}"))
    if s["one_hot"]:
        rows.append(("one-hot", f"{s['one_hot']} edits read without probabilities (not the paper's method)"))
    if mass["n"]:
        rows.append(("label mass", f"min {mass['min']:.3f} · mean {mass['mean']:.3f} · p5 {mass['p5']:.3f} "
                                   f"· {mass['below_0.5']} below 0.5 (over {mass['n']} edits)"))
    if s.get("store"):
        rows.append(("store", s["store"]))
    rows.append(("time", f"{s['seconds']:.1f} s"))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


class _Progress:
    """A tqdm bar on standard error: edits done (hits included), hits, in flight, failures, rate."""

    def __init__(self, total: int, hits: int, judge: Any) -> None:
        from tqdm import tqdm

        self._judge = judge
        self._hits = hits
        self._stats = getattr(judge, "stats", None)
        self._base = self._stats.edits if self._stats is not None else 0
        self._done_batches = 0
        self._bar = tqdm(total=total, initial=hits, desc="judging", unit="edit", file=sys.stderr,
                         dynamic_ncols=True, mininterval=0.25, smoothing=0.1)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="semcer-progress", daemon=True)
        self._thread.start()

    def __call__(self, done: int, total: int) -> None:  # judge_cached's per-batch callback
        self._done_batches = done
        self._refresh()

    def _poll(self) -> None:
        while not self._stop.wait(0.25):
            self._refresh()

    def _refresh(self) -> None:
        with self._lock:
            self._refresh_locked()

    def _refresh_locked(self) -> None:
        s = self._stats
        done = (s.edits - self._base) if s is not None else self._done_batches
        if s is not None:
            self._bar.set_postfix_str(f"hits={self._hits} in-flight={s.in_flight} failures={s.failures} "
                                      f"requests={s.requests}", refresh=False)
        n = min(self._bar.total, self._hits + max(done, self._done_batches))
        if n > self._bar.n:
            self._bar.update(n - self._bar.n)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)
        self._refresh()
        self._bar.close()
