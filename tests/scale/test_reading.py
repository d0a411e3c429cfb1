"""Two JSON Lines files read a chunk at a time by byte position (semcer.scale.reading).

The expected pairs come from reading each file whole with ``json.loads`` line by line, not from the
code under test."""

from __future__ import annotations

import json
import os
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semcer.errors import InputError
from semcer.scale.reading import jsonl_source

texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=0, max_size=12)


def _write(path, records, newline="\n", tail=""):
    with open(path, "w", encoding="utf-8", newline="") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=bool(len(r["text"]) % 2)) + newline)
        fh.write(tail)


def _expected(refs, hyps):
    """(id, ref text, hyp text) of every line pair, by json.loads of each line."""
    out = []
    with open(refs, encoding="utf-8", newline="") as rf, open(hyps, encoding="utf-8", newline="") as hf:
        for a, b in zip(rf, hf):
            if not a.strip():
                continue
            ra, rb = json.loads(a), json.loads(b)
            out.append((ra["id"], ra["text"], rb["text"]))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ref_texts=st.lists(texts, min_size=1, max_size=70), size=st.integers(1, 40), crlf=st.booleans(),
       tail=st.sampled_from(["", "\n", "\n\n"]))
def test_chunks_read_by_position_are_the_lines_of_the_files(tmp_path, ref_texts, size, crlf, tail):
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    _write(refs, [{"id": f"l{i}", "text": t} for i, t in enumerate(ref_texts)], "\r\n" if crlf else "\n", tail)
    _write(hyps, [{"id": f"l{i}", "text": t[::-1] + "x"} for i, t in enumerate(ref_texts)], "\n", tail)
    source = jsonl_source(str(refs), str(hyps), formats=(None,), lang=None)
    assert source is not None and len(source) == len(ref_texts)
    chunks = list(source.chunks(size))
    assert [len(c) for c in chunks] == [min(size, len(ref_texts) - s) for s in range(0, len(ref_texts), size)]
    got = [(p.id, p.ref, p.hyp) for c in chunks for p in pickle.loads(pickle.dumps(c)).pairs()]
    assert got == _expected(refs, hyps)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 80), data=st.data())
def test_pairs_near_gives_each_wanted_line_once_in_file_order(tmp_path, n, data):
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    _write(refs, [{"id": f"l{i}", "text": f"r{i}"} for i in range(n)])
    _write(hyps, [{"id": f"l{i}", "text": f"h{i}"} for i in range(n)])
    source = jsonl_source(str(refs), str(hyps), formats=(None,), lang=None)
    ks = data.draw(st.lists(st.integers(0, n - 1), max_size=10))
    spread = data.draw(st.integers(0, 20))
    want = sorted({i for k in ks for i in range(k, min(k + spread + 1, n))})
    assert [p.id for p in source.pairs_near(ks, spread)] == [f"l{i}" for i in want]
    assert [p.hyp for p in source.pairs_near(ks, spread)] == [f"h{i}" for i in want]


def _source(tmp_path, n=40):
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    _write(refs, [{"id": f"l{i}", "text": f"ref {i}"} for i in range(n)])
    _write(hyps, [{"id": f"l{i}", "text": f"hyp {i}"} for i in range(n)])
    return refs, hyps, jsonl_source(str(refs), str(hyps), formats=(None,), lang=None)


@pytest.mark.parametrize("change", ["append", "rewrite", "shorten", "remove"])
def test_a_file_changed_after_the_check_is_an_error_not_other_lines(tmp_path, change):
    _, hyps, source = _source(tmp_path)
    chunk = list(source.chunks(16))[1]
    if change == "append":
        with open(hyps, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"id": "l99", "text": "more"}) + "\n")
    elif change == "rewrite":  # same size, other text: caught by the modification time
        data = hyps.read_bytes().replace(b"hyp 20", b"HYP 20")
        hyps.write_bytes(data)
        os.utime(hyps, ns=(1, 1))
    elif change == "shorten":
        hyps.write_bytes(hyps.read_bytes()[:200])
    else:
        hyps.unlink()
    with pytest.raises(InputError, match="changed while being scored"):
        chunk.pairs()


