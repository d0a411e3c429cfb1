"""Units of comparison: extended grapheme clusters (default) or Unicode code points.

Most lines need no cluster segmentation at all: when a string contains no code point that can
join a cluster (combining marks, ZWJ, spacing marks, prepended marks, Hangul jamo, regional
indicators, CR), every code point is its own extended grapheme cluster, and the string itself
is the unit sequence. Only the other lines are segmented with ``regex``'s ``\\X``.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import Literal

import regex

from semcer.caches import LINE_CACHE, cache
from semcer.errors import SemcerError
from semcer.text.segmenter import chars, default_segmenter

Unit = Literal["grapheme", "codepoint"]
UNITS: tuple[str, ...] = ("grapheme", "codepoint")

# A code point of any of these Grapheme_Cluster_Break classes can join a neighbour into a
# multi-code-point cluster (UAX #29 rules GB3, GB6-GB9c, GB11-GB13); no other class can. (Since
# Unicode 18.0 an Indic_Conjunct_Break=Linker joins the next consonant even where it is not Extend.)
_JOINER = regex.compile(
    r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}"
    r"\p{GCB=L}\p{GCB=V}\p{GCB=T}\p{GCB=Regional_Indicator}\p{InCB=Linker}\r]"
)

# First code point assigned in each Unicode version (probe of the segmenter's data).
_VERSION_PROBES: tuple[tuple[str, int], ...] = (
    ("18.0", 0x0558),  # ARMENIAN (new in 18.0; regex 2026.11)
    ("17.0", 0x1FAEA),  # DISTORTED FACE
    ("16.0", 0x1FAE9),  # FACE WITH BAGS UNDER EYES
    ("15.1", 0x2FFC),  # IDEOGRAPHIC DESCRIPTION CHARACTER SURROUND FROM RIGHT
    ("15.0", 0x1FAE8),  # SHAKING FACE
    ("14.0", 0x1FAE0),  # MELTING FACE
)


def check_unit(unit: str) -> Unit:
    """Return ``unit`` if it is known, else raise a clear error."""
    if unit not in UNITS:
        raise SemcerError(f"unknown unit {unit!r}; choose 'grapheme' or 'codepoint'")
    return unit  # type: ignore[return-value]


@cache(maxsize=1)
def joiner_ranges() -> tuple[tuple[int, int], ...]:
    """Inclusive code-point ranges of the joiners, as the installed ``regex`` knows them.

    The table ships with semcer (``tables/joiners.py``) for the ``regex`` release it was generated from;
    with another release it is computed once from that release's own data (about 0.1 s).
    """
    from semcer.text.tables import joiners as _joiners

    if regex.__version__ == _joiners.REGEX_VERSION:
        return _joiners.RANGES
    return joiner_ranges_from_regex()


def joiner_ranges_from_regex() -> tuple[tuple[int, int], ...]:
    """The joiner ranges computed from the installed ``regex``'s data (about 0.1 s)."""
    import array

    every = array.array("I", range(0xD800))
    every.extend(range(0xE000, 0x110000))
    text = every.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
    return tuple((ord(m.group()[0]), ord(m.group()[-1])) for m in regex.finditer(f"(?:{_JOINER.pattern})+", text))


@cache(maxsize=1)
def _no_joiner() -> Callable[[str], bool]:
    return chars(joiner_ranges()).isdisjoint


def clusters_are_codepoints(text: str) -> bool:
    """True when every code point of ``text`` is its own extended grapheme cluster."""
    if text.isascii():
        return "\r" not in text
    return _no_joiner()(text)


def clusters(text: str) -> list[str]:
    """The extended grapheme clusters of ``text`` (``regex``'s ``\\X``, computed by ugrapheme where
    the two provably agree)."""
    return default_segmenter().clusters(text)


def segment(text: str, unit: Unit = "grapheme") -> Sequence[str]:
    """The unit sequence of ``text``: the string itself when units are code points, else a list."""
    if unit == "codepoint" or clusters_are_codepoints(text):
        return text
    return clusters(text)


def alignable_pair(ref: str, hyp: str, unit: Unit) -> tuple[Sequence[str], Sequence[str], Sequence[str], Sequence[str]]:
    """Sequences to align for ``ref`` and ``hyp`` plus their unit sequences.

    When both sides are plain code-point sequences the strings themselves are aligned; otherwise
    the lists of clusters are (the aligner hashes each cluster, so a cluster is one atom and only
    equality matters).
    """
    ref_units = segment(ref, unit)
    if hyp == ref:  # an exact line (common in OCR output): segment once
        return ref_units, ref_units, ref_units, ref_units
    hyp_units = segment(hyp, unit)
    if type(ref_units) is str and type(hyp_units) is str:
        return ref_units, hyp_units, ref_units, hyp_units
    a = ref_units if type(ref_units) is list else list(ref_units)
    b = hyp_units if type(hyp_units) is list else list(hyp_units)
    return a, b, ref_units, hyp_units


@cache(maxsize=1)
def unicode_versions() -> dict[str, str]:
    """Unicode versions of the normalizer (Python's ``unicodedata``) and the segmenter (``regex``)."""
    assigned = regex.compile(r"\p{Assigned}")
    seg = "older than 14.0"
    for version, cp in _VERSION_PROBES:
        if assigned.match(chr(cp)):
            seg = version
            break
    return {"normalizer": unicodedata.unidata_version, "segmenter": seg}


@cache(maxsize=LINE_CACHE)
def graphemes(text: str) -> tuple[str, ...]:
    """The clusters of ``text`` as a tuple (cached: a line is shared by all of its edits); the units
    :func:`segment` gives (``\\r\\n`` is one cluster, ASCII or not)."""
    if text.isascii() and "\r" not in text:
        return tuple(text)
    return tuple(clusters(text))
