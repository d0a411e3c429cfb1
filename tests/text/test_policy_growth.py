"""TextPolicy.max_growth bounds how much longer a policy makes a text (the check pass relies on it
to find a line pair too long to align before any chunk is aligned)."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.text.policy import STEPS, TextPolicy, get_policy

_SURROGATES = range(0xD800, 0xE000)


def _every_code_point() -> str:
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if c not in _SURROGATES)


def _step(name: str) -> TextPolicy:
    return TextPolicy(name, (name,))


def test_no_step_lengthens_one_code_point_beyond_its_bound():
    text = _every_code_point()
    for name, (fn, _, _) in STEPS.items():
        bound = _step(name).max_growth
        longest = max(len(fn(c)) for c in text)
        assert longest <= bound, name


def test_the_bounds_are_the_known_maxima():
    """By hand from the Unicode data: U+FDFA decomposes (NFKD) into 18 code points, U+0390 folds to 3,
    U+0130 lowers to 2; an NFD decomposition is at most 4 long (U+1F82 and others)."""
    assert _step("nfkc").max_growth == 18 and len(STEPS["nfkc"][0]("\ufdfa")) == 18
    assert _step("casefold").max_growth == 3 and len("\u0390".casefold()) == 3
    assert _step("lower").max_growth == 2 and len("\u0130".lower()) == 2
    assert get_policy("raw").max_growth == 1 and get_policy("alnum").max_growth == 1
    assert get_policy("normalized").max_growth == 18 * 3 * 18


_PIECES = list("*_`#>|-[]()!<>&;/\\$ \nabfiﬁΣß\u0390\u0130\ufdfa\u0301e") + ["&amp;", "<br>", "**", "$$", "&lt;"]
_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=60) | st.lists(
    st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=4))
def test_a_policy_lengthens_a_text_at_most_by_its_bound(text, steps):
    pol = TextPolicy("+".join(steps), tuple(steps))
    assert len(pol(text)) <= pol.max_growth * len(text)
