"""What each string of a corpus needs, found for all of them in one vectorised pass.

Most lines need neither normalization nor cluster segmentation: they contain no code point that
NFC could change and none that can join a grapheme cluster. Asking Python that question line by
line costs more than aligning the line. Here every string is encoded once (UTF-32) and each code
point looked up in a table of flags; a line's flags are the bitwise OR over its code points:

- ``JOINS``: a code point that can join a cluster (from ``regex``'s data, ``_joiners.py``);
- ``NFC``: NFC could change the string: a code point that is not NFC on its own, a mark out of
  canonical order after the previous character, or a code point that composes with the one
  before it (from the running Python's ``unicodedata``; see :func:`nfc_tables`);
- ``SLOW_SEGMENT``: a code point where the fast segmenter (``ugrapheme``) may disagree with
  ``regex``'s ``\\X`` (``tables/ugrapheme_gaps.py``), or a virama (Indic_Conjunct_Break=Linker) that
  does not come right after a consonant, where Unicode 16's rule GB9c (ugrapheme) and 18's
  (regex) differ; or a code point in the range that :mod:`semcer.text.cluster_ids` uses for cluster
  ids (planes 4-11, unassigned). A pair of lines with one is segmented by ``\\X``.

A line without ``NFC`` is already NFC (UAX #15 quick check: every code point NFC_Quick_Check=Yes
and no reordering); a line without ``JOINS`` is its own cluster sequence. Lines with a flag go on
to the exact, slower check.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np

from semcer.caches import cache
from semcer.text.cluster_ids import RESERVED, codepoints

JOINS = 1
NFC = 2
SLOW_SEGMENT = 4

#: Strings scanned per chunk (bounds the temporary UTF-32 buffer).
CHUNK = 65536


def nfc_tables() -> tuple[list[int], list[int], list[int], list[tuple[int, int]], list[tuple[int, int]]]:
    """``(hard, order, pair, composable, trailing)`` for the running Python's ``unicodedata``.

    ``hard``: code points after which only the exact check can tell whether a string is NFC (not
    NFC on their own, or decomposing into a first part that can compose with what precedes them).
    ``pair``: the second parts of canonical compositions (Bengali া, Tamil ா, Hangul medial and
    final jamo, the nukta, combining accents...): such a code point changes under NFC only when
    the code point right before it composes with it, one of the ``composable`` pairs (Hangul L+V
    and LV+T are added algorithmically), except that for a mark after a mark only the exact check
    can tell (a starter after a mark is blocked from composing). ``order``: the other marks
    (combining class ≠ 0, NFC_Quick_Check=Yes): a string changes under NFC at one of them only
    when the mark before it has a higher class.
    ``trailing``: (code point, combining class of the last code point of its full decomposition)
    where that class is not 0: what a following mark is compared with (``Ù`` ends in a grave
    accent, class 230, so ``Ù`` + dot below, class 220, is reordered by NFC).
    This is UAX #15's quick check with its "maybe" answers resolved for the common cases.
    Only planes 0-3 and 14 hold code points with a decomposition or a non-zero combining class
    (planes 4-13 are unassigned, 15-16 are private use); ``tests/text/test_scan.py`` checks that.
    """
    combining, is_nfc, decomposition, normalize = (
        unicodedata.combining, unicodedata.is_normalized, unicodedata.decomposition, unicodedata.normalize)
    hard: set[int] = set()
    marks: set[int] = set()
    seconds: set[str] = set()
    firsts: list[tuple[int, str]] = []
    composable: list[tuple[int, int]] = []
    trailing: list[tuple[int, int]] = []
    for c in (*range(0xD800), *range(0xE000, 0x40000), *range(0xE0000, 0xF0000)):
        ch = chr(c)
        if not is_nfc("NFC", ch):
            hard.add(c)
            continue
        if combining(ch):
            marks.add(c)
            trailing.append((c, combining(ch)))
        mapping = decomposition(ch)
        if mapping or 0xAC00 <= c <= 0xD7A3:  # Hangul syllables decompose algorithmically
            d = normalize("NFD", ch)
            if len(d) > 1:
                seconds.update(d[1:])
                firsts.append((c, d[0]))
                if combining(d[-1]) and not combining(ch):
                    trailing.append((c, combining(d[-1])))
            parts = mapping.split()
            if len(parts) == 2 and not parts[0].startswith("<"):
                composable.append((int(parts[0], 16), int(parts[1], 16)))
    second_codes = {ord(s) for s in seconds}
    hard.update(c for c, first in firsts if first in seconds)
    pair = second_codes - hard
    order = marks - hard - pair
    return sorted(hard), sorted(order), sorted(pair), sorted(composable), sorted(trailing)


def _ranges_to(table: np.ndarray, ranges, bit: int) -> None:
    for a, b in ranges:
        table[a : b + 1] |= bit


def ranges(codes: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted code points as merged inclusive ranges."""
    out: list[list[int]] = []
    for c in codes:
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return [(a, b) for a, b in out]


# internal bits, resolved by scan; the three that need a look at the code point before are the
# highest, so that one comparison (flags >= _PAIR) finds them
_CONSONANT = 8  # a consonant after which a _LINKER is trusted
_PAIR = 16  # a starter that composes with some predecessors
_ORDER = 32  # a mark whose order against the previous one matters
_LINKER = 64  # a virama on which ugrapheme agrees with \X only right after a consonant


