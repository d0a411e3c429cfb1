"""Reader studies, read for ``semcer meta-eval``: reader ratings, the rated items, and rated pairs.

**Ratings** (``--ratings FILE``): JSON Lines, or CSV/TSV with a header row; one rating per record:

* ``item``: the rated item's id (a string; an integer becomes its decimal string);
* ``rater``: who rated it (a string or an integer);
* ``level``: the rubric level, an integer 0-4, or ``rating``: a number in [0, 1] (level k is rating
  k/4); a record may give both when they agree. Other fields and columns are ignored.

A rater rates an item at most once (a second rating of the same item is refused, naming both lines).

**Items** (``--items FILE``): one record per rated edit, keyed by ``edit_id`` when the records carry
one (an edit list written by ``semcer score --edits``: ``.jsonl``, ``.csv`` or ``.parquet``) and by
``id`` otherwise (the labelled-edit JSONL of ``data/severity/``, :mod:`semcer.io.labels`). What the
other fields are used for, each checked only when it is needed:

* a judge (``--judge``) judges the item's marked pair: the labelled-edit fields (``lang``, ``op``,
  ``ref_unit``, ``hyp_unit``, ``ref_pos``, ``hyp_pos``, ``ref``, ``hyp``, ``marked_ref``,
  ``marked_hyp``), or, in an edit list, the same without ``ref`` and ``hyp``, which are the marked
  lines with the marks taken out;
* ``--score-column COL``: a number (in CSV, a cell that reads as a finite number);
* the edit class (``--band edit_class``): the ``edit_class`` field, else the classifier of
  ``ref_unit`` -> ``hyp_unit``;
* ``lang`` for ``--by-lang``.

A CSV edit list (a header with ``edit_id``) is read back with semcer's spreadsheet neutralisation
undone: one leading ``'`` is removed from every text cell that begins with one
(:mod:`semcer.io.edits`).

**Pairs** (``--pairs FILE``): JSON Lines, one pair of outputs of one reference per line::

    {"pair": "p1", "ref": "Tấm Cám", "a": "Tám Cám", "b": "Tấm Cảm", "lang": "vi",
     "choices": {"r1": "a", "r2": "equal", "r3": "a"}}

``pair`` is the id (string or integer, unique), ``ref``/``a``/``b`` the texts, ``lang`` optional;
``choices`` maps each rater to ``"a"`` or ``"b"`` (the output that damages a reader MORE) or
``"equal"``; ``null`` (or leaving the rater out) means the rater did not see the pair.

**Transcriptions** (``--transcriptions FILE``): JSON Lines, one rated output of one reference per
line (the paper's Table 7: readers rating whole transcriptions)::

    {"id": "t1", "ref": "Tổng 120 đồng", "out": "Tong 128 dong", "lang": "vi",
     "levels": {"r1": 4, "r2": 3, "r3": null}}

``id`` unique, ``ref``/``out`` the texts, ``lang`` optional; ``levels`` maps each rater to the
rubric level (an integer 0-4) of the damage the whole output does to its reader; ``null`` (or
leaving the rater out) means the rater did not rate it.

Every reader refuses what :mod:`semcer.io.jsonl` refuses (binary, invalid UTF-8, NUL, malformed
JSON) and reports each mistake as one line naming the file, the line and the fix.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN, EditContext
from semcer.errors import InputError, SemcerError, quoted
from semcer.io.jsonl import decode, json_type, parse, read_bytes, read_objects
from semcer.io.labels import edit_context
from semcer.judges.distribution import LEVELS, RATINGS
from semcer.text.script import canonical_lang
from semcer.text.units import graphemes

#: Answers of a pair rating: the output that damages a reader more, or neither.
CHOICES: tuple[str, ...] = ("a", "b", "equal")
#: Fields of an item that are integers, and numbers, when read from CSV.
_INT_FIELDS = frozenset({"ref_pos", "hyp_pos", "mode", "n_labels"})
_TEXT_FIELDS = ("lang", "op", "ref_unit", "hyp_unit", "marked_ref", "marked_hyp")


@dataclass(frozen=True, slots=True)
class Rating:
    """One reader's rating of one item, on the rubric's scale [0, 1] (level k = k/4)."""

    item: str
    rater: str
    value: float
    where: str


@dataclass(frozen=True)
class RatedItem:
    """One item of a study: its id, language and fields as read, and where it was read."""

    id: str
    lang: str | None
    fields: dict[str, Any]
    where: str
    edit_list: bool = False  # keyed by edit_id (an edit list): ref and hyp come from the marked pair

    def number(self, column: str) -> float:
        """The value of ``column`` as a finite float; an InputError naming the item otherwise."""
        if column not in self.fields or self.fields[column] is None or self.fields[column] == "":
            raise InputError(f"{self.where}: item {quoted(self.id)} has no {column!r} value (--score-column {column})")
        value = self.fields[column]
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                raise InputError(f"{self.where}: {column!r} is {quoted(value)}, not a number "
                                 f"(--score-column {column})") from None
        elif type(value) in (int, float):
            number = float(value)
        else:
            raise InputError(f"{self.where}: {column!r} must be a number, got {json_type(value)} "
                             f"(--score-column {column})")
        if not math.isfinite(number):
            raise InputError(f"{self.where}: {column!r} is {value!r}, not a finite number (--score-column {column})")
        return number

    def label(self, column: str) -> str:
        """The value of ``column`` as a band label (a string; a number as written)."""
        value = self.fields.get(column)
        if value is None or value == "":
            raise InputError(f"{self.where}: item {quoted(self.id)} has no {column!r} value (--band {column})")
        if type(value) in (dict, list):
            raise InputError(f"{self.where}: {column!r} must be a string or a number, got {json_type(value)}")
        return str(value)

    def context(self) -> EditContext:
        """The judge context of the item's edit (see the module documentation)."""
        row = self.fields
        if not self.edit_list or ("ref" in row and "hyp" in row):
            return edit_context(row, self.where)
        for name in _TEXT_FIELDS:
            if type(row.get(name)) is not str:
                got = "missing" if row.get(name) is None else json_type(row[name])
                raise InputError(f"{self.where}: {name!r} is {got}; a judge needs the item's marked pair "
                                 "(an edit list written by semcer score --edits has it)")
        for name in ("ref_pos", "hyp_pos"):
            if type(row.get(name)) is not int or row[name] < 0:
                raise InputError(f"{self.where}: {name!r} must be a non-negative integer")
        op = row["op"]
        if op not in ("S", "D", "I"):
            raise InputError(f"{self.where}: 'op' is {op!r}, expected S, D or I")
        ref = _unmarked(row["marked_ref"], row["ref_unit"], row["ref_pos"], op != "I", self.where, "marked_ref")
        hyp = _unmarked(row["marked_hyp"], row["hyp_unit"], row["hyp_pos"], op != "D", self.where, "marked_hyp")
        lang = canonical_lang(row["lang"]) if row["lang"] else row["lang"]  # one spelling, as a scored line's
        return EditContext(lang=lang, op=op, ref_unit=row["ref_unit"], hyp_unit=row["hyp_unit"],
                           ref_pos=row["ref_pos"], hyp_pos=row["hyp_pos"], ref=ref, hyp=hyp,
                           marked_ref=row["marked_ref"], marked_hyp=row["marked_hyp"],
                           line_id=str(row.get("line_id") or ""), doc=str(row.get("doc") or ""))


