"""Errors a user can cause. The CLI prints their message as one line and exits non-zero."""

from __future__ import annotations

#: How many characters of a user-supplied value (an id, a text) an error message quotes.
QUOTE_LIMIT = 80


#: The most characters of an underlying error (a library's) that a one-line error quotes.
REASON_LIMIT = 300


def first_line(exc: BaseException, limit: int = REASON_LIMIT) -> str:
    """The first non-empty line of ``exc``'s message (its type's name when it has none), at most
    ``limit`` characters: the reason a one-line error gives for a failure deep in a library."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    line = lines[0] if lines else type(exc).__name__
    return line if len(line) <= limit else line[: limit - 1] + "…"


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for an error message, bounded: a string longer than ``limit`` characters is
    quoted by its first ``limit`` characters, an ellipsis and its full length
    (``'aaaa'… (3,000,000 characters)``); any other value whose repr is longer is cut the same way.

    Every message that quotes an id or a text it read uses this, so that a 3 MB id still makes a
    one-line error of a few hundred bytes, and two long values that differ late stay told apart
    by their lengths.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class SemcerError(Exception):
    """Base class of every error caused by input or configuration, never by a bug."""


class InputError(SemcerError):
    """An input file or collection is unreadable, malformed or inconsistent."""


class EmptyReferenceError(SemcerError):
    """A reference has no units after the text policy, so its CER is undefined."""


class PolicyError(SemcerError):
    """An unknown text policy or policy step was requested."""


class JudgeError(SemcerError):
    """A judge could not be built or could not judge (bad configuration, unreachable server)."""


class StoreError(SemcerError):
    """The judged-edit store is unreadable or was written by an incompatible version."""
