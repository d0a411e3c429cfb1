"""semcer: character error rate with every convention declared, and severity-weighted CER.

    >>> import semcer
    >>> semcer.cer("110-2", "11O-2")
    0.2

The public API lives here: :func:`cer`, :func:`align`, :func:`evaluate` and the result types.
The package is layered (``text`` -> ``alignment`` -> ``judges`` -> ``store`` -> ``metrics`` ->
``statistics`` -> ``io``/``reports`` -> ``api`` -> ``scale`` -> ``cli``); see the README's layout.
"""

import importlib
from typing import TYPE_CHECKING, Any

from semcer.errors import EmptyReferenceError, InputError, JudgeError, PolicyError, SemcerError, StoreError
from semcer.version import __version__

if TYPE_CHECKING:
    from semcer.alignment.edits import Edit
    from semcer.alignment.line import Alignment, LineResult, LineStats
    from semcer.api import Analysis, Comparison, MetaEvaluation, align, analyze, cer, compare, evaluate, meta_eval
    from semcer.caches import clear_caches
    from semcer.metrics.aggregate import DocumentResult
    from semcer.metrics.results import Evaluation
    from semcer.metrics.rows import ExactSum, Totals
    from semcer.metrics.signature import Signature
    from semcer.text.policy import PRESETS, STEPS, TextPolicy, get_policy

#: Where each public name lives; it is imported on first use, so that ``import semcer`` (and the
#: ``semcer`` command's start, before it can answer Ctrl-C) does not load numpy and the engine.
_HOMES = {
    "Edit": "semcer.alignment.edits", "Alignment": "semcer.alignment.line", "LineResult": "semcer.alignment.line",
    "LineStats": "semcer.alignment.line", "clear_caches": "semcer.caches", "DocumentResult": "semcer.metrics.aggregate",
    "Evaluation": "semcer.metrics.results", "ExactSum": "semcer.metrics.rows", "Totals": "semcer.metrics.rows",
    "Signature": "semcer.metrics.signature", "PRESETS": "semcer.text.policy", "STEPS": "semcer.text.policy",
    "TextPolicy": "semcer.text.policy", "get_policy": "semcer.text.policy",
    **dict.fromkeys(("Analysis", "Comparison", "MetaEvaluation", "align", "analyze", "cer", "compare", "evaluate",
                     "meta_eval"), "semcer.api"),
}

__all__ = [
    "PRESETS",
    "STEPS",
    "Alignment",
    "Analysis",
    "Comparison",
    "DocumentResult",
    "Edit",
    "EmptyReferenceError",
    "Evaluation",
    "ExactSum",
    "InputError",
    "JudgeError",
    "LineResult",
    "LineStats",
    "MetaEvaluation",
    "PolicyError",
    "SemcerError",
    "Signature",
    "StoreError",
    "TextPolicy",
    "Totals",
    "__version__",
    "align",
    "analyze",
    "cer",
    "clear_caches",
    "compare",
    "evaluate",
    "get_policy",
    "meta_eval",
]


def __getattr__(name: str) -> Any:
    """A public name, imported on first use (see :data:`_HOMES`) and kept."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'semcer' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
