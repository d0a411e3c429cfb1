"""Drawing a study: a stratified single-edit pool, a pair pool, and each reader's schedule.

**Allocation.** ``n`` items over strata of sizes ``s_1 ... s_m`` are shared out as evenly as the
strata allow (water filling): every stratum gets ``min(s_i, q)`` for the largest level ``q`` that
keeps the total at most ``n``, and what is left goes one item each to the largest remaining strata
(ties by the stratum's sorted key). Rare edit classes are so represented, not drowned by the common
ones; a stratum smaller than its share is taken whole.

**Schedules.** Each reader sees every item of the study once, in an order of their own (a shuffle
seeded by the study's seed and the reader's name, so the same study and reader give the same
order), plus ``repeats`` items shown a second time, each after its first showing, to measure how
consistent the reader is with themself.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from semcer.errors import InputError

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Slot:
    """One place of a reader's schedule: the item, and 0 for its first showing, 1 for the repeat."""

    item: str
    rep: int


def allocate(sizes: Mapping[K, int], n: int) -> dict[K, int]:
    """How many of ``n`` items each stratum gets (see the module documentation)."""
    if n < 0:
        raise InputError(f"the sample size must be at least 0, got {n}")
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    lo, hi = 0, max(sizes.values(), default=0)
    while lo < hi:  # the largest level q with sum(min(s, q)) <= n
        q = (lo + hi + 1) // 2
        if sum(min(s, q) for s in sizes.values()) <= n:
            lo = q
        else:
            hi = q - 1
    out = {k: min(s, lo) for k, s in sizes.items()}
    left = n - sum(out.values())
    open_ = sorted((k for k, s in sizes.items() if s > out[k]), key=lambda k: (-sizes[k], str(k)))
    for k in open_[:left]:
        out[k] += 1
    return out


def stratified(items: Sequence[T], key: Callable[[T], Hashable], n: int, seed: int) -> list[T]:
    """``n`` of ``items`` drawn stratum by stratum (:func:`allocate`), in stratum order, each stratum
    sampled without replacement by a generator seeded with ``seed`` and the stratum's key."""
    groups: dict[Hashable, list[T]] = {}
    for it in items:
        groups.setdefault(key(it), []).append(it)
    counts = allocate({k: len(v) for k, v in groups.items()}, n)
    out: list[T] = []
    for k in sorted(groups, key=str):
        rng = random.Random(f"{seed}:{k}")
        out += rng.sample(groups[k], counts[k])
    return out


def schedule(items: Sequence[str], reader: str, seed: int, repeats: int) -> list[Slot]:
    """The reader's order of ``items`` (their own shuffle) with ``repeats`` repeated items, each
    placed at random after its first showing (see the module documentation)."""
    if repeats < 0 or repeats > len(items):
        raise InputError(f"--repeats must be from 0 to the number of items ({len(items)}), got {repeats}")
    rng = random.Random(f"{seed}:reader:{reader}")
    order = [Slot(i, 0) for i in items]
    rng.shuffle(order)
    again = [order[k].item for k in rng.sample(range(len(order)), repeats)]
    for item in again:
        pos = next(k for k, s in enumerate(order) if s.item == item)
        order.insert(rng.randint(pos + 1, len(order)), Slot(item, 1))
    return order
