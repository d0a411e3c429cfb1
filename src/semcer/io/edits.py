"""Write judged edits as JSONL, CSV or Parquet, most severe first, with the labelled data's field names."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from semcer.atomic import atomic_path, atomic_write
from semcer.errors import SemcerError

FIELDS: tuple[str, ...] = (
    "line_id", "doc", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos",
    "marked_ref", "marked_hyp", "edit_class", "p", "severity", "mode", "flags", "failure",
)


def ranked(judged: Iterable[Any]) -> list[Any]:
    """Judged edits sorted most severe first (failed edits last), ties kept in corpus order."""
    rows = list(judged)
    return sorted(rows, key=lambda j: (j.severity is None, -(j.severity or 0.0)))


def edit_row(j: Any) -> dict[str, Any]:
    c, g = j.context, j.judgement
    return {
        "line_id": j.line_id, "doc": j.doc, "lang": c.lang, "op": c.op,
        "ref_unit": c.ref_unit, "hyp_unit": c.hyp_unit, "ref_pos": c.ref_pos, "hyp_pos": c.hyp_pos,
        "marked_ref": c.marked_ref, "marked_hyp": c.marked_hyp, "edit_class": g.edit_class,
        "p": list(g.p) if g.p is not None else None, "severity": g.severity, "mode": g.mode,
        "flags": ",".join(g.flags), "failure": g.failure,
    }


def write_edits(path: str | Path, judged: Sequence[Any]) -> int:
    """Write every edit to ``path`` (format from the extension); returns the number written."""
    path = Path(path)
    ext = path.suffix.lower()
    rows = [edit_row(j) for j in ranked(judged)]
    if ext in (".jsonl", ".ndjson"):
        with atomic_write(path) as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n")
    elif ext == ".csv":
        with atomic_write(path) as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
            w.writeheader()
            for r in rows:
                w.writerow({**r, "p": json.dumps(r["p"])})
    elif ext == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise SemcerError('writing Parquet needs pyarrow: pip install "semcer[parquet]"') from exc
        table = pa.Table.from_pylist(rows, schema=_schema(pa))
        with atomic_path(path) as tmp:
            pq.write_table(table, tmp)
    else:
        raise SemcerError(f"--edits {path}: unknown extension {ext or '(none)'!r}; use .jsonl, .csv or .parquet")
    return len(rows)


def _schema(pa):
    s, i, f = pa.string(), pa.int64(), pa.float64()
    return pa.schema([
        ("line_id", s), ("doc", s), ("lang", s), ("op", s), ("ref_unit", s), ("hyp_unit", s),
        ("ref_pos", i), ("hyp_pos", i), ("marked_ref", s), ("marked_hyp", s), ("edit_class", s),
        ("p", pa.list_(f)), ("severity", f), ("mode", i), ("flags", s), ("failure", s),
    ])
