"""Grapheme clusters of many strings at once, written as one character per cluster.

Aligning lists of cluster strings is slow twice over: every cluster becomes a Python string, and
the aligner must hash each one. Here the strings of a chunk are segmented together (one
``ugrapheme.grapheme_offsets`` call over their NUL-joined text; a NUL is a Control, so rule GB4/GB5
breaks on both sides of it and no cluster crosses two strings), and each cluster is written as one
character of an *id string*:

- a one-code-point cluster as that code point itself;
- a longer cluster as an id in ``RESERVED`` (planes 4-11, unassigned in every Unicode version to
  date), the same id for the same cluster throughout the chunk and different ids for different
  clusters.

Two id strings (or an id string and a plain string whose code points are all their own clusters)
are then aligned as strings, and equal characters are exactly equal clusters. Callers pass only
strings without code points in ``RESERVED`` and without lone surrogates (:mod:`semcer.text.scan` flags
both ``SLOW_SEGMENT``), on which ``ugrapheme`` agrees with ``regex``'s ``\\X``.

Ids are found without sorting: a cluster of up to three code points is packed into a 64-bit key
(21 bits per code point, plus one so that a missing third code point differs from U+0000), and the
key is hashed to one of the first 2**16 ids, whose slot in a small table keeps the first key that
took it. A key that finds its slot held by another key gets the next unused id above 2**16 (every
copy of that key the same one). A longer cluster is interned two code points at a time, as the key
(id of its first part, next code point, the one after), so ids stay exact at every length; keys of
different lengths never meet, as a part's id is never a code point of this path. Clusters longer
than ``_LONG`` code points (only in odd input) are interned by their text. A chunk with more
distinct clusters than ids (2**19) is left to the caller (``None``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

RESERVED = (0x40000, 0xC0000)  # [start, end): planes 4 to 11, used as cluster ids
_BITS = 19  # 2**19 = RESERVED[1] - RESERVED[0] slots
_MUL = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits of key * 2**64/phi
_HASH_BITS = 16  # keys are hashed to the first 2**16 ids; the rest are handed out in order
_SHIFT = np.uint64(64 - _HASH_BITS)
_U21, _U42 = np.uint64(21), np.uint64(42)
_LONG = 32  # clusters longer than this are interned by their text


def codepoints(text: str) -> np.ndarray:
    """The code points of ``text`` as ``uint32`` (numpy's own UCS-4 copy of the string: no codec)."""
    if not text:
        return np.zeros(0, dtype=np.uint32)
    return np.array(text).reshape(1).view(np.uint32)


class Clusters(Sequence[str]):
    """The grapheme clusters of one string, held as its id string and the chunk's id names."""

    __slots__ = ("ids", "names")

    def __init__(self, ids: str, names: dict[str, str]) -> None:
        self.ids = ids
        self.names = names

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i):
        if isinstance(i, slice):
            ids = self.ids[i]
            return list(map(self.names.get, ids, ids))  # a cluster's name, or the code point itself
        c = self.ids[i]
        return self.names.get(c, c)

    def __iter__(self) -> Iterator[str]:
        return map(self.names.get, self.ids, self.ids)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Clusters, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Clusters({list(self)!r})"


class _Ids:
    """Interning state of one chunk: the hash table and the next sequential id."""

    __slots__ = ("next", "table")

    def __init__(self) -> None:
        self.table = np.zeros(1 << _HASH_BITS, dtype=np.uint64)  # 512 kB: stays in cache
        self.next = 1 << _HASH_BITS

    def intern(self, keys: np.ndarray) -> np.ndarray:
        """The id of each key: its hash slot if the slot holds that key, else a sequential id
        (the same for every copy of the key). Keys never seen before get new ids."""
        table = self.table
        slots = (keys * _MUL) >> _SHIFT
        empty = table[slots] == 0
        table[slots[empty]] = keys[empty]  # of several new keys per slot, one wins
        lost = table[slots] != keys
        if lost.any():
            uniq, inverse = np.unique(keys[lost], return_inverse=True)
            slots[lost] = self.take(uniq.size) + inverse.ravel().astype(np.uint64)
        return slots

    def take(self, n: int) -> np.uint64:
        """The first of ``n`` new sequential ids."""
        first = self.next
        self.next += n
        if self.next > 1 << _BITS:
            raise _Full
        return np.uint64(first)


