"""Layer 7, the Python API: wiring the layers below into what a user calls.

``evaluation``: cer, align, evaluate, judge_corpus; ``comparison``: compare (paired systems with
bootstrap intervals and a regression gate); ``meta``: meta_eval (judges against readers);
``analysis``: analyze (which edits cost what, by class, script and language). The last two import
scipy, so they load on first use, not with ``import semcer``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from semcer.api.comparison import Comparison, compare
from semcer.api.evaluation import align, cer, evaluate, judge_corpus

if TYPE_CHECKING:
    from semcer.api.analysis import Analysis, analyze
    from semcer.api.meta import MetaEvaluation, meta_eval

#: Loaded on first use: name -> module.
LAZY = {"Analysis": "semcer.api.analysis", "analyze": "semcer.api.analysis",
        "MetaEvaluation": "semcer.api.meta", "meta_eval": "semcer.api.meta"}

__all__ = ["Analysis", "Comparison", "MetaEvaluation", "align", "analyze", "cer", "compare", "evaluate",
           "judge_corpus", "meta_eval"]


def __getattr__(name: str) -> Any:
    if name in LAZY:
        return getattr(importlib.import_module(LAZY[name]), name)
    raise AttributeError(f"module 'semcer.api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
