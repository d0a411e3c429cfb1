"""Compact word -> frequency tables in files: built once per machine, read in place, shared by processes.

A :class:`Table` maps a word (a ``str``) to a frequency in *centibels below 1*, wordfreq's own
quantization: value ``v`` means frequency ``10 ** (-v / 100)``, i.e. Zipf ``9 - v / 100``. Any
word -> Zipf list with two decimals fits (:func:`value_of_zipf`: ``v = round((9 - zipf) * 100)``,
``0 <= v < 65536``). A new source (another language's word list) is one call::

    open_table(f"mysource-{version}/{lang}", {"source": "mysource", "version": version, "lang": lang},
               lambda: ({word: value_of_zipf(z) for word, z in pairs}, {}))

and :meth:`Table.get` then answers its lookups (-1 for a word it does not hold).
Lookups read the file where it lies (:class:`FileTable`: a few ``pread`` calls of a few bytes each,
no copy of the table in the process), so every worker process that opens the same file shares the
kernel's cached pages of it, and a process only opens the tables of the languages it meets. The file
is read, not memory-mapped: a mapping of a table would count every page a lookup touched in the
process's resident memory (the kernel maps 64 KB around each touched page), and a few hundred
lookups touch most of a table, some 70 MB over the tables of 13 languages.

File format (version :data:`FORMAT_VERSION`, all integers little-endian)::

    offset 0   header  "<8sIIIIII": MAGIC, format version, n_keys, n_slots, blob_len,
                                     meta_len, crc32 of everything after the header
    then       meta    meta_len bytes of UTF-8 JSON (what the table was built from, e.g.
                       {"source": "wordfreq", "version": "3.1.1", "lang": "de", ...}),
                       zero-padded to a multiple of 4
    then       starts  uint32[n_slots + 1]: the keys of hash slot h are keys[starts[h]:starts[h+1]]
    then       offsets uint32[n_keys + 1]: key k is blob[offsets[k]:offsets[k+1]]
    then       values  uint16[n_keys], zero-padded to a multiple of 4
    then       blob    the keys' UTF-8 bytes, concatenated in slot order

The slot of a key is ``zlib.crc32(key_utf8) & (n_slots - 1)``; ``n_slots`` is a power of two of
at least ``n_keys``, so a slot holds about one key. :func:`open_table` checks the magic, the
version, the sizes, the meta it expects and the CRC before it trusts a file; anything else is
rebuilt (and rewritten atomically), never read as a wrong answer.

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
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sIIIIII")
MAX_VALUE = 0xFFFF


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


class Table:
    """One word -> value table over a buffer in the format above (the bytes of a file built in memory)."""

    __slots__ = ("__weakref__", "_blob", "_buf", "_mask", "_offsets", "_starts", "_values", "meta")

    def __init__(self, buf: bytes, meta: dict[str, Any], n_keys: int, n_slots: int, start: int) -> None:
        view = memoryview(buf)
        s_end = start + 4 * (n_slots + 1)
        o_end = s_end + 4 * (n_keys + 1)
        v_end = o_end + 2 * n_keys
        self.meta = meta
        self._buf = buf
        self._mask = n_slots - 1
        self._starts = view[start:s_end].cast("I")
        self._offsets = view[s_end:o_end].cast("I")
        self._values = view[o_end:v_end].cast("H")
        self._blob = view[_pad4(v_end) :]

    def __len__(self) -> int:
        return len(self._values)

    def get(self, word: str) -> int:
        """The value of ``word`` (centibels below 1), or -1 when the table does not hold it."""
        key = word.encode("utf-8", "surrogatepass")
        h = zlib.crc32(key) & self._mask
        starts, offsets, blob = self._starts, self._offsets, self._blob
        for k in range(starts[h], starts[h + 1]):
            if blob[offsets[k] : offsets[k + 1]] == key:
                return self._values[k]
        return -1

    def items(self) -> Iterable[tuple[str, int]]:
        """Every ``(word, value)`` of the table, in storage order."""
        offsets, blob = self._offsets, self._blob
        for k in range(len(self._values)):
            yield bytes(blob[offsets[k] : offsets[k + 1]]).decode("utf-8", "surrogatepass"), self._values[k]


_TWO = struct.Struct("<II")
_ONE_VALUE = struct.Struct("<H")


class FileTable(Table):
    """The table of an intact file, read where it lies (``os.pread``; nothing of it kept in memory).

    A lookup reads the word's hash slot (8 bytes), the offsets of the slot's keys (about 8 bytes),
    their bytes and, on a match, the value: three or four reads of the kernel's cached pages, which
    every process reading the file shares. The file stays open while the table lives."""

    __slots__ = ("_at_blob", "_at_offsets", "_at_starts", "_at_values", "_closer", "_fd", "_n")

    def __init__(self, fd: int, meta: dict[str, Any], n_keys: int, n_slots: int, start: int) -> None:
        self.meta = meta
        self._fd = fd
        self._closer = weakref.finalize(self, os.close, fd)
        self._mask = n_slots - 1
        self._n = n_keys
        self._at_starts = start
        self._at_offsets = start + 4 * (n_slots + 1)
        self._at_values = self._at_offsets + 4 * (n_keys + 1)
        self._at_blob = _pad4(self._at_values + 2 * n_keys)

    def __len__(self) -> int:
        return self._n

    def get(self, word: str) -> int:
        """The value of ``word`` (centibels below 1), or -1 when the table does not hold it: the
        same reads in C (``_lexicon_speedups.c``) when that was built, else :meth:`_python_get`."""
        fast = _fast_get()
        if fast is None:
            return self._python_get(word)
        return fast(self._fd, word, self._mask, self._at_starts, self._at_offsets, self._at_values, self._at_blob)

    def _python_get(self, word: str) -> int:
        key = word.encode("utf-8", "surrogatepass")
        fd = self._fd
        first, end = _TWO.unpack(_read(fd, 8, self._at_starts + 4 * (zlib.crc32(key) & self._mask)))
        n = end - first
        if n <= 0:
            return -1
        offsets = struct.unpack(f"<{n + 1}I", _read(fd, 4 * (n + 1), self._at_offsets + 4 * first))
        base = offsets[0]
        keys = _read(fd, offsets[n] - base, self._at_blob + base)
        for k in range(n):
            if keys[offsets[k] - base : offsets[k + 1] - base] == key:
                return int(_ONE_VALUE.unpack(_read(fd, 2, self._at_values + 2 * (first + k)))[0])
        return -1

    def items(self) -> Iterable[tuple[str, int]]:
        """Every ``(word, value)`` of the table, in storage order (the whole file read once)."""
        n = self._n
        offsets = memoryview(os.pread(self._fd, 4 * (n + 1), self._at_offsets)).cast("I")
        values = memoryview(os.pread(self._fd, 2 * n, self._at_values)).cast("H")
        blob = os.pread(self._fd, offsets[n], self._at_blob)
        for k in range(n):
            yield blob[offsets[k] : offsets[k + 1]].decode("utf-8", "surrogatepass"), values[k]


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


def encode_table(entries: Mapping[str, int], meta: Mapping[str, Any]) -> bytes:
    """The file bytes of a table holding ``entries`` (word -> value) and ``meta``."""
    keys = [w.encode("utf-8", "surrogatepass") for w in entries]
    values = np.fromiter(entries.values(), dtype=np.int64, count=len(keys))
    if len(values) and (values.min() < 0 or values.max() > MAX_VALUE):
        raise ValueError(f"lexicon values must lie in 0..{MAX_VALUE}")
    n_slots = 1 << max(len(keys) - 1, 1).bit_length()
    slots = np.fromiter((zlib.crc32(k) for k in keys), dtype=np.uint32, count=len(keys)) & np.uint32(n_slots - 1)
    order = np.argsort(slots, kind="stable")
    starts = np.zeros(n_slots + 1, dtype="<u4")
    np.cumsum(np.bincount(slots, minlength=n_slots), out=starts[1:])
    ordered = [keys[i] for i in order.tolist()]
    offsets = np.zeros(len(keys) + 1, dtype="<u4")
    np.cumsum(np.fromiter(map(len, ordered), dtype=np.int64, count=len(keys)), out=offsets[1:])
    meta_bytes = json.dumps(dict(meta), sort_keys=True, ensure_ascii=False).encode()
    vals = values[order].astype("<u2").tobytes()
    body = b"".join([meta_bytes, b"\0" * (_pad4(len(meta_bytes)) - len(meta_bytes)), starts.tobytes(),
                     offsets.tobytes(), vals, b"\0" * (_pad4(len(vals)) - len(vals)), b"".join(ordered)])
    head = _HEADER.pack(MAGIC, FORMAT_VERSION, len(keys), n_slots, int(offsets[-1]), len(meta_bytes), zlib.crc32(body))
    return head + body


def _layout(head: bytes, size: int) -> tuple[int, int, int, int, int] | None:
    """(n_keys, n_slots, meta_len, CRC wanted, start of the arrays) from a table's header, or None when
    the header is not one of this format or the sizes it gives disagree with ``size``."""
    if len(head) < _HEADER.size:
        return None
    magic, version, n_keys, n_slots, blob_len, meta_len, want = _HEADER.unpack_from(head, 0)
    if magic != MAGIC or version != FORMAT_VERSION or n_slots & (n_slots - 1) or n_slots < n_keys:
        return None
    start = _HEADER.size + _pad4(meta_len)
    if size != start + 4 * (n_slots + 1) + 4 * (n_keys + 1) + _pad4(2 * n_keys) + blob_len:
        return None
    return n_keys, n_slots, meta_len, want, start


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
    meta = _meta(buf[_HEADER.size : _HEADER.size + meta_len], expect)
    return None if meta is None else Table(buf, meta, n_keys, n_slots, start)


def _open_file(path: Path, expect: Mapping[str, Any]) -> FileTable | None:
    """The intact table of the file at ``path``, or None (no file, another build, damaged). The CRC
    is checked by reading the file once, in chunks."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        layout = _layout(os.pread(fd, _HEADER.size, 0), os.fstat(fd).st_size)
        if layout is not None:
            n_keys, n_slots, meta_len, want, start = layout
            crc, at = 0, _HEADER.size
            while chunk := os.pread(fd, 1 << 20, at):
                crc, at = zlib.crc32(chunk, crc), at + len(chunk)
            meta = _meta(os.pread(fd, meta_len, _HEADER.size), expect) if crc == want else None
            if meta is not None:
                return FileTable(fd, meta, n_keys, n_slots, start)
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
