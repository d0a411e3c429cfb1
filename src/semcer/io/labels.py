"""Labelled edits: the severity JSONL format of ``data/severity/`` (one grapheme edit per line with
its marked pair and the labelling judge's level distribution), read into judge contexts and labels.

Fields: ``lang``, ``op`` (S, D or I), ``ref_unit``, ``hyp_unit``, ``ref_pos``, ``hyp_pos``, ``ref``,
``hyp``, ``marked_ref``, ``marked_hyp`` and ``severity`` (a rating in [0, 1]) or ``p`` (five
probabilities, JSON numbers); optional ``mode``, ``id``, ``system``, ``line_id``, ``n_labels``.
Every field is checked; a bad one is an InputError naming the file, the line and the field.

The fields of a row must also agree with each other, as the labels were made (NFC lines cut into
extended grapheme clusters, :func:`semcer.text.units.graphemes`): ``ref_unit`` is unit ``ref_pos``
of ``ref`` (empty, and ``ref_pos`` an insertion point, for op I), ``marked_ref`` is ``ref`` with that
unit between ⟦ ⟧ (an empty ⟦⟧ at ``ref_pos`` for op I), the same on the ``hyp`` side (empty for op
D); ``severity`` and ``mode``, when given beside ``p``, are the ones ``p`` gives
(:func:`semcer.judges.distribution.check_derived`); an ``id`` is used once. A row that disagrees is
refused, never used: its judge context or its label would silently change the results. The
file is JSON Lines, read by :func:`semcer.io.jsonl.read_objects` (a JSON array, an empty file, a
directory, a binary or compressed file are each refused in one line).
"""

from __future__ import annotations

import os
from typing import Any

from semcer.alignment.context import EditContext, mark
from semcer.errors import InputError, quoted
from semcer.io.jsonl import json_type, read_objects
from semcer.judges.distribution import LEVELS, check_derived, check_distribution, expected_rating, mode_of
from semcer.statistics.judge_eval import Label
from semcer.text.units import graphemes

_STRINGS = ("lang", "op", "ref_unit", "hyp_unit", "ref", "hyp", "marked_ref", "marked_hyp")
_INTS = ("ref_pos", "hyp_pos")


def load_labelled(path: str | os.PathLike[str]) -> tuple[list[EditContext], list[Label]]:
    """Read a labelled-edit JSONL file into edit contexts (``lang_source='item'``) and their labels."""
    contexts: list[EditContext] = []
    labels: list[Label] = []
    first: dict[str, str] = {}  # id -> where it was read
    for where, row in read_objects(path, "a labelled edit (a JSON object)"):
        contexts.append(edit_context(row, where))
        labels.append(label(row, where))
        if "id" in row:
            seen = first.setdefault(labels[-1].id, where)
            if seen is not where:
                raise InputError(f"{where}: duplicate id {quoted(labels[-1].id)} (first at {seen}); every labelled "
                                 "edit needs its own id")
    return contexts, labels


def _field(row: dict[str, Any], name: str, kind: type, where: str) -> Any:
    if name not in row:
        raise InputError(f"{where}: missing field {name!r}")
    value = row[name]
    if type(value) is not kind:
        want = "a string" if kind is str else "an integer"
        raise InputError(f"{where}: {name!r} must be {want}, got {json_type(value)}")
    return value


def edit_context(row: dict[str, Any], where: str) -> EditContext:
    """The judge context of one labelled edit."""
    values = {name: _field(row, name, str, where) for name in _STRINGS}
    for name in _INTS:
        if _field(row, name, int, where) < 0:
            raise InputError(f"{where}: {name!r} must not be negative")
    if values["op"] not in ("S", "D", "I"):
        raise InputError(f"{where}: 'op' is {quoted(values['op'])}, expected S, D or I")
    _check_side(row, "ref", values["op"] != "I", where)
    _check_side(row, "hyp", values["op"] != "D", where)
    return EditContext(ref_pos=row["ref_pos"], hyp_pos=row["hyp_pos"], line_id=str(row.get("line_id", "")),
                       lang_source="item", **values)


def _check_side(row: dict[str, Any], side: str, present: bool, where: str) -> None:
    """Refuse a row whose ``{side}_unit``, ``{side}_pos`` and ``marked_{side}`` do not describe one
    unit of the line ``{side}`` (``present``: the edit has a unit on this side; else it is the insertion
    point of an I on the ref side, of a D on the hyp side), cut into grapheme units as the labels were."""
    line, unit, pos = row[side], row[f"{side}_unit"], row[f"{side}_pos"]
    units = graphemes(line)
    if present:
        if pos >= len(units):
            raise InputError(f"{where}: '{side}_pos' is {pos}, past the end of {side!r} ({len(units)} grapheme units)")
        if unit != units[pos]:
            raise InputError(f"{where}: '{side}_unit' is {quoted(unit)}, but unit {pos} of {side!r} is "
                             f"{quoted(units[pos])} (units are extended grapheme clusters)")
    else:
        if unit:
            raise InputError(f"{where}: '{side}_unit' is {quoted(unit)}; for op {row['op']} it must be empty "
                             "(no unit stands on that side)")
        if pos > len(units):
            raise InputError(f"{where}: '{side}_pos' is {pos}, past the end of {side!r} ({len(units)} grapheme units; "
                             f"an insertion point is 0-{len(units)})")
    want = mark(units, pos, present)
    if row[f"marked_{side}"] != want:
        what = f"unit {pos} between ⟦ ⟧" if present else f"an empty ⟦⟧ before unit {pos}"
        raise InputError(f"{where}: 'marked_{side}' is not {side!r} with {what}: expected {quoted(want)}, got "
                         f"{quoted(row[f'marked_{side}'])}")


def label(row: dict[str, Any], where: str) -> Label:
    """The label of one labelled edit: its severity, mode and (when given) distribution."""
    p: tuple[float, ...] = ()
    raw_p = row.get("p")
    if raw_p is not None:
        if type(raw_p) is not list or any(type(x) not in (int, float) for x in raw_p):  # not "0.1", not true
            raise InputError(f"{where}: p is not a list of numbers: {quoted(raw_p)}")
        try:
            p = check_distribution(raw_p)
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from None
    severity = row.get("severity")
    if severity is None and not p:
        raise InputError(f"{where}: missing field 'severity' (or 'p')")
    if severity is not None and (type(severity) not in (int, float) or not 0.0 <= severity <= 1.0):
        raise InputError(f"{where}: 'severity' must be a number in [0, 1], got {quoted(severity)}")
    mode = row.get("mode")
    if mode is not None and (type(mode) is not int or not 0 <= mode < LEVELS):
        raise InputError(f"{where}: 'mode' must be a level 0-{LEVELS - 1}, got {quoted(mode)}")
    if p:
        try:
            check_derived(p, severity, mode)
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from None
    if severity is None:
        severity = expected_rating(p)
    if mode is None:
        mode = mode_of(p) if p else round(severity * 4)
    n_labels = row.get("n_labels", 1)
    if type(n_labels) is not int or n_labels < 1:
        raise InputError(f"{where}: 'n_labels' must be a positive integer, got {n_labels!r}")
    return Label(float(severity), mode, p, str(row.get("id", "")), str(row.get("system", "")), n_labels)
