"""Minimum-edit alignment of two unit sequences, with typed edits.

The aligner is rapidfuzz's Levenshtein ``editops`` (unit costs; bit-parallel, and Hirschberg's
linear-memory divide and conquer on long sequences, so 100k-unit lines need no quadratic memory).
It is a pure function of the two sequences' equality pattern, hence deterministic. Ties between
minimal alignments are broken as rapidfuzz's backtrace does: the common prefix and the common
suffix are matched first; in what is left, walking back from the ends over the edit-distance table
D (i over the reference, j over the output), a deletion of reference unit i when
D[i][j] = D[i-1][j] + 1, otherwise an insertion of output unit j when j > 1 and
D[i][j-1] = D[i-1][j-1] - 1, otherwise the diagonal (a match or a substitution). For example
``a -> aa`` inserts the second ``a`` and ``ab -> ba`` is an insertion and a deletion, not two
substitutions. ``tests/alignment/test_edits.py`` checks this rule against an independent dynamic programme.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, cast

from rapidfuzz.distance import Levenshtein

_OP = {"replace": "S", "delete": "D", "insert": "I"}


class Edit(NamedTuple):
    """One unit edit.

    ``op`` is ``"S"``, ``"D"`` or ``"I"``. ``ref_pos``/``hyp_pos`` are unit indices into the
    policy-applied reference and output (for an insertion ``ref_pos`` is the reference index
    before which the unit is inserted; for a deletion ``hyp_pos`` likewise). ``ref_unit``/
    ``hyp_unit`` are the units ("" on the side where nothing stands). ``ref_span``/``hyp_span``
    are code-point ``(start, end)`` offsets into the original, pre-policy strings, or ``None``
    when the policy does not allow mapping back (see :meth:`TextPolicy.offset_map`) or they were
    not requested.
    """

    op: str
    ref_pos: int
    hyp_pos: int
    ref_unit: str
    hyp_unit: str
    ref_span: tuple[int, int] | None = None
    hyp_span: tuple[int, int] | None = None


def editops(a: Sequence, b: Sequence) -> list[tuple[str, int, int]]:
    """Raw ``(tag, ref_pos, hyp_pos)`` operations of a minimum-edit alignment of ``a`` and ``b``."""
    return cast(list[tuple[str, int, int]], Levenshtein.editops(a, b).as_list())


def count_ops(ops: list[tuple[str, int, int]]) -> tuple[int, int, int]:
    """(substitutions, deletions, insertions) of a list of editops."""
    s = d = 0
    for tag, _, _ in ops:
        if tag == "replace":
            s += 1
        elif tag == "delete":
            d += 1
    return s, d, len(ops) - s - d


def to_edits(
    ops: list[tuple[str, int, int]],
    ref_units: Sequence[str],
    hyp_units: Sequence[str],
    names: dict[str, str] | None = None,
) -> tuple[Edit, ...]:
    """Typed edits from editops and the two unit sequences.

    With ``names``, the sequences are id strings (:mod:`semcer.text.cluster_ids`): a character that
    ``names`` holds stands for that cluster, any other character for itself.
    """
    new = tuple.__new__
    if names:
        get = names.get
        return tuple([
            new(Edit, ("S", i, j, get(x := ref_units[i], x), get(y := hyp_units[j], y), None, None)) if tag == "replace"
            else new(Edit, ("D", i, j, get(x := ref_units[i], x), "", None, None)) if tag == "delete"
            else new(Edit, ("I", i, j, "", get(y := hyp_units[j], y), None, None))
            for tag, i, j in ops
        ])
    return tuple([
        new(Edit, ("S", i, j, ref_units[i], hyp_units[j], None, None)) if tag == "replace"
        else new(Edit, ("D", i, j, ref_units[i], "", None, None)) if tag == "delete"
        else new(Edit, ("I", i, j, "", hyp_units[j], None, None))
        for tag, i, j in ops
    ])


def unit_spans(units: Sequence[str], cp_map: list[tuple[int, int]] | None) -> list[tuple[int, int]] | None:
    """Original code-point span of each unit, from the policy's per-code-point offset map."""
    if cp_map is None:
        return None
    spans = []
    pos = 0
    for u in units:
        n = len(u)
        first, last = cp_map[pos], cp_map[pos + n - 1]
        spans.append((first[0], max(last[1], first[1])))
        pos += n
    return spans


def with_spans(
    edits: Sequence[Edit],
    ref_spans: list[tuple[int, int]] | None,
    hyp_spans: list[tuple[int, int]] | None,
    ref_len: int,
    hyp_len: int,
) -> Sequence[Edit]:
    """Edits with original offsets filled in; an empty side gets the empty span where it stands."""
    if ref_spans is None or hyp_spans is None:
        return edits

    def at(spans: list[tuple[int, int]], i: int, total: int) -> tuple[int, int]:
        p = spans[i][0] if i < len(spans) else (spans[-1][1] if spans else total)
        return (p, p)

    out = []
    for e in edits:
        rs = ref_spans[e.ref_pos] if e.op != "I" else at(ref_spans, e.ref_pos, ref_len)
        hs = hyp_spans[e.hyp_pos] if e.op != "D" else at(hyp_spans, e.hyp_pos, hyp_len)
        out.append(Edit(e.op, e.ref_pos, e.hyp_pos, e.ref_unit, e.hyp_unit, rs, hs))
    return out
