"""`--policy jiwer --unit codepoint` reproduces jiwer.cer exactly, whitespace at the line ends included
(issue 11: `raw` was documented as what jiwer computes, but jiwer strips each line)."""

from __future__ import annotations

import jiwer
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import semcer

texts = st.text(alphabet=st.sampled_from(list("ab c\t\n\u00a0é\u3000x")), min_size=0, max_size=25)


@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=8))
@settings(max_examples=400, deadline=None)
def test_jiwer_preset_equals_jiwer_cer(pairs):
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    assume(all(r.strip() for r in refs))  # jiwer refuses empty references
    want = jiwer.cer(refs, hyps)
    assert semcer.cer(refs, hyps, unit="codepoint", policy="jiwer") == pytest.approx(want, abs=1e-15)
    for r, h in pairs:
        assert semcer.cer(r, h, unit="codepoint", policy="jiwer") == pytest.approx(jiwer.cer(r, h), abs=1e-15)


def test_raw_differs_from_jiwer_where_lines_have_outer_whitespace():
    ref, hyp = "abc", "abc "
    assert jiwer.cer(ref, hyp) == 0.0
    assert semcer.cer(ref, hyp, unit="codepoint", policy="raw") == pytest.approx(1 / 3)
    assert semcer.cer(ref, hyp, unit="codepoint", policy="jiwer") == 0.0


def test_a_function_or_jiwer_transform_as_policy_is_a_clear_error():
    with pytest.raises(semcer.PolicyError, match=r"policy is a function.*preset 'jiwer'"):
        semcer.evaluate(["a"], ["b"], policy=str.lower)
    with pytest.raises(semcer.PolicyError, match="policy is a jiwer transform"):
        semcer.evaluate(["a"], ["b"], policy=jiwer.Strip())
