"""Layer 7, the Python API: wiring the layers below into what a user calls.

``evaluation``: cer, align, evaluate, judge_corpus; ``comparison``: compare (paired systems with
bootstrap intervals and a regression gate).
"""

from semcer.api.comparison import Comparison, compare
from semcer.api.evaluation import align, cer, evaluate, judge_corpus

__all__ = ["Comparison", "align", "cer", "compare", "evaluate", "judge_corpus"]