@cache(maxsize=1)
def _nfc_data() -> tuple[tuple, tuple, tuple, np.ndarray, tuple]:
    """Hard, order and pair ranges and the sorted composable pairs (``a << 21 | b``), Hangul included."""
    from semcer.text.tables import nfc_suspects as shipped

    comp: Sequence[tuple[int, int]]
    trail: Sequence[tuple[int, int]]
    if unicodedata.unidata_version == shipped.UNIDATA_VERSION:
        hard, order, pair, comp, trail = shipped.HARD, shipped.ORDER, shipped.PAIR, shipped.COMPOSABLE, shipped.TRAILING
    else:
        h, o, p, comp, trail = nfc_tables()
        hard, order, pair = tuple(ranges(h)), tuple(ranges(o)), tuple(ranges(p))
    lv = [0xAC00 + 28 * k for k in range(19 * 21)]
    hangul = [(lead, v) for lead in range(0x1100, 0x1113) for v in range(0x1161, 0x1176)]
    hangul += [(s, t) for s in lv for t in range(0x11A8, 0x11C3)]
    codes = np.array(sorted((a << 21) | b for a, b in (*comp, *hangul)), dtype=np.uint64)
    return tuple(hard), tuple(order), tuple(pair), codes, tuple(trail)


@cache(maxsize=1)
def _ccc_table() -> np.ndarray:
    """Combining class of each code point's last decomposed code point (0 for most)."""
    table = np.zeros(0x110000, dtype=np.uint8)
    trail = np.array(_nfc_data()[4], dtype=np.int64).reshape(-1, 2)
    table[trail[:, 0]] = trail[:, 1]
    return table


@cache(maxsize=1)
def flag_table() -> np.ndarray:
    """One byte of flags per code point (1.1 MB), built once per process."""
    from semcer.text.segmenter import ugrapheme_gaps
    from semcer.text.units import joiner_ranges

    table = np.zeros(0x110000, dtype=np.uint8)
    _ranges_to(table, joiner_ranges(), JOINS)
    hard, order, pair, _, _ = _nfc_data()
    _ranges_to(table, hard, NFC)
    _ranges_to(table, order, _ORDER)
    _ranges_to(table, pair, _PAIR)
    fast = ugrapheme_gaps()
    if fast is None:  # no usable fast segmenter: every joining line goes to \X
        table[table & JOINS != 0] |= SLOW_SEGMENT
    else:
        _ranges_to(table, fast.gaps, SLOW_SEGMENT)
        table[RESERVED[0] : RESERVED[1]] |= SLOW_SEGMENT  # the batched segmenter's cluster ids
        table[list(fast.context_linkers)] |= _LINKER
        _ranges_to(table, fast.consonants, _CONSONANT)
    table.setflags(write=False)
    return table


def scan(texts: Sequence[str]) -> np.ndarray:
    """The flags of each string (``uint8``, bitwise OR over its code points)."""
    table = flag_table()
    composable = _nfc_data()[3]
    out = np.zeros(len(texts), dtype=np.uint8)
    for lo in range(0, len(texts), CHUNK):
        part = texts[lo : lo + CHUNK]
        lengths = np.fromiter(map(len, part), dtype=np.int64, count=len(part))
        cps = codepoints("".join(part))
        if not cps.size:
            continue
        starts = np.zeros(len(part), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        nonempty = lengths > 0
        f = table[cps]
        got = np.bitwise_or.reduceat(f, starts[nonempty])
        if (got >= _PAIR).any():
            pos = np.flatnonzero(f >= _PAIR)
            kind = f[pos]
            # NFC: a pair code point after a mark or after a starter it composes with, or a mark
            # after a mark of a higher class (a hit across two strings only sends the second one
            # to the exact check)
            pp, po = pos[(kind & _PAIR) != 0], pos[(kind & _ORDER) != 0]
            pp, po = pp[pp > 0], po[po > 0]
            ccc = _ccc_table()
            after_mark = (ccc[cps[pp - 1]] != 0) & (ccc[cps[pp]] != 0)  # (a starter after a mark is blocked)
            codes = (cps[pp - 1].astype(np.uint64) << 21) | cps[pp]
            at = np.minimum(np.searchsorted(composable, codes), composable.size - 1)
            hit = np.concatenate([
                pp[after_mark | (composable[at] == codes)],
                po[ccc[cps[po - 1]] > ccc[cps[po]]],
            ])
            if hit.size:
                got[np.searchsorted(starts[nonempty], hit, side="right") - 1] |= NFC
            # segmentation: a linker not right after a consonant goes to \X (a linker that starts
            # its string has nothing before it, whatever the previous string holds)
            pl = pos[(kind & _LINKER) != 0]
            first = np.zeros(cps.size, dtype=bool)
            first[starts[nonempty]] = True
            loose = pl[((f[pl - 1] & _CONSONANT) == 0) | first[pl]]
            if loose.size:
                got[np.searchsorted(starts[nonempty], loose, side="right") - 1] |= SLOW_SEGMENT
        got &= ~np.uint8(_PAIR | _ORDER | _LINKER | _CONSONANT)
        out[lo : lo + len(part)][nonempty] = got
    return out
