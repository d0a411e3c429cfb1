"""Where ``ugrapheme`` may stand in for ``regex``'s ``\\X``, as one object built once per process.

ugrapheme (a C extension, about 6x faster than ``\\X``) follows an older Unicode than ``regex``.
``tables/ugrapheme_gaps.py`` (made by ``tools/gen_ugrapheme_gaps.py``) lists every code point
where the two may differ; a string free of them, and without a virama that does not follow a
consonant (Unicode 18 changed rule GB9c there), is segmented identically by both.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import regex

from semcer.caches import cache

#: ``regex``'s extended grapheme cluster: the one definition of a grapheme unit.
CLUSTER = regex.compile(r"\X")


class FastSegmenter(NamedTuple):
    """Where ugrapheme may stand in for ``\\X`` (see ``tables/ugrapheme_gaps.py``)."""

    gaps: tuple[tuple[int, int], ...]  # code points after which only \X is trusted
    context_linkers: tuple[int, ...]  # trusted when the code point before each is one of:
    consonants: tuple[tuple[int, int], ...]


@cache(maxsize=1)
def ugrapheme_gaps() -> FastSegmenter | None:
    """Where ``ugrapheme`` segments as ``regex``'s ``\\X``, or ``None`` when it cannot be used.

    ``None`` when ugrapheme is not installed or the shipped table was not generated for the
    installed ``regex`` and ugrapheme: then every line that needs segmentation goes to ``\\X``,
    with the same result, more slowly.
    """
    try:
        import ugrapheme  # noqa: F401

        from semcer.text.tables import ugrapheme_gaps as table
    except ImportError:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        ug_version = version("ugrapheme")
    except PackageNotFoundError:
        return None
    if regex.__version__ not in table.REGEX_VERSIONS or ug_version != table.UGRAPHEME_VERSION:
        return None
    linkers = tuple(table.CONTEXT_LINKERS)
    # lone surrogates (possible in a Python str, never probed) are left to \X as well
    gaps = tuple((a, b) for a, b in table.RANGES if not (a == b and a in linkers)) + ((0xD800, 0xDFFF),)
    if any(a <= c <= b for c in linkers for a, b in gaps):  # a linker inside a merged range
        return FastSegmenter(table.RANGES, (), ())
    return FastSegmenter(gaps, linkers, tuple(table.CONSONANTS))


def chars(ranges: tuple[tuple[int, int], ...]) -> frozenset[str]:
    """The characters of inclusive code-point ranges."""
    return frozenset(chr(c) for a, b in ranges for c in range(a, b + 1))


@dataclass(frozen=True)
class Segmenter:
    """Extended grapheme clusters: ``\\X``, computed by ugrapheme on strings where they agree.

    ``split`` is ugrapheme's ``grapheme_split`` (None when it cannot be trusted here) and
    ``safe(text)`` tells whether it may be used on ``text``.
    """

    split: Callable[[str], list[str]] | None
    safe: Callable[[str], bool] | None

    def clusters(self, text: str) -> list[str]:
        """The extended grapheme clusters of ``text``."""
        if self.split is not None and self.safe is not None and self.safe(text):
            return self.split(text)
        return CLUSTER.findall(text)


def _safe_test(fast: FastSegmenter) -> Callable[[str], bool]:
    no_gap = chars(fast.gaps).isdisjoint
    if not fast.context_linkers:
        return no_gap
    links = "".join(re.escape(chr(c)) for c in fast.context_linkers)
    cons = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in fast.consonants)
    loose = re.compile(f"[{links}](?<![{cons}][{links}])").search  # a linker after a non-consonant

    def safe(text: str) -> bool:
        return no_gap(text) and loose(text) is None

    return safe


@cache(maxsize=1)
def default_segmenter() -> Segmenter:
    """The process's segmenter (built on first use: the gap table, ugrapheme's splitter)."""
    fast = ugrapheme_gaps()
    if fast is None:
        return Segmenter(None, None)
    from ugrapheme import grapheme_split

    return Segmenter(grapheme_split, _safe_test(fast))


def fast_splitter() -> Callable[[str], list[str]] | None:
    """ugrapheme's splitter when it can stand in for ``\\X`` (on strings free of the gap code points)."""
    return default_segmenter().split
