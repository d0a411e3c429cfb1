"""The candidates of a study: single edits (from an edit list, a score JSON or a judged-edit store)
and pairs of outputs of one reference (from two or more score JSONs of the same references).

A candidate edit keeps what the rating page shows (the marked pair), what the pool is stratified by
(language, edit class, severity band) and what ``semcer study export`` writes for ``semcer meta-eval
--items`` (an edit-list record keyed by ``edit_id``). No score is ever shown to a reader.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semcer.alignment.context import edit_contexts
from semcer.alignment.edits import Edit
from semcer.errors import InputError, quoted
from semcer.io.jsonl import MalformedJSON, read_document
from semcer.io.ratings import RatedItem, read_items
from semcer.judges.distribution import LEVELS, expected_rating, mode_of
from semcer.judges.rubric.classes import edit_class
from semcer.statistics.preference import near_miss
from semcer.text.script import lang_group
from semcer.text.units import graphemes

_SQLITE_MAGIC = b"SQLite format 3\x00"
_SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
#: What ``--from`` reads, for the errors that refuse a file.
ACCEPTED = ("--from takes an edit list (semcer score --edits FILE: .jsonl, .csv, .parquet), a `semcer score --json "
            "--lines` output (.json) or a judged-edit store (SQLite: --store of semcer score or semcer judge)")
#: Signature fields that may differ between the score JSONs of a pair pool, as they are the systems'
#: own: how a system's missing outputs were paired (--unmatched) and how the hyphens of its ALTO
#: files were read (--hyphen). Every other field (unit, text policy, empty references, judge, Unicode
#: versions, semcer version, how page files were read) decides a line's edit count or severity mass,
#: which the near misses compare between systems.
PER_SYSTEM_FIELDS = frozenset({"unmatched", "hyphen"})
_WRITE_SCORE = "write one with semcer score REFS HYPS --json --lines --spans 1 -o SCORE.json"
#: What an exported item keeps (meta-eval's edit-list fields; severity and mode when the source has them).
ITEM_FIELDS = ("edit_id", "line_id", "doc", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos",
               "marked_ref", "marked_hyp", "edit_class", "severity", "mode")


@dataclass(frozen=True)
class Candidate:
    """One edit that may be drawn: its edit-list record and its stratum."""

    id: str
    record: dict[str, Any]

    @property
    def lang(self) -> str:
        """The language its stratum and counts are kept under: the tag's one spelling (a store
        filled before tags were read so may hold ``zh_CN`` beside ``zh-CN``), ``und`` for none."""
        return lang_group(str(self.record.get("lang") or "") or None)

    @property
    def stratum(self) -> tuple[str, str, str]:
        """(language, edit class, severity band)."""
        return self.lang, str(self.record["edit_class"]), severity_band(self.record.get("severity"))


@dataclass(frozen=True)
class PairCandidate:
    """Two systems' outputs of one reference, where CER and semCER disagree on which is worse."""

    id: str
    line_id: str
    lang: str
    ref: str
    a: str
    b: str
    a_system: str
    b_system: str


def severity_band(severity: float | None) -> str:
    """The rubric level nearest to a severity (``L0`` ... ``L4``), ``unjudged`` without one."""
    if severity is None:
        return "unjudged"
    return f"L{min(LEVELS - 1, max(0, int(float(severity) * (LEVELS - 1) + 0.5)))}"


