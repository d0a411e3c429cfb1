"""What a judge sees for one edit: the marked pair, the language, and the text around the edit.

One judged item per grapheme edit, as in the paper: the edit is marked with ⟦ ⟧ in both lines
(an empty ⟦⟧ on the side where nothing stands) and every other edit of the line stays as it is.

A judge sees a bounded context: at most ``window`` grapheme units on each side of the edit, on
each side of the pair (:data:`DEFAULT_CONTEXT_WINDOW` = 100, so an ordinary line, shorter than
that, is seen whole; the paper's judge read marked pairs of up to 2,048 tokens). On a long line or a
page the judge sees the 2 × window + 1 units around the edit, so memory and the store grow with
edits × window, never with edits × line length. The window is part of every built-in judge's
identity (``+ctx100``): a different window is a different judge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from itertools import accumulate

from semcer.alignment.edits import Edit
from semcer.caches import cache
from semcer.speedups import compiled
from semcer.text.cluster_ids import RESERVED, Clusters
from semcer.text.script import detect_language

#: Grapheme units a judge sees on each side of an edit, on each side of the pair.
DEFAULT_CONTEXT_WINDOW = 100

#: Marks around the edited unit in the marked pair (same as the labelled data in data/severity/).
MARK_OPEN = "\u27e6"  # ⟦
MARK_CLOSE = "\u27e7"  # ⟧


def content_key(lang: str, op: str, marked_ref: str, marked_hyp: str) -> str:
    """What identifies an edit for caching: its language, operation and marked pair; not the line
    id or where the line stands, so the same error elsewhere is the same edit."""
    return "\x1f".join((lang, op, marked_ref, marked_hyp))


@dataclass(frozen=True, slots=True)
class EditContext:
    """Everything a judge may use to charge one grapheme edit.

    ``ref`` and ``hyp`` are the lines after the text policy, or the window of them around the edit
    on a line longer than the window (``ref_start``/``hyp_start`` say where it starts);
    ``ref_pos``/``hyp_pos`` are unit indices into them (for an insertion ``ref_pos`` is the index
    before which the unit would stand, for a deletion ``hyp_pos`` likewise). ``marked_ref`` and
    ``marked_hyp`` are those texts with the edited unit between ⟦ ⟧ (an empty ⟦⟧ on the side where
    nothing stands). ``lang`` is the item's language tag, or the one detected from the script
    (``lang_source`` says which).
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
    ref_start: int = 0  # where ``ref`` starts in the reference line (units): 0 unless the line was cut
    hyp_start: int = 0

    def content_key(self) -> str:
        """See :func:`content_key`."""
        return content_key(self.lang, self.op, self.marked_ref, self.marked_hyp)


def mark(units: Sequence[str], pos: int, present: bool) -> str:
    """The line with unit ``pos`` between ⟦ ⟧, or an empty ⟦⟧ before unit ``pos``."""
    head = "".join(units[:pos])
    if present:
        return f"{head}{MARK_OPEN}{units[pos]}{MARK_CLOSE}{''.join(units[pos + 1:])}"
    return f"{head}{MARK_OPEN}{MARK_CLOSE}{''.join(units[pos:])}"


def _offsets(units: Sequence[str], text: str) -> Sequence[int]:
    """Where each unit of ``units`` starts in ``text`` (their concatenation), plus its length (in C,
    ``_speedups.offsets``, for a list or a :class:`Clusters` when that was built)."""
    if len(units) == len(text):
        return range(len(text) + 1)
    fast = _fast_offsets()
    if fast is not None and type(units) in (list, Clusters):
        return fast(units, text, Clusters, *RESERVED)
    return list(accumulate(map(len, units), initial=0))


@cache(maxsize=1)
def _fast_offsets() -> Callable[..., list[int]] | None:
    """``semcer.alignment._speedups.offsets``, or None when it was not built or ``SEMCER_PURE_PYTHON=1``."""
    speedups = compiled("semcer.alignment._speedups")
    return None if speedups is None else speedups.offsets


