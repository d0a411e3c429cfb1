"""semcer: character error rate with every convention declared, and severity-weighted CER.

    >>> import semcer
    >>> semcer.cer("110-2", "11O-2")
    0.2
"""

from .align import Edit
from .errors import EmptyReferenceError, InputError, PolicyError, SemcerError
from .evaluate import Alignment, Evaluation, LineResult, align, cer, evaluate
from .policy import PRESETS, STEPS, TextPolicy, get_policy
from .signature import Signature
from .stats import LineStats, Totals
from .version import __version__

__all__ = [
    "Alignment", "Edit", "EmptyReferenceError", "Evaluation", "InputError", "LineResult",
    "LineStats", "PRESETS", "PolicyError", "STEPS", "SemcerError", "Signature", "TextPolicy",
    "Totals", "__version__", "align", "cer", "evaluate", "get_policy",
]
