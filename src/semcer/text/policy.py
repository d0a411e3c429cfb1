"""Text policies: named, frozen, serialisable sequences of steps applied to both sides before alignment.

A policy never learns anything from data and never modifies its input: it returns new strings.
Policies are named presets (``semcer policies`` lists them) or ad-hoc compositions of step names
joined by ``+`` (e.g. ``nfkc+casefold+collapse-ws``). A policy's hash covers its steps and their
order, so two results are comparable only when the hashes match.
"""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import regex

from semcer.errors import PolicyError
from semcer.text.markup import strip_markdown
from semcer.text.segmenter import CLUSTER

_WS_RUN = regex.compile(r"\s+")
_WS = regex.compile(r"\s")
_NOT_KEPT = regex.compile(r"[^\p{L}\p{M}\p{N}\s]+")
_PUNCT = regex.compile(r"\p{P}+")
_NONSPACING = regex.compile(r"\p{Mn}+")

def _nfc(s: str) -> str:
    return s if unicodedata.is_normalized("NFC", s) else unicodedata.normalize("NFC", s)

def _nfkc(s: str) -> str:
    return s if unicodedata.is_normalized("NFKC", s) else unicodedata.normalize("NFKC", s)

def _strip_marks(s: str) -> str:
    if s.isascii():
        return s
    return unicodedata.normalize("NFC", _NONSPACING.sub("", unicodedata.normalize("NFD", s)))

def _collapse_ws(s: str) -> str:
    return _WS_RUN.sub(" ", s).strip(" ")

def _remove_ws(s: str) -> str:
    return _WS_RUN.sub("", s)

# dinglehopper 0.11's substitutions (``extracted_text.substitute_equivalences``, which it applies to every text
# it reads from a file, after NFC): its ligatures first (``unjoin_ligatures``), then its equivalences, each a
# plain str.replace, in its order. MUFI/eMOP private-use ligatures included, exactly as it lists them.
_DH_LIGATURES: tuple[tuple[str, str], ...] = (
    ("\ueba6", "\u017f\u017f"), ("\ueba7", "\u017f\u017fi"), ("\uf502", "ch"), ("\ueec4", "ck"), ("\uf4f9", "ll"),
    ("\ueba2", "\u017fi"), ("\ueada", "\u017ft"), ("\ufb01", "fi"), ("\ufb00", "ff"), ("\ufb02", "fl"), ("\ufb03", "ffi"),
    ("\ueec5", "ct"), ("\ueedc", "tz"), ("\uf532", "as"), ("\uf533", "is"), ("\uf534", "us"), ("\uf535", "Qu"),
    ("\u0133", "ij"), ("\ue8bf", "q&"), ("\ueba5", "\u017fp"), ("\ufb06", "st"),
)
_DH_EQUIVALENCES: tuple[tuple[str, str], ...] = (
    ("\ue72b", "\u00fc"), ("\ue42c", "\u00e4"), ("==", "\u2013"), ("\u2014", "\u2013"), ("\ue644", "\u00f6"),
    ("\u2019", "'"), ("\u2e17", "-"), ("a\u0364", "\u00e4"), ("o\u0364", "\u00f6"), ("u\u0364", "\u00fc"),
    ("\uf50e", "q\u0301"),
)
# Every replaced string ends with one of these (the combining small e of aͤ, not the a).
_DH_TRIGGER = regex.compile("[" + "".join(sorted({old[-1] for old, _ in _DH_LIGATURES + _DH_EQUIVALENCES})) + "]")


def _dinglehopper_subst(s: str) -> str:
    if not _DH_TRIGGER.search(s):  # the usual line: nothing to replace
        return s
    for old, new in _DH_LIGATURES + _DH_EQUIVALENCES:
        s = s.replace(old, new)
    return s


