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


def _in_a_generation(obj: object) -> bool:
    """Whether the collector walks ``obj``: gc.get_objects() lists generations 0-2, never the
    permanent one that gc.freeze() fills."""
    return any(o is obj for o in gc.get_objects())


def test_a_programs_frozen_objects_stay_frozen():
    before = ["made before the program froze its objects"]
    gc.freeze()  # a program that froze its objects (e.g. before forking) keeps them frozen
    try:
        assert gc.get_freeze_count() > 0 and not _in_a_generation(before)
        with collector_paused():
            semcer.evaluate(["abc"], ["abd"], edits=True)
            during = ["made inside the block"]
        # the count alone cannot tell: frozen objects that die meanwhile leave the permanent
        # generation, so the program's own object is checked, and one made inside the block
        assert gc.isenabled() and gc.get_freeze_count() > 0
        assert not _in_a_generation(before), "the program's frozen objects were released"
        assert _in_a_generation(during), "objects made in the block were frozen"
    finally:
        gc.unfreeze()
