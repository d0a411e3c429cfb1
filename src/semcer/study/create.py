"""``semcer study create`` and ``add-reader``: draw the pools, write the study file, give each
reader a schedule and a token."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from semcer.errors import InputError
from semcer.study.db import Item, StudyDB, check_reader_name
from semcer.study.sampling import schedule, stratified
from semcer.study.sources import Candidate, PairCandidate, check_pair_sources, read_candidates, read_pair_candidates
from semcer.version import __version__

T = TypeVar("T")


@dataclass(frozen=True)
class StudyPlan:
    """What ``create`` drew: the items (edits first, then pairs) and the options."""

    items: tuple[Item, ...]
    n_edits: int
    n_pairs: int
    n_candidates: int
    n_pair_candidates: int
    seed: int
    repeats: int


def edit_item(c: Candidate) -> Item:
    lang, cls, band = c.stratum
    return Item(c.id, "edit", lang, f"{lang}|{cls}|{band}", c.record)


def pair_item(p: PairCandidate, seed: int) -> Item:
    """A pair with its two outputs in an order drawn from the seed (the first system is not always a)."""
    swap = random.Random(f"{seed}:sides:{p.id}").random() < 0.5
    a, b, sa, sb = (p.b, p.a, p.b_system, p.a_system) if swap else (p.a, p.b, p.a_system, p.b_system)
    data = {"pair": p.id, "line_id": p.line_id, "lang": p.lang, "ref": p.ref, "a": a, "b": b, "a_system": sa, "b_system": sb}
    return Item(p.id, "pair", p.lang, p.lang, data)


def check_options(sources: Sequence[str], pair_sources: Sequence[str], n_edits: int | None, n_pairs: int | None,
                  repeats: int, readers: Sequence[str] = ()) -> None:
    """Every option of a study that can be checked before a source is read (one-line errors)."""
    for flag, n in (("-n", n_edits), ("--pairs", n_pairs), ("--repeats", repeats)):
        if n is not None and n < 0:
            raise InputError(f"{flag} must be at least 0, got {n}")
    if not sources and not pair_sources:
        raise InputError("give the edits to draw from (--from) and/or the systems to pair (--pairs-from)")
    if n_edits is not None and not sources:
        raise InputError(f"-n {n_edits}: give the edits to draw from (--from)")
    if n_pairs is not None and not pair_sources:
        raise InputError(f"--pairs {n_pairs}: give the systems to pair (--pairs-from, two or more)")
    empty = [f"{flag} 0" for flag, n, given in (("-n", n_edits, sources), ("--pairs", n_pairs, pair_sources))
             if given and n == 0]
    if len(empty) == bool(sources) + bool(pair_sources):
        raise InputError(f"{' and '.join(empty)}: a study needs at least one item")
    if pair_sources:
        check_pair_sources(pair_sources)
    check_readers(readers)


def check_readers(readers: Sequence[str]) -> None:
    for name in readers:
        check_reader_name(name)
    if len(set(readers)) != len(readers):
        raise InputError("--reader: each reader once")


def plan(sources: Sequence[str], pair_sources: Sequence[str], n_edits: int | None, n_pairs: int | None,
         seed: int, repeats: int, *, per_language: bool = False, judge: str | None = None) -> StudyPlan:
    """Draw the pools: ``n_edits`` edits stratified by (language, class, band), ``n_pairs`` near-miss
    pairs stratified by language (None: all candidates); with ``per_language`` the sizes are per
    language (each language its own pool, as the paper's); ``judge``: the judge of a store among the
    sources (:func:`~semcer.study.sources.read_candidates`)."""
    check_options(sources, pair_sources, n_edits, n_pairs, repeats)
    edits: list[Item] = []
    pairs: list[Item] = []
    n_cand = n_pair_cand = 0
    if sources:
        cands = read_candidates(sources, judge)
        n_cand = len(cands)
        edits = [edit_item(c) for c in _draw(cands, lambda c: c.lang, lambda c: c.stratum, n_edits, seed, per_language)]
    if pair_sources:
        pcands = read_pair_candidates(pair_sources)
        n_pair_cand = len(pcands)
        if not pcands:
            raise InputError(f"--pairs-from: no line where CER and semCER disagree on which output is worse "
                             f"({', '.join(pair_sources)})")
        pairs = [pair_item(p, seed) for p in _draw(pcands, lambda p: p.lang, lambda p: p.lang, n_pairs, seed, per_language)]
    items = tuple(edits + pairs)
    if repeats > len(items):
        raise InputError(f"--repeats {repeats}: more than the {len(items)} item(s) drawn (each repeat shows a drawn item "
                         "a second time): lower --repeats or draw more items")
    return StudyPlan(items, len(edits), len(pairs), n_cand, n_pair_cand, seed, repeats)


def _draw(items: Sequence[T], lang: Callable[[T], str], stratum: Callable[[T], Hashable], n: int | None, seed: int,
          per_language: bool) -> list[T]:
    """``n`` items stratified by ``stratum`` (all when None), or ``n`` of each language."""
    if n is None:
        return stratified(items, stratum, len(items), seed)
    if not per_language:
        return stratified(items, stratum, n, seed)
    out: list[T] = []
    for code in sorted({lang(it) for it in items}):
        out += stratified([it for it in items if lang(it) == code], stratum, n, seed)
    return out


def create_study(path: str | Path, p: StudyPlan, readers: Sequence[str]) -> dict[str, str]:
    """Write the study file, all or nothing (:meth:`StudyDB.creating`: on any error, a reader's
    name too, no file is left); returns reader -> token (shown once, stored hashed)."""
    check_readers(readers)
    meta = {"seed": str(p.seed), "repeats": str(p.repeats), "semcer_version": __version__,
            "edits": str(p.n_edits), "pairs": str(p.n_pairs)}
    with StudyDB.creating(path, meta, p.items) as db:
        return {name: add_reader(db, name) for name in readers}


def add_reader(db: StudyDB, name: str) -> str:
    """Add a reader with their own schedule (seeded by the study's seed and the name); their token."""
    meta = db.meta()
    ids = [i.id for i in db.items()]
    return db.add_reader(name, schedule(ids, name, int(meta["seed"]), int(meta["repeats"])))
