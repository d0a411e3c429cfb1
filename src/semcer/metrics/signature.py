"""The signature: one line pinning everything that changes a number, split into fields for JSON."""

from __future__ import annotations

from dataclasses import dataclass

from semcer.text.policy import TextPolicy
from semcer.text.units import unicode_versions
from semcer.version import __version__


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

    @classmethod
    def build(cls, unit: str, policy: TextPolicy, empty_ref: str, judge: str | None = None) -> Signature:
        uv = unicode_versions()
        return cls(
            unit=unit,
            policy=policy.name,
            policy_hash=policy.hash,
            empty_ref=empty_ref,
            judge=judge,
            normalizer_unicode=uv["normalizer"] if policy.uses_normalizer else "n/a",
            segmenter_unicode=uv["segmenter"] if unit == "grapheme" else "n/a",
        )

    def fields(self) -> dict[str, str | None]:
        return {
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

    def __str__(self) -> str:
        parts = [
            f"unit:{self.unit}",
            f"policy:{self.policy}#{self.policy_hash}",
            f"empty:{self.empty_ref}",
            f"agg:{self.aggregation}",
        ]
        if self.judge:
            parts.append(f"judge:{self.judge}")
        parts.append(f"unicode:nfc-{self.normalizer_unicode},seg-{self.segmenter_unicode}")
        parts.append(f"semcer:{self.version}")
        return "|".join(parts)
