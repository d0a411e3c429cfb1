"""Pairing references with outputs by id (semcer.io.pairing): reference order, doc and lang from
either side, unmatched ids, and scale."""

from __future__ import annotations

import pytest
from helpers import EXAMPLES, jsonl, write

from semcer.alignment.engine import Pair
from semcer.errors import InputError
from semcer.io.collections import Collection, Item, read_collection
from semcer.io.pairing import pair_collections


def memory(*items: Item, path: str = "mem") -> Collection:
    return Collection(items=tuple(items), path=path, format="memory")


def test_directory_pairs_by_relative_path(tmp_path):
    for side, texts in (("ref", ["a b", "c d", "top"]), ("hyp", ["a 6", "c d", "t0p"])):
        write(tmp_path / side / "b1" / "p1.txt", texts[0] + "\n")
        write(tmp_path / side / "b1" / "p2.txt", texts[1] + "\n")
        write(tmp_path / side / "loose.txt", texts[2] + "\n")
    paired = pair_collections(read_collection(tmp_path / "ref"), read_collection(tmp_path / "hyp"))
    assert paired.pairs == (
        Pair("b1/p1", "a b", "a 6", "b1", None),
        Pair("b1/p2", "c d", "c d", "b1", None),
        Pair("loose", "top", "t0p", "loose", None),
    )


def test_pairing_in_reference_order_with_doc_and_lang(tmp_path):
    refs = write(tmp_path / "r.jsonl", jsonl(
        {"id": "a", "text": "110-2", "doc": "d1", "lang": "en"},
        {"id": "b", "text": "Tiếng", "lang": "vi"},
        {"id": "c", "text": "中文"},
    ))
    hyps = write(tmp_path / "h.jsonl", jsonl(
        {"id": "c", "text": "中又", "doc": "d9", "lang": "zh_CN"},
        {"id": "a", "text": "11O-2"},
        {"id": "b", "text": "Tieng", "lang": "vi"},
    ))
    paired = pair_collections(read_collection(refs), read_collection(hyps))
    assert paired.pairs == (
        Pair("a", "110-2", "11O-2", "d1", "en"),
        Pair("b", "Tiếng", "Tieng", "b", "vi"),
        Pair("c", "中文", "中又", "d9", "zh-CN"),  # a locale's spelling read as BCP 47 writes the tag (RFC 5646)
    )
    assert paired.dropped_refs == () and paired.dropped_hyps == ()


def test_unmatched_error_lists_counts_ids_and_drop_option():
    refs = memory(*(Item(f"r{i}", "x") for i in range(8)), Item("both", "y"), path="refs.jsonl")
    hyps = memory(Item("both", "y"), Item("h1", "z"), path="hyps.jsonl")
    with pytest.raises(InputError) as info:
        pair_collections(refs, hyps)
    msg = str(info.value)
    assert "refs.jsonl" in msg and "hyps.jsonl" in msg
    assert "8 reference id(s)" in msg and "'r0'" in msg and "'r4'" in msg and "'r7'" not in msg
    assert "1 output id(s)" in msg and "'h1'" in msg
    assert "--unmatched drop" in msg
    assert "\n" not in msg


def test_unmatched_drop_records_ids():
    refs = memory(Item("a", "x"), Item("b", "y"), Item("c", "z"))
    hyps = memory(Item("x1", ""), Item("c", "z"), Item("a", "x!"))
    paired = pair_collections(refs, hyps, unmatched="drop")
    assert [p.id for p in paired.pairs] == ["a", "c"]
    assert paired.dropped_refs == ("b",) and paired.dropped_hyps == ("x1",)


def test_unmatched_hint_for_line_aligned_text(tmp_path):
    refs = read_collection(EXAMPLES / "references.jsonl")
    hyps = read_collection(write(tmp_path / "h.txt", "x\ny\n"))
    with pytest.raises(InputError, match="line numbers"):
        pair_collections(refs, hyps)


def test_nothing_left_after_drop():
    with pytest.raises(InputError, match="no id appears in both"):
        pair_collections(memory(Item("a", "x")), memory(Item("b", "x")), unmatched="drop")


@pytest.mark.parametrize("key", ["doc", "lang"])
def test_doc_or_lang_disagreement_names_the_id(tmp_path, key):
    refs = write(tmp_path / "r.jsonl",
                 jsonl({"id": "a", "text": "x"}, {"id": "k7", "text": "x", key: "one"}))
    hyps = write(tmp_path / "h.jsonl",
                 jsonl({"id": "k7", "text": "x", key: "two"}, {"id": "a", "text": "x"}))
    with pytest.raises(InputError) as info:
        pair_collections(read_collection(refs), read_collection(hyps))
    msg = str(info.value)
    assert msg.startswith(f"{refs}:2: id 'k7' has {key} 'one'")
    assert "'two'" in msg and f"{hyps}:1" in msg


def test_pairing_rejects_unknown_mode_and_duplicate_memory_ids():
    c = memory(Item("a", "x"))
    with pytest.raises(InputError, match="unmatched"):
        pair_collections(c, c, unmatched="ignore")
    dup = memory(Item("a", "x", source="m:1"), Item("a", "y", source="m:2"))
    with pytest.raises(InputError, match="m:2: duplicate id 'a'"):
        pair_collections(dup, c)
    same = Item("a", "x")
    with pytest.raises(InputError, match="duplicate id 'a'"):
        pair_collections(c, memory(same, same))


def test_text_against_text_pairs_by_line(tmp_path):
    refs = read_collection(write(tmp_path / "r.txt", "a\n\nc\n"))
    hyps = read_collection(write(tmp_path / "h.txt", "a\r\nb\r\nc"))
    assert [(p.id, p.ref, p.hyp, p.doc) for p in pair_collections(refs, hyps).pairs] == [
        ("1", "a", "a", "1"), ("2", "", "b", "2"), ("3", "c", "c", "3")]


def test_100k_lines(tmp_path):
    """Scale, not speed (speed is measured in bench/): 100k lines read and pair completely."""
    n = 100_000
    p = write(tmp_path / "big.jsonl", "".join(
        f'{{"id": "x{i}", "text": "Tiếng Việt {i}", "doc": "d{i // 100}", "lang": "vi"}}\n'
        for i in range(n)))
    c = read_collection(p)
    paired = pair_collections(c, c)
    assert len(paired.pairs) == n and paired.pairs[-1].doc == f"d{(n - 1) // 100}"
