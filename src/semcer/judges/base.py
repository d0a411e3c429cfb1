"""The judge contract: a batch of edit contexts in, one five-level distribution per edit out.

A judge never sees corpus statistics and the metric code never sees a judge's internals: adding a
judge means writing one class with ``identity`` and ``judge()``; nothing in the metric changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence, runtime_checkable

#: Number of rubric levels; level k has rating k/4 (paper, Table 1).
LEVELS = 5
RATINGS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)

#: Marks around the edited unit in the marked pair (same as the labelled data in data/severity/).
MARK_OPEN = "\u27e6"  # ⟦
MARK_CLOSE = "\u27e7"  # ⟧


@dataclass(frozen=True, slots=True)
class EditContext:
    """Everything a judge may use to charge one grapheme edit.

    ``ref`` and ``hyp`` are the full lines after the text policy; ``ref_pos``/``hyp_pos`` are unit
    indices into them (for an insertion ``ref_pos`` is the index before which the unit would stand,
    for a deletion ``hyp_pos`` likewise). ``marked_ref``/``marked_hyp`` are the lines with the edited
    unit between ⟦ ⟧ (an empty ⟦⟧ on the side where nothing stands). ``lang`` is the item's language
    tag, or the one detected from the script (``lang_source`` says which).
    """

    lang: str
    op: str  # "S", "D" or "I"
    ref_unit: str
    hyp_unit: str
    ref_pos: int
    hyp_pos: int
    ref: str
    hyp: str
    marked_ref: str
    marked_hyp: str
    line_id: str = ""
    doc: str = ""
    lang_source: str = "item"  # "item" or "script"

    def content_key(self) -> str:
        """What identifies this edit for caching: not the line id or where the line stands."""
        return "\x1f".join((self.lang, self.op, self.marked_ref, self.marked_hyp))


@dataclass(frozen=True, slots=True)
class Judgement:
    """A judge's answer for one edit.

    ``p`` is a distribution over the five levels (sums to 1), or ``None`` when the judge failed on
    this edit (``failure`` says why); a failed edit is reported and never charged as 0.
    ``edit_class`` is the judge's class of the edit when it computes one; ``flags`` are notes such as
    ``"no-lexicon"`` or ``"one-hot"`` (no probabilities available).
    """

    p: tuple[float, float, float, float, float] | None
    edit_class: str = ""
    flags: tuple[str, ...] = ()
    failure: str = ""

    @property
    def severity(self) -> float | None:
        """Expected rating, Σ p_k · k/4."""
        if self.p is None:
            return None
        return sum(pk * rk for pk, rk in zip(self.p, RATINGS))

    @property
    def mode(self) -> int | None:
        """Most likely level (the lowest level wins a tie)."""
        if self.p is None:
            return None
        return max(range(LEVELS), key=lambda k: (self.p[k], -k))


@runtime_checkable
class Judge(Protocol):
    """What every judge provides.

    ``identity`` names the judge and everything that changes its output (name, version, model and
    revision, template version, ...); it goes into the result signature and into the store's key.
    """

    @property
    def identity(self) -> str: ...

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]: ...


def severity_of(p: Sequence[float]) -> float:
    """Expected rating of a five-level distribution."""
    return sum(pk * rk for pk, rk in zip(p, RATINGS))


@dataclass(frozen=True)
class FixedJudge:
    """Charges every edit the same distribution, or a per-edit distribution given by a function.

    Used for the paper's arithmetic checks and for tests; ``name`` goes into the identity.
    """

    p: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 1.0)
    name: str = "fixed"
    fn: object = field(default=None, compare=False)

    @property
    def identity(self) -> str:
        return f"{self.name}:p={','.join(f'{x:g}' for x in self.p)}"

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        if self.fn is not None:
            return [Judgement(tuple(self.fn(c))) for c in contexts]  # type: ignore[operator]
        return [Judgement(self.p) for _ in contexts]
