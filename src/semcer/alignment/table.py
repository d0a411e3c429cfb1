"""Scored lines kept compactly: what a run holds of every line once its edits are gone.

A :class:`LineResult` without edits is an id, a document, a language and five numbers, but as Python
objects it takes about 0.45 kB; a corpus of millions of lines would be held mostly as these rows. A
:class:`LineTable` keeps the same rows as columns: the ids' UTF-8 bytes end to end, each document
and language once with a small code per line (a line that is its own document, ``doc == id``, stores
no document), the four counts as 32-bit integers and the severity as a double (NaN standing for an
unknown severity: a line's severity is an exact sum of finite severities, never NaN). That is about
40 bytes a line plus its id. It is a read-only sequence of :class:`LineResult` (rows are rebuilt on
access, equal to those appended), pickles as a few byte strings, and is grown by :meth:`extend`.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from semcer.alignment.line import LineResult, LineStats

OWN_DOC = -1  # the document code of a line that is its own document (doc == id)
_NAN = math.nan
_CODEC = "surrogatepass"  # ids decoded from JSON may hold lone surrogates


class LineRows(Sequence[LineResult]):
    """A read-only sequence of lines built on :meth:`_row` (an index already in range): slices,
    negative indices, and equality with any sequence of the same rows."""

    __slots__ = ()

    def _row(self, k: int) -> LineResult:
        raise NotImplementedError

    @overload
    def __getitem__(self, k: int) -> LineResult: ...

    @overload
    def __getitem__(self, k: slice) -> tuple[LineResult, ...]: ...

    def __getitem__(self, k: int | slice) -> LineResult | tuple[LineResult, ...]:
        if isinstance(k, slice):
            return tuple(self[j] for j in range(*k.indices(len(self))))
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("line index out of range")
        return self._row(k)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class LineTable(LineRows):
    """Rows of scored lines (id, doc, lang, counts, severity; no edits, no alignment), as columns."""

    __slots__ = (
        "_counts",
        "_doc_code",
        "_doc_of",
        "_docs",
        "_ends",
        "_ids",
        "_lang_code",
        "_lang_of",
        "_langs",
        "_severity",
    )

    def __init__(self, rows: Iterable[LineResult] = ()) -> None:
        self._ids = bytearray()
        self._ends = array("Q")
        self._doc_of = array("i")
        self._docs: list[str] = []
        self._doc_code: dict[str, int] = {}
        self._lang_of = array("i")
        self._langs: list[str | None] = []
        self._lang_code: dict[str | None, int] = {}
        self._counts = array("I")  # S, D, I, units of each line, in turn
        self._severity = array("d")
        self.extend(rows)

    # building

    def extend(self, rows: Iterable[LineResult]) -> None:
        """Append ``rows`` (another table is appended column by column)."""
        if isinstance(rows, LineTable):
            self._extend_table(rows)
            return
        ids, ends, doc_of, lang_of = self._ids, self._ends, self._doc_of, self._lang_of
        counts, severity = self._counts, self._severity
        doc_code, lang_code = self._doc_code, self._lang_code
        for r in rows:
            line_id, doc, lang, st = r[0], r[1], r[2], r[3]
            ids += line_id.encode("utf-8", _CODEC)
            ends.append(len(ids))
            code = OWN_DOC if doc == line_id else doc_code.get(doc)
            doc_of.append(self._new_doc(doc) if code is None else code)
            code = lang_code.get(lang)
            lang_of.append(self._new_lang(lang) if code is None else code)
            counts.extend((st[0], st[1], st[2], st[3]))
            sev = st[4]
            severity.append(_NAN if sev is None else sev)

    def _new_doc(self, doc: str) -> int:
        self._doc_code[doc] = code = len(self._docs)
        self._docs.append(doc)
        return code

    def _new_lang(self, lang: str | None) -> int:
        self._lang_code[lang] = code = len(self._langs)
        self._langs.append(lang)
        return code

    @staticmethod
    def _code(codes: dict[Any, int], new: Any, value: Any) -> int:
        code = codes.get(value)
        return new(value) if code is None else code

    def _extend_table(self, other: LineTable) -> None:
        base = len(self._ids)
        self._ids += other._ids
        self._ends.extend((e + base for e in other._ends) if base else other._ends)
        docs = [self._code(self._doc_code, self._new_doc, d) for d in other._docs]
        if docs == list(range(len(docs))):
            self._doc_of.extend(other._doc_of)
        else:
            self._doc_of.extend(OWN_DOC if c == OWN_DOC else docs[c] for c in other._doc_of)
        langs = [self._code(self._lang_code, self._new_lang, x) for x in other._langs]
        if langs == list(range(len(langs))):
            self._lang_of.extend(other._lang_of)
        else:
            self._lang_of.extend(langs[c] for c in other._lang_of)
        self._counts.extend(other._counts)
        self._severity.extend(other._severity)

    # reading

    def __len__(self) -> int:
        return len(self._ends)

    def _row(self, k: int) -> LineResult:
        start = self._ends[k - 1] if k else 0
        line_id = self._ids[start:self._ends[k]].decode("utf-8", _CODEC)
        c = self._counts[4 * k:4 * k + 4]
        sev = self._severity[k]
        stats = tuple.__new__(LineStats, (c[0], c[1], c[2], c[3], None if sev != sev else sev))
        code = self._doc_of[k]
        doc = line_id if code == OWN_DOC else self._docs[code]
        return tuple.__new__(LineResult, (line_id, doc, self._langs[self._lang_of[k]], stats, None, None))

    def __iter__(self) -> Iterator[LineResult]:
        new, docs, langs, raw = tuple.__new__, self._docs, self._langs, self._ids
        counts = iter(self._counts)
        start = 0
        for end, code, lang, sev in zip(self._ends, self._doc_of, self._lang_of, self._severity):
            line_id = raw[start:end].decode("utf-8", _CODEC)
            start = end
            stats = new(LineStats, (next(counts), next(counts), next(counts), next(counts),
                                    None if sev != sev else sev))
            yield new(LineResult, (line_id, line_id if code == OWN_DOC else docs[code], langs[lang], stats, None, None))

    def __repr__(self) -> str:
        return f"LineTable({len(self)} lines)"

    @property
    def nbytes(self) -> int:
        """The bytes its columns hold (documents and languages not counted)."""
        cols = (self._ends, self._doc_of, self._lang_of, self._counts, self._severity)
        return len(self._ids) + sum(c.itemsize * len(c) for c in cols)

    # columns, for sums over every line without building its rows

    def columns(self) -> TableColumns:
        """The table's columns as buffers (see :class:`TableColumns`)."""
        return TableColumns(self._counts, self._severity, self._doc_of, tuple(self._docs))

    def ids_of(self, positions: Iterable[int]) -> Iterator[str]:
        """The ids of the lines at ``positions``."""
        ends, raw = self._ends, self._ids
        for k in positions:
            yield raw[ends[k - 1] if k else 0:ends[k]].decode("utf-8", _CODEC)

    def __getstate__(self) -> tuple[Any, ...]:
        return (bytes(self._ids), self._ends, self._doc_of, self._docs, self._lang_of, self._langs, self._counts,
                self._severity)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        ids, self._ends, self._doc_of, self._docs, self._lang_of, self._langs, self._counts, self._severity = state
        self._ids = bytearray(ids)
        self._doc_code = {d: k for k, d in enumerate(self._docs)}
        self._lang_code = {x: k for k, x in enumerate(self._langs)}


class TableColumns:
    """A :class:`LineTable`'s columns: ``counts`` (S, D, I, units of each line in turn, unsigned
    32-bit), ``severity`` (doubles, NaN for unknown) and ``doc_of`` (a code into ``docs`` per line, or
    :data:`OWN_DOC`: the line's id is its document, :meth:`LineTable.ids_of`)."""

    __slots__ = ("counts", "doc_of", "docs", "severity")

    def __init__(self, counts: array, severity: array, doc_of: array, docs: tuple[str, ...]) -> None:
        self.counts, self.severity, self.doc_of, self.docs = counts, severity, doc_of, docs


def as_table(rows: Sequence[LineResult]) -> LineTable:
    """``rows`` as a :class:`LineTable` (the same object when it is one)."""
    return rows if isinstance(rows, LineTable) else LineTable(rows)
