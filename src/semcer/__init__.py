"""semcer: character error rate with every convention declared, and severity-weighted CER.

    >>> import semcer
    >>> semcer.cer("110-2", "11O-2")
    0.2

The public API lives here: :func:`cer`, :func:`align`, :func:`evaluate` and the result types.
The package is layered (``text`` -> ``alignment`` -> ``judges`` -> ``store`` -> ``metrics`` ->
``statistics`` -> ``io``/``reports`` -> ``api`` -> ``scale`` -> ``cli``); see the README's layout.
"""

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

__all__ = [
    "PRESETS",
    "STEPS",
    "Alignment",
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
    "PolicyError",
    "SemcerError",
    "Signature",
    "StoreError",
    "TextPolicy",
    "Totals",
    "__version__",
    "align",
    "cer",
    "clear_caches",
    "compare",
    "evaluate",
    "get_policy",
]