@dataclass(frozen=True)
class RatedPair:
    """Two outputs of one reference and each rater's answer (``None``: did not rate it)."""

    id: str
    ref: str
    a: str
    b: str
    lang: str | None
    choices: dict[str, str | None] = field(default_factory=dict)
    where: str = ""


def _unmarked(marked: str, unit: str, pos: int, present: bool, where: str, name: str) -> str:
    """The line of a marked pair without its marks: ``head ⟦unit⟧ tail`` -> ``head unit tail``.

    When the token ``⟦unit⟧`` occurs more than once (the text holds the marks itself), the one
    after ``pos`` grapheme units is taken."""
    token = MARK_OPEN + (unit if present else "") + MARK_CLOSE
    starts = []
    i = marked.find(token)
    while i >= 0:
        starts.append(i)
        i = marked.find(token, i + 1)
    if len(starts) > 1:
        starts = [s for s in starts if len(graphemes(marked[:s])) == pos]
    if len(starts) != 1:
        raise InputError(f"{where}: {name!r} does not hold the edit marked as {token!r} at unit {pos}; "
                         "give the marked pair as semcer writes it")
    s = starts[0]
    return marked[:s] + (unit if present else "") + marked[s + len(token):]


# ---------------------------------------------------------------------------------------------
# Tables and records


