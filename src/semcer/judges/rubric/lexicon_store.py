"""Compact word -> frequency tables in files: built once per machine, read in place, shared by processes.

A :class:`Table` maps a word (a ``str``) to a frequency in *centibels below 1*, wordfreq's own
quantization: value ``v`` means frequency ``10 ** (-v / 100)``, i.e. Zipf ``9 - v / 100``. Any
word -> Zipf list with two decimals fits (:func:`value_of_zipf`: ``v = round((9 - zipf) * 100)``,
``0 <= v < 65536``). A new source (another language's word list) is one call::

    open_table(f"mysource-{version}/{lang}", {"source": "mysource", "version": version, "lang": lang},
               lambda: ({word: value_of_zipf(z) for word, z in pairs}, {}))

and :meth:`Table.get` then answers its lookups (-1 for a word it does not hold).
Lookups read the file where it lies (:class:`FileTable`: one ``pread`` of a few dozen bytes, no copy
of the table in the process but its slot index, about one byte per word), so every worker process
that opens the same file shares the kernel's cached pages of it, and a process only opens the
tables of the languages it meets. The file is read, not memory-mapped: a mapping of a table would
count every page a lookup touched in the process's resident memory (the kernel maps 64 KB around
each touched page), and a few hundred lookups touch most of a table, some 70 MB over the tables of
13 languages.

File format (version :data:`FORMAT_VERSION`, all integers little-endian)::

    offset 0   header  "<8sIIIIII": MAGIC, format version, n_keys, n_slots, records_len,
                                     meta_len, crc32 of everything after the header
    then       meta    meta_len bytes of UTF-8 JSON (what the table was built from, e.g.
                       {"source": "wordfreq", "version": "3.1.1", "lang": "de", ...}),
                       zero-padded to a multiple of 4
    then       starts  uint32[n_slots + 1]: the records of hash slot h are
                       records[starts[h]:starts[h+1]] (byte offsets)
    then       records records_len bytes, slot after slot; one record per key:
                       uint16 key length, uint16 value, the key's UTF-8 bytes

The slot of a key is ``zlib.crc32(key_utf8) & (n_slots - 1)``; ``n_slots`` is the smallest power of
two of at least ``n_keys / SLOT_KEYS``, so a slot holds about :data:`SLOT_KEYS` keys, read in one go.
:func:`open_table` checks the magic, the version, the sizes, the slot index, the meta it expects
and the CRC before it trusts a file; anything else is rebuilt (and rewritten atomically), never
read as a wrong answer. (Version 1 kept keys, offsets and values in three arrays: three or four
reads a lookup.)

Where the files live: ``$SEMCER_CACHE_DIR``, else ``$XDG_CACHE_HOME/semcer``, else
``~/.cache/semcer``, then ``lexicons/v<format version>/`` (:func:`lexicon_dir`); a source keys
its files further (the wordfreq tables: ``wordfreq-<version>/<lang>.lex``). When that folder
cannot be written the table is built in memory for this process only.
"""

from __future__ import annotations

import json
import os
import struct
import weakref
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from semcer.atomic import atomic_write
from semcer.cache_folder import cache_root
from semcer.caches import cache
from semcer.speedups import compiled

MAGIC = b"SEMCERLX"
FORMAT_VERSION = 2
_HEADER = struct.Struct("<8sIIIIII")
_RECORD = struct.Struct("<HH")  # key length, value
MAX_VALUE = 0xFFFF
MAX_KEY_BYTES = 0xFFFF
#: Keys per hash slot, on average: one read of a slot's records costs what one of a single key does.
SLOT_KEYS = 4


def value_of_zipf(zipf: float) -> int:
    """The stored value of a Zipf frequency (two decimals kept): ``round((9 - zipf) * 100)``, so that a
    source other than wordfreq (a word list with Zipf values) can be written into the same format."""
    value = round((9.0 - zipf) * 100)
    if not 0 <= value <= MAX_VALUE:
        raise ValueError(f"Zipf {zipf!r} is outside what a lexicon table holds (9 down to {9 - MAX_VALUE / 100})")
    return value


def zipf_of_value(value: int) -> float:
    """The Zipf frequency of a stored value, to two decimals (wordfreq's own quantization)."""
    return round(9.0 - value / 100, 2)


def lexicon_dir() -> Path:
    """Where the lexicon tables are kept: :func:`cache_root` ``/lexicons/v<FORMAT_VERSION>``."""
    return cache_root() / "lexicons" / f"v{FORMAT_VERSION}"


def _key(word: str) -> bytes:
    return word.encode("utf-8", "surrogatepass")


def _find(records: bytes | memoryview, key: bytes) -> int:
    """The value of ``key`` among the records of one slot (the format above), or -1."""
    at, end, size = 0, len(records), len(key)
    while at < end:
        length, value = _RECORD.unpack_from(records, at)
        at += 4
        if length == size and records[at : at + length] == key:
            return int(value)
        at += length
    return -1


