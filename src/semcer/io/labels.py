"""Labelled edits: the severity JSONL format of ``data/severity/`` (one grapheme edit per line with
its marked pair and the labelling judge's level distribution), read into judge contexts and labels.

Fields: ``lang``, ``op`` (S, D or I), ``ref_unit``, ``hyp_unit``, ``ref_pos``, ``hyp_pos``, ``ref``,
``hyp``, ``marked_ref``, ``marked_hyp`` and ``severity`` (a rating in [0, 1]) or ``p`` (five
probabilities, JSON numbers); optional ``mode``, ``id``, ``system``, ``line_id``, ``n_labels``.
Every field is checked; a bad one is an InputError naming the file, the line and the field. The
file is JSON Lines, read by :func:`semcer.io.jsonl.read_objects` (a JSON array, an empty file, a
directory, a binary or compressed file are each refused in one line).
"""

from __future__ import annotations

import os
import reprlib
from typing import Any

from semcer.alignment.context import EditContext
from semcer.errors import InputError
from semcer.io.jsonl import json_type, read_objects
from semcer.judges.distribution import LEVELS, check_distribution, expected_rating, mode_of
from semcer.statistics.judge_eval import Label

_STRINGS = ("lang", "op", "ref_unit", "hyp_unit", "ref", "hyp", "marked_ref", "marked_hyp")
_INTS = ("ref_pos", "hyp_pos")


def load_labelled(path: str | os.PathLike[str]) -> tuple[list[EditContext], list[Label]]:
    """Read a labelled-edit JSONL file into edit contexts (``lang_source='item'``) and their labels."""
    contexts: list[EditContext] = []
    labels: list[Label] = []
    for where, row in read_objects(path, "a labelled edit (a JSON object)"):
        contexts.append(edit_context(row, where))
        labels.append(label(row, where))
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
        raise InputError(f"{where}: 'op' is {values['op']!r}, expected S, D or I")
    return EditContext(ref_pos=row["ref_pos"], hyp_pos=row["hyp_pos"], line_id=str(row.get("line_id", "")),
                       lang_source="item", **values)


def label(row: dict[str, Any], where: str) -> Label:
    """The label of one labelled edit: its severity, mode and (when given) distribution."""
    p: tuple[float, ...] = ()
    raw_p = row.get("p")
    if raw_p is not None:
        if type(raw_p) is not list or any(type(x) not in (int, float) for x in raw_p):  # not "0.1", not true
            raise InputError(f"{where}: p is not a list of numbers: {reprlib.repr(raw_p)}")
        try:
            p = check_distribution(raw_p)
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from None
    severity = row.get("severity")
    if severity is None:
        if not p:
            raise InputError(f"{where}: missing field 'severity' (or 'p')")
        severity = expected_rating(p)
    if type(severity) not in (int, float) or not 0.0 <= severity <= 1.0:
        raise InputError(f"{where}: 'severity' must be a number in [0, 1], got {severity!r}")
    mode = row.get("mode")
    if mode is None:
        mode = mode_of(p) if p else round(severity * 4)
    if type(mode) is not int or not 0 <= mode < LEVELS:
        raise InputError(f"{where}: 'mode' must be a level 0-{LEVELS - 1}, got {mode!r}")
    n_labels = row.get("n_labels", 1)
    if type(n_labels) is not int or n_labels < 1:
        raise InputError(f"{where}: 'n_labels' must be a positive integer, got {n_labels!r}")
    return Label(float(severity), mode, p, str(row.get("id", "")), str(row.get("system", "")), n_labels)
