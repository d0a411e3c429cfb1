"""The offline rubric judge: the rule table over the edit features, offline and deterministic.

:class:`RubricJudge` returns a distribution with most of its mass on the rule's level and the rest
on a neighbour, so that edits of one level are still ordered by how close they come to the next.
"""

from __future__ import annotations

from collections.abc import Sequence

from semcer.alignment.context import DEFAULT_CONTEXT_WINDOW, EditContext
from semcer.judges.base import JudgeBase, JudgeSpec, check_window
from semcer.judges.distribution import Judgement
from semcer.judges.rubric import extra_lexicons
from semcer.judges.rubric.features import feature_tuple
from semcer.judges.rubric.lexicon import wordfreq_version
from semcer.judges.rubric.rules import CONTENT, LEVEL, MODE_MASS, RULES, level_distribution, rubric_rule, table_hash

RUBRIC_VERSION = "1.0"

_FLAGS = {r.id: (f"rule:{r.id}",) for r in RULES}
_FLAGS_NO_LEXICON = {r.id: (f"rule:{r.id}", "no-lexicon") for r in RULES}


class RubricJudge(JudgeBase):
    """The embedded default judge: the rule table over :func:`edit_features`, offline, deterministic.

    ``identity`` is ``rubric-<version>+<table hash>+wordfreq-<version>+xlex-<hash>+ctx<window>`` (``xlex-``: the
    word lists installed for the languages wordfreq lacks); ``mode_mass`` is the
    share of each distribution on the rule's level (1.0 gives one-hot distributions).
    Flags: ``rule:<id>`` names the rule applied; ``no-lexicon`` marks a letter, mark or ideograph
    edit in a language wordfreq has no list for, judged by class rules only.
    """

    def __init__(self, mode_mass: float = MODE_MASS, context_window: int = DEFAULT_CONTEXT_WINDOW) -> None:
        if not 0.5 < mode_mass <= 1.0:
            raise ValueError(f"mode_mass must be in (0.5, 1], got {mode_mass}")
        self.mode_mass = mode_mass
        self._window = check_window(context_window)

    @property
    def identity(self) -> str:
        soft = "" if self.mode_mass == MODE_MASS else f"+mass{self.mode_mass:g}"
        return (f"rubric-{RUBRIC_VERSION}+{table_hash()}{soft}+wordfreq-{wordfreq_version()}"
                f"+{extra_lexicons.version()}+ctx{self._window}")

    @property
    def context_window(self) -> int:
        return self._window

    @property
    def deterministic(self) -> bool:
        return True

    def judge_one(self, ctx: EditContext) -> Judgement:
        """Judge one edit."""
        f = feature_tuple(ctx)
        rule_id, tilt = rubric_rule(f)
        cls = f.edit_class
        no_lex = not f.lexicon and cls in CONTENT
        p = level_distribution(LEVEL[rule_id], tilt, self.mode_mass)
        return Judgement(p, cls, (_FLAGS_NO_LEXICON if no_lex else _FLAGS)[rule_id])  # type: ignore[arg-type]

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        """Judge a batch of edits (each on its own; lines shared by edits are analysed once)."""
        return [self.judge_one(c) for c in contexts]

    def spec(self) -> JudgeSpec:
        options: dict[str, float | int] = {} if self.mode_mass == MODE_MASS else {"mode_mass": self.mode_mass}
        if self._window != DEFAULT_CONTEXT_WINDOW:
            options["context_window"] = self._window
        return JudgeSpec("rubric", options)

    def __repr__(self) -> str:
        return f"RubricJudge(mode_mass={self.mode_mass:g})"
