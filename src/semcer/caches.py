"""Every cache semcer keeps is bounded, and :func:`clear_caches` empties all of them at once.

Caches hold pure functions of their arguments (a line's words, a word's lexicon entry, a table
built from Unicode data), so clearing them changes no result, only the time the next call takes.
A long-lived process (a web app, a worker pool) can call :func:`clear_caches` between jobs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: Entries of the caches keyed by a whole line (or a judge's window of one): a line's edits are judged
#: together, so a few hundred lines are enough, and a long window weighs tens of kilobytes. 768 is
#: measured on both sides: `bench/pages.py --huge 0` (every window distinct) 290 MB peak (256: 261 MB,
#: 1,024: 310 MB); `bench/compact_speed.py` warm (the 915 dev edits in a cycle over 1,177 distinct
#: lines) 58k edits/s (512: 15.7k, the cycle no longer fits).
LINE_CACHE = 768

_CACHES: list[Any] = []  # filled at import, by @cache; never holds anything but lru_cache wrappers


def cache(maxsize: int) -> Callable[[F], F]:
    """``functools.lru_cache(maxsize)`` for a pure function, registered for :func:`clear_caches`."""
    if not isinstance(maxsize, int) or maxsize < 1:
        raise ValueError(f"a semcer cache must be bounded: maxsize {maxsize!r}")

    def decorate(fn: F) -> F:
        wrapped = functools.lru_cache(maxsize=maxsize)(fn)
        _CACHES.append(wrapped)
        return wrapped  # type: ignore[return-value]

    return decorate


def clear_caches() -> None:
    """Empty every cache of semcer (results stay the same; the next calls recompute what they need)."""
    for fn in _CACHES:
        fn.cache_clear()


def cache_sizes() -> dict[str, tuple[int, int]]:
    """``qualified name -> (entries, maxsize)`` of every registered cache."""
    out = {}
    for fn in _CACHES:
        info = fn.cache_info()
        out[f"{fn.__module__}.{fn.__qualname__}"] = (info.currsize, info.maxsize)
    return out
