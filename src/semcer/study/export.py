"""A study's answers for ``semcer meta-eval``, and each reader's progress and self-consistency.

``export`` writes into a folder (each file atomically, only the pools the study has):

- ``ratings.jsonl``: one ``{"item", "rater", "level"}`` per rated edit (the first showing; a
  repeat and a "cannot judge" are not ratings), meta-eval's ``--ratings``;
- ``items.jsonl``: the rated edits as an edit list keyed by ``edit_id``, meta-eval's ``--items``
  (with the source's ``severity`` and ``mode`` where it had them, for ``--score-column``);
- ``pairs.jsonl``: ``{"pair", "ref", "a", "b", "lang", "choices"}``, meta-eval's ``--pairs``
  (``choices`` names the output that damages a reader more, or ``"equal"``; a reader who has not
  answered is left out);
- ``repeats.jsonl``: both answers of every repeated item, for the readers' consistency.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from semcer.atomic import atomic_write
from semcer.errors import SemcerError
from semcer.study.db import Progress, RatingRow, StudyDB


@dataclass(frozen=True)
class ReaderStatus:
    """One reader's progress and how often they gave a repeated item the same answer."""

    reader: str
    slots: int
    done: int
    rated: int
    cannot_judge: int
    skipped: int
    repeats_answered: int
    repeats_same: int
    repeats_mean_level_gap: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _answer(r: RatingRow) -> Any:
    return r.level if r.choice is None else r.choice


def reader_status(db: StudyDB) -> list[ReaderStatus]:
    """Every reader's :class:`ReaderStatus`, in the order they were added."""
    by_reader: dict[str, dict[tuple[str, int], RatingRow]] = {}
    for r in db.ratings():
        by_reader.setdefault(r.reader, {})[(r.item, r.rep)] = r
    return [_status(p, by_reader.get(p.reader, {})) for p in db.progress()]


def _status(p: Progress, mine: dict[tuple[str, int], RatingRow]) -> ReaderStatus:
    same = answered = 0
    gaps = []
    for (item, rep), second in mine.items():
        first = mine.get((item, 0))
        if rep != 1 or first is None or "cannot_judge" in (first.verdict, second.verdict):
            continue
        answered += 1
        same += _answer(first) == _answer(second)
        if first.level is not None and second.level is not None:
            gaps.append(abs(first.level - second.level))
    gap = sum(gaps) / len(gaps) if gaps else None
    return ReaderStatus(p.reader, p.slots, p.done, p.rated, p.cannot_judge, p.skipped, answered, same, gap)


def export(db: StudyDB, folder: str | Path) -> dict[str, int]:
    """Write the export files into ``folder`` (created if needed); returns file name -> records."""
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise SemcerError(f"-o {out}: is a file; give a folder for ratings.jsonl, items.jsonl and pairs.jsonl")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SemcerError(f"-o {out}: cannot create the folder ({exc.strerror or exc})") from None
    items = {i.id: i for i in db.items()}
    rows = db.ratings()
    firsts = [r for r in rows if r.rep == 0 and r.verdict == "rated"]
    edits = [r for r in firsts if items[r.item].kind == "edit"]
    files: dict[str, list[dict[str, Any]]] = {}
    if any(i.kind == "edit" for i in items.values()):
        files["ratings.jsonl"] = [{"item": r.item, "rater": r.reader, "level": r.level} for r in edits]
        files["items.jsonl"] = [i.data for i in items.values() if i.kind == "edit"]
    if any(i.kind == "pair" for i in items.values()):
        choices: dict[str, dict[str, str]] = {}
        for r in firsts:
            if items[r.item].kind == "pair":
                choices.setdefault(r.item, {})[r.reader] = str(r.choice)
        files["pairs.jsonl"] = [_pair_record(i.id, i.data, choices.get(i.id, {}))
                                for i in items.values() if i.kind == "pair"]
    files["repeats.jsonl"] = _repeats(rows)
    for name, records in files.items():
        _write_jsonl(out / name, records)
    return {name: len(records) for name, records in files.items()}


def _pair_record(pair_id: str, data: dict[str, Any], choices: dict[str, str]) -> dict[str, Any]:
    return {"pair": pair_id, "ref": data["ref"], "a": data["a"], "b": data["b"], "lang": data["lang"],
            "choices": choices, "a_system": data["a_system"], "b_system": data["b_system"]}


def _repeats(rows: Sequence[RatingRow]) -> list[dict[str, Any]]:
    index = {(r.reader, r.item, r.rep): r for r in rows}
    out = []
    for r in rows:
        first = index.get((r.reader, r.item, 0))
        if r.rep == 1 and first is not None:
            out.append({"item": r.item, "rater": r.reader, "first": _answer(first) if first.verdict == "rated" else None,
                        "second": _answer(r) if r.verdict == "rated" else None})
    return out


def _write_jsonl(path: Path, records: Sequence[dict[str, Any]]) -> None:
    try:
        with atomic_write(path) as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False, allow_nan=False) + "\n")
    except OSError as exc:
        raise SemcerError(f"cannot write {path}: {exc.strerror or exc}") from None