def test_a_loaded_chunk_carries_its_lines_and_reads_no_file(tmp_path):
    refs, hyps, source = _source(tmp_path)
    chunk = list(source.chunks(16))[2]
    loaded = pickle.loads(pickle.dumps(chunk.loaded()))
    refs.unlink()
    hyps.unlink()
    assert [(p.id, p.ref, p.hyp) for p in loaded.pairs()] == [(f"l{i}", f"ref {i}", f"hyp {i}") for i in range(32, 40)]
    with pytest.raises(InputError, match="changed while being scored"):
        chunk.pairs()


def test_a_chunk_pickles_small_whatever_its_lines(tmp_path):
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    _write(refs, [{"id": f"l{i}", "text": "x" * 5000} for i in range(100)])
    _write(hyps, [{"id": f"l{i}", "text": "y" * 5000} for i in range(100)])
    source = jsonl_source(str(refs), str(hyps), formats=(None,), lang=None)
    (chunk,) = source.chunks(100)
    assert len(pickle.dumps(chunk)) < 1_000  # positions, not 1 MB of text
    assert len(pickle.dumps(chunk.loaded())) > 1_000_000


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("flaw", ["none", "duplicate id", "malformed", "blank inside", "other order", "one longer",
                                  "doc disagrees", "nul", "not a language tag"])
def test_the_check_pass_refuses_what_the_whole_reader_must_explain(tmp_path, monkeypatch, workers, flaw):
    """Any flaw anywhere (here in the last of four parts checked by two processes) gives None, so the
    caller reads the files whole and its messages and pairing rules apply."""
    from semcer.scale import reading

    monkeypatch.setattr(reading, "PARALLEL_CHECK_LINES", 10)
    monkeypatch.setattr(reading, "_CHECK_PART", 50)
    n = 200
    refs = [{"id": f"l{i}", "text": f"ref {i}", "doc": f"d{i // 10}"} for i in range(n)]
    hyps = [{"id": f"l{i}", "text": f"hyp {i}"} for i in range(n)]
    if flaw == "duplicate id":
        refs[190]["id"] = hyps[190]["id"] = "l3"
    elif flaw == "other order":
        hyps[190], hyps[191] = hyps[191], hyps[190]
    elif flaw == "one longer":
        hyps.append({"id": "l200", "text": "more"})
    elif flaw == "doc disagrees":
        hyps[195]["doc"] = "elsewhere"
    elif flaw == "not a language tag":
        hyps[195]["lang"] = "xx-!!"
    _write(tmp_path / "r.jsonl", refs)
    _write(tmp_path / "h.jsonl", hyps)
    if flaw in ("malformed", "blank inside", "nul"):
        lines = (tmp_path / "h.jsonl").read_bytes().split(b"\n")
        bad = {"malformed": b'{"id": "l185", "text": ', "blank inside": b"  ", "nul": b'{"id": "l185", "text": "\x00"}'}
        lines[185] = bad[flaw]
        (tmp_path / "h.jsonl").write_bytes(b"\n".join(lines))
    got = jsonl_source(str(tmp_path / "r.jsonl"), str(tmp_path / "h.jsonl"), formats=(None,), lang=None, workers=workers)
    if flaw == "none":
        assert got is not None and len(got) == n
        assert [p.id for c in got.chunks(64) for p in c.pairs()] == [f"l{i}" for i in range(n)]
    else:
        assert got is None


def test_ids_are_compared_as_strings_not_as_their_look(tmp_path, monkeypatch):
    """Ids are hashed from their UTF-8 bytes: a precomposed and a decomposed "é" are two ids (the
    whole-file reader thinks so too), and the same id twice, in different parts, is a duplicate."""
    from semcer.scale import reading

    for ids, distinct in ((["é", "e\u0301", "a"], True), (["é", "a", "b", "é"], False)):
        rows = [{"id": i, "text": "x"} for i in ids]
        _write(tmp_path / "r.jsonl", rows)
        _write(tmp_path / "h.jsonl", rows)
        monkeypatch.setattr(reading, "_CHECK_PART", 2)
        got = jsonl_source(str(tmp_path / "r.jsonl"), str(tmp_path / "h.jsonl"), formats=(None,), lang=None)
        assert (got is not None) is distinct


