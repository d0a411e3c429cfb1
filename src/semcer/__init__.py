"""semcer: character error rate with every convention declared, and severity-weighted CER.

    >>> import semcer
    >>> semcer.cer("110-2", "11O-2")
    0.2

The public API lives here: :func:`cer`, :func:`align`, :func:`evaluate` and the result types.
The package is layered (``text`` -> ``alignment`` -> ``judges`` -> ``store`` -> ``metrics`` ->
``statistics`` -> ``io``/``reports`` -> ``api`` -> ``scale`` -> ``cli``); see the README's layout.
"""

from typing import TYPE_CHECKING, Any

from semcer.alignment.edits import Edit
from semcer.alignment.line import Alignment, LineResult, LineStats
from semcer.api import Comparison, align, cer, compare, evaluate
from semcer.caches import clear_caches
from semcer.errors import EmptyReferenceError, InputError, JudgeError, PolicyError, SemcerError, StoreError
from semcer.metrics.aggregate import DocumentResult
from semcer.metrics.results import Evaluation
from semcer.metrics.rows import ExactSum, Totals
from semcer.metrics.signature import Signature
from semcer.text.policy import PRESETS, STEPS, TextPolicy, get_policy
from semcer.version import __version__

if TYPE_CHECKING:
    from semcer.api import Analysis, MetaEvaluation, analyze, meta_eval

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
    """``meta_eval``, ``analyze`` and their results load on first use (they import scipy)."""
    import semcer.api

    if name in semcer.api.LAZY:
        return getattr(semcer.api, name)
    raise AttributeError(f"module 'semcer' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
