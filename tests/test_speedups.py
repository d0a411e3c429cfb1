"""The one switch of the optional compiled helpers (semcer.speedups)."""

from __future__ import annotations

import pytest

from semcer.speedups import compiled, pure_python


@pytest.mark.parametrize(("value", "pure"), [(None, False), ("", False), ("0", False), ("1", True), ("yes", True)])
def test_the_switch(monkeypatch, value, pure):
    if value is None:
        monkeypatch.delenv("SEMCER_PURE_PYTHON", raising=False)
    else:
        monkeypatch.setenv("SEMCER_PURE_PYTHON", value)
    assert pure_python() is pure
    assert (compiled("json") is None) is pure  # a module that is there: given unless the switch is on


def test_a_module_that_was_not_built_is_none(monkeypatch):
    monkeypatch.delenv("SEMCER_PURE_PYTHON", raising=False)
    assert compiled("semcer.alignment._no_such_speedups") is None
