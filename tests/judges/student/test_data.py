"""The student's data (semcer.judges.student.data): content hash, seeded split by line, the marked
spans as tokens, batching, the missing-extra message."""

from __future__ import annotations

import importlib.util

import pytest
from student_fixtures import MAX_LENGTH, needs_hf

from semcer.errors import JudgeError
from semcer.judges.student import require_hf
from semcer.judges.student.data import StudentRow, data_hash, encode_pair, length_sorted_batches, split_rows, token_range


def test_data_hash_ignores_order_and_sees_labels(student_rows):
    assert data_hash(student_rows) == data_hash(list(reversed(student_rows)))
    changed = [StudentRow(student_rows[0].marked_ref, student_rows[0].marked_hyp, (1.0, 0, 0, 0, 0)), *student_rows[1:]]
    assert data_hash(changed) != data_hash(student_rows)


def test_split_by_line_is_seeded_and_keeps_lines_whole(student_rows):
    train, val, unit = split_rows(student_rows, 0.2, seed=3)
    assert unit == "line" and len(train) + len(val) == len(student_rows) and val
    assert not {r.line_id for r in train} & {r.line_id for r in val}
    assert split_rows(student_rows, 0.2, seed=3)[1] == val
    assert split_rows(student_rows, 0.2, seed=4)[1] != val
    no_lines = [StudentRow(r.marked_ref, r.marked_hyp, r.p) for r in student_rows]
    train, val, unit = split_rows(no_lines, 0.1, seed=0)
    assert unit == "edit" and len(val) == 20
    assert split_rows(list(reversed(no_lines)), 0.1, seed=0)[1] == val[::-1]  # order-free


def test_token_range_uses_overlap_and_skips_special_tokens():
    # BOS (0, 0), then "Ġ⟦x" straddling the mark, then "⟧".
    offsets = [(0, 0), (0, 2), (2, 5), (5, 6), (6, 8)]
    assert token_range(offsets, (4, 5)) == (2, 3)
    assert token_range(offsets, (0, 1)) == (1, 2)
    with pytest.raises(ValueError):
        token_range(offsets, (9, 10))


def test_length_sorted_batches_cover_every_index_once():
    lengths = [5, 1, 9, 9, 3, 7, 2]
    batches = length_sorted_batches(lengths, 3)
    assert sorted(i for b in batches for i in b) == list(range(7))
    assert [lengths[i] for b in batches for i in b] == sorted(lengths, reverse=True)


def test_missing_torch_names_the_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(JudgeError, match=r'pip install "semcer\[hf\]"'):
        require_hf()


@needs_hf
def test_spans_are_the_tokens_between_the_marks(student_tokenizer):
    enc = encode_pair(student_tokenizer, "ab ⟦x⟧ cd", "ab ⟦⟧ cd", MAX_LENGTH)
    tokens = student_tokenizer.convert_ids_to_tokens(list(enc.input_ids))
    ref_open = tokens.index("⟦")
    assert enc.ref_span == (ref_open + 1, ref_open + 2) and tokens[ref_open + 1] == "x"
    # Empty output span (a deletion): the two marks stand for it.
    hyp_open = tokens.index("⟦", ref_open + 1)
    assert enc.hyp_span == (hyp_open, hyp_open + 2) and tokens[hyp_open + 1] == "⟧"
    # A multi-byte grapheme spans several byte tokens; the span takes all of them.
    enc = encode_pair(student_tokenizer, "Hà ⟦Nội⟧", "Hà ⟦Nộ⟧", MAX_LENGTH)
    assert student_tokenizer.decode(list(enc.input_ids[slice(*enc.ref_span)])) == "Nội"
    assert student_tokenizer.decode(list(enc.input_ids[slice(*enc.hyp_span)])) == "Nộ"


@needs_hf
def test_long_pairs_are_cut_around_the_marks(student_tokenizer):
    ref = "chữ " * 300 + "⟦a⟧" + " dòng" * 300
    hyp = "chữ " * 300 + "⟦b⟧" + " dòng" * 300
    enc = encode_pair(student_tokenizer, ref, hyp, 64)
    assert enc.truncated and len(enc.input_ids) <= 64
    assert student_tokenizer.decode(list(enc.input_ids[slice(*enc.ref_span)])) == "a"
    assert student_tokenizer.decode(list(enc.input_ids[slice(*enc.hyp_span)])) == "b"
    assert not encode_pair(student_tokenizer, "a⟦b⟧", "a⟦c⟧", 64).truncated
