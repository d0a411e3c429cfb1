"""The store's packed marked pairs (semcer.store.packing, issue 11): the layout on bytes written by
hand, round trips, every damage refused or harmless, and a damaged compressed row in a store reported
and judged again, never used."""

from __future__ import annotations

import random
import sqlite3
import zlib

import pytest
from helpers import P_STORED, RecordingJudge, dump, p_of
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.alignment.context import EditContext
from semcer.judges.base import FixedJudge
from semcer.store import packing
from semcer.store.cached import judge_cached
from semcer.store.packing import DEFLATE, RAW, pack_pair, unpack_pair
from semcer.store.sqlite import STORED, JudgedEditStore


def test_a_short_pair_is_stored_as_is_by_hand():
    # "a⟦b⟧": a (1 byte), ⟦ (E2 9F A6), b, ⟧ (E2 9F A7): 8 bytes; "a⟦⟧": 7 bytes. DEFLATE of 15 bytes
    # is no shorter, so: codec 0, varints 8 and 7, then the bytes.
    assert pack_pair("a⟦b⟧", "a⟦⟧") == b"\x00\x08\x07a\xe2\x9f\xa6b\xe2\x9f\xa7a\xe2\x9f\xa6\xe2\x9f\xa7"
    assert unpack_pair(b"\x00\x08\x07a\xe2\x9f\xa6b\xe2\x9f\xa7a\xe2\x9f\xa6\xe2\x9f\xa7") == ("a⟦b⟧", "a⟦⟧")


def test_a_long_pair_is_raw_deflate_after_its_lengths():
    ref = "Der Zug nach Berlin fährt um 12:30 Uhr ab, " * 4 + "⟦x⟧" + " und kommt um 14 Uhr an." * 4
    hyp = ref.replace("⟦x⟧", "⟦y⟧").replace("Berlin", "Bcrlin")
    value = pack_pair(ref, hyp)
    n_ref, n_hyp = len(ref.encode()), len(hyp.encode())
    # 4 x 44 bytes (43 characters, ä is two bytes) + 7 (⟦x⟧) + 4 x 24 = 279 = 0b10_0010111: LEB128 0x97 0x02
    assert n_ref == 279 and n_hyp == 279
    assert value[:5] == bytes([DEFLATE, 0x97, 0x02, 0x97, 0x02])
    assert zlib.decompress(value[5:], -15) == ref.encode() + hyp.encode()  # zlib's own inflate, raw stream
    assert len(value) < 0.25 * (n_ref + n_hyp)  # the output side is found in the reference side
    assert unpack_pair(value) == (ref, hyp)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_round_trip(ref, hyp):
    try:
        value = pack_pair(ref, hyp)
    except UnicodeEncodeError:  # lone surrogates: a store never holds them (its keys are UTF-8 too)
        return
    assert value[0] in (RAW, DEFLATE) and unpack_pair(value) == (ref, hyp)
    assert len(value) <= len(ref.encode()) + len(hyp.encode()) + 11


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="abcdeé⟦⟧ 12ấक\u093f", min_size=40, max_size=200), st.data())
def test_damage_is_refused_or_harmless(text, data):
    """Any cut, any changed byte, any byte added: a ValueError saying why, or a pair (which the store
    then compares with the row's key); never another exception, never more than the lengths say."""
    value = pack_pair(text, text[::-1])
    at = data.draw(st.integers(0, len(value) - 1))
    damaged = [value[:at], value + bytes([data.draw(st.integers(0, 255))]),
               value[:at] + bytes([value[at] ^ data.draw(st.integers(1, 255))]) + value[at + 1 :]]
    for bad in damaged:
        try:
            ref, hyp = unpack_pair(bad)
        except ValueError as exc:
            assert str(exc)
        else:
            assert isinstance(ref, str) and isinstance(hyp, str)


def test_forged_lengths_cannot_make_a_row_inflate_without_bound():
    with pytest.raises(ValueError, match="longer than a store value"):
        unpack_pair(bytes([DEFLATE]) + b"\xff\xff\xff\xff\x0f" + b"\x00" + zlib.compress(b"a" * 10, 6, -15))
    bomb = zlib.compress(b"\x00" * 10_000_000, 9, -15)  # 10 MB from 10 kB, declared as 100 bytes
    with pytest.raises(ValueError, match="damaged"):
        unpack_pair(bytes([DEFLATE, 50, 50]) + bomb)
    with pytest.raises(ValueError, match="codec"):
        unpack_pair(b"\x05\x00\x00")
    with pytest.raises(ValueError, match="not a packed pair"):
        unpack_pair("a⟦b⟧")
    with pytest.raises(ValueError, match="not UTF-8"):
        unpack_pair(b"\x00\x01\x00\xff")


def _long_context(i: int) -> EditContext:
    """An edit of a long line, so that its pair is stored compressed."""
    ref = f"line {i}: " + "das ist ein langer Satz mit vielen Wörtern, " * 4
    hyp = ref.replace("langer", "lange")
    mr, mh = ref.replace("langer", "lange⟦r⟧", 1), hyp.replace("lange", "lange⟦⟧", 1)
    return EditContext("de", "D", "r", "", ref.index("langer") + 5, hyp.index("lange") + 5, ref, hyp, mr, mh)


