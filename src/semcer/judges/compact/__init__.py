"""The compact built-in scorer (the default judge): a small forest over the rubric's features."""

from semcer.judges.compact.judge import CompactJudge

__all__ = ["CompactJudge"]