#: Every step: name -> (function, one-line description, works cluster by cluster?)
STEPS: dict[str, tuple[Callable[[str], str], str, bool]] = {
    "nfc": (_nfc, "Unicode canonical composition (NFC); changes no visible character", True),
    "nfkc": (_nfkc, "Unicode compatibility composition (NFKC): full-width → half-width, ligatures split, ²→2", True),
    "trim": (str.strip, "remove whitespace at both ends", False),
    "collapse-ws": (_collapse_ws, "trim, and turn every run of whitespace into one space", False),
    "remove-ws": (_remove_ws, "remove all whitespace (Unicode White_Space)", True),
    "filter": (lambda s: _NOT_KEPT.sub("", s), "keep only letters (L), marks (M), numbers (N) and whitespace", True),
    "casefold": (str.casefold, "Unicode case folding (ß → ss, Σ → σ)", True),
    "lower": (str.lower, "lower-case (Unicode default case mapping)", True),
    "remove-punct": (lambda s: _PUNCT.sub("", s), "remove punctuation (Unicode category P); symbols (S) are kept", True),
    "strip-marks": (_strip_marks, "remove non-spacing marks after NFD, then NFC (ấ → a; đ stays đ)", True),
    "dinglehopper-subst": (_dinglehopper_subst, "dinglehopper 0.11's substitutions (after its NFC): ligatures split "
                           "(ﬁ → fi, MUFI ligatures), — and == → –, ’ → ', ⸗ → -, aͤ oͤ uͤ → ä ö ü, MUFI ü ä ö", True),
    "strip-markdown": (strip_markdown, "remove Markdown and HTML markup, keep what it marks up (headings, emphasis, "
                       "code, links, lists, quotes, tables, LaTeX delimiters, tags; semcer.text.markup)", False),
}

#: How many times longer, in code points, a step can make a text: a code point's full decomposition
#: (NFD) is at most 4 long and its compatibility one (NFKD) 18 (U+FDFA), and composing only
#: shortens; case folding a code point gives at most 3 (U+0390), lowering 2 (U+0130), and
#: dinglehopper's longest ligature is 3. A step not named here never lengthens a text.
#: (tests/test_policy_growth.py checks each against every code point.)
_GROWTH: dict[str, int] = {"nfc": 4, "nfkc": 18, "strip-marks": 4, "casefold": 3, "lower": 2, "dinglehopper-subst": 3}

#: Presets: name -> (steps, description). `raw` and `nfc` keep exactly these names.
PRESETS: dict[str, tuple[tuple[str, ...], str]] = {
    "raw": ((), "nothing changed: the strings exactly as read"),
    "jiwer": (("trim",), "what jiwer.cer computes (its default transform strips each line): whitespace removed at both "
              "ends; use it with --unit codepoint to reproduce jiwer's numbers exactly"),
    "nfc": (("nfc",), "default: canonical composition only (NFC), which changes no visible character"),
    "no-space": (("remove-ws",), "paper convention 2, 'whitespace stripped': all whitespace removed"),
    "alnum": (("remove-ws", "filter"),
              "paper convention 3, 'character filter': whitespace removed, only letters, marks and numbers kept"),
    "normalized": (("nfkc", "remove-ws", "filter", "casefold", "nfkc"),
                   "paper convention 4, 'normalized': NFKC, whitespace removed, character filter, case folded, NFKC again "
                   "(removing a space or folding case can leave text unnormalized, e.g. ´ → space + combining acute)"),
    "casefold": (("nfkc", "remove-ws", "casefold", "nfkc"),
                 "paper convention 5, 'case-folded, punctuation kept': NFKC, whitespace removed, case folded, NFKC again"),
    "dinglehopper": (("nfc", "dinglehopper-subst"),
                     "what dinglehopper 0.11 does to text it reads from files: NFC, then its substitutions (ligatures "
                     "split, dashes, apostrophes, MUFI umlauts); with --unit grapheme and its extraction "
                     "(dialect 'dinglehopper') its page CER is reproduced exactly"),
    "markdown": (("strip-markdown", "nfc"),
                 "a VLM's Markdown page against a plain reference: Markdown and HTML markup removed, then NFC"),
}

DEFAULT_POLICY = "nfc"