def test_a_damaged_compressed_row_is_reported_and_judged_again(tmp_path):
    ctxs = [_long_context(i) for i in range(40)]
    path = tmp_path / "s.sqlite"
    with JudgedEditStore(path) as store:
        judge_cached(RecordingJudge(), ctxs, store)
    pair_at = STORED.index("pair")
    rows = dump(path)
    assert all(r[pair_at][0] == DEFLATE for r in rows)
    rng = random.Random(7)
    with sqlite3.connect(path) as conn:
        for r in rows:
            blob = bytearray(r[pair_at])
            at = rng.randrange(3, len(blob))  # a byte of the compressed stream
            blob[at] ^= 1 << rng.randrange(8)
            conn.execute("UPDATE judged_edits SET pair = ? WHERE key = ?", (bytes(blob), r[0]))
    conn.close()
    with JudgedEditStore(path) as store:
        report = store.check()
        assert report.rows == 40 and len(report.corrupt) >= 30  # a flip in the last byte's padding can be harmless
        assert all("marked pair" in why or "key does not match" in why for why in report.corrupt.values())
        found = store.get_many([store.key(RecordingJudge.identity, c) for c in ctxs])
        assert sorted(found.corrupt) == sorted(report.corrupt) and len(found) == 40 - len(report.corrupt)
        judge = RecordingJudge()
        results, stats = judge_cached(judge, ctxs, store)
        assert stats.corrupt == len(report.corrupt) and stats.judged == len(report.corrupt)
        assert [r.p for r in results] == [p_of(c) for c in ctxs]  # what the judge says, not the damaged rows
        assert store.check().corrupt == {}  # and the new judgements replaced them
        assert {(r["marked_ref"], r["marked_hyp"]) for r in store.rows()} == {(c.marked_ref, c.marked_hyp) for c in ctxs}


def test_a_page_store_is_a_fraction_of_its_windows(tmp_path):
    """Windows of 100 graphemes each side around edits 20 graphemes apart: each stored pair is packed."""
    rng = random.Random(3)
    words = ["Rechnung", "Betrag", "zahlbar", "innerhalb", "Tagen", "Konto", "Empfänger", "Überweisung"]
    ref = " ".join(rng.choice(words) for _ in range(2500))
    hyp = "".join("#" if k % 20 == 7 else c for k, c in enumerate(ref))
    judge = FixedJudge(p=(0.2, 0.2, 0.2, 0.2, 0.2), name="flat")
    ev = semcer.evaluate([ref], [hyp], judge=judge, store=tmp_path / "s.sqlite", edits=True)
    assert ev.judged is not None and len(ev.judged) > 100
    rows = dump(tmp_path / "s.sqlite")
    text_bytes = sum(len(j.context.marked_ref.encode()) + len(j.context.marked_hyp.encode()) for j in ev.judged)
    packed = sum(len(r[STORED.index("pair")]) for r in rows)
    assert len(rows) == len({j.context.content_key() for j in ev.judged})
    # the output side is found in the reference side: a pair takes less than its reference side alone
    assert packed < 0.5 * text_bytes, packed / text_bytes
    assert all(r[P_STORED] == (0.2,) * 5 for r in rows)


def _c_packer():
    return pytest.importorskip("semcer.store._packing_speedups").pack_pair


def _zlib_value(ref: str, hyp: str) -> bytes:
    """The value as the module documentation lays it out, built here from zlib.compress (a new
    compressor for each value) and the varints written out by hand."""
    def varint(n: int) -> bytes:
        out = b""
        while n > 0x7F:
            out += bytes([n & 0x7F | 0x80])
            n >>= 7
        return out + bytes([n])

    r, h = ref.encode(), hyp.encode()
    head = varint(len(r)) + varint(len(h))
    packed = zlib.compress(r + h, 6, -15)
    return bytes([DEFLATE]) + head + packed if len(packed) < len(r + h) else bytes([RAW]) + head + r + h


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=600),
       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=600))
def test_the_c_packer_gives_zlib_compress_bytes(ref, hyp):
    """The C packer reuses one compressor (reset between values): its bytes are those of a new
    compressor per value, and of the Python packer, value after value in any order."""
    pack = _c_packer()
    assert pack(ref, hyp) == _zlib_value(ref, hyp) == packing._python_pack_pair(ref, hyp)
    long = (ref + hyp) * 3  # then a longer one through the same compressor, and a short one again
    assert pack(long, ref + long) == _zlib_value(long, ref + long)
    assert pack(hyp, ref) == _zlib_value(hyp, ref)


def test_the_c_packer_on_pages_and_bad_input():
    pack = _c_packer()
    words = "Rechnung Betrag zahlbar innerhalb Tagen Konto Empfänger Überweisung ".split()
    rng = random.Random(5)
    page = " ".join(rng.choice(words) for _ in range(40_000))  # 400 kB: a window past 32 KiB and deflateBound
    for ref, hyp in ((page, page.replace("Konto", "K0nto")), ("", ""), ("", page[:5000]), ("x", "")):
        assert pack(ref, hyp) == _zlib_value(ref, hyp)
        assert unpack_pair(pack(ref, hyp)) == (ref, hyp)
    with pytest.raises(UnicodeEncodeError):  # as str.encode says it: a lone surrogate is not UTF-8
        pack("a\ud800", "b")
    with pytest.raises(TypeError):
        pack(b"a", "b")
    with pytest.raises(TypeError):
        pack("a")
    assert pack("a⟦b⟧", "a⟦⟧") == b"\x00\x08\x07a\xe2\x9f\xa6b\xe2\x9f\xa7a\xe2\x9f\xa6\xe2\x9f\xa7"


def test_pack_pair_takes_the_python_packer_when_asked(monkeypatch):
    monkeypatch.setenv("SEMCER_PURE_PYTHON", "1")
    packing._fast_pack.cache_clear()
    try:
        assert packing._fast_pack() is None
        assert pack_pair("a⟦b⟧" * 50, "a⟦⟧" * 50) == _zlib_value("a⟦b⟧" * 50, "a⟦⟧" * 50)
    finally:
        monkeypatch.delenv("SEMCER_PURE_PYTHON")
        packing._fast_pack.cache_clear()
