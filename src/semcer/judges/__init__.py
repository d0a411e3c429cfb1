"""Judges charge each grapheme edit a five-level severity distribution.

``resolve_judge`` turns a name from the command line into a judge; a judge object passes through.
Built-in names: ``rubric`` (offline rules and lexicons), ``compact`` (a small forest over the rubric's features).
"""

from __future__ import annotations

from typing import Any

from ..errors import JudgeError
from .base import EditContext, FixedJudge, Judge, Judgement

__all__ = ["DEFAULT_JUDGE", "EditContext", "FixedJudge", "Judge", "Judgement", "resolve_judge", "JUDGE_NAMES"]

#: The judge `semcer score` uses when none is named: the best of the built-in judges on the dev split.
DEFAULT_JUDGE = "compact"  # dev Spearman 0.874 vs the rubric's 0.782; clear pairs 99.0% vs 98.1%

#: name -> one-line description (shown by `semcer score --help`).
JUDGE_NAMES: dict[str, str] = {
    "rubric": "offline rubric judge: edit classes and wordfreq lexicons mapped to the five levels",
    "compact": "compact built-in scorer: a small forest over the rubric's features, trained on the labelled edits",
    "llm": "the paper's LLM judge on an OpenAI-compatible server (--endpoint URL --model NAME)",
    "hf:PATH": "the LLM judge on a local Hugging Face causal LM (a model directory)",
    "vllm:MODEL": "the LLM judge on vLLM's offline engine (GPU)",
    "student:DIR": "transformer student trained by `semcer distill` (checkpoint DIR; needs semcer[hf])",
}


def resolve_judge(spec: Any, **options: Any) -> Judge:
    """A judge from a name (see ``JUDGE_NAMES``) or a judge object.

    ``options`` configure the LLM judge: ``resolve_judge("llm", endpoint=..., model=...)`` (or
    ``config=OpenAIConfig(...)``), ``resolve_judge("hf:/path/to/model", device="cpu")``.
    """
    if not isinstance(spec, str):
        if not isinstance(spec, Judge):
            raise JudgeError(f"{spec!r} is not a judge: it needs an `identity` and a `judge(contexts)` method")
        return spec
    name = spec.strip()
    if name == "llm" or name.startswith(("hf:", "vllm:")):
        from .llm import build_llm_judge

        return build_llm_judge(name, **options)
    if name.startswith("student:"):
        from .student import StudentJudge

        return StudentJudge(name[len("student:"):])
    if name == "rubric":
        from .rubric import RubricJudge

        return RubricJudge()
    if name == "compact":
        from .compact import CompactJudge

        return CompactJudge()
    raise JudgeError(f"unknown judge {spec!r}; choose one of: {', '.join(JUDGE_NAMES)}")
