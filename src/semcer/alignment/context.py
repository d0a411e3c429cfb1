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

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from semcer.alignment.edits import Edit
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
    """Where each unit of ``units`` starts in ``text`` (their concatenation), plus its length."""
    if len(units) == len(text):
        return range(len(text) + 1)
    return list(accumulate(map(len, units), initial=0))


def _mark_at(text: str, offsets: Sequence[int], pos: int, present: bool) -> str:
    """:func:`mark` of the units whose concatenation is ``text`` and whose offsets are ``offsets``."""
    a = offsets[pos]
    if present:
        b = offsets[pos + 1]
        return f"{text[:a]}{MARK_OPEN}{text[a:b]}{MARK_CLOSE}{text[b:]}"
    return f"{text[:a]}{MARK_OPEN}{MARK_CLOSE}{text[a:]}"


def edit_contexts(
    edits: Sequence[Edit],
    ref_units: Sequence[str],
    hyp_units: Sequence[str],
    *,
    lang: str | None,
    line_id: str = "",
    doc: str = "",
    window: int = DEFAULT_CONTEXT_WINDOW,
) -> list[EditContext]:
    """One judge context per edit of a line, each seeing at most ``window`` units on each side."""
    if window < 1:
        raise ValueError(f"the context window must be at least 1 unit, got {window}")
    lang_source = "item"
    if not lang:
        lang, lang_source = detect_language("".join(ref_units[: 2 * window + 1] or hyp_units[: 2 * window + 1])), "script"
    if len(ref_units) <= window and len(hyp_units) <= window:  # the whole line is inside every window
        ref, hyp = "".join(ref_units), "".join(hyp_units)
        ro, ho = _offsets(ref_units, ref), _offsets(hyp_units, hyp)
        return [EditContext(lang, e.op, e.ref_unit, e.hyp_unit, e.ref_pos, e.hyp_pos, ref, hyp,
                            _mark_at(ref, ro, e.ref_pos, e.op != "I"), _mark_at(hyp, ho, e.hyp_pos, e.op != "D"),
                            line_id, doc, lang_source)
                for e in edits]
    return [_windowed(e, ref_units, hyp_units, lang, line_id, doc, lang_source, window) for e in edits]


def _windowed(e: Edit, ref_units: Sequence[str], hyp_units: Sequence[str], lang: str, line_id: str, doc: str,
              lang_source: str, window: int) -> EditContext:
    """The context of one edit on a long line: the ``window`` units before and after it, each side."""
    r0, h0 = max(0, e.ref_pos - window), max(0, e.hyp_pos - window)
    ru = ref_units[r0 : e.ref_pos + window + (0 if e.op == "I" else 1)]
    hu = hyp_units[h0 : e.hyp_pos + window + (0 if e.op == "D" else 1)]
    rp, hp = e.ref_pos - r0, e.hyp_pos - h0
    return EditContext(lang, e.op, e.ref_unit, e.hyp_unit, rp, hp, "".join(ru), "".join(hu),
                       mark(ru, rp, e.op != "I"), mark(hu, hp, e.op != "D"), line_id, doc, lang_source, r0, h0)