@dataclass(frozen=True)
class TextPolicy:
    """A named, frozen sequence of steps. ``policy(text)`` returns the transformed text."""

    name: str
    steps: tuple[str, ...]

    def __post_init__(self) -> None:
        unknown = [s for s in self.steps if s not in STEPS]
        if unknown:
            raise PolicyError(
                f"unknown policy step {unknown[0]!r}; steps are: {', '.join(STEPS)}"
            )

    @cached_property
    def _functions(self) -> tuple[Callable[[str], str], ...]:
        return tuple(STEPS[s][0] for s in self.steps)

    def __call__(self, text: str) -> str:
        for fn in self._functions:
            text = fn(text)
        return text

    @cached_property
    def hash(self) -> str:
        """Short hash of the definition (the steps in order), printed in signatures."""
        return hashlib.sha256(json.dumps(list(self.steps)).encode()).hexdigest()[:8]

    def to_dict(self) -> dict:
        return {"name": self.name, "steps": list(self.steps), "hash": self.hash}

    @property
    def uses_normalizer(self) -> bool:
        """Whether a Unicode normalization form is applied (its Unicode version then matters)."""
        return any(s in ("nfc", "nfkc", "strip-marks") for s in self.steps)

    @cached_property
    def max_growth(self) -> int:
        """How many times longer, in code points, the policy can make a text (1 when it never lengthens one)."""
        return math.prod(_GROWTH.get(s, 1) for s in self.steps)

    @property
    def is_identity(self) -> bool:
        return not self.steps

    def offset_map(self, text: str) -> list[tuple[int, int]] | None:
        """For each code point of ``self(text)``, the code-point span in ``text`` it comes from.

        Built by applying cluster-local steps to each grapheme cluster of ``text`` and the
        whitespace steps across clusters; returns ``None`` (offsets unavailable for this line)
        when the result does not equal ``self(text)``, e.g. when a step changes text across
        cluster boundaries.
        """
        pieces: list[tuple[str, int, int]] = []
        pos = 0
        for cl in CLUSTER.findall(text):
            pieces.append((cl, pos, pos + len(cl)))
            pos += len(cl)
        for step in self.steps:
            fn, _, local = STEPS[step]
            if local:
                pieces = [(fn(t), a, b) for t, a, b in pieces]
                pieces = [p for p in pieces if p[0]]
            else:
                pieces = _whitespace_pieces(pieces, collapse=(step == "collapse-ws"))
        spans = [(a, b) for t, a, b in pieces for _ in t]
        if "".join(t for t, _, _ in pieces) != self(text):
            return None
        return spans

def _whitespace_pieces(pieces: list[tuple[str, int, int]], collapse: bool) -> list[tuple[str, int, int]]:
    is_ws = [bool(t) and t.isspace() for t, _, _ in pieces]
    lo, hi = 0, len(pieces)
    while lo < hi and is_ws[lo]:
        lo += 1
    while hi > lo and is_ws[hi - 1]:
        hi -= 1
    if not collapse:
        return pieces[lo:hi]
    out: list[tuple[str, int, int]] = []
    for i in range(lo, hi):
        t, a, b = pieces[i]
        if is_ws[i]:
            if out and out[-1][0] == " " and is_ws[i - 1]:
                out[-1] = (" ", out[-1][1], b)
            else:
                out.append((" ", a, b))
        else:
            out.append((_WS_RUN.sub(" ", t), a, b))
    return out

def get_policy(spec: str | TextPolicy | None = None) -> TextPolicy:
    """A preset by name, or a '+' composition of steps and presets such as ``"nfkc+casefold"``.

    A preset inside a composition stands for its steps, in place: ``"strip-markdown+dinglehopper"``
    is ``strip-markdown``, ``nfc``, ``dinglehopper-subst``. A name that is both a step and a preset
    (``casefold``, ``nfc``) is the step there; alone it is the preset, as before.
    """
    if isinstance(spec, TextPolicy):
        return spec
    if spec is None:
        spec = DEFAULT_POLICY
    if not isinstance(spec, str):
        kind = ("a jiwer transform" if type(spec).__module__.startswith("jiwer")
                else "a function" if callable(spec) else f"a {type(spec).__name__}")
        raise PolicyError(
            f"policy is {kind}: semcer's text policies are declared, frozen and hashed into the signature, so "
            f"they are named: a preset ({', '.join(PRESETS)}) or steps joined by '+' ({', '.join(STEPS)}); "
            "jiwer.cer's default transform is the preset 'jiwer' (with unit='codepoint')"
        )
    if spec in PRESETS:
        return TextPolicy(spec, PRESETS[spec][0])
    parts = tuple(spec.split("+"))
    loose = next((s for s in parts if not s or s != s.strip()), None)
    if loose is not None:
        raise PolicyError(
            f"policy {spec!r}: " + ("an empty part" if not loose.strip() else f"spaces around {loose.strip()!r}")
            + "; name a preset, or steps and presets joined by '+' with nothing else (e.g. nfkc+casefold)"
        )
    bad = next((s for s in parts if s not in STEPS and s not in PRESETS), None)
    if bad is not None:
        raise PolicyError(
            f"unknown policy {bad!r}: use a preset ({', '.join(PRESETS)}) "
            f"or steps and presets joined by '+' ({', '.join(STEPS)})"
        )
    return TextPolicy(spec, tuple(step for part in parts for step in _expand(part)))

def _expand(part: str) -> tuple[str, ...]:
    """One part of a '+' composition: a step, or a preset's steps (a name that is both stays the step)."""
    return (part,) if part in STEPS else PRESETS[part][0]
