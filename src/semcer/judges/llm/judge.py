"""The LLM judge: the paper's severity, read from the probabilities of the five label tokens.

A backend turns prompts into :class:`Reading` values (the raw probability of each label at the
answer position, or the answer text when a server gives no probabilities, or a failure); the judge
renormalises over the five labels, records the label mass before renormalising as a health flag,
and hands :class:`~semcer.judges.base.Judgement` values to the caller (normally ``judge_cached``,
so that every judged edit lands in the store).
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from semcer.alignment.context import DEFAULT_CONTEXT_WINDOW, EditContext
from semcer.errors import JudgeError
from semcer.judges.base import JudgeBase, JudgeSpec, JudgeStats, check_window
from semcer.judges.distribution import LEVELS, ONE_HOT_FLAG, Judgement
from semcer.judges.llm.prompt import LABEL_SETS, TEMPLATE_VERSION, Prompt, build_prompt, resolve_labels

#: Flag prefix of the label mass (the five labels' probability before renormalising).
LABEL_MASS_FLAG = "label_mass="
#: Flag prefix counting labels absent from the server's top log-probabilities (their mass is unknown, read as 0).
MISSING_FLAG = "labels_missing="
#: Flag of a judgement read from the answer text alone (no probabilities): a one-hot distribution.


@dataclass(frozen=True, slots=True)
class Reading:
    """What a backend read for one prompt.

    ``label_probs``: the probability of each label at the answer position, as the model gave it
    (not renormalised); ``answer``: the generated text when no probabilities came back;
    ``failure``: why neither is usable; ``missing``: labels absent from a top-k list.
    """

    label_probs: tuple[float, ...] | None = None
    answer: str | None = None
    failure: str = ""
    missing: int = 0


class Backend(Protocol):
    """What the judge needs from a model: an identity, a label check, and readings for prompts."""

    @property
    def identity(self) -> str: ...

    @property
    def preferred_batch_size(self) -> int: ...

    def spec(self) -> JudgeSpec: ...

    def prepare(self, labels: Sequence[str]) -> None: ...

    def read(self, prompts: Sequence[Prompt], labels: Sequence[str], stats: JudgeStats) -> list[Reading]: ...

    def close(self) -> None: ...


def label_probs_from_top(top: Iterable[tuple[str, float]], labels: Sequence[str]) -> tuple[tuple[float, ...], int]:
    """The probability of each label from (token, logprob) pairs of one position; labels absent count 0.

    A token counts for a label when it equals the label after stripping white space, so ``"0"`` and
    ``" 0"`` (the same answer, tokenised with and without a leading space) add up. Each distinct
    token string counts once. Returns the probabilities and the number of labels not seen.
    """
    index = {label: k for k, label in enumerate(labels)}
    probs = [0.0] * len(labels)
    seen = [False] * len(labels)
    tokens_done: set[str] = set()
    for token, logprob in top:
        if token in tokens_done:
            continue
        tokens_done.add(token)
        k = index.get(token.strip())
        if k is None:
            continue
        lp = float(logprob)
        if math.isnan(lp) or lp > 1e-6:
            raise ValueError(f"log-probability {logprob!r} of token {token!r} is not a log-probability")
        probs[k] += math.exp(min(lp, 0.0))
        seen[k] = True
    return tuple(probs), seen.count(False)


def judgement_from(reading: Reading, labels: Sequence[str]) -> Judgement:
    """The judgement of one reading: renormalised over the labels, with the label mass as a flag."""
    if reading.failure:
        return Judgement(None, failure=reading.failure)
    if reading.label_probs is not None:
        mass = math.fsum(reading.label_probs)
        if not mass > 0.0 or not math.isfinite(mass):
            return Judgement(None, failure=f"no label token among the returned probabilities ({', '.join(labels)})")
        p = tuple(x / mass for x in reading.label_probs)
        flags = [f"{LABEL_MASS_FLAG}{mass:.4f}"]
        if reading.missing:
            flags.append(f"{MISSING_FLAG}{reading.missing}")
        return Judgement(p, flags=tuple(flags))  # type: ignore[arg-type]
    if reading.answer is not None:
        answer = reading.answer.strip()
        if answer in labels:
            k = list(labels).index(answer)
            return Judgement(tuple(1.0 if i == k else 0.0 for i in range(LEVELS)), flags=(ONE_HOT_FLAG,))  # type: ignore[arg-type]
        return Judgement(None, failure=f"answer {answer[:40]!r} is not one of the labels {', '.join(labels)}")
    return Judgement(None, failure="the backend returned nothing")


def label_mass(judgement: Judgement) -> float | None:
    """The label mass recorded in a judgement's flags, or None (one-hot, failed, another judge)."""
    for flag in judgement.flags:
        if flag.startswith(LABEL_MASS_FLAG):
            try:
                return float(flag[len(LABEL_MASS_FLAG):])
            except ValueError:
                return None
    return None


