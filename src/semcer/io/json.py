"""JSON out: no Infinity or NaN ever (undefined values are null), written atomically to a file or
to standard output."""

from __future__ import annotations

import json
import sys
from typing import Any

from semcer.atomic import atomic_write


def dumps(obj: Any) -> str:
    """Indented JSON; ValueError if a non-finite number slipped in (undefined values must be None)."""
    return json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False)


def emit(text: str, output: str | None) -> None:
    """``text`` (with a final newline) to ``output`` atomically, or to standard output."""
    text = text if text.endswith("\n") else text + "\n"
    if output:
        with atomic_write(output) as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