def _records(records: bytes | memoryview) -> Iterable[tuple[str, int]]:
    """Every ``(word, value)`` of a run of records, in order."""
    at, end = 0, len(records)
    while at < end:
        length, value = _RECORD.unpack_from(records, at)
        at += 4
        yield bytes(records[at : at + length]).decode("utf-8", "surrogatepass"), int(value)
        at += length


class Table:
    """One word -> value table over a buffer in the format above (the bytes of a file built in memory)."""

    __slots__ = ("__weakref__", "_mask", "_n", "_records", "_starts", "meta")

    def __init__(self, buf: bytes, meta: dict[str, Any], n_keys: int, n_slots: int, start: int) -> None:
        view = memoryview(buf)
        s_end = start + 4 * (n_slots + 1)
        self.meta = meta
        self._n = n_keys
        self._mask = n_slots - 1
        self._starts = view[start:s_end].cast("I")
        self._records = view[s_end:]

    def __len__(self) -> int:
        return self._n

    def get(self, word: str) -> int:
        """The value of ``word`` (centibels below 1), or -1 when the table does not hold it."""
        key = _key(word)
        h = zlib.crc32(key) & self._mask
        return _find(self._records[self._starts[h] : self._starts[h + 1]], key)

    def items(self) -> Iterable[tuple[str, int]]:
        """Every ``(word, value)`` of the table, in storage order."""
        return _records(self._records)


class FileTable(Table):
    """The table of an intact file, read where it lies (``os.pread``): its slot index is kept (4 bytes
    a slot, about one byte a word), nothing else of it.

    A lookup reads the records of the word's hash slot (about :data:`SLOT_KEYS` keys, a few dozen
    bytes: one read of the kernel's cached pages, which every process reading the file shares), or
    nothing when the slot is empty. The file stays open while the table lives."""

    __slots__ = ("_at_records", "_closer", "_fd", "_index")

    def __init__(self, fd: int, meta: dict[str, Any], n_keys: int, n_slots: int, index: bytes, at_records: int
                 ) -> None:
        self.meta = meta
        self._fd = fd
        self._closer = weakref.finalize(self, os.close, fd)
        self._n = n_keys
        self._mask = n_slots - 1
        self._index = index  # the bytes of `starts`, for the C lookup
        self._starts = memoryview(index).cast("I")
        self._at_records = at_records

    def get(self, word: str) -> int:
        """The value of ``word`` (centibels below 1), or -1 when the table does not hold it: the
        same read in C (``_lexicon_speedups.c``) when that was built, else :meth:`_python_get`."""
        fast = _fast_get()
        if fast is None:
            return self._python_get(word)
        return fast(self._fd, word, self._mask, self._index, self._at_records)

    def _python_get(self, word: str) -> int:
        key = _key(word)
        h = zlib.crc32(key) & self._mask
        first, end = self._starts[h], self._starts[h + 1]
        if end <= first:
            return -1
        return _find(_read(self._fd, end - first, self._at_records + first), key)

    def items(self) -> Iterable[tuple[str, int]]:
        """Every ``(word, value)`` of the table, in storage order (the records read once)."""
        return _records(_read(self._fd, self._starts[-1], self._at_records))


def _read(fd: int, n: int, at: int) -> bytes:
    """``n`` bytes of the file at ``at``; OSError when the file ends before them (it was cut after
    it was opened and checked), as the C lookup says it."""
    data = os.pread(fd, n, at)
    if len(data) != n:
        raise OSError(f"lexicon table: the file ends {at + len(data)} bytes in, inside what it says it holds")
    return data


@cache(maxsize=1)
def _fast_get() -> Callable[..., int] | None:
    """The C lookup (``semcer.judges.rubric._lexicon_speedups.get``), or None when it was not built
    or ``SEMCER_PURE_PYTHON=1`` asks for the Python one."""
    module = compiled("semcer.judges.rubric._lexicon_speedups")
    if module is None:
        return None
    get: Callable[..., int] = module.get
    return get


def _pad4(n: int) -> int:
    return (n + 3) & ~3


