"""The judge contract: a batch of edit contexts in, one five-level distribution per edit out.

A judge never sees corpus statistics and the metric code never sees a judge's internals: adding a
judge means writing one class with ``identity`` and ``judge()``; nothing in the metric changes.

Beyond that contract a judge may offer optional capabilities, declared by :class:`JudgeBase` with
their defaults, so that callers never probe attributes: the batch size it prefers, live counters
(requests, retries, failures), a :class:`JudgeSpec` from which a worker process rebuilds it, and
``close()`` for the resources it holds (it is a context manager). :func:`as_judge` gives any object
that keeps the contract these capabilities with their defaults.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, runtime_checkable

from semcer.alignment.context import DEFAULT_CONTEXT_WINDOW, EditContext
from semcer.errors import InputError, JudgeError, first_line
from semcer.judges.distribution import Distribution, Judgement


@runtime_checkable
class Judge(Protocol):
    """What every judge provides.

    ``identity`` names the judge and everything that changes its output (name, version, model and
    revision, template version, ...); it goes into the result signature and into the store's key.
    """

    @property
    def identity(self) -> str: ...

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]: ...


@dataclass
class JudgeStats:
    """Live counters of one judge object, updated as requests complete (read them for progress bars).

    ``requests`` counts every attempt sent (retries included; forward passes for local models),
    ``in_flight`` the requests (or prompts) open now, ``edits`` the edits answered (failures
    included), ``failures`` the edits that ended without a distribution, ``one_hot`` those read from
    the answer text because no probabilities came back.
    """

    requests: int = 0
    retries: int = 0
    in_flight: int = 0
    edits: int = 0
    failures: int = 0
    one_hot: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_reported: bool = False

    def as_dict(self) -> dict[str, int | bool]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "in_flight"}


@dataclass(frozen=True)
class JudgeSpec:
    """A judge by name and options, serialisable (JSON), so that another process can rebuild it.

    ``JudgeSpec("compact")``, ``JudgeSpec("llm", {"endpoint": ..., "model": ...})``. Secrets are
    never part of a spec: an API key is named by the environment variable that holds it.
    """

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def build(self) -> JudgeBase:
        """The judge this spec names (:func:`semcer.judges.resolve_judge`)."""
        from semcer.judges import resolve_judge

        return resolve_judge(self.name, **dict(self.options))

    def to_json(self) -> str:
        return json.dumps({"name": self.name, "options": dict(self.options)}, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> JudgeSpec:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise JudgeError(f"not a judge spec: {text[:80]!r}")
        return cls(data["name"], dict(data.get("options") or {}))


def check_judged_unit(unit: str) -> None:
    """Refuse to judge edits of any unit but graphemes: semCER charges grapheme edits, and the
    judges lay a line out in graphemes and read an edit's positions there (a code point index on a
    line with multi-code-point graphemes points elsewhere), and a store keys an edit by its content,
    not its unit."""
    if unit != "grapheme":
        raise InputError(f"unit {unit!r} with a judge: semCER charges grapheme edits, and the judges read an edit's "
                         "place in graphemes; judge with unit 'grapheme' (the default), or compute code point CER "
                         "without a judge (`semcer cer --unit codepoint`, or judge=None)")


def whole_number(name: str, value: Any, least: int, most: int | None = None, unit: str = "") -> int:
    """``value`` as an int when it is a whole number from ``least`` (to ``most``, when given); else a
    JudgeError naming option ``name``. The one wording of every judge's count option (``unit``: what
    is counted, e.g. ``"grapheme units"``): ``concurrency must be a whole number at least 1, got 0``."""
    try:
        number = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        number = None
    if number is None or number < least or (most is not None and number > most):
        span = f"between {least} and {most}" if most is not None else f"at least {least}"
        of = f" of {unit}" if unit else ""
        raise JudgeError(f"{name} must be a whole number{of} {span}, got {value!r}")
    return number


def check_window(window: int) -> int:
    """``window`` if it is a usable context window (a whole number of units, at least 1)."""
    return whole_number("context_window", window, 1, unit="grapheme units")


@contextmanager
def loading(where: str, what: str) -> Iterator[None]:
    """Any failure inside becomes one JudgeError line, ``WHERE: could not load WHAT (REASON)``, the
    reason being the first line of the library's error (a JudgeError passes unchanged).

    For loading a model, tokenizer or checkpoint with torch or transformers: a broken or foreign
    directory makes them raise anything (ValueError, OSError, KeyError, RuntimeError, ...), often
    with many lines, and the user should see which directory and why, not a traceback.
    """
    try:
        yield
    except JudgeError:
        raise
    except Exception as exc:
        raise JudgeError(f"{where}: could not load {what} ({first_line(exc)})") from exc


class JudgeBase:
    """Base of semcer's judges: the optional capabilities, with their defaults.

    Subclasses provide ``identity`` and ``judge()``; they may override the rest.
    """

    @property
    def preferred_batch_size(self) -> int:
        """Edits per call that suit this judge (the store commits one batch at a time)."""
        return 256

    @property
    def identity(self) -> str:
        raise NotImplementedError

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        raise NotImplementedError

    @property
    def deterministic(self) -> bool:
        """Whether the same edit always gets the same answer here, cheaply: then stored answers are
        never read back (they are recomputed, so a forged or damaged row cannot change a score)."""
        return False

    @property
    def context_window(self) -> int:
        """Grapheme units this judge sees on each side of an edit (see :mod:`semcer.alignment.context`)."""
        return DEFAULT_CONTEXT_WINDOW

    @property
    def stats(self) -> JudgeStats | None:
        """Live counters (requests, retries, failures), or None for a judge that keeps none."""
        return None

    def spec(self) -> JudgeSpec | None:
        """How to rebuild this judge in another process, or None when it cannot be (e.g. a judge
        made of a Python function)."""
        return None

    def close(self) -> None:
        """Release what the judge holds (connections, threads, models); idempotent."""

    def __enter__(self) -> JudgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Adapted(JudgeBase):
    """A judge that keeps only the contract (``identity`` and ``judge``), with default capabilities."""

    def __init__(self, inner: Judge) -> None:
        self.inner = inner

    @property
    def identity(self) -> str:
        return self.inner.identity

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        return self.inner.judge(contexts)

    def __repr__(self) -> str:
        return f"as_judge({self.inner!r})"


def as_judge(obj: Any) -> JudgeBase:
    """``obj`` as a :class:`JudgeBase`: itself when it is one, else wrapped with default capabilities.

    A JudgeError when ``obj`` does not keep the contract (an ``identity`` and a ``judge`` method).
    """
    if isinstance(obj, JudgeBase):
        return obj
    if not isinstance(obj, Judge):
        raise JudgeError(f"{obj!r} is not a judge: it needs an `identity` and a `judge(contexts)` method")
    return _Adapted(obj)


@dataclass(frozen=True)
class FixedJudge(JudgeBase):
    """Charges every edit the same distribution, or a per-edit distribution given by a function.

    Used for the paper's arithmetic checks and for tests; ``name`` goes into the identity.
    """

    p: Distribution = (0.0, 0.0, 0.0, 0.0, 1.0)
    name: str = "fixed"
    fn: Callable[[EditContext], Sequence[float]] | None = field(default=None, compare=False)

    @property
    def identity(self) -> str:
        return f"{self.name}:p={','.join(f'{x:g}' for x in self.p)}"

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        if self.fn is not None:
            return [Judgement(tuple(self.fn(c))) for c in contexts]  # type: ignore[arg-type]
        return [Judgement(self.p) for _ in contexts]

    def spec(self) -> JudgeSpec | None:
        return None if self.fn is not None else JudgeSpec("fixed", {"p": list(self.p), "name": self.name})
