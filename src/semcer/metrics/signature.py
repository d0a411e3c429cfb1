"""The signature: one line pinning everything that changes a number, split into fields for JSON.

    unit:grapheme|policy:nfc#230b1fed|empty:error|agg:corpus+docmean|judge:compact-...|unicode:nfc-14.0.0,seg-18.0|semcer:0.1.0

Fields are ``key:value`` joined by ``|``. A value that itself holds ``|`` or ``\\`` (an LLM judge's
label set ``0|1|2|3|4``, say) has them escaped with a backslash, so :meth:`Signature.parse` reads
back exactly what :meth:`Signature.__str__` wrote. Extra fields follow the judge, in order: first
how the inputs were paired and read, each only where it departs from the default, so a signature
of default settings has none of them (``unmatched:drop`` or ``unmatched:empty`` when ids were
paired under that ``--unmatched`` policy, whether or not an id was unmatched, on every kind of
input; then how page files were read: :func:`semcer.io.pairing.reading_fields`); then those of a
comparison (how it resampled).

:class:`MethodSignature` is the signature of a measurement of scorers against labels or readers
(``semcer judge-eval``, ``semcer meta-eval``): which judges, how the intervals were drawn and how
the panel was formed, so that two such numbers are comparable only when their signatures are equal::

    eval:judge|judge:compact-1.0+...|boot:1000|seed:0|conf:0.95|gap:0.5|unit:grapheme|unicode:nfc-14.0.0,seg-18.0|semcer:0.1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from semcer.errors import SemcerError, quoted
from semcer.text.policy import TextPolicy
from semcer.text.units import unicode_versions
from semcer.version import __version__

_KEYS = ("unit", "policy", "empty", "agg", "judge", "unicode", "semcer")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("|", "\\|")


def _split(text: str) -> list[str]:
    """``text`` split at unescaped ``|``, each part unescaped."""
    parts, cur, k = [], [], 0
    while k < len(text):
        ch = text[k]
        if ch == "\\" and k + 1 < len(text):
            cur.append(text[k + 1])
            k += 2
            continue
        if ch == "|":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        k += 1
    parts.append("".join(cur))
    return parts


def _unicode_value(normalizer: str, segmenter: str) -> str:
    return f"nfc-{normalizer},seg-{segmenter}"


def unicode_field(normalizer: bool, segmenter: bool) -> str:
    """The ``unicode`` field of a measurement: the Unicode versions of the normalizer and of the
    grapheme segmenter, ``n/a`` for one it does not use."""
    uv = unicode_versions()
    return _unicode_value(uv["normalizer"] if normalizer else "n/a", uv["segmenter"] if segmenter else "n/a")


@dataclass(frozen=True)
class Signature:
    """Options that change the score. Two scores are comparable only if their signatures are equal."""

    unit: str
    policy: str
    policy_hash: str
    empty_ref: str
    aggregation: str = "corpus+docmean"
    judge: str | None = None
    normalizer_unicode: str = ""
    segmenter_unicode: str = ""
    version: str = __version__
    extras: tuple[tuple[str, str], ...] = ()

    @classmethod
    def build(cls, unit: str, policy: TextPolicy, empty_ref: str, judge: str | None = None, *,
              unmatched: str = "error", reading: Sequence[tuple[str, str]] = ()) -> Signature:
        """The signature of a score: every path that scores (``evaluate``, the streamed runs, the
        command line) forms it here. ``unmatched`` is the policy the ids were paired under (a field
        only when not ``"error"``, which scores nothing unless every id is matched); ``reading`` the
        fields of how page files were read (:func:`semcer.io.pairing.reading_fields`: none for
        default settings)."""
        uv = unicode_versions()
        inputs = ((("unmatched", unmatched),) if unmatched != "error" else ()) + tuple(reading)
        return cls(
            unit=unit,
            policy=policy.name,
            policy_hash=policy.hash,
            empty_ref=empty_ref,
            judge=judge,
            normalizer_unicode=uv["normalizer"] if policy.uses_normalizer else "n/a",
            segmenter_unicode=uv["segmenter"] if unit == "grapheme" else "n/a",
        ).with_extras(**dict(inputs))

    def with_extras(self, **extras: str) -> Signature:
        """This signature with more ``key:value`` fields (after the judge), e.g. a comparison's method."""
        clash = set(extras) & {*_KEYS, *(k for k, _ in self.extras)}
        if clash:
            raise ValueError(f"signature fields {sorted(clash)} exist already")
        return replace(self, extras=self.extras + tuple((k, str(v)) for k, v in extras.items()))

    def fields(self) -> dict[str, str | None]:
        out: dict[str, str | None] = {
            "unit": self.unit,
            "policy": self.policy,
            "policy_hash": self.policy_hash,
            "empty_ref": self.empty_ref,
            "aggregation": self.aggregation,
            "judge": self.judge,
            "normalizer_unicode": self.normalizer_unicode,
            "segmenter_unicode": self.segmenter_unicode,
            "version": self.version,
        }
        out.update(self.extras)
        return out

    def __str__(self) -> str:
        parts = [
            ("unit", self.unit),
            ("policy", f"{self.policy}#{self.policy_hash}"),  # the hash holds no '#': the last one splits
            ("empty", self.empty_ref),
            ("agg", self.aggregation),
        ]
        if self.judge:
            parts.append(("judge", self.judge))
        parts += list(self.extras)
        parts.append(("unicode", _unicode_value(self.normalizer_unicode, self.segmenter_unicode)))
        parts.append(("semcer", self.version))
        return "|".join(f"{k}:{_escape(v)}" for k, v in parts)

    @classmethod
    def parse(cls, text: str) -> Signature:
        """The signature a string was printed from: ``Signature.parse(str(sig)) == sig``."""
        fields: dict[str, str] = {}
        extras: list[tuple[str, str]] = []
        for part in _split(text.strip()):
            key, sep, value = part.partition(":")
            if not sep or not key:
                raise SemcerError(f"not a semcer signature field: {quoted(part)} (in {quoted(text)})")
            if key in _KEYS:
                fields[key] = value
            else:
                extras.append((key, value))
        missing = [k for k in ("unit", "policy", "empty", "agg", "unicode", "semcer") if k not in fields]
        if missing:
            raise SemcerError(f"not a semcer signature: no {', '.join(missing)} in {quoted(text)}")
        name, _, policy_hash = fields["policy"].rpartition("#")
        nfc, _, seg = fields["unicode"].partition(",")
        return cls(fields["unit"], name, policy_hash, fields["empty"], fields["agg"],
                   fields.get("judge"), nfc.removeprefix("nfc-"), seg.removeprefix("seg-"), fields["semcer"],
                   tuple(extras))


@dataclass(frozen=True)
class MethodSignature:
    """How scorers were measured against labels or readers (``kind``: ``judge`` for judge-eval,
    ``meta`` for meta-eval): its ``key:value`` fields in order, then the semcer version. Escaped as
    :class:`Signature` is; :meth:`fields` is its JSON form."""

    kind: str
    items: tuple[tuple[str, str], ...]
    version: str = __version__

    def fields(self) -> dict[str, str]:
        return {"eval": self.kind, **dict(self.items), "version": self.version}

    def __str__(self) -> str:
        parts = [("eval", self.kind), *self.items, ("semcer", self.version)]
        return "|".join(f"{k}:{_escape(v)}" for k, v in parts)