def _kind(path: str | os.PathLike[str], text: str | None = None) -> str:
    """``jsonl``, ``csv``, ``tsv`` or ``parquet`` from the suffix, else from the content."""
    suffix = Path(path).suffix.lower()
    by_suffix = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv",
                 ".parquet": "parquet"}
    if suffix in by_suffix:
        return by_suffix[suffix]
    if text is None:
        return "unknown"
    start = text.lstrip()
    if start.startswith(("{", "[")):
        return "jsonl"
    first = start.split("\n", 1)[0]
    return "tsv" if "\t" in first else "csv"


def read_records(path: str | os.PathLike[str], what: str, *, parquet: bool = False) -> tuple[str, list[tuple[str, dict]]]:
    """Every record of a JSONL, CSV or TSV file (and Parquet with ``parquet``) as ``(where, dict)``,
    with the format read; CSV and TSV cells are strings (an empty cell is ``""``)."""
    name = str(path)
    kind = _kind(path)
    if kind == "parquet":
        if not parquet:
            raise InputError(f"{name}: Parquet is read for --items only; give JSONL or CSV")
        return kind, _parquet_records(path)
    if kind == "jsonl":
        return kind, read_objects(path, what)
    text = decode(read_bytes(path, name), name)
    kind = _kind(path, text)
    if kind == "jsonl":
        return kind, read_objects(path, what)
    return kind, _table_records(text, name, "\t" if kind == "tsv" else ",")


def _table_records(text: str, name: str, delimiter: str) -> list[tuple[str, dict]]:
    kind = "TSV" if delimiter == "\t" else "CSV"
    options: dict[str, Any] = {"quoting": csv.QUOTE_NONE} if delimiter == "\t" else {}
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True, **options)
    rows: list[tuple[int, list[str]]] = []
    line = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(f"{name}:{line}: malformed row: {exc}") from None
        rows.append((line, row))
        line = reader.line_num + 1
    while rows and not rows[-1][1]:  # blank lines at the end are allowed
        rows.pop()
    if not rows:
        raise InputError(f"{name}: no records (the file is empty)")
    header = [h.strip() for h in rows[0][1]]
    seen: set[str] = set()
    for h in header:
        if h in seen:
            raise InputError(f"{name}:1: column {h!r} appears twice in the header")
        seen.add(h)
    out = []
    for line, row in rows[1:]:
        where = f"{name}:{line}"
        if not row:
            raise InputError(f"{where}: blank line in a {kind} file (only allowed at the end); remove it")
        if len(row) != len(header):
            raise InputError(f"{where}: {len(row)} fields, the header has {len(header)}")
        out.append((where, dict(zip(header, row))))
    if not out:
        raise InputError(f"{name}: a header and no records")
    return out


def _parquet_records(path: str | os.PathLike[str]) -> list[tuple[str, dict]]:
    name = str(path)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise SemcerError(f'{name}: reading Parquet needs pyarrow: pip install "semcer[parquet]"') from None
    if not Path(path).is_file():
        raise InputError(f"{name}: no such file")
    try:
        rows = pq.read_table(path).to_pylist()
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{name}: not a readable Parquet file ({exc})") from None
    if not rows:
        raise InputError(f"{name}: no records (the file is empty)")
    return [(f"{name}: row {i + 1}", {k: v for k, v in r.items() if v is not None}) for i, r in enumerate(rows)]


def _id(value: object, where: str, key: str) -> str:
    if type(value) is int:
        return str(value)
    if type(value) is not str or not value:
        got = "missing" if value is None else "empty" if value == "" else json_type(value)
        raise InputError(f"{where}: {key!r} is {got}; every record needs a non-empty string {key!r}")
    return value


# ---------------------------------------------------------------------------------------------
# Ratings


