"""Batched segmentation into id strings: the clusters are regex's \\X clusters, and two clusters
get the same id character exactly when they are the same cluster."""

import numpy as np
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import semcer
from semcer.text import cluster_ids as cid_mod
from semcer.text.cluster_ids import RESERVED, Clusters, cluster_ids
from semcer.text.scan import JOINS, SLOW_SEGMENT, scan
from semcer.text.segmenter import fast_splitter

pytestmark = pytest.mark.skipif(fast_splitter() is None, reason="ugrapheme unusable with this regex")

ALPHABET = (
    "\u0915\u0937\u0930\u0924\u094d\u093c\u093f\u0940\u0905"  # Devanagari consonants, virama, nukta, vowel signs
    "\u0995\u09cd\u09b7\u09be\u0e01\u0e48\u0e38\u0e33"  # Bengali, Thai
    "ae\u0301\u0323\u0302\u200d\u200c\u1100\u1161\u11a8\uac00"  # Latin marks, ZWJ/ZWNJ, Hangul jamo
    "\U0001f1e6\U0001f1e9\U0001f600\U0001f3fd\u2764\ufe0f\r\n \x00"  # flags, emoji, CR LF, NUL
)
texts_st = st.lists(st.text(st.sampled_from(ALPHABET), max_size=14), min_size=1, max_size=8)


def usable(texts):
    """The strings the caller hands to cluster_ids: no SLOW_SEGMENT code point."""
    return [t for t, f in zip(texts, scan(texts).tolist()) if not f & SLOW_SEGMENT]


@settings(max_examples=800, deadline=None)
@given(texts_st)
def test_id_strings_are_the_regex_clusters(texts):
    texts = usable(texts)
    ids, names = cluster_ids(texts)
    assert len(ids) == len(texts)
    pairs = []
    for t, s in zip(texts, ids):
        expected = regex.findall(r"\X", t)
        assert list(Clusters(s, names)) == expected, ascii(t)
        assert len(s) == len(expected)
        pairs += zip(s, expected)
    by_id, by_cluster = {}, {}
    for c, cluster in pairs:  # one id per cluster and one cluster per id, across the whole batch
        assert by_id.setdefault(c, cluster) == cluster
        assert by_cluster.setdefault(cluster, c) == c
        assert (len(cluster) == 1 and c == cluster) or (len(cluster) > 1 and RESERVED[0] <= ord(c) < RESERVED[1])


def test_long_clusters_and_names():
    long_a = "a" + "\u0301\u0323" * 30  # 61 code points, over the interned-by-text limit
    long_b = "a" + "\u0301\u0323" * 29 + "\u0302"
    mid = "e" + "\u0301" * 9  # interned two code points at a time
    texts = [long_a + "x" + long_b, mid + long_a, "\u0915\u094d\u0937" + mid]
    ids, names = cluster_ids(texts)
    clusters = [list(Clusters(s, names)) for s in ids]
    assert clusters == [regex.findall(r"\X", t) for t in texts]
    assert ids[0][0] == ids[1][1] != ids[0][2]  # the same long cluster twice, a different one
    assert ids[1][0] == ids[2][1]
    _, no_names = cluster_ids(texts, names=False)
    assert no_names == {}


def test_colliding_keys_get_distinct_ids():
    keys = np.arange(1, 200_000, dtype=np.uint64) << np.uint64(21)
    slots = (keys * cid_mod._MUL) >> cid_mod._SHIFT
    values, counts = np.unique(slots, return_counts=True)
    k1, k2, k3 = keys[slots == values[np.argmax(counts >= 3)]][:3]  # three keys hashed to one slot
    state = cid_mod._Ids()
    got = state.intern(np.array([k1, k2, k1, k2, k2], dtype=np.uint64)).tolist()
    assert got[0] == got[2] and got[1] == got[3] == got[4] and got[0] != got[1]
    assert max(got) >= 1 << cid_mod._HASH_BITS  # the loser took a sequential id
    later = state.intern(np.array([k3, k3], dtype=np.uint64)).tolist()  # a later pass
    assert later[0] == later[1] and later[0] not in got


def test_more_clusters_than_ids_falls_back(monkeypatch):
    monkeypatch.setattr(cid_mod, "_HASH_BITS", 3)
    monkeypatch.setattr(cid_mod, "_SHIFT", np.uint64(64 - 3))
    monkeypatch.setattr(cid_mod, "_BITS", 4)  # 16 ids in all
    texts = ["".join(chr(0x61 + k) + chr(0x300 + m) for m in range(5)) for k in range(6)]  # 30 distinct clusters
    assert cluster_ids(texts) is None
    refs, hyps = texts, texts[1:] + texts[:1]
    ev = semcer.evaluate(refs, hyps, edits=True, policy="raw")  # segmented one by one instead, same answer
    for line, r, h in zip(ev.lines, refs, hyps):
        assert list(line.alignment.ref_units) == regex.findall(r"\X", r)
        assert line.stats.edits == sum(1 for a, b in zip(regex.findall(r"\X", r), regex.findall(r"\X", h)) if a != b)


def test_reserved_code_points_in_the_text_go_to_regex():
    odd = "\U00040001"  # unassigned, inside the id range
    flags = scan(["a\u0301" + odd, odd]).tolist()
    assert all(f & SLOW_SEGMENT for f in flags) and flags[0] & JOINS
    ids, _names = cluster_ids(["e\u0301", "o\u0302"])
    ev = semcer.evaluate(["e\u0301" + odd, "xy"], [odd + "e\u0301", "x" + ids[0]], edits=True)
    assert [e.op for e in ev.lines[0].edits] == ["I", "D"]  # not mistaken for an id
    assert [(e.op, e.ref_unit, e.hyp_unit) for e in ev.lines[1].edits] == [("S", "y", ids[0])]


def test_clusters_sequence():
    ids, names = cluster_ids(["ne\u0301e", ""])
    c = Clusters(ids[0], names)
    assert len(c) == 3 and c[1] == "e\u0301" and c[-1] == "e" and c[0:2] == ["n", "e\u0301"]
    assert list(c) == ["n", "e\u0301", "e"] and c == ["n", "e\u0301", "e"] and "e\u0301" in c
    assert "".join(c) == "ne\u0301e" and repr(c) == "Clusters(['n', 'e\u0301', 'e'])"
    assert Clusters(ids[1], names) == [] and ids[1] == ""
    with pytest.raises(IndexError):
        c[3]
