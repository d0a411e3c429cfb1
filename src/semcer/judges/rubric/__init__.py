"""The offline rubric judge: edit classes and lexicon checks mapped onto the five levels."""

from semcer.judges.rubric.judge import RubricJudge

__all__ = ["RubricJudge"]