def read_ratings(path: str | os.PathLike[str], *, rater_optional: bool = False) -> list[Rating]:
    """Every rating of a ratings file (see the module documentation), in file order.
    ``rater_optional``: a record without a ``rater`` is a rater of its own (``semcer report``'s
    top-of-list curve averages every rating of an item, whoever gave it)."""
    kind, records = read_records(path, "a rating (a JSON object with item, rater and level or rating)")
    tabular = kind != "jsonl"
    out: list[Rating] = []
    first: dict[tuple[str, str], str] = {}
    for where, row in records:
        given = row.get("rater")
        anonymous = rater_optional and (given is None or given == "")
        item, rater = _id(row.get("item"), where, "item"), where if anonymous else _id(given, where, "rater")
        value = _rating_value(row, where, tabular)
        seen = first.setdefault((item, rater), where)
        if seen is not where:
            raise InputError(f"{where}: rater {quoted(rater)} rated item {quoted(item)} twice (first at {seen}); "
                             "keep one rating")
        out.append(Rating(item, rater, value, where))
    return out


def _rating_value(row: dict[str, Any], where: str, tabular: bool) -> float:
    level, rating = row.get("level"), row.get("rating")
    if tabular:  # an empty cell gives no value
        level, rating = level or None, rating or None
    if level is None and rating is None:
        raise InputError(f"{where}: no 'level' (0-{LEVELS - 1}) or 'rating' (a number in [0, 1])")
    from_level = None
    if level is not None:
        if tabular and isinstance(level, str) and level.strip().isdigit():
            level = int(level.strip())
        if type(level) is not int or not 0 <= level < LEVELS:
            raise InputError(f"{where}: 'level' must be an integer 0-{LEVELS - 1}, got {level!r}")
        from_level = RATINGS[level]
    if rating is None:
        return from_level  # type: ignore[return-value]
    if tabular and isinstance(rating, str):
        try:
            rating = float(rating.strip())
        except ValueError:
            raise InputError(f"{where}: 'rating' must be a number in [0, 1], got {rating!r}") from None
    if type(rating) not in (int, float) or not 0.0 <= rating <= 1.0:  # NaN fails the range too
        raise InputError(f"{where}: 'rating' must be a number in [0, 1], got {rating!r}")
    if from_level is not None and abs(from_level - rating) > 1e-9:
        raise InputError(f"{where}: 'level' {level} and 'rating' {rating} disagree (level k is rating k/4); give one")
    return float(rating)


# ---------------------------------------------------------------------------------------------
# Items


def read_items(path: str | os.PathLike[str]) -> list[RatedItem]:
    """Every item of an items file (labelled edits or an edit list; see the module documentation)."""
    kind, records = read_records(path, "an item (a JSON object)", parquet=True)
    if not records:  # pragma: no cover - read_records refuses an empty file
        return []
    edit_list = "edit_id" in records[0][1]
    key = "edit_id" if edit_list else "id"
    tabular = kind in ("csv", "tsv")
    items: list[RatedItem] = []
    first: dict[str, str] = {}
    for where, row in records:
        if tabular:
            row = _typed(row, where, unquote=edit_list)
        item_id = _id(row.get(key), where, key)
        seen = first.setdefault(item_id, where)
        if seen is not where:
            raise InputError(f"{where}: duplicate item {key} {quoted(item_id)} (first at {seen})")
        lang = row.get("lang")
        if lang is not None and type(lang) is not str:
            raise InputError(f"{where}: 'lang' must be a string, got {json_type(lang)}")
        items.append(RatedItem(item_id, lang or None, row, where, edit_list))
    return items