class LLMJudge(JudgeBase):
    """The paper's judge: a prompt with the rubric and the edit, severity from the label distribution.

    ``backend`` is an :class:`~semcer.judges.llm.openai_backend.OpenAIBackend`,
    :class:`~semcer.judges.llm.hf_backend.HFBackend` or
    :class:`~semcer.judges.llm.vllm_backend.VLLMBackend`; ``labels`` a label-set name (``digits``:
    0-4, ``letters``: A-E) or five strings. ``stats`` counts requests, tokens, failures and one-hot
    readings over the judge's life.
    """

    def __init__(self, backend: Backend, *, labels: str | Sequence[str] = "digits",
                 context_window: int = DEFAULT_CONTEXT_WINDOW) -> None:
        self.backend = backend
        self.labels = resolve_labels(labels)
        self._window = check_window(context_window)
        self._stats = JudgeStats()
        self._lock = threading.Lock()
        backend.prepare(self.labels)

    @property
    def identity(self) -> str:
        """``llm/t1:openai:model=NAME@REV:labels=0|1|2|3|4``: everything that changes the output."""
        return f"llm/t{TEMPLATE_VERSION}:{self.backend.identity}:labels={'|'.join(self.labels)}:ctx={self._window}"

    @property
    def context_window(self) -> int:
        return self._window

    @property
    def preferred_batch_size(self) -> int:
        """Edits per ``judge()`` call that keep the backend busy (pass it to ``judge_cached``).

        Every call ends with its slowest request, so a batch holds many times the concurrency;
        a killed run loses at most one batch.
        """
        return self.backend.preferred_batch_size

    @property
    def stats(self) -> JudgeStats:
        return self._stats

    def spec(self) -> JudgeSpec:
        """The backend's spec, with the labels when they are not the default digits."""
        base = self.backend.spec()
        labels = next((name for name, ls in LABEL_SETS.items() if tuple(ls) == self.labels), list(self.labels))
        options = dict(base.options) if labels == "digits" else {**base.options, "labels": labels}
        if self._window != DEFAULT_CONTEXT_WINDOW:
            options["context_window"] = self._window
        return JudgeSpec(base.name, options)

    def prompt(self, ctx: EditContext) -> Prompt:
        """The prompt this judge sends for one edit."""
        return build_prompt(ctx, self.labels)

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        if not contexts:
            return []
        prompts = [self.prompt(ctx) for ctx in contexts]
        with self._lock:  # one batch at a time per judge; the backend runs the batch concurrently
            readings = self.backend.read(prompts, self.labels, self._stats)
        if len(readings) != len(prompts):
            raise JudgeError(f"backend {self.backend.identity!r} returned {len(readings)} readings for {len(prompts)} prompts")
        out = [judgement_from(r, self.labels) for r in readings]
        one_hot = sum(1 for j in out if ONE_HOT_FLAG in j.flags)
        self._stats.one_hot += one_hot
        self._stats.failures += sum(1 for j in out if j.p is None)
        if one_hot:
            warnings.warn(
                f"{self.backend.identity}: {one_hot} of {len(out)} edits came back without token "
                "probabilities; their severity is read from the answer alone as a one-hot distribution "
                f"(flag {ONE_HOT_FLAG!r}), which is not the paper's method. Use a server that returns "
                "logprobs (vLLM, SGLang and llama.cpp do).",
                RuntimeWarning,
                stacklevel=2,
            )
        return out

    def close(self) -> None:
        """Release the backend (HTTP connections, the model)."""
        self.backend.close()

    def __repr__(self) -> str:
        return f"LLMJudge({self.identity!r})"


@dataclass
class MassSummary:
    """Label-mass statistics over judgements that carry one."""

    n: int = 0
    min: float | None = None
    mean: float | None = None
    p5: float | None = None
    below_half: int = 0
    values: list[float] = field(default_factory=list, repr=False)

    @classmethod
    def of(cls, judgements: Iterable[Judgement]) -> MassSummary:
        values = sorted(m for m in (label_mass(j) for j in judgements) if m is not None)
        if not values:
            return cls()
        p5 = values[min(len(values) - 1, max(0, math.ceil(0.05 * len(values)) - 1))]
        return cls(len(values), values[0], math.fsum(values) / len(values), p5,
                   sum(1 for v in values if v < 0.5), values)

    def as_dict(self) -> dict[str, float | int | None]:
        return {"n": self.n, "min": self.min, "mean": self.mean, "p5": self.p5, "below_0.5": self.below_half}
