"""What a judge sees for one edit: the marked pair, the language, both lines.

One judged item per grapheme edit, as in the paper: the edit is marked with ⟦ ⟧ in both lines
(an empty ⟦⟧ on the side where nothing stands) and every other edit of the line stays as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from semcer.alignment.edits import Edit
from semcer.text.script import detect_language

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
        """See :func:`content_key`."""
        return content_key(self.lang, self.op, self.marked_ref, self.marked_hyp)


def mark(units: Sequence[str], pos: int, present: bool) -> str:
    """The line with unit ``pos`` between ⟦ ⟧, or an empty ⟦⟧ before unit ``pos``."""
    head = "".join(units[:pos])
    if present:
        return f"{head}{MARK_OPEN}{units[pos]}{MARK_CLOSE}{''.join(units[pos + 1:])}"
    return f"{head}{MARK_OPEN}{MARK_CLOSE}{''.join(units[pos:])}"


def edit_contexts(
    edits: Sequence[Edit],
    ref_units: Sequence[str],
    hyp_units: Sequence[str],
    *,
    lang: str | None,
    line_id: str = "",
    doc: str = "",
) -> list[EditContext]:
    """One judge context per edit of a line."""
    ref = "".join(ref_units)
    hyp = "".join(hyp_units)
    lang_source = "item"
    if not lang:
        lang, lang_source = detect_language(ref or hyp), "script"
    return [
        EditContext(
            lang=lang,
            op=e.op,
            ref_unit=e.ref_unit,
            hyp_unit=e.hyp_unit,
            ref_pos=e.ref_pos,
            hyp_pos=e.hyp_pos,
            ref=ref,
            hyp=hyp,
            marked_ref=mark(ref_units, e.ref_pos, e.op != "I"),
            marked_hyp=mark(hyp_units, e.hyp_pos, e.op != "D"),
            line_id=line_id,
            doc=doc,
            lang_source=lang_source,
        )
        for e in edits
    ]
