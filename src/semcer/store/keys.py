"""The store key of a judged edit: one function, used for every lookup, insert and import; and
which judge identities are recomputed rather than trusted from a store or a file."""

from __future__ import annotations

import hashlib

#: Identity prefixes of the built-in offline judges (``compact-...``, ``rubric-...``), whose answer
#: for an edit is a function of the identity and the edit alone, recomputed locally in microseconds.
#: Their judgements are never read back from a store nor imported from a file: a forged but
#: self-consistent row (its key matches) could otherwise change a score whose signature is unchanged.
DETERMINISTIC_PREFIXES = ("compact-", "rubric-")


def edit_key(judge_identity: str, content: str) -> str:
    """sha256 hex of the judge identity and an edit's content key
    (:func:`semcer.alignment.context.content_key`; not its line id or position)."""
    return hashlib.sha256(f"{judge_identity}\x1e{content}".encode()).hexdigest()


def is_deterministic(judge_identity: str) -> bool:
    """Whether the identity is one of a deterministic built-in judge (:data:`DETERMINISTIC_PREFIXES`)."""
    return judge_identity.startswith(DETERMINISTIC_PREFIXES)
