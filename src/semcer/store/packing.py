"""How the store keeps an edit's marked pair: both sides in one compressed value.

A judge sees a bounded window around each edit, and the two sides of a pair are mostly the same
text, so ``marked_ref`` and ``marked_hyp`` are stored together as one BLOB (:func:`pack_pair`)::

    byte 0     codec: 0 = stored as is, 1 = raw DEFLATE (RFC 1951, zlib's level 6)
    then       the UTF-8 byte lengths of marked_ref and of marked_hyp, each an unsigned LEB128 varint
    then       marked_ref's UTF-8 bytes followed by marked_hyp's, as the codec says

DEFLATE finds the output side in the reference side, so a page's pair takes about 40 % of its
UTF-8 bytes (a short line's pair is stored as is when compressing would not make it smaller).
:func:`unpack_pair` refuses, with a reason, anything that is not exactly such a value: an unknown
codec, lengths that disagree with the bytes, a damaged DEFLATE stream, data after it, bytes that
are not UTF-8. The store's read-back check then compares the pair with the row's key, so a pair
damaged into another valid one is refused too.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

from semcer.caches import cache
from semcer.speedups import compiled

RAW, DEFLATE = 0, 1

#: Largest side unpacked (SQLite's default limit on one value, so nothing a store can hold is
#: refused): a forged length cannot make a row decompress without bound.
MAX_SIDE_BYTES = 1_000_000_000

_LEVEL = 6


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    """The varint at ``at`` and where it ends; ValueError when it runs off the end or is too large."""
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("ends inside its length header (the value is cut short)")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
        if shift > 35:
            raise ValueError("has a malformed length header (a varint of more than 5 bytes)")
    if value > MAX_SIDE_BYTES:
        raise ValueError(f"claims a side of {value} bytes, longer than a store value can be")
    return value, at


def pack_pair(marked_ref: str, marked_hyp: str) -> bytes:
    """The stored value of a marked pair (see the module documentation): built in C
    (``_packing_speedups.c``, one compressor reset for each value instead of one made for each)
    when that was built, else by :func:`_python_pack_pair`; the same bytes either way."""
    fast = _fast_pack()
    if fast is None:
        return _python_pack_pair(marked_ref, marked_hyp)
    return fast(marked_ref, marked_hyp)


@cache(maxsize=1)
def _fast_pack() -> Callable[[str, str], bytes] | None:
    """The C packer (``semcer.store._packing_speedups.pack_pair``), or None when it was not built
    or ``SEMCER_PURE_PYTHON=1`` asks for the Python one."""
    module = compiled("semcer.store._packing_speedups")
    if module is None:
        return None
    pack: Callable[[str, str], bytes] = module.pack_pair
    return pack


def _python_pack_pair(marked_ref: str, marked_hyp: str) -> bytes:
    ref = marked_ref.encode("utf-8")
    hyp = marked_hyp.encode("utf-8")
    head = _varint(len(ref)) + _varint(len(hyp))
    body = ref + hyp
    packed = zlib.compress(body, _LEVEL, -15)
    if len(packed) < len(body):
        return bytes([DEFLATE]) + head + packed
    return bytes([RAW]) + head + body


def unpack_pair(value: object) -> tuple[str, str]:
    """``(marked_ref, marked_hyp)`` of a stored value; ValueError saying why when it is not one, as
    the end of a sentence about the value ("is empty", "has unknown codec 7"): the store lists it as
    "marked pair <why>"."""
    if not isinstance(value, bytes):
        raise ValueError(f"is {type(value).__name__}, not a packed pair")
    if not value:
        raise ValueError("is empty")
    codec = value[0]
    n_ref, at = _read_varint(value, 1)
    n_hyp, at = _read_varint(value, at)
    if codec == RAW:
        body = value[at:]
    elif codec == DEFLATE:
        inflater = zlib.decompressobj(-15)
        try:
            body = inflater.decompress(value[at:], n_ref + n_hyp + 1)
        except zlib.error as exc:
            raise ValueError(f"has damaged compressed bytes ({exc})") from None
        if not inflater.eof or inflater.unconsumed_tail or inflater.unused_data:
            raise ValueError("has damaged compressed bytes (the stream is cut short or has bytes after it)")
    else:
        raise ValueError(f"has unknown codec {codec}")
    if len(body) != n_ref + n_hyp:
        raise ValueError(f"holds {len(body)} bytes where its lengths say {n_ref + n_hyp}")
    try:
        return (body[:n_ref].decode("utf-8"), body[n_ref:].decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("holds text that is not UTF-8") from None
