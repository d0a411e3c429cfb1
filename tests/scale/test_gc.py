"""The collector pause (semcer.scale.gc.collector_paused): explicit, opt-in, and it leaves the
collector as it found it. The library itself never touches the collector (tests/test_side_effects.py)."""

import gc

import pytest

import semcer
from semcer.scale.gc import collector_paused


def test_paused_inside_restored_after():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        ev = semcer.evaluate(["abc", "ক্ষ"], ["abd", "ক্ষা"], edits=True)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert ev.corpus.edits == 2


def test_restored_after_an_exception():
    with pytest.raises(semcer.EmptyReferenceError), collector_paused():
        semcer.evaluate([""], ["x"])
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_programs_frozen_objects_stay_frozen():
    gc.freeze()  # a program that froze its objects (e.g. before forking) keeps them frozen
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with collector_paused():
            semcer.evaluate(["abc"], ["abd"], edits=True)
        assert gc.isenabled() and gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
