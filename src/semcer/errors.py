"""Errors a user can cause. The CLI prints their message as one line and exits non-zero."""

from __future__ import annotations


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
