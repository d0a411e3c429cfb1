"""Where semcer keeps what it builds or creates for itself between runs (the lexicon tables, the
key of the work folders' completion markers): one folder per user, shared by every layer."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The folder of semcer's on-disk caches (``$SEMCER_CACHE_DIR``, else the XDG cache folder)."""
    env = os.environ.get("SEMCER_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "semcer"
