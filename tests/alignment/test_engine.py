"""The line engine: the batched evaluation equals a plain line-by-line oracle, and the C loop
(semcer.alignment._speedups) and the Python loop give identical results, line for line."""

import numpy as np
import pytest
import regex
from helpers import TRICKY
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

import semcer
from semcer.alignment import engine
from semcer.errors import EmptyReferenceError
from semcer.text.policy import get_policy

try:
    from semcer.alignment import _speedups
except ImportError:  # pragma: no cover - CI checks that the extension is built
    _speedups = None

needs_c = pytest.mark.skipif(_speedups is None, reason="semcer.alignment._speedups was not built (no C compiler?)")


# ---- the batched evaluation against a line-by-line oracle ---------------------------------

tricky_text = st.text(st.sampled_from(TRICKY) | st.characters(blacklist_categories=("Cs",)), max_size=12)


def oracle(ref, hyp, unit, policy):
    pol = get_policy(policy)
    r, h = pol(ref), pol(hyp)
    ru = list(r) if unit == "codepoint" else regex.findall(r"\X", r)
    hu = list(h) if unit == "codepoint" else regex.findall(r"\X", h)
    return [(("S" if t == "replace" else "D" if t == "delete" else "I"), i, j)
            for t, i, j in Levenshtein.editops(ru, hu).as_list()], len(ru)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(tricky_text.filter(bool), tricky_text), min_size=1, max_size=8),
       st.sampled_from(["grapheme", "codepoint"]), st.sampled_from(["nfc", "raw", "casefold"]))
def test_batched_evaluation_equals_line_by_line_oracle(pairs, unit, policy):
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    pol = get_policy(policy)
    if any(not pol(r) for r in refs):
        return
    ev = semcer.evaluate(refs, hyps, unit=unit, policy=policy, edits=True)
    for line, (r, h) in zip(ev.lines, pairs):
        ops, n = oracle(r, h, unit, policy)
        assert [(e.op, e.ref_pos, e.hyp_pos) for e in line.edits] == ops
        assert line.stats.units == n
        al = line.alignment
        assert all(e.ref_unit == (al.ref_units[e.ref_pos] if e.op != "I" else "") for e in line.edits)
        assert all(e.hyp_unit == (al.hyp_units[e.hyp_pos] if e.op != "D" else "") for e in line.edits)
    assert ev.corpus.units == sum(oracle(r, h, unit, policy)[1] for r, h in pairs)


def test_batched_evaluation_on_the_example_corpus(example_pairs):
    refs = [r["text"] for r in example_pairs[0]]
    hyps = [h["text"] for h in example_pairs[2]]
    ev = semcer.evaluate(refs, hyps, edits=True)
    for line, r, h in zip(ev.lines, refs, hyps):
        ops, n = oracle(r, h, "grapheme", "nfc")
        assert [(e.op, e.ref_pos, e.hyp_pos) for e in line.edits] == ops and line.stats.units == n
    assert np.isclose(ev.corpus.cer, sum(len(oracle(r, h, "grapheme", "nfc")[0]) for r, h in zip(refs, hyps))
                      / sum(oracle(r, h, "grapheme", "nfc")[1] for r, h in zip(refs, hyps)))


# ---- the C loop against the Python loop ------------------------------------------------------

TEXT = st.text(
    st.sampled_from("ab \u00e9e\u0301\u0915\u094d\u0937\u093f\u0e01\u0e48\u200d\U0001f600\U0001f3fd\U0001f1e6\r\n\U00040001")
    | st.characters(blacklist_categories=("Cs",)),
    max_size=10,
)


def run(loop, monkeypatch, *args, **kwargs):
    fast = engine._fast_lines() if loop == "C" else None
    monkeypatch.setattr(engine, "_fast_lines", lambda: fast)
    try:
        return semcer.evaluate(*args, **kwargs)
    finally:
        monkeypatch.undo()


def snapshot(ev):
    out = [ev.corpus, ev.document_mean_cer, ev.skipped_empty]
    for line in ev.lines:
        al = line.alignment
        out.append((line.id, line.doc, line.stats, line.edits,
                    None if al is None else (al.ref, al.hyp, list(al.ref_units), list(al.hyp_units), al.edits, al.stats)))
    return out


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=10),
       st.sampled_from(["grapheme", "codepoint"]), st.sampled_from(["nfc", "raw", "casefold"]),
       st.sampled_from(["skip", "insertions"]), st.booleans())
def test_c_and_python_loops_agree(pairs, unit, policy, empty_ref, edits):
    mp = pytest.MonkeyPatch()
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    args = {"unit": unit, "policy": policy, "empty_ref": empty_ref, "edits": edits}
    try:
        c = run("C", mp, refs, hyps, **args)
    except semcer.SemcerError as e:  # every reference skipped: both must say so
        with pytest.raises(type(e)):
            run("Python", mp, refs, hyps, **args)
        return
    assert snapshot(c) == snapshot(run("Python", mp, refs, hyps, **args))


@needs_c
def test_example_corpus_agrees(example_pairs, monkeypatch):
    refs = [r["text"] for r in example_pairs[0]] * 3
    hyps = [h["text"] for h in example_pairs[2]] + [h["text"] for h in example_pairs[1]] + [r["text"] for r in example_pairs[0]]
    for edits in (True, False):
        c = run("C", monkeypatch, refs, hyps, edits=edits)
        p = run("Python", monkeypatch, refs, hyps, edits=edits)
        assert snapshot(c) == snapshot(p)
        assert c.corpus.edits > 0 and c.corpus.units == p.corpus.units


@needs_c
def test_empty_reference_in_the_middle(monkeypatch):
    refs, hyps = ["abc", "", "de\u0301", " ", "x"], ["abd", "zz", "de", "", "x"]
    with pytest.raises(EmptyReferenceError, match="line '2'"):
        run("C", monkeypatch, refs, hyps)
    with pytest.raises(EmptyReferenceError, match="line '2'"):
        run("Python", monkeypatch, refs, hyps)
    for policy in ("skip", "insertions"):
        c = run("C", monkeypatch, refs, hyps, empty_ref=policy, edits=True, policy="no-space")
        p = run("Python", monkeypatch, refs, hyps, empty_ref=policy, edits=True, policy="no-space")
        assert snapshot(c) == snapshot(p)
    c = run("C", monkeypatch, refs, hyps, empty_ref="insertions", edits=True)
    assert [line.stats.insertions for line in c.lines] == [0, 2, 0, 0, 0] and c.lines[1].stats.cer is None


def test_pure_python_switch(monkeypatch):
    monkeypatch.setenv("SEMCER_PURE_PYTHON", "1")
    engine._fast_lines.cache_clear()
    try:
        assert engine._fast_lines() is None
        assert semcer.evaluate(["110-2"], ["11O-2"]).corpus.cer == pytest.approx(0.2)
    finally:
        monkeypatch.delenv("SEMCER_PURE_PYTHON")
        engine._fast_lines.cache_clear()
    assert (engine._fast_lines() is None) == (_speedups is None)


@needs_c
def test_bad_arguments_are_errors_not_crashes():
    lines = engine._fast_lines()
    with pytest.raises(ValueError):
        lines([("1", "a", "b", "1", None)], ["a"], ["a", "b"], {}, True, 0, [])
    with pytest.raises(TypeError):
        lines([("1", "a")], ["a", "b"], ["a", "b"], {}, True, 0, [])
