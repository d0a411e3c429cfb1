"""Error spans: a run of adjacent edits in one line (a deleted word, a garbled name) shown as one.

Two edits of a line belong to one span when no matched unit stands between them: the next edit
starts in the reference where the previous one ended (a substitution or deletion ends after its
reference unit, an insertion where it stands), which, with no match between them, is also where it
starts in the output. A span's reference text is the concatenation of its edits' reference units
(matches never fall inside a span), its output text likewise; it carries the sum and the maximum of
its edits' severities. Spans are for display and ranking only: scores charge every grapheme edit,
as before.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN
from semcer.alignment.edits import Edit
from semcer.store.judging import JudgedEdit


def span_groups(edits: Sequence[Edit]) -> list[tuple[int, int]]:
    """``(first, end)`` index ranges of the spans of one line's edits (in alignment order)."""
    groups: list[tuple[int, int]] = []
    start = 0
    for k in range(1, len(edits) + 1):
        if k == len(edits) or edits[k].ref_pos != _ref_end(edits[k - 1]):
            groups.append((start, k))
            start = k
    return groups


def _ref_end(e: Edit) -> int:
    return e.ref_pos if e.op == "I" else e.ref_pos + 1


@dataclass(frozen=True)
class JudgedSpan:
    """One error span of one line, with its judged edits."""

    span_id: str  # "<line id>#<k>", k counting the line's spans from 0
    line_id: str
    doc: str
    lang: str
    edits: tuple[JudgedEdit, ...]

    @property
    def ref_text(self) -> str:
        return "".join(j.edit.ref_unit for j in self.edits)

    @property
    def hyp_text(self) -> str:
        return "".join(j.edit.hyp_unit for j in self.edits)

    @property
    def severity(self) -> float | None:
        """Sum of the edits' severities (None when one of them failed)."""
        sev = [j.severity for j in self.edits]
        return None if any(s is None for s in sev) else math.fsum(sev)  # type: ignore[arg-type]

    @property
    def max_severity(self) -> float | None:
        sev = [j.severity for j in self.edits]
        return None if any(s is None for s in sev) else max(sev)  # type: ignore[type-var]

    @property
    def marked_ref(self) -> str:
        """The reference around the span with the whole span between ⟦ ⟧."""
        return _marked(self.edits[0].context.marked_ref, self.ref_text, self.edits[-1].context.marked_ref)

    @property
    def marked_hyp(self) -> str:
        return _marked(self.edits[0].context.marked_hyp, self.hyp_text, self.edits[-1].context.marked_hyp)


def _marked(first: str, middle: str, last: str) -> str:
    """What stands before the first edit's mark, the span, and what follows the last edit's mark."""
    head = first[: first.index(MARK_OPEN)]
    tail = last[last.index(MARK_CLOSE, last.index(MARK_OPEN)) + 1 :]
    return f"{head}{MARK_OPEN}{middle}{MARK_CLOSE}{tail}"


def judged_spans(judged: Sequence[JudgedEdit]) -> Iterator[JudgedSpan]:
    """The spans of judged edits given in corpus order (each line's edits together, in order)."""
    k = 0
    while k < len(judged):
        line = judged[k].line_id
        end = k
        while end < len(judged) and judged[end].line_id == line:
            end += 1
        edits = judged[k:end]
        for n, (a, b) in enumerate(span_groups([j.edit for j in edits])):
            first = edits[a]
            yield JudgedSpan(f"{line}#{n}", line, first.doc, first.lang, tuple(edits[a:b]))
        k = end


def span_ids(judged: Sequence[JudgedEdit]) -> list[str]:
    """The ``span_id`` of each judged edit given in corpus order (:func:`judged_spans`'s ids)."""
    out: list[str] = []
    for sp in judged_spans(judged):
        out += [sp.span_id] * len(sp.edits)
    return out


def span_key(s: JudgedSpan) -> tuple[bool, float, float]:
    """The sort key of :func:`ranked_spans` (smallest first): ``(severity is None, -max_severity,
    -severity)``, the edits' severities read once (a top list ranks every span of a corpus)."""
    sev = [j.severity for j in s.edits]
    known = [x for x in sev if x is not None]
    if len(known) < len(sev):
        return (True, -0.0, -0.0)
    return (False, -max(known), -math.fsum(known))


def ranked_spans(spans: Sequence[JudgedSpan] | Iterator[JudgedSpan]) -> list[JudgedSpan]:
    """Spans most damaging first: by their worst edit (a digit that silently became another ranks
    above a long stretch of obvious garbage), then by summed severity; failed spans last; ties keep
    corpus order."""
    return sorted(spans, key=span_key)