def _typed(row: dict[str, str], where: str, *, unquote: bool) -> dict[str, Any]:
    """A CSV record with the integer fields as integers, ``p`` parsed (both absent when empty), and
    (edit lists) the leading quote of semcer's spreadsheet neutralisation removed from text cells; an
    empty text cell is the empty string (the empty side of an insertion or deletion)."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        if (k in _INT_FIELDS or k == "p") and not v.strip():
            continue  # an empty number is no number
        if k in _INT_FIELDS:
            try:
                out[k] = int(v.strip())
            except ValueError:
                raise InputError(f"{where}: {k!r} must be an integer, got {quoted(v)}") from None
        elif k == "p":
            out[k] = parse(v, f"{where}: column 'p'")
        else:
            out[k] = v[1:] if unquote and v.startswith("'") else v
    return out


# ---------------------------------------------------------------------------------------------
# Pairs


def _record(row: dict[str, Any], where: str, first: dict[str, str], key: str, what: str,
            names: tuple[str, ...]) -> tuple[str, list[str], str | None]:
    """A pair's or a transcription's id (unique in its file: ``first`` maps each id to where it was
    read), its texts ``names`` (strings) and its optional ``lang``."""
    record_id = _id(row.get(key), where, key)
    seen = first.setdefault(record_id, where)
    if seen is not where:
        raise InputError(f"{where}: duplicate {what} {quoted(record_id)} (first at {seen})")
    texts = []
    for name in names:
        value = row.get(name)
        if type(value) is not str:
            got = "missing" if value is None else json_type(value)
            listed = ", ".join(names[:-1]) + " and " + names[-1]
            raise InputError(f"{where}: {name!r} is {got}; each {what} needs the texts {listed} (strings)")
        texts.append(value)
    lang = row.get("lang")
    if lang is not None and type(lang) is not str:
        raise InputError(f"{where}: 'lang' must be a string, got {json_type(lang)}")
    return record_id, texts, lang


def read_pairs(path: str | os.PathLike[str]) -> list[RatedPair]:
    """Every pair of a pairs file (JSONL; see the module documentation), in file order."""
    out: list[RatedPair] = []
    first: dict[str, str] = {}
    for where, row in read_objects(path, 'a pair (a JSON object with "pair", "ref", "a", "b", "choices")'):
        pair_id, texts, lang = _record(row, where, first, "pair", "pair", ("ref", "a", "b"))
        choices = row.get("choices")
        if type(choices) is not dict:
            got = "missing" if choices is None else json_type(choices)
            raise InputError(f"{where}: 'choices' is {got}; give an object rater -> \"a\", \"b\" or \"equal\"")
        for rater, choice in choices.items():
            if not rater:
                raise InputError(f"{where}: 'choices' has an empty rater name")
            if choice is not None and choice not in CHOICES:
                raise InputError(f"{where}: rater {rater!r} answered {choice!r}; answers are \"a\" or \"b\" (the "
                                 "output that damages a reader more), \"equal\", or null (not rated)")
        out.append(RatedPair(pair_id, texts[0], texts[1], texts[2], lang or None, dict(choices), where))
    return out


# ---------------------------------------------------------------------------------------------
# Transcriptions


@dataclass(frozen=True)
class RatedTranscription:
    """One output of one reference and each rater's rating of it (level/4; ``None``: not rated)."""

    id: str
    ref: str
    out: str
    lang: str | None
    ratings: dict[str, float | None] = field(default_factory=dict)
    where: str = ""


def read_transcriptions(path: str | os.PathLike[str]) -> list[RatedTranscription]:
    """Every rated transcription of a transcriptions file (JSONL; see the module documentation)."""
    out: list[RatedTranscription] = []
    first: dict[str, str] = {}
    for where, row in read_objects(path, 'a transcription (a JSON object with "id", "ref", "out", "levels")'):
        item_id, texts, lang = _record(row, where, first, "id", "transcription", ("ref", "out"))
        out.append(RatedTranscription(item_id, texts[0], texts[1], lang or None, _levels(row.get("levels"), where),
                                      where))
    return out


def _levels(levels: Any, where: str) -> dict[str, float | None]:
    if type(levels) is not dict:
        got = "missing" if levels is None else json_type(levels)
        raise InputError(f"{where}: 'levels' is {got}; give an object rater -> level 0-4 (or null: not rated)")
    out: dict[str, float | None] = {}
    for rater, level in levels.items():
        if not rater:
            raise InputError(f"{where}: 'levels' has an empty rater name")
        if level is not None and (type(level) is not int or not 0 <= level < LEVELS):
            raise InputError(f"{where}: rater {rater!r} gave {level!r}; a level is an integer 0-4, or null (not rated)")
        out[rater] = None if level is None else level / 4
    return out