def _marked(text: str, lo: int, a: int, b: int, hi: int) -> str:
    """``text[lo:hi]`` with ``text[a:b]`` between ⟦ ⟧ (an empty ⟦⟧ at ``a`` when ``a == b``)."""
    return f"{text[lo:a]}{MARK_OPEN}{text[a:b]}{MARK_CLOSE}{text[b:hi]}"


def edit_contexts(
    edits: Sequence[Edit],
    ref_units: Sequence[str],
    hyp_units: Sequence[str],
    *,
    lang: str | None,
    line_id: str = "",
    doc: str = "",
    window: int = DEFAULT_CONTEXT_WINDOW,
    ref: str | None = None,
    hyp: str | None = None,
) -> list[EditContext]:
    """One judge context per edit of a line, each seeing at most ``window`` units on each side.

    ``ref``/``hyp``: the units joined, when the caller has them (an :class:`Alignment`'s texts).
    The contexts are built in C (``_speedups.c``) when that was built, else by :func:`_context`.
    """
    if window < 1:
        raise ValueError(f"the context window must be at least 1 unit, got {window}")
    lang_source = "item"
    if not lang:
        lang, lang_source = detect_language("".join(ref_units[: 2 * window + 1] or hyp_units[: 2 * window + 1])), "script"
    ref = "".join(ref_units) if ref is None else ref
    hyp = "".join(hyp_units) if hyp is None else hyp
    ro, ho = _offsets(ref_units, ref), _offsets(hyp_units, hyp)
    fast = _fast_contexts()
    if fast is not None:  # a window wider than both lines sees them whole: clamped, it fits a C integer
        return fast(edits, ref, hyp, None if type(ro) is range else ro, None if type(ho) is range else ho,
                    lang, line_id, doc, lang_source, min(window, max(len(ro), len(ho))))
    return [_context(e, ref, hyp, ro, ho, lang, line_id, doc, lang_source, window) for e in edits]


def _context(e: Edit, ref: str, hyp: str, ro: Sequence[int], ho: Sequence[int], lang: str, line_id: str, doc: str,
             lang_source: str, window: int) -> EditContext:
    """The context of one edit: the whole line when both sides fit in the window (the texts
    themselves, shared by the line's edits), else the ``window`` units before and after it, each side."""
    nr, nh = len(ro) - 1, len(ho) - 1
    rp, hp = e.ref_pos, e.hyp_pos
    ra, rb = ro[rp], ro[rp + 1] if e.op != "I" else ro[rp]
    ha, hb = ho[hp], ho[hp + 1] if e.op != "D" else ho[hp]
    if nr <= window and nh <= window:  # the whole line is inside every window
        return EditContext(lang, e.op, e.ref_unit, e.hyp_unit, rp, hp, ref, hyp,
                           _marked(ref, 0, ra, rb, len(ref)), _marked(hyp, 0, ha, hb, len(hyp)), line_id, doc, lang_source)
    r0, h0 = max(0, rp - window), max(0, hp - window)
    r1, h1 = min(nr, rp + window + (e.op != "I")), min(nh, hp + window + (e.op != "D"))
    rlo, rhi, hlo, hhi = ro[r0], ro[r1], ho[h0], ho[h1]
    return EditContext(lang, e.op, e.ref_unit, e.hyp_unit, rp - r0, hp - h0, ref[rlo:rhi], hyp[hlo:hhi],
                       _marked(ref, rlo, ra, rb, rhi), _marked(hyp, hlo, ha, hb, hhi), line_id, doc, lang_source, r0, h0)


@cache(maxsize=1)
def _fast_contexts() -> Callable[..., list[EditContext]] | None:
    """The C builder of a line's contexts (``semcer.alignment._speedups.contexts``), or None when it
    was not built or ``SEMCER_PURE_PYTHON=1`` asks for :func:`_context`."""
    speedups = compiled("semcer.alignment._speedups")
    if speedups is None:
        return None
    names = tuple(f.name for f in fields(EditContext))
    assert Edit._fields[:5] == ("op", "ref_pos", "hyp_pos", "ref_unit", "hyp_unit"), "the C builder reads these"
    speedups.setup_contexts(EditContext, tuple(EditContext.__dict__[n] for n in names), names, MARK_OPEN, MARK_CLOSE)
    return speedups.contexts