def slot_count(n_keys: int) -> int:
    """The hash slots of a table of ``n_keys`` keys: the smallest power of two of at least
    ``n_keys / SLOT_KEYS`` (one at least)."""
    need = max(1, -(-n_keys // SLOT_KEYS))
    return 1 << (need - 1).bit_length()


def encode_table(entries: Mapping[str, int], meta: Mapping[str, Any]) -> bytes:
    """The file bytes of a table holding ``entries`` (word -> value) and ``meta``."""
    keys = [_key(w) for w in entries]
    values = np.fromiter(entries.values(), dtype=np.int64, count=len(keys))
    if len(values) and (values.min() < 0 or values.max() > MAX_VALUE):
        raise ValueError(f"lexicon values must lie in 0..{MAX_VALUE}")
    sizes = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    if len(sizes) and sizes.max() > MAX_KEY_BYTES:
        raise ValueError(f"a lexicon key is longer than {MAX_KEY_BYTES} bytes of UTF-8")
    n_slots = slot_count(len(keys))
    slots = np.fromiter((zlib.crc32(k) for k in keys), dtype=np.uint32, count=len(keys)) & np.uint32(n_slots - 1)
    starts = np.zeros(n_slots + 1, dtype=np.int64)
    np.cumsum(np.bincount(slots, weights=sizes + _RECORD.size, minlength=n_slots).astype(np.int64), out=starts[1:])
    if starts[-1] >= 1 << 32:
        raise ValueError("a lexicon table holds under 4 GiB of records")
    pack = _RECORD.pack
    records = b"".join(pack(len(keys[i]), int(values[i])) + keys[i] for i in np.argsort(slots, kind="stable").tolist())
    meta_bytes = json.dumps(dict(meta), sort_keys=True, ensure_ascii=False).encode()
    body = b"".join([meta_bytes, b"\0" * (_pad4(len(meta_bytes)) - len(meta_bytes)),
                     starts.astype("<u4").tobytes(), records])
    head = _HEADER.pack(MAGIC, FORMAT_VERSION, len(keys), n_slots, len(records), len(meta_bytes), zlib.crc32(body))
    return head + body


def _layout(head: bytes, size: int) -> tuple[int, int, int, int, int] | None:
    """(n_keys, n_slots, meta_len, CRC wanted, start of the slot index) from a table's header, or None
    when the header is not one of this format or the sizes it gives disagree with ``size``."""
    if len(head) < _HEADER.size:
        return None
    magic, version, n_keys, n_slots, records_len, meta_len, want = _HEADER.unpack_from(head, 0)
    if magic != MAGIC or version != FORMAT_VERSION or n_slots != slot_count(n_keys):
        return None
    start = _HEADER.size + _pad4(meta_len)
    if size != start + 4 * (n_slots + 1) + records_len:
        return None
    return n_keys, n_slots, meta_len, want, start


def _index_ok(index: bytes, records_len: int) -> bool:
    """The slot index starts at 0, never decreases and ends at the records' length."""
    starts = np.frombuffer(index, dtype="<u4")
    return bool(starts[0] == 0 and starts[-1] == records_len and np.all(starts[1:] >= starts[:-1]))


def _meta(raw: bytes, expect: Mapping[str, Any]) -> dict[str, Any] | None:
    try:
        meta = json.loads(raw)
    except ValueError:
        return None
    if type(meta) is not dict or any(meta.get(k) != v for k, v in expect.items()):
        return None
    return meta


def decode_table(buf: bytes, expect: Mapping[str, Any]) -> Table | None:
    """The table in ``buf``, or None when it is not a complete, intact table built from ``expect``."""
    layout = _layout(buf, len(buf))
    if layout is None:
        return None
    n_keys, n_slots, meta_len, want, start = layout
    if zlib.crc32(memoryview(buf)[_HEADER.size :]) != want:
        return None
    records_at = start + 4 * (n_slots + 1)
    if not _index_ok(buf[start:records_at], len(buf) - records_at):
        return None
    meta = _meta(buf[_HEADER.size : _HEADER.size + meta_len], expect)
    return None if meta is None else Table(buf, meta, n_keys, n_slots, start)


def _open_file(path: Path, expect: Mapping[str, Any]) -> FileTable | None:
    """The intact table of the file at ``path``, or None (no file, another build, damaged). The CRC
    is checked by reading the file once, in chunks; the slot index is kept."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        layout = _layout(os.pread(fd, _HEADER.size, 0), size)
        if layout is not None:
            n_keys, n_slots, meta_len, want, start = layout
            crc, at = 0, _HEADER.size
            while chunk := os.pread(fd, 1 << 20, at):
                crc, at = zlib.crc32(chunk, crc), at + len(chunk)
            records_at = start + 4 * (n_slots + 1)
            index = _read(fd, records_at - start, start) if crc == want else b""
            meta = _meta(os.pread(fd, meta_len, _HEADER.size), expect) if index else None
            if meta is not None and _index_ok(index, size - records_at):
                return FileTable(fd, meta, n_keys, n_slots, index, records_at)
    except OSError:
        pass
    os.close(fd)
    return None


def open_table(name: str, expect: Mapping[str, Any],
               build: Callable[[], tuple[Mapping[str, int], Mapping[str, Any]]]) -> Table:
    """The table ``name`` of :func:`lexicon_dir`, read from its file when that file is intact and
    was built from ``expect`` (a subset of its meta); otherwise built with ``build()`` (entries and
    meta, the meta including ``expect``), written atomically, and opened. When the folder cannot
    be written, the freshly built table is used from memory."""
    path = lexicon_dir() / f"{name}.lex"
    table = _open_file(path, expect)
    if table is not None:
        return table
    entries, meta = build()
    data = encode_table(entries, {**meta, **expect})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path, "wb") as f:
            f.write(data)
    except OSError:
        pass  # a read-only cache: this process keeps the table in memory
    else:
        table = _open_file(path, expect)
        if table is not None:
            return table
    in_memory = decode_table(data, expect)
    assert in_memory is not None  # just encoded
    return in_memory
