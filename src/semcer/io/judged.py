"""Judged edits for training a student, from a judged-edit store (SQLite), its Parquet export or a
labelled JSONL file; every row's distribution passes :func:`~semcer.judges.distribution.check_distribution`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN
from semcer.errors import InputError
from semcer.io.jsonl import read_objects
from semcer.judges.distribution import check_distribution
from semcer.judges.student.data import StudentRow, span_chars

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _checked_row(raw: dict[str, Any], where: str) -> StudentRow:
    """A StudentRow from a mapping with the store/labels field names; InputError naming ``where``."""
    for name in ("marked_ref", "marked_hyp"):
        value = raw.get(name)
        if not isinstance(value, str):
            raise InputError(f"{where}: {name} is missing or not a string")
        if span_chars(value) is None:
            raise InputError(f"{where}: {name} has no {MARK_OPEN}…{MARK_CLOSE} mark: {value!r}")
    try:
        checked = check_distribution(raw.get("p"))
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None
    total = sum(checked)
    values = tuple(x / total for x in checked)  # the training target sums to 1 exactly
    text = lambda name: "" if raw.get(name) is None else str(raw[name])
    return StudentRow(raw["marked_ref"], raw["marked_hyp"], values, text("lang"), text("op"),
                      text("line_id"), text("judge"))


def _read_jsonl(path: Path) -> list[StudentRow]:
    return [_checked_row(raw, where) for where, raw in read_objects(path, "a judged edit (a JSON object)")]


def _read_parquet(path: Path) -> list[StudentRow]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f'{path}: reading Parquet needs pyarrow: pip install "semcer[parquet]"') from None
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several unrelated types for unreadable files
        raise InputError(f"{path}: not a readable Parquet file ({exc})") from None
    missing = [c for c in ("marked_ref", "marked_hyp", "p") if c not in table.column_names]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; expected a judged-edit export "
                         "(`semcer store export`) with marked_ref, marked_hyp and p")
    wanted = [c for c in ("marked_ref", "marked_hyp", "p", "lang", "op", "line_id", "judge") if c in table.column_names]
    data = table.select(wanted).to_pydict()
    return [_checked_row({c: data[c][i] for c in wanted}, f"{path}: row {i}") for i in range(table.num_rows)]


def _read_store(path: Path) -> list[StudentRow]:
    from semcer.store.sqlite import JudgedEditStore

    with JudgedEditStore(path, readonly=True) as store:
        return [
            _checked_row({k: r[k] for k in ("judge", "lang", "op", "marked_ref", "marked_hyp", "p")}, f"{path}: edit {n}")
            for n, r in enumerate(store.rows())
        ]


def load_judged_edits(path: str | Path, *, judge: str | None = None) -> list[StudentRow]:
    """The judged edits of a store (SQLite), a Parquet export or a labelled JSONL file.

    The kind is read from the file (SQLite header, ``.parquet``, else JSONL). A store or export may
    hold several judges' edits: a student learns one judge, so ``judge`` picks one identity, and it
    is an error to leave it out when there are several.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    with open(path, "rb") as fh:
        head = fh.read(len(_SQLITE_MAGIC))
    if head == _SQLITE_MAGIC:
        rows = _read_store(path)
    elif path.suffix.lower() in (".parquet", ".pq") or head[:4] == b"PAR1":
        rows = _read_parquet(path)
    else:
        rows = _read_jsonl(path)
    judges = sorted({row.judge for row in rows if row.judge})
    if judge is not None:
        rows = [row for row in rows if row.judge == judge]
        if not rows:
            raise InputError(f"{path}: no edits of judge {judge!r} (judges: {', '.join(judges) or 'none named'})")
    elif len(judges) > 1:
        raise InputError(f"{path}: holds edits of {len(judges)} judges ({', '.join(judges)}); "
                         "name the one to learn with --judge")
    if not rows:
        raise InputError(f"{path}: no judged edits")
    return rows


