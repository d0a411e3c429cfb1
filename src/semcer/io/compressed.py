"""Gzip-compressed inputs: the one rule of every reader of semcer (a collection file, standard input,
a page of a directory, a Parquet shard, a single page file read by :func:`semcer.io.formats.read_page`
and so every page file paired by :func:`semcer.io.formats.pair_files`).

A file named ``.gz``, or any data starting with the gzip signature, is decompressed first, at most
:data:`GZIP_LIMIT` bytes (a guard against decompression bombs); its format is then named by the
suffix before ``.gz`` (``refs.jsonl.gz`` is ``.jsonl``, ``p1.hocr.gz`` is ``.hocr``) or detected
from the decompressed content. A ``.gz`` file that is not gzip, data compressed twice, and truncated
or corrupt gzip data are each one-line errors naming the file.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

from semcer.errors import InputError

__all__ = ["GZIP_LIMIT", "GZIP_MAGIC", "decompressed", "without_gz"]

#: The most bytes a gzip-compressed input may decompress to (a guard against decompression bombs).
GZIP_LIMIT = 2 << 30
#: The first bytes of gzip data.
GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


def without_gz(name: str) -> str:
    """A file's name (or path) without a final ``.gz`` (any case): the name of what is inside it."""
    return name[:-3] if name.lower().endswith(".gz") else name


def decompressed(data: bytes, name: str, suffix: str, *, page_limit: int | None = None) -> tuple[bytes, str]:
    """The data inside gzip data and the suffix that names its format (``.jsonl`` of ``refs.jsonl.gz``,
    ``""`` for gzip data whose name does not end with ``.gz``); anything else unchanged, with
    ``suffix`` (the lower-case suffix of ``name``, or ``""``). Raises InputError for a ``.gz`` that
    is not gzip, data over :data:`GZIP_LIMIT`, corrupt gzip data, or data compressed twice.
    ``page_limit``: a page file's limit (``max_bytes`` of :func:`semcer.io.formats.read_page`),
    applied while decompressing, so that a small file that would decompress past it is refused
    before it takes that much memory."""
    named_gz = suffix == ".gz"
    if not data.startswith(GZIP_MAGIC):
        if named_gz:
            raise InputError(f"{name}: named .gz but not gzip-compressed; rename it")
        return data, suffix
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            while chunk := gz.read(_CHUNK):
                out += chunk
                if page_limit is not None and len(out) > page_limit:
                    raise InputError(f"{name}: decompresses to more than {page_limit:,} bytes, the limit for a page "
                                     "file; split the file, or raise the limit (Python: max_bytes=; the command line "
                                     "has no such option) if you trust it")
                if len(out) > GZIP_LIMIT:
                    raise InputError(
                        f"{name}: decompresses to more than {_size(GZIP_LIMIT)} (the limit against "
                        "decompression bombs); decompress it yourself and read the result"
                    )
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise InputError(f"{name}: truncated or corrupt gzip data ({exc})") from None
    if out.startswith(GZIP_MAGIC):
        raise InputError(f"{name}: gzip-compressed twice; decompress it once yourself")
    inner = Path(name[:-3]).suffix.lower() if named_gz else ""
    return bytes(out), inner


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}" if unit == "bytes" else f"{n:.4g} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"  # pragma: no cover
