"""The store key of a judged edit: one function, used for every lookup, insert and import."""

from __future__ import annotations

import hashlib


def edit_key(judge_identity: str, content: str) -> str:
    """sha256 hex of the judge identity and an edit's content key
    (:func:`semcer.alignment.context.content_key`; not its line id or position)."""
    return hashlib.sha256(f"{judge_identity}\x1e{content}".encode()).hexdigest()