def test_a_pair_too_long_to_align_is_refused_by_the_check_pass(tmp_path, monkeypatch):
    """Before any chunk is aligned or judged (the chunks would meet it only when they got there)."""
    from semcer.alignment import engine
    from semcer.scale import reading
    from semcer.text.policy import get_policy

    workers = 1  # the limit is lowered in this process only
    monkeypatch.setattr(engine, "MAX_ALIGN_CELLS", 100)
    monkeypatch.setattr(reading, "PARALLEL_CHECK_LINES", 10)
    monkeypatch.setattr(reading, "_CHECK_PART", 50)
    refs = [{"id": f"l{i}", "text": f"ref {i}"} for i in range(200)]
    hyps = [{"id": f"l{i}", "text": f"hyp {i}"} for i in range(200)]
    refs[170]["text"], hyps[170]["text"] = "e\u0301" * 11, "y" * 10  # 22 code points, 11 graphemes: 110 > 100
    refs[120]["text"], hyps[120]["text"] = "e\u0301" * 6, "y" * 10  # 12 code points × 10 = 120, but 6 graphemes: 60
    _write(tmp_path / "r.jsonl", refs)
    _write(tmp_path / "h.jsonl", hyps)
    with pytest.raises(InputError) as info:
        jsonl_source(str(tmp_path / "r.jsonl"), str(tmp_path / "h.jsonl"), formats=(None,), lang=None,
                     workers=workers, sizes=(get_policy("nfc"), "grapheme"))
    assert str(info.value).startswith("line 'l170': 11 reference graphemes against 10 output graphemes is beyond")
    assert jsonl_source(str(tmp_path / "r.jsonl"), str(tmp_path / "h.jsonl"), formats=(None,), lang=None,
                        workers=workers) is not None  # without sizes the source is read as before


def test_a_pair_that_the_policy_lengthens_past_the_limit_is_refused_by_the_check_pass(tmp_path, monkeypatch):
    """U+FDFA is one code point and 18 under NFKC: 1 × 10 code points, 18 × 10 = 180 units > 100."""
    from semcer.alignment import engine
    from semcer.text.policy import get_policy

    monkeypatch.setattr(engine, "MAX_ALIGN_CELLS", 100)
    refs = [{"id": f"l{i}", "text": f"ref {i}"} for i in range(20)]
    hyps = [{"id": f"l{i}", "text": f"hyp {i}"} for i in range(20)]
    refs[7]["text"], hyps[7]["text"] = "\ufdfa", "y" * 10
    _write(tmp_path / "r.jsonl", refs)
    _write(tmp_path / "h.jsonl", hyps)
    args = (str(tmp_path / "r.jsonl"), str(tmp_path / "h.jsonl"))
    with pytest.raises(InputError, match=r"^line 'l7': 18 reference codepoints against 10 output codepoints"):
        jsonl_source(*args, formats=(None,), lang=None, sizes=(get_policy("nfkc"), "codepoint"))
    assert jsonl_source(*args, formats=(None,), lang=None, sizes=(get_policy("nfc"), "codepoint")) is not None


def test_the_check_pass_of_two_workers_refuses_a_pair_of_a_million_graphemes_a_side(tmp_path, monkeypatch):
    from semcer.scale import reading
    from semcer.text.policy import get_policy

    monkeypatch.setattr(reading, "PARALLEL_CHECK_LINES", 10)
    monkeypatch.setattr(reading, "_CHECK_PART", 50)
    refs = [{"id": f"l{i}", "text": f"ref {i}"} for i in range(120)]
    hyps = [{"id": f"l{i}", "text": f"hyp {i}"} for i in range(120)]
    refs[99]["text"], hyps[99]["text"] = "ab " * 400_001, "xy " * 400_001
    _write(tmp_path / "r.jsonl", refs)
    _write(tmp_path / "h.jsonl", hyps)
    with pytest.raises(InputError, match="line 'l99': 1,200,003 reference graphemes against 1,200,003 output"):
        jsonl_source(str(tmp_path / "r.jsonl"), str(tmp_path / "h.jsonl"), formats=(None,), lang=None, workers=2,
                     sizes=(get_policy("nfc"), "grapheme"))
