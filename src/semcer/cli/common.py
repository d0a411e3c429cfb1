"""Plumbing shared by the subcommands: reading the two collections, pausing the collector."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from semcer.io.collections import read_collection
from semcer.io.pairing import Paired, pair_collections
from semcer.scale.gc import collector_paused


def load_pairs(args: argparse.Namespace) -> Paired:
    """Read both collections and pair them by id, honouring --unmatched."""
    with collector_paused():  # a corpus is millions of small acyclic objects
        refs = read_collection(args.refs)
        hyps = read_collection(args.hyps)
        return pair_collections(refs, hyps, unmatched=args.unmatched)


@contextlib.contextmanager
def batch_work(judge: Any = None) -> Iterator[None]:
    """The collector paused around scoring, unless a judge that may make cyclic garbage runs
    (network clients, models); the offline judges make none."""
    from semcer.judges.compact import CompactJudge
    from semcer.judges.rubric import RubricJudge

    if judge is None or isinstance(judge, (CompactJudge, RubricJudge)):
        with collector_paused():
            yield
    else:
        yield