def source_kind(path: str | os.PathLike[str]) -> str:
    """``store`` (an SQLite file), ``score-json`` (``.json``) or ``edits`` (an edit list); a file
    named as an SQLite database that is none is refused (read as an edit list, its error would be
    about a CSV)."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"--from {path}: a directory; {ACCEPTED}")
    if not p.is_file():
        raise InputError(f"--from {path}: no such file")
    with open(p, "rb") as fh:
        head = fh.read(len(_SQLITE_MAGIC))
    if head == _SQLITE_MAGIC:
        return "store"
    if p.suffix.lower() in _SQLITE_SUFFIXES:
        raise InputError(f"--from {path}: not an edit list, a score JSON or a judged-edit store (named as an SQLite "
                         f"database, it is none); {ACCEPTED}")
    return "score-json" if p.suffix.lower() == ".json" else "edits"


def read_candidates(paths: Sequence[str], judge: str | None = None) -> list[Candidate]:
    """Every candidate edit of the sources, ids unique over all of them (first source wins).

    A store may hold several judges' edits; a study draws one judge's severities, so ``judge`` (an
    identity, as ``semcer store info`` lists them) picks one, and is needed when a store holds more
    than one. It applies to stores only: an edit list or a score JSON comes from one run."""
    kinds = [source_kind(path) for path in paths]
    if judge is not None and "store" not in kinds:
        raise InputError(f"--judge {judge}: picks the judge of a judged-edit store given with --from, and no --from "
                         "is a store")
    out: dict[str, Candidate] = {}
    for path, kind in zip(paths, kinds):
        rows = (_from_store(path, judge) if kind == "store" else _from_score_json(path) if kind == "score-json"
                else _from_edit_list(path))
        for c in rows:
            out.setdefault(c.id, c)
    if not out:
        raise InputError(f"--from {', '.join(paths)}: no edits to draw from")
    return list(out.values())


def _record(row: dict[str, Any]) -> dict[str, Any]:
    rec = {k: row.get(k) for k in ITEM_FIELDS}
    if not rec.get("edit_class"):
        rec["edit_class"] = edit_class(str(rec["ref_unit"]), str(rec["hyp_unit"]))
    return rec


def _from_edit_list(path: str) -> list[Candidate]:
    out = []
    for item in read_items(path):
        if not item.edit_list:
            raise InputError(f"{item.where}: not an edit list (no 'edit_id'); write one with semcer score --edits FILE")
        if item.fields.get("failure"):
            continue  # the judge failed on it: no severity band
        item.context()  # checks the marked pair, one line naming the record
        rec = _record(item.fields)
        sev = item.fields.get("severity")
        rec["severity"] = None if sev in (None, "") else item.number("severity")
        out.append(Candidate(item.id, rec))
    return out


def _from_store(path: str, judge: str | None) -> list[Candidate]:
    from semcer.store.sqlite import JudgedEditStore

    with JudgedEditStore(path, readonly=True) as store:
        rows: list[dict[str, Any]] = list(store.rows(skip_corrupt=True))
    judges = sorted({r["judge"] for r in rows})
    if judge is not None:
        rows = [r for r in rows if r["judge"] == judge]
        if not rows:
            raise InputError(f"--from {path}: no edits of judge {judge!r} (the store holds: "
                             f"{', '.join(judges) or 'no judged edits'})")
    elif len(judges) > 1:
        raise InputError(f"--from {path}: holds the edits of {len(judges)} judges ({', '.join(judges)}); a study "
                         "draws one judge's severities: name it with --judge IDENTITY")
    out = []
    for r in rows:
        rec = _record({**r, "edit_id": r["key"], "line_id": "", "doc": ""})
        rec["severity"], rec["mode"] = expected_rating(r["p"]), mode_of(r["p"])
        RatedItem(r["key"], r["lang"], rec, f"{path}: edit {r['key']}", edit_list=True).context()
        out.append(Candidate(r["key"], rec))
    return out


def _read_json(path: str, option: str) -> Any:
    """The JSON document of a score JSON (:func:`semcer.io.jsonl.read_document`), its errors saying
    what ``study`` needs."""
    try:
        return read_document(path)
    except MalformedJSON as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        raise InputError(f"{option} {path}: not a `semcer score --json --lines` output ({reason}); {_WRITE_SCORE}") \
            from None


def _score_lines(path: str, option: str = "--from") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The signature fields and the line rows of a ``semcer score --json --lines`` output."""
    obj = _read_json(path, option)
    fields = obj.get("signature_fields") if isinstance(obj, dict) else None
    lines = obj.get("lines") if isinstance(obj, dict) else None
    if not isinstance(fields, dict) or not isinstance(lines, list):
        raise InputError(f"{option} {path}: not a `semcer score --json --lines` output (no line rows); {_WRITE_SCORE}")
    for n, row in enumerate(lines):
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("id", "ref", "hyp")):
            raise InputError(f"{path}: lines[{n}] has no ref and hyp texts; write the file with semcer score REFS HYPS "
                             "--json --lines --spans 1 -o SCORE.json")
        if not isinstance(row.get("edits"), list):
            raise InputError(f"{path}: lines[{n}] has no edit list (write the file with --json --lines --spans 1)")
    return fields, lines


def _from_score_json(path: str) -> list[Candidate]:
    """The edits of a score JSON's lines, each with the marked pair the judge saw (the line, or the
    judge's window around the edit on a long line: :func:`semcer.alignment.context.edit_contexts`)."""
    fields, lines = _score_lines(path)
    unit = str(fields.get("unit") or "grapheme")
    split: Callable[[str], Sequence[str]] = graphemes if unit == "grapheme" else list
    out = []
    for n, line in enumerate(lines):
        ref_units, hyp_units = split(line["ref"]), split(line["hyp"])
        try:
            edits = [_score_edit(e, ref_units, hyp_units) for e in line["edits"]]
        except (KeyError, IndexError, TypeError, ValueError):
            raise InputError(f"{path}: lines[{n}]: an edit is not as semcer score --json writes it") from None
        contexts = edit_contexts(edits, ref_units, hyp_units, lang=str(line.get("lang") or ""), line_id=line["id"])
        for ctx, row in zip(contexts, line["edits"]):
            rec = _record({**row, "line_id": line["id"], "doc": line.get("doc") or "", "lang": ctx.lang,
                           "ref_pos": ctx.ref_pos, "hyp_pos": ctx.hyp_pos,
                           "marked_ref": ctx.marked_ref, "marked_hyp": ctx.marked_hyp})
            out.append(Candidate(str(row["edit_id"]), rec))
    return out


