"""Judges charge each grapheme edit a five-level severity distribution.

``resolve_judge`` turns a name from the command line into a judge; a judge object passes through.
Built-in names: ``rubric`` (offline rules and lexicons).
"""

from __future__ import annotations

from typing import Any

from ..errors import JudgeError
from .base import EditContext, FixedJudge, Judge, Judgement

__all__ = ["DEFAULT_JUDGE", "EditContext", "FixedJudge", "Judge", "Judgement", "resolve_judge", "JUDGE_NAMES"]

#: The judge `semcer score` uses when none is named: the best of the built-in judges on the dev split.
DEFAULT_JUDGE = "rubric"

#: name -> one-line description (shown by `semcer score --help`).
JUDGE_NAMES: dict[str, str] = {
    "rubric": "offline rubric judge: edit classes and wordfreq lexicons mapped to the five levels",
    "student:DIR": "transformer student trained by `semcer distill` (checkpoint DIR; needs semcer[hf])",
}


def resolve_judge(spec: Any) -> Judge:
    """A judge from a name (see ``JUDGE_NAMES``) or a judge object."""
    if not isinstance(spec, str):
        if not isinstance(spec, Judge):
            raise JudgeError(f"{spec!r} is not a judge: it needs an `identity` and a `judge(contexts)` method")
        return spec
    name = spec.strip()
    if name.startswith("student:"):
        from .student import StudentJudge

        return StudentJudge(name[len("student:"):])
    if name == "rubric":
        from .rubric import RubricJudge

        return RubricJudge()
    raise JudgeError(f"unknown judge {spec!r}; choose one of: {', '.join(JUDGE_NAMES)}")
