"""Write judged edits as JSONL, CSV or Parquet, most severe first, with the labelled data's field names.

The format comes from the extension (:data:`EDIT_FORMATS`); :func:`check_path` refuses an unknown
one, and Parquet without pyarrow, before any work.

**CSV and spreadsheets.** A spreadsheet program opening a CSV file runs a cell that begins with
``=``, ``+``, ``-`` or ``@`` as a formula (and a leading tab or carriage return can hide such a
character), so OCR text like ``=HYPERLINK("http://…")`` or ``-5`` would run or be mangled. In the
CSV output every text cell that begins with one of ``= + - @``, a tab or a carriage return is
written with a single quote ``'`` in front, the usual neutralisation (OWASP, "CSV injection"); so
is a cell that already begins with ``'``, so that the rule can be undone exactly: **remove one
leading ``'`` from every cell that begins with one** to get the text back. Numbers (positions,
severity, mode) are never prefixed; ``p``, ``ref_bbox`` and ``hyp_bbox`` are JSON (``[0.0, ...]``,
``null``). Rows end in CRLF (RFC 4180), so a field holding a line break or a lone carriage return
is quoted and reads back whole.
JSONL and Parquet keep the exact text.

**Signature.** Given the run's :class:`~semcer.metrics.signature.Signature`, a Parquet edit list
carries it in its schema metadata (:data:`PARQUET_SIGNATURE`: the signature string,
:data:`PARQUET_JUDGE`: the judge identity, where the run had a judge), so that the severities and
``p`` travel with the conventions and the judge that made them (``pyarrow.parquet.read_schema(path)
.metadata``). JSONL and CSV rows carry no signature (it would repeat on every edit): keep the run's
score JSON (``--json``, its ``signature``) beside them.

**Edit ids.** Every row has an ``edit_id``, ``<line_id>:<op><ref_pos>,<hyp_pos>`` (``ex-de-01-02:D0,0``),
the positions being the edit's unit indices into the whole policy-applied lines (the ``ref_pos``/``hyp_pos``
fields are indices into the judge's window, which is the whole line unless the line is longer than the
window). Within a line no two edits share both positions, so the id names one edit, and the same edit
of the same corpus (same unit and policy) gets the same id on every run and with every judge:
``semcer meta-eval --items`` keys reader ratings by it. ``span_id`` (``<line_id>#<k>``, ``k`` counting
the line's error spans from 0) names the span of adjacent edits the edit belongs to, as the score
JSON's ``spans`` and the HTML report name it.

**Elements.** For an input read from page files (PAGE-XML, ALTO, hOCR), ``ref_element`` and
``hyp_element`` are the ids of the region or line the edit falls in on the reference and on the
output side, and ``ref_bbox``/``hyp_bbox`` their boxes ``[x0, y0, x1, y1]`` in the file's
coordinates: a whole-page item's element is found from the edit's original offsets in the page
text, a ``--by-line`` item's is its own element (the rules: :mod:`semcer.io.formats.provenance`).
Each is null when that side is not from a page file, stands in no element (a line break inserted
or lost between two lines), or its element has no id (or no box).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from semcer.atomic import atomic_path, atomic_write
from semcer.errors import SemcerError
from semcer.metrics.signature import Signature
from semcer.metrics.spans import span_ids

FIELDS: tuple[str, ...] = (
    "edit_id", "span_id", "line_id", "doc", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos",
    "marked_ref", "marked_hyp", "edit_class", "p", "severity", "mode", "flags", "failure",
    "ref_element", "hyp_element", "ref_bbox", "hyp_bbox",
)

#: Extension -> format of an edit list.
EDIT_FORMATS: dict[str, str] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet"}

#: What makes a spreadsheet read a CSV cell as a formula, and the quote that neutralises it.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_QUOTE = "'"

#: The list-valued fields, written to CSV as JSON (``[0.0, ...]``, ``null``).
_JSON_CELLS = ("p", "ref_bbox", "hyp_bbox")

#: The Parquet schema metadata keys of the run's signature string and of its judge's identity.
PARQUET_SIGNATURE, PARQUET_JUDGE = b"semcer.signature", b"semcer.judge"


def ranked(judged: Iterable[Any]) -> list[Any]:
    """Judged edits sorted most severe first (failed edits last), ties kept in corpus order."""
    rows = list(judged)
    return sorted(rows, key=lambda j: (j.severity is None, -(j.severity or 0.0)))


def ranked_rows(judged: Sequence[Any]) -> list[dict[str, Any]]:
    """The edit rows of judged edits given in corpus order, most severe first, each with the
    ``span_id`` of its error span (``<line_id>#<k>``, as in the score JSON's spans)."""
    order = sorted(range(len(judged)), key=lambda k: (judged[k].severity is None, -(judged[k].severity or 0.0)))
    ids = span_ids(judged)
    return [edit_row(judged[k], ids[k]) for k in order]


def edit_id(line_id: str, op: str, ref_pos: int, hyp_pos: int) -> str:
    """The stable id of one edit of a line (see the module documentation)."""
    return f"{line_id}:{op}{ref_pos},{hyp_pos}"


def edit_row(j: Any, span_id: str | None = None) -> dict[str, Any]:
    c, g, r, h = j.context, j.judgement, j.ref_element, j.hyp_element
    return {
        "edit_id": edit_id(j.line_id, j.edit.op, j.edit.ref_pos, j.edit.hyp_pos), "span_id": span_id,
        "line_id": j.line_id, "doc": j.doc, "lang": c.lang, "op": c.op,
        "ref_unit": c.ref_unit, "hyp_unit": c.hyp_unit, "ref_pos": c.ref_pos, "hyp_pos": c.hyp_pos,
        "marked_ref": c.marked_ref, "marked_hyp": c.marked_hyp, "edit_class": g.edit_class,
        "p": list(g.p) if g.p is not None else None, "severity": g.severity, "mode": g.mode,
        "flags": ",".join(g.flags), "failure": g.failure,
        "ref_element": None if r is None else r.id, "hyp_element": None if h is None else h.id,
        "ref_bbox": None if r is None or r.bbox is None else list(r.bbox),
        "hyp_bbox": None if h is None or h.bbox is None else list(h.bbox),
    }


def csv_cell(value: Any) -> Any:
    """A text cell as written to CSV: a leading ``'`` before a formula character or a ``'``."""
    if type(value) is str and value.startswith((*FORMULA_START, _QUOTE)):
        return _QUOTE + value
    return value


def check_path(path: str | Path, flag: str = "--edits") -> str:
    """The format of an edit list at ``path``; a SemcerError for an unknown extension or a format
    whose extra is not installed (Parquet: ``semcer[parquet]``)."""
    ext = Path(path).suffix.lower()
    fmt = EDIT_FORMATS.get(ext)
    if fmt is None:
        raise SemcerError(f"{flag} {path}: unknown extension {ext or '(none)'!r}; use .jsonl, .csv or .parquet")
    if fmt == "parquet":
        try:
            import pyarrow
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise SemcerError(f'{flag} {path}: writing Parquet needs pyarrow: pip install "semcer[parquet]"') from None
    return fmt


def write_edits(path: str | Path, judged: Sequence[Any], *, signature: Signature | None = None) -> int:
    """Write every edit to ``path`` (format from the extension); returns the number written.
    ``signature``: the run's, kept in a Parquet file's schema metadata."""
    return write_edit_rows(path, ranked_rows(judged), signature=signature)


#: Rows per Parquet row group when rows are streamed in.
PARQUET_BATCH = 50_000


def write_edit_rows(path: str | Path, rows: Iterable[dict[str, Any]], *, signature: Signature | None = None) -> int:
    """Write edit rows (:func:`edit_row`, already in their final order) to ``path``, streamed: the
    rows are consumed one at a time (Parquet: one row group per :data:`PARQUET_BATCH` rows), and the
    file appears whole or not at all. Returns the number written. ``signature``: the run's, kept in
    a Parquet file's schema metadata (:func:`parquet_metadata`)."""
    fmt = check_path(path)
    n = 0
    try:
        if fmt == "jsonl":
            with atomic_write(path) as fh:
                for r in rows:
                    n += 1
                    fh.write(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n")
        elif fmt == "csv":
            with atomic_write(path) as fh:
                w = csv.writer(fh, lineterminator="\r\n")  # RFC 4180; a "\n" terminator left a lone CR unquoted
                w.writerow(FIELDS)
                for r in rows:
                    n += 1
                    for k in _JSON_CELLS:
                        r[k] = json.dumps(r[k])
                    w.writerow([csv_cell(r[k]) for k in FIELDS])
        else:
            n = _write_parquet(path, rows, parquet_metadata(signature))
    except OSError as exc:
        raise SemcerError(f"cannot write {path}: {exc.strerror or exc}") from None
    return n


def parquet_metadata(signature: Signature | None) -> dict[bytes, bytes]:
    """The schema metadata of a Parquet edit list: the signature string and the judge identity
    (:data:`PARQUET_SIGNATURE`, :data:`PARQUET_JUDGE`; none without a signature, no judge key without a judge)."""
    if signature is None:
        return {}
    out = {PARQUET_SIGNATURE: str(signature).encode("utf-8")}
    if signature.judge:
        out[PARQUET_JUDGE] = signature.judge.encode("utf-8")
    return out


def _write_parquet(path: str | Path, rows: Iterable[dict[str, Any]], metadata: dict[bytes, bytes]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema, n, batch = _schema(pa), 0, []
    if metadata:
        schema = schema.with_metadata(metadata)
    with atomic_path(path) as tmp, pq.ParquetWriter(tmp, schema) as writer:
        for r in rows:
            batch.append(r)
            if len(batch) >= PARQUET_BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                n, batch = n + len(batch), []
        if batch or not n:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            n += len(batch)
    return n


def _schema(pa):
    s, i, f = pa.string(), pa.int64(), pa.float64()
    return pa.schema([
        ("edit_id", s), ("span_id", s), ("line_id", s), ("doc", s), ("lang", s), ("op", s), ("ref_unit", s), ("hyp_unit", s),
        ("ref_pos", i), ("hyp_pos", i), ("marked_ref", s), ("marked_hyp", s), ("edit_class", s),
        ("p", pa.list_(f)), ("severity", f), ("mode", i), ("flags", s), ("failure", s),
        ("ref_element", s), ("hyp_element", s), ("ref_bbox", pa.list_(f)), ("hyp_bbox", pa.list_(f)),
    ])
