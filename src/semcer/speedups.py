"""The optional compiled helpers, and the one switch that turns them off.

Each C module (``semcer.alignment._speedups``, ``semcer.judges.rubric._lexicon_speedups``,
``semcer.store._packing_speedups``) is optional: built where a compiler was there at install
time, with a Python version of the same code beside it that gives the same answers (the tests
compare them). :func:`compiled` gives the
module, or None when it was not built or ``SEMCER_PURE_PYTHON=1`` (any value but empty or 0) asks
for the Python code, e.g. to rule the C code out when looking into a result.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def pure_python() -> bool:
    """True when ``SEMCER_PURE_PYTHON`` asks for the Python code only."""
    return os.environ.get("SEMCER_PURE_PYTHON", "") not in ("", "0")


def compiled(module: str) -> ModuleType | None:
    """The compiled module ``module`` (its full name), or None (not built, or :func:`pure_python`)."""
    if pure_python():
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
