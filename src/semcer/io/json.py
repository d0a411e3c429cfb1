"""JSON out: no Infinity or NaN ever (undefined values are null), written atomically to a file or
to standard output."""

from __future__ import annotations

import json
import sys
from typing import Any

from semcer.atomic import atomic_write
from semcer.errors import SemcerError


def dumps(obj: Any) -> str:
    """Indented JSON; ValueError if a non-finite number slipped in (undefined values must be None)."""
    return json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False)


def emit(text: str, output: str | None) -> None:
    """``text`` (with a final newline) to ``output`` atomically, or to standard output. A file that
    cannot be written (disk full, folder gone) is a one-line SemcerError naming it."""
    text = text if text.endswith("\n") else text + "\n"
    if output:
        try:
            with atomic_write(output) as fh:
                fh.write(text)
        except OSError as exc:
            raise SemcerError(f"cannot write {output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