class _Full(Exception):
    """More distinct clusters in one chunk than ids."""


def cluster_ids(texts: Sequence[str], names: bool = True) -> tuple[list[str], dict[str, str]] | None:
    """Each string's id string, and the name (cluster text) of every id in ``RESERVED`` used.

    ``None`` when the strings hold more distinct multi-code-point clusters than ids (2**19); the
    caller then segments them one by one. Needs ugrapheme (callers pass strings only when
    :func:`semcer.text.segmenter.ugrapheme_gaps` says it can be used). ``names=False`` skips
    the names (counts need only the id strings).
    """
    from ugrapheme import grapheme_offsets

    if not texts:
        return [], {}
    joined = "\x00".join(texts)
    cps = codepoints(joined + "\x00\x00")  # padded for cps[start + 2]
    offs = np.frombuffer(grapheme_offsets(joined), dtype=np.uint32).astype(np.intp)
    starts = offs[:-1]
    lens = np.diff(offs)
    ids = cps[starts]
    multi = np.flatnonzero(lens > 1)
    named: dict[str, str] = {}
    if multi.size:
        ms, ml = starts[multi], lens[multi]
        state = _Ids()
        try:
            slots = _multi_slots(joined, cps, ms, ml, state)
        except _Full:
            return None
        ids[multi] = slots.astype(np.uint32) + np.uint32(RESERVED[0])
        if names:
            rep = np.full(state.next, -1, dtype=np.intp)
            rep[slots] = np.arange(slots.size)
            used = np.flatnonzero(rep >= 0)
            first = rep[used]
            begin, end = ms[first].tolist(), (ms[first] + ml[first]).tolist()
            named = {chr(RESERVED[0] + s): joined[b:e] for s, b, e in zip(used.tolist(), begin, end)}
    text = ids.tobytes().decode("utf-32-le")
    lengths = np.fromiter(map(len, texts), dtype=np.intp, count=len(texts))
    at = np.zeros(len(texts), dtype=np.intp)
    np.cumsum(lengths[:-1] + 1, out=at[1:])
    first_cluster = np.searchsorted(starts, at)
    last_cluster = np.searchsorted(starts, at + lengths)
    return [text[a:b] for a, b in zip(first_cluster.tolist(), last_cluster.tolist())], named


def _multi_slots(joined: str, cps: np.ndarray, ms: np.ndarray, ml: np.ndarray, state: _Ids) -> np.ndarray:
    """The id slot of each multi-code-point cluster (start ``ms``, length ``ml``)."""
    one = np.uint64(1)
    c0 = cps[ms].astype(np.uint64) + one
    c1 = cps[ms + 1].astype(np.uint64) + one
    c2 = np.where(ml >= 3, cps[ms + 2].astype(np.uint64) + one, np.uint64(0))
    slots = state.intern((c0 << _U42) | (c1 << _U21) | c2)
    base = np.uint64(RESERVED[0] + 1)  # a part's id + 1: never a code point + 1 of this path
    longest = int(ml.max())
    left = np.flatnonzero((ml > 3) & (ml <= _LONG))
    pos = 3
    while left.size:
        s, n = ms[left], ml[left]
        nxt = cps[s + pos].astype(np.uint64) + one
        after = np.where(n > pos + 1, cps[s + pos + 1].astype(np.uint64) + one, np.uint64(0))  # (padded)
        slots[left] = state.intern(((slots[left] + base) << _U42) | (nxt << _U21) | after)
        pos += 2
        left = left[n > pos]
    if longest > _LONG:
        long_ones = np.flatnonzero(ml > _LONG)
        by_text: dict[str, np.uint64] = {}
        for k, b, n in zip(long_ones.tolist(), ms[long_ones].tolist(), ml[long_ones].tolist()):
            t = joined[b : b + n]
            slot = by_text.get(t)
            if slot is None:
                slot = by_text[t] = state.take(1)
            slots[k] = slot
    return slots
