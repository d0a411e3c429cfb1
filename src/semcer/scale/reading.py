"""Two JSON Lines files read a chunk at a time, for the common case where it is exact.

:func:`semcer.io.collections.read_collection` reads a whole file into memory (several times the
file's size as Python objects). For two ``.jsonl`` files that list the same ids in the same order,
pairing them needs no index: :func:`jsonl_source` finds where every sixteenth line of each file
starts, then checks every record (the same parser, the same per-record checks; every id kept as an
8-byte hash, to find one that comes twice; the parts of a large input checked by worker processes);
then each chunk is read where it is prepared (a worker process), from its byte position. Anything
else (another format, compressed input, standard input, a BOM, ids in another order or on one side
only, a doc or lang the two sides disagree on, a record the fast checks do not accept, a malformed
line) returns None, and the caller reads the files whole as before: its error messages and its
pairing rules stay the only ones.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Iterator
from hashlib import blake2b
from pathlib import Path
from typing import Any

import numpy as np

from semcer.alignment.engine import Pair, empty_reference_error, first_empty_reference, first_too_long
from semcer.errors import InputError
from semcer.io.collections import LANGUAGE_TAG, detect_format
from semcer.io.jsonl import binary_format, check_strings, parse
from semcer.io.pairing import SidesDisagree, pair_fields
from semcer.scale.executors import close_workers, in_order, start_workers
from semcer.text.policy import TextPolicy
from semcer.text.units import Unit

_HEAD = 1 << 20  # what format detection looks at


class _Unusual(Exception):
    """Not the plain case: the files are read whole instead."""


#: A line start is kept for every ``_STRIDE``-th line of each file: a chunk (or a line the report
#: shows) is read from the nearest one, skipping fewer than ``_STRIDE`` lines.
_STRIDE = 16


class JsonlSource:
    """Two checked JSON Lines files, paired line by line: ``len()`` pairs, read in chunks.

    The check pass keeps where every ``_STRIDE``-th line starts in each file and each file's size and
    modification time, so a chunk is a byte position and a line count: whoever prepares it reads its
    lines (a worker process), and the parent never reads the files a second time."""

    def __init__(self, refs: Path, hyps: Path, lang: str | None, count: int, starts: tuple[array, array],
                 stamps: tuple[tuple[int, int], tuple[int, int]]) -> None:
        self.refs, self.hyps, self.lang, self.count = refs, hyps, lang, count
        self._starts, self._stamps = starts, stamps
        self.empty_checked: TextPolicy | None = None  # the policy its references were found non-empty under

    def pairs(self) -> Iterator[Pair]:
        """Every pair, read and parsed a part at a time (a pass through both files)."""
        for part in self.chunks(_CHECK_PART):
            yield from part.pairs()

    def __len__(self) -> int:
        return self.count

    def chunks(self, size: int) -> Iterator[RawPairs]:
        """The lines in chunks of ``size`` line pairs, neither read nor parsed here: whoever prepares
        a chunk (a worker) reads and parses it (:meth:`RawPairs.pairs`)."""
        for first in range(0, self.count, size):
            yield self._range(first, min(size, self.count - first))

    def _range(self, first: int, n: int) -> RawPairs:
        block = first // _STRIDE
        at = (self._starts[0][block], self._starts[1][block])
        return RawPairs(str(self.refs), str(self.hyps), self.lang, first + 1, n, at, first - block * _STRIDE,
                        self._stamps)

    def pairs_near(self, lines: Iterable[int], spread: int) -> Iterator[Pair]:
        """The pairs of lines ``k`` to ``k + spread`` (0-based) for each ``k`` in ``lines``, each once,
        in file order: where a row ``k`` of a run is when at most ``spread`` lines were skipped."""
        keep = {i for k in lines for i in range(k, min(k + spread + 1, self.count))}
        wanted = sorted(keep)
        k = 0
        while k < len(wanted):
            first = wanted[k]
            last = first
            while k + 1 < len(wanted) and wanted[k + 1] - last <= _STRIDE:  # read runs of near lines at once
                k += 1
                last = wanted[k]
            k += 1
            raw = self._range(first, last - first + 1)
            yield from (p for i, p in enumerate(raw.pairs(), first) if i in keep)


class RawPairs:
    """A chunk of line pairs of two checked JSON Lines files: ``count`` lines from line number
    ``start`` (1-based), found at byte positions ``at`` after skipping ``skip`` lines. Iterating gives
    the raw line pairs (what a completion marker's fingerprint hashes); :meth:`pairs` parses them.
    :meth:`loaded` carries the lines themselves, for a process that cannot read the files."""

    def __init__(self, refs: str, hyps: str, lang: str | None, start: int, count: int, at: tuple[int, int],
                 skip: int, stamps: tuple[tuple[int, int], tuple[int, int]],
                 lines: list[tuple[str, str]] | None = None) -> None:
        self.refs, self.hyps, self.lang, self.start, self.count = refs, hyps, lang, start, count
        self.at, self.skip, self.stamps, self._lines = at, skip, stamps, lines

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._read())

    def loaded(self) -> RawPairs:
        """The same chunk with its lines read now (they travel with it)."""
        return RawPairs(self.refs, self.hyps, self.lang, self.start, self.count, self.at, self.skip, self.stamps,
                        self._read())

    def pairs(self) -> list[Pair]:
        try:
            return [_pair(r, h, f"{self.refs}:{n}", f"{self.hyps}:{n}", self.lang)
                    for n, (r, h) in enumerate(self._read(), self.start)]
        except _Unusual:
            raise self._changed() from None

    def _read(self) -> list[tuple[str, str]]:
        if self._lines is not None:
            return self._lines
        try:
            with open(self.refs, "rb") as rf, open(self.hyps, "rb") as hf:
                return list(zip(self._lines_of(rf, 0), self._lines_of(hf, 1)))
        except (_Unusual, UnicodeDecodeError, OSError):
            raise self._changed() from None

    def _lines_of(self, fh: Any, side: int) -> list[str]:
        st = os.fstat(fh.fileno())
        if (st.st_size, st.st_mtime_ns) != self.stamps[side]:
            raise _Unusual
        fh.seek(self.at[side])
        for _ in range(self.skip):
            fh.readline()
        out = [_text(fh.readline()) for _ in range(self.count)]
        if not all(map(str.strip, out)):
            raise _Unusual  # a blank line, or the end of the file: not the checked file
        return out

    def _changed(self) -> InputError:
        return InputError(f"{self.refs} or {self.hyps} changed while being scored; run again")


#: Lines from which the check pass is shared among worker processes (below, starting them costs more).
PARALLEL_CHECK_LINES = 100_000
_CHECK_PART = 20_000  # lines checked at a time (what is held in memory while they are)


def jsonl_source(refs: str, hyps: str, *, formats: tuple[str | None, ...], lang: str | None,
                 workers: int = 1, empty_error: TextPolicy | None = None,
                 sizes: tuple[TextPolicy, Unit] | None = None) -> JsonlSource | None:
    """A :class:`JsonlSource` when both inputs are plain ``.jsonl`` files with the same ids in the same
    order and every record passes (checked here, through both files, by up to ``workers``
    processes); else None. With ``empty_error`` (the policy of a run under ``empty_ref='error'``),
    a reference that is empty after it is the run's error, raised here, before any work: the
    :class:`~semcer.errors.EmptyReferenceError` the alignment would raise when it got there. With
    ``sizes`` (the run's policy and unit), so is a line pair beyond what the aligner takes
    (:func:`semcer.alignment.engine.first_too_long`), after that."""
    paths = [Path(refs), Path(hyps)]
    if any(f not in (None, "jsonl") for f in formats) or not all(_plain(p) for p in paths):
        return None
    try:
        with open(paths[0], "rb") as rf, open(paths[1], "rb") as hf:
            stamps = (_stamp(rf), _stamp(hf))
            (count, ref_starts), (hyp_count, hyp_starts) = _index(rf), _index(hf)
    except OSError:
        return None
    if count != hyp_count or not count:
        return None
    source = JsonlSource(paths[0], paths[1], lang, count, (ref_starts, hyp_starts), stamps)
    if not _checked(source, workers if count >= PARALLEL_CHECK_LINES else 1, empty_error, sizes):
        return None
    source.empty_checked = empty_error
    return source


def _stamp(fh: Any) -> tuple[int, int]:
    st = os.fstat(fh.fileno())
    return st.st_size, st.st_mtime_ns


def _index(fh: Any) -> tuple[int, array]:
    """How many lines a file has before its trailing blank ones, and where every ``_STRIDE``-th starts."""
    starts = array("Q")
    pos = count = 0
    for n, line in enumerate(fh):
        if n % _STRIDE == 0:
            starts.append(pos)
        pos += len(line)
        if line.strip():
            count = n + 1
    return count, starts


def _checked(source: JsonlSource, workers: int, empty_error: TextPolicy | None,
             sizes: tuple[TextPolicy, Unit] | None = None) -> bool:
    """Whether every line pair passes the per-record checks and no id comes twice (the lines checked
    in parts, by ``workers`` processes when more than one; the first part that fails ends it); with
    ``empty_error``, then the first reference empty after that policy is raised, and with ``sizes``
    then the first line pair too long to align."""
    parts = source.chunks(_CHECK_PART)
    if workers == 1:
        return _all_pass((_ids(part, empty_error, sizes) for part in parts), source.count, empty_error)
    ws = start_workers(workers)
    try:
        return _all_pass(in_order((ws[n % workers].submit(_ids, part, empty_error, sizes)
                                   for n, part in enumerate(parts)), 2 * workers), source.count, empty_error)
    finally:
        close_workers(ws)


def _all_pass(results: Iterable[tuple[bytes, Pair | None, InputError | None] | None], count: int,
              empty_error: TextPolicy | None) -> bool:
    """Every part passed and the ``count`` ids are distinct: their 8-byte hashes (8 bytes a line in
    memory, not a set of strings) sorted and compared. Two equal hashes, two equal ids or (about once
    in 10**18 pairs) a collision, answer False: the whole-file reader then checks exactly, naming the
    duplicate. Only then is a part's first empty reference raised (a malformed record or a repeated
    id is reported first, as the whole-file reader reports it before any alignment)."""
    hashes = bytearray()
    empty: Pair | None = None
    long: InputError | None = None
    for part in results:
        if part is None:
            return False
        hashes += part[0]
        empty, long = empty or part[1], long or part[2]
    ids = np.frombuffer(hashes, dtype=np.uint64)
    distinct = len(ids) == count and bool(np.all(np.diff(np.sort(ids)) != 0))
    if distinct and empty is not None and empty_error is not None:
        raise empty_reference_error(empty, empty_error)
    if distinct and long is not None:
        raise long
    return distinct


def _ids(raw: RawPairs, empty_error: TextPolicy | None = None, sizes: tuple[TextPolicy, Unit] | None = None,
         ) -> tuple[bytes, Pair | None, InputError | None] | None:
    """The 8-byte hashes of a chunk's ids, end to end, when every pair passes the checks (not blank,
    the same id on both sides, a doc and lang they agree on, fields of the right types), else None;
    beside them, with ``empty_error``, the chunk's first pair whose reference is empty after that
    policy, and with ``sizes`` the error for its first pair too long to align."""
    try:
        pairs = raw.pairs()
    except InputError:
        return None
    empty = None if empty_error is None else first_empty_reference(pairs, empty_error)
    long = None if sizes is None else first_too_long(pairs, *sizes)
    hashes = b"".join(blake2b(p.id.encode("utf-8", "surrogatepass"), digest_size=8).digest() for p in pairs)
    return hashes, empty, long


def _plain(p: Path) -> bool:
    if p.suffix.lower() not in (".jsonl", ".ndjson") or not p.is_file():
        return False
    with open(p, "rb") as fh:
        head = fh.read(_HEAD)
    return binary_format(head) is None and not head.startswith(b"\xef\xbb\xbf") and detect_format(head, p.suffix) == "jsonl"


def _pair(rline: str, hline: str, rwhere: str, hwhere: str, lang: str | None) -> Pair:
    r, h = _record(rline, rwhere), _record(hline, hwhere)
    if r[0] != h[0]:
        raise _Unusual
    try:
        doc, lang = pair_fields(r[0], r[2], r[3], h[2], h[3], lang)
    except SidesDisagree:
        raise _Unusual from None  # the whole-file reader says which id and which field
    return Pair(r[0], r[1], h[1], doc, lang)


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
            and (lang is None or (type(lang) is str and (not lang or LANGUAGE_TAG.fullmatch(lang))))):
        raise _Unusual  # the whole-file reader says what is wrong
    return id_, text, doc or None, lang or None
