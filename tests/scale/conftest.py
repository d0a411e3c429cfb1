"""Shared fixtures of the streamed-pipeline tests: the bundled multilingual example, paired; the
default judge; and the one-pass evaluation (every edit kept) the streamed runs are compared with."""

from __future__ import annotations

from pathlib import Path

import pytest

import semcer
from semcer.io.collections import read_collection
from semcer.io.pairing import pair_collections
from semcer.judges import resolve_judge

ROOT = Path(__file__).resolve().parents[2]
REFS, HYPS = ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"


@pytest.fixture(scope="module")
def paired():
    return pair_collections(read_collection(str(REFS)), read_collection(str(HYPS)))


@pytest.fixture(scope="module")
def judge():
    with resolve_judge("compact") as j:
        yield j


@pytest.fixture(scope="module")
def whole(paired, judge):
    return semcer.evaluate(paired, judge=judge, edits=True)
