"""Two JSON Lines files read a chunk at a time, for the common case where it is exact.

:func:`semcer.io.collections.read_collection` reads a whole file into memory (several times the
file's size as Python objects). For two ``.jsonl`` files that list the same ids in the same order,
pairing them needs no index: :func:`jsonl_source` reads both once to check them (the same
parser, the same per-record checks, every id kept only once, in a set), then the pipeline reads
them again a chunk at a time. Anything else (another format, compressed input, standard input, a
BOM, ids in another order or on one side only, a doc or lang the two sides disagree on, a record the
fast checks do not accept, a malformed line) returns None, and the caller reads the files whole as
before: its error messages and its pairing rules stay the only ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from semcer.alignment.engine import Pair
from semcer.errors import InputError
from semcer.io.collections import detect_format
from semcer.io.jsonl import binary_format, check_strings, parse

_HEAD = 1 << 20  # what format detection looks at


class _Unusual(Exception):
    """Not the plain case: the files are read whole instead."""


class JsonlSource:
    """Two checked JSON Lines files, paired line by line: ``len()`` pairs, read in chunks."""

    def __init__(self, refs: Path, hyps: Path, lang: str | None, count: int) -> None:
        self.refs, self.hyps, self.lang, self.count = refs, hyps, lang, count

    def __len__(self) -> int:
        return self.count

    def chunks(self, size: int) -> Iterator[RawPairs]:
        """The lines in chunks of ``size`` line pairs, still unparsed: whoever prepares a chunk (a
        worker) parses it (:meth:`RawPairs.pairs`), so the parent only reads."""
        chunk: list[tuple[str, str]] = []
        start = 1
        with open(self.refs, "rb") as rf, open(self.hyps, "rb") as hf:
            try:
                for line_pair in _lockstep(rf, hf):
                    chunk.append(line_pair)
                    if len(chunk) >= size:
                        yield RawPairs(str(self.refs), str(self.hyps), self.lang, start, chunk)
                        start, chunk = start + len(chunk), []
            except (_Unusual, UnicodeDecodeError):
                raise InputError(f"{self.refs} or {self.hyps} changed while being scored; run again") from None
        if chunk:
            yield RawPairs(str(self.refs), str(self.hyps), self.lang, start, chunk)


class RawPairs:
    """A chunk of line pairs of two checked JSON Lines files, parsed where it is prepared; iterating
    gives the raw line pairs (what a completion marker's fingerprint hashes)."""

    def __init__(self, refs: str, hyps: str, lang: str | None, start: int, lines: list[tuple[str, str]]) -> None:
        self.refs, self.hyps, self.lang, self.start, self.lines = refs, hyps, lang, start, lines

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.lines)

    def pairs(self) -> list[Pair]:
        try:
            return [_pair(r, h, f"{self.refs}:{n}", f"{self.hyps}:{n}", self.lang)
                    for n, (r, h) in enumerate(self.lines, self.start)]
        except _Unusual:
            raise InputError(f"{self.refs} or {self.hyps} changed while being scored; run again") from None


def jsonl_source(refs: str, hyps: str, *, formats: tuple[str | None, ...], lang: str | None) -> JsonlSource | None:
    """A :class:`JsonlSource` when both inputs are plain ``.jsonl`` files with the same ids in the same
    order and every record passes (checked here, through both files); else None."""
    paths = [Path(refs), Path(hyps)]
    if any(f not in (None, "jsonl") for f in formats) or not all(_plain(p) for p in paths):
        return None
    seen: set[str] = set()
    try:
        count = sum(1 for _ in _pairs(paths[0], paths[1], lang, seen))
    except (_Unusual, InputError, OSError, UnicodeDecodeError):
        return None
    return JsonlSource(paths[0], paths[1], lang, count) if count else None


def _plain(p: Path) -> bool:
    if p.suffix.lower() not in (".jsonl", ".ndjson") or not p.is_file():
        return False
    with open(p, "rb") as fh:
        head = fh.read(_HEAD)
    return binary_format(head) is None and not head.startswith(b"\xef\xbb\xbf") and detect_format(head, p.suffix) == "jsonl"


def _pairs(refs: Path, hyps: Path, lang: str | None, seen: set[str]) -> Iterator[Pair]:
    """The pairs of the two files, line by line; :class:`_Unusual` as soon as the plain case ends."""
    with open(refs, "rb") as rf, open(hyps, "rb") as hf:
        for n, (rline, hline) in enumerate(_lockstep(rf, hf), 1):
            pair = _pair(rline, hline, f"{refs}:{n}", f"{hyps}:{n}", lang)
            if pair.id in seen:
                raise _Unusual  # a duplicate id: the whole-file reader names it
            seen.add(pair.id)
            yield pair


def _pair(rline: str, hline: str, rwhere: str, hwhere: str, lang: str | None) -> Pair:
    r, h = _record(rline, rwhere), _record(hline, hwhere)
    if r[0] != h[0]:
        raise _Unusual
    return Pair(r[0], r[1], h[1], _agree(r[2], h[2]) or r[0], _agree(r[3], h[3]) or lang)


def _lockstep(rf: Any, hf: Any) -> Iterator[tuple[str, str]]:
    """Line pairs of two files (``\\r\\n`` read as ``\\n``); blank lines only at the end of both."""
    blank = False
    while True:
        a, b = rf.readline(), hf.readline()
        if not a and not b:
            return
        sa, sb = _text(a), _text(b)
        if not sa.strip() or not sb.strip():
            if sa.strip() or sb.strip():
                raise _Unusual
            blank = True
            continue
        if blank:
            raise _Unusual  # a blank line before the end: the whole-file reader explains it
        yield sa, sb


def _text(raw: bytes) -> str:
    if b"\x00" in raw:
        raise _Unusual
    line = raw.decode("utf-8")
    if line.endswith("\n"):
        line = line[:-2] if line.endswith("\r\n") else line[:-1]
    return line


def _record(line: str, where: str) -> tuple[str, str, str | None, str | None]:
    """(id, text, doc, lang) of one record that passes the fast checks of the whole-file reader."""
    obj = parse(line, where)
    if "\\u" in line:
        check_strings(obj, where)
    if type(obj) is not dict:
        raise _Unusual
    id_, text, doc, lang = obj.get("id"), obj.get("text"), obj.get("doc"), obj.get("lang")
    if not (type(id_) is str and id_ and type(text) is str and (doc is None or type(doc) is str)
            and (lang is None or type(lang) is str)):
        raise _Unusual
    return id_, text, doc or None, lang or None


def _agree(a: str | None, b: str | None) -> str | None:
    """The reference's value, else the output's; two different values are not the plain case."""
    if a is not None and b is not None and a != b:
        raise _Unusual
    return a if a is not None else b
