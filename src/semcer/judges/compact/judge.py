"""The compact built-in scorer as a judge: features of a batch, then one pass of the forest."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from semcer.alignment.context import DEFAULT_CONTEXT_WINDOW, EditContext
from semcer.judges.base import JudgeBase, JudgeSpec, check_window
from semcer.judges.compact.features import feature_columns
from semcer.judges.compact.model import CHUNK, load_model
from semcer.judges.distribution import LEVELS, Judgement
from semcer.judges.rubric import extra_lexicons
from semcer.judges.rubric.lexicon import wordfreq_version

COMPACT_VERSION = "1.0"

_FLAGS_BY_NO_LEXICON: tuple[tuple[str, ...], tuple[str, ...]] = ((), ("no-lexicon",))


class CompactJudge(JudgeBase):
    """The compact built-in scorer: a small forest over the rubric's features, numpy only.

    ``identity`` is ``compact-<version>+<first 10 hex of the forest file's sha256>+wordfreq-<version>+xlex-<hash>+ctx<window>``
    (``xlex-``: the word lists installed for the languages wordfreq lacks,
    :func:`~semcer.judges.rubric.extra_lexicons.version`).
    ``judge()`` computes the features of up to ``CHUNK`` edits (the rubric's cached line and word
    lookups), then runs the forest once for them, until the batch is done. Flags: ``no-lexicon`` marks a letter, mark or ideograph
    edit in a language wordfreq has no list for.
    """

    def __init__(self, directory: str | Path | None = None, context_window: int = DEFAULT_CONTEXT_WINDOW) -> None:
        self.directory = None if directory is None else str(directory)
        self.model = load_model(self.directory)
        self._window = check_window(context_window)

    @property
    def context_window(self) -> int:
        return self._window

    @property
    def deterministic(self) -> bool:
        return True

    @property
    def identity(self) -> str:
        return (f"compact-{COMPACT_VERSION}+{self.model.sha256[:10]}+wordfreq-{wordfreq_version()}"
                f"+{extra_lexicons.version()}+ctx{self._window}")

    def predict_proba(self, contexts: Sequence[EditContext]) -> np.ndarray:
        """Five-level distributions of a batch of edits, shape (n, 5)."""
        out = np.empty((len(contexts), LEVELS))
        for a in range(0, len(contexts), CHUNK):
            numeric, codes, _, _ = feature_columns(contexts[a : a + CHUNK])
            out[a : a + CHUNK] = self.model.predict_columns(numeric, codes)
        return out

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        """Judge a batch of edits: features and the forest's vectorised pass ``CHUNK`` edits at a
        time, so that a large batch keeps no more than that many edits' features alive."""
        judgements: list[Judgement] = []
        for a in range(0, len(contexts), CHUNK):
            numeric, codes, classes, no_lex = feature_columns(contexts[a : a + CHUNK])
            P = self.model.predict_columns(numeric, codes)
            distributions = zip(*P.T.tolist())  # one tuple of five floats per edit
            flags = map(_FLAGS_BY_NO_LEXICON.__getitem__, no_lex.tolist())
            judgements += map(Judgement, distributions, classes, flags)
        return judgements

    def spec(self) -> JudgeSpec:
        options: dict[str, str | int] = {} if self.directory is None else {"directory": self.directory}
        if self._window != DEFAULT_CONTEXT_WINDOW:
            options["context_window"] = self._window
        return JudgeSpec("compact", options)

    def __repr__(self) -> str:
        return f"CompactJudge({'' if self.directory is None else repr(self.directory)})"
