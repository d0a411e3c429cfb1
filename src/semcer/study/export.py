"""A study's answers for ``semcer meta-eval``, and each reader's progress and self-consistency.

``export`` writes into a folder (only the pools the study has; all files or none, after the whole
study is read and checked):

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

import contextlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from semcer.atomic import atomic_write
from semcer.errors import InputError, SemcerError, quoted
from semcer.study.db import DAMAGED_HINT, Item, Progress, RatingRow, StudyDB


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
    """Write the export files into ``folder`` (created if needed); returns file name -> records.

    Everything is read and checked first (a damaged item or rating is one
    :class:`~semcer.errors.InputError` naming the study and the item, before ``folder`` is touched),
    then the files are written together: each into a temporary file, all renamed into place only
    when every one is complete, so a failure leaves the folder as it was."""
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise SemcerError(f"-o {out}: is a file; give a folder for ratings.jsonl, items.jsonl and pairs.jsonl")
    files = export_records(db)
    _write_all(out, {name: [_json_line(rec) for rec in records] for name, records in files.items()})
    return {name: len(records) for name, records in files.items()}


def export_records(db: StudyDB) -> dict[str, list[dict[str, Any]]]:
    """The records of each export file (file name -> records), from a study whose items and ratings
    are all checked."""
    items = {i.id: i for i in db.items()}
    rows = db.ratings()
    for r in rows:
        _check_rating(db, r, items.get(r.item))
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
    return files


def _check_rating(db: StudyDB, r: RatingRow, item: Item | None) -> None:
    """A rating of an item the study holds, answered as its kind is (a level for an edit, a choice
    for a pair); one line naming the study, the reader and the item otherwise."""
    where = f"{db.path}: the rating of reader {quoted(r.reader)} on item {quoted(r.item)}"
    if item is None:
        raise InputError(f"{where} names no item of the study; {DAMAGED_HINT}")
    if r.verdict == "rated" and (r.level is None) != (item.kind == "pair"):
        wanted = "a choice (a pair)" if item.kind == "pair" else "a level (an edit)"
        raise InputError(f"{where} is damaged: it needs {wanted}; {DAMAGED_HINT}")


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


def _json_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n"


def _write_all(out: Path, files: dict[str, list[str]]) -> None:
    """Write every file's lines into ``out`` all or nothing (a folder created here is removed
    again on a failure)."""
    created = not out.exists()
    path = out
    try:
        out.mkdir(parents=True, exist_ok=True)
        with contextlib.ExitStack() as stack:
            for name, lines in files.items():
                path = out / name
                fh = stack.enter_context(atomic_write(path))
                fh.writelines(lines)
                fh.flush()
                os.fsync(fh.fileno())  # a full disk fails here, before any file is renamed into place
    except OSError as exc:
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()
        what = "create the folder" if path == out else f"write {path}"
        raise SemcerError(f"-o {out}: cannot {what} ({exc.strerror or exc})") from None