def _score_edit(e: dict[str, Any], ref_units: Sequence[str], hyp_units: Sequence[str]) -> Edit:
    op, rp, hp = e["op"], int(e["ref_pos"]), int(e["hyp_pos"])
    if op not in ("S", "D", "I") or (op != "I" and ref_units[rp] != e["ref_unit"]) or (
            op != "D" and hyp_units[hp] != e["hyp_unit"]):
        raise ValueError("not this line's unit")
    return Edit(op, rp, hp, str(e["ref_unit"]), str(e["hyp_unit"]))


def check_pair_sources(paths: Sequence[str]) -> None:
    """Two or more score JSONs with distinct names (the file names name the systems), before any is read."""
    if len(paths) < 2:
        raise InputError("--pairs-from: give two or more `semcer score --json --lines` outputs of the same references")
    names = [Path(p).stem for p in paths]
    if len(set(names)) != len(names):
        raise InputError("--pairs-from: the files' names (without .json) name the systems; give each system a distinct name")


def read_pair_candidates(paths: Sequence[str]) -> list[PairCandidate]:
    """The near-miss pairs of two or more score JSONs of the same references: for every line and
    every two systems, the pairs where CER (edit count; same reference, same denominator) and semCER
    (severity mass) disagree on which output is worse (:func:`semcer.statistics.preference.near_miss`).
    The files must be scored alike (equal signatures but for :data:`PER_SYSTEM_FIELDS`) and cover
    the same lines with the same references, as the systems of ``semcer compare``; else an error."""
    check_pair_sources(paths)
    names = [Path(p).stem for p in paths]
    read = [_score_lines(p, "--pairs-from") for p in paths]
    for path, (fields, _) in zip(paths[1:], read[1:]):
        _check_signature(paths[0], read[0][0], path, fields)
    systems = [{row["id"]: row for row in lines} for _, lines in read]
    for path, rows in zip(paths[1:], systems[1:]):
        _check_lines(paths[0], systems[0], path, rows)
    out = []
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            out += _near_misses(names[i], systems[i], names[j], systems[j])
    return out


def _check_signature(first: str, base: dict[str, Any], path: str, fields: dict[str, Any]) -> None:
    """The signature of ``path`` is the first file's, but for the fields a system may have of its own."""
    keys = [k for k in dict.fromkeys([*base, *fields]) if k not in PER_SYSTEM_FIELDS]
    differ = [k for k in keys if base.get(k) != fields.get(k)]
    if differ:
        what = "; ".join(f"{k} {_shown(fields.get(k))} ({first}: {_shown(base.get(k))})" for k in differ)
        raise InputError(f"--pairs-from {path}: its signature differs from {first}'s: {what}; the near misses compare "
                         "the systems' edit counts and severities, so score every system with the same options and "
                         "judge (only --unmatched and --hyphen may differ)")


def _shown(value: Any) -> str:
    return "none" if value is None else quoted(str(value))


def _check_lines(first: str, base: dict[str, dict], path: str, rows: dict[str, dict]) -> None:
    """``path`` has the first file's lines, each with the same reference."""
    missing, extra = [k for k in base if k not in rows], [k for k in rows if k not in base]
    if missing or extra:
        example = f"line {quoted(missing[0])} only in {first}" if missing else f"line {quoted(extra[0])} only in {path}"
        raise InputError(f"--pairs-from {path} covers other lines than {first} ({len(missing)} missing, {len(extra)} "
                         f"extra; e.g. {example}); pairs need score JSONs of the same references: score every system "
                         "on the same ids (--unmatched empty scores a missing output as empty)")
    for k, row in base.items():
        if row["ref"] != rows[k]["ref"]:
            raise InputError(f"--pairs-from {path}: line {quoted(k)} has another reference than in {first}; "
                             "pairs need score JSONs of the same references")


def _near_misses(na: str, a: dict[str, dict], nb: str, b: dict[str, dict]) -> list[PairCandidate]:
    ids = [k for k in a if k in b and a[k]["hyp"] != b[k]["hyp"]]
    cer = ([len(a[k]["edits"]) for k in ids], [len(b[k]["edits"]) for k in ids])
    sem = ([_mass(a[k]) for k in ids], [_mass(b[k]) for k in ids])
    mask: Sequence[bool] = near_miss(sem, cer).tolist() if ids else []
    return [PairCandidate(f"{k}|{na}|{nb}", k, lang_group(str(a[k].get("lang") or "") or None), a[k]["ref"],
                          a[k]["hyp"], b[k]["hyp"], na, nb)
            for k, hit in zip(ids, mask) if hit]


def _mass(row: dict[str, Any]) -> float:
    if not isinstance(row.get("severity"), (int, float)):
        raise InputError(f"line {row['id']!r} has no severity: score the systems with a judge (semcer score ... --json --lines)")
    return float(row["severity"])
