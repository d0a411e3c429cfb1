"""The ugrapheme gap table: outside it, ugrapheme segments exactly as regex's \\X.

``semcer.text.tables.ugrapheme_gaps`` (tools/gen_ugrapheme_gaps.py) lists the code points whose grapheme-cluster
behaviour may differ between ``ugrapheme.grapheme_split`` and ``regex``'s ``\\X``. The tool finds
them one code point at a time; these tests look for differences that no single code point shows
(rule-level ones), on random and exhaustive short strings over representatives of every class and
on real text.
"""

import importlib.util
import itertools
import json
import random

import pytest
import regex
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from semcer.text.tables import ugrapheme_gaps as gaps
from semcer.text.units import unicode_versions

ugrapheme = pytest.importorskip("ugrapheme")

CLUSTER = regex.compile(r"\X")
GAP = frozenset(chr(c) for a, b in gaps.RANGES for c in range(a, b + 1))


def _installed() -> dict:
    import importlib.metadata

    return {
        "regex": regex.__version__,
        "regex Unicode": unicode_versions()["segmenter"],
        "ugrapheme": importlib.metadata.version("ugrapheme"),
    }


def _table() -> dict:
    """The table's releases, with the installed regex's when the table names it among its own."""
    regex_version = regex.__version__ if regex.__version__ in gaps.REGEX_VERSIONS else gaps.REGEX_VERSIONS
    return {"regex": regex_version, "regex Unicode": gaps.REGEX_UNICODE, "ugrapheme": gaps.UGRAPHEME_VERSION}


@pytest.fixture(scope="module")
def same_versions():
    """Behaviour tests hold only for the releases the table was generated from."""
    if _installed() != _table():
        pytest.skip(
            f"the gap table is for {_table()}, installed is {_installed()}: "
            "regenerate it with `python tools/gen_ugrapheme_gaps.py`"
        )


def agree_outside_gaps(text: str) -> bool:
    """False only if ``text`` has no gap code point and the two libraries segment it differently."""
    return not GAP.isdisjoint(text) or ugrapheme.grapheme_split(text) == CLUSTER.findall(text)


# --- the table itself ---------------------------------------------------------------------------


def test_ranges_sorted_disjoint_merged_in_range():
    assert gaps.RANGES, "an empty table means the libraries agree everywhere; check the tool"
    prev_end = -2
    for a, b in gaps.RANGES:
        assert 0 <= a <= b <= 0x10FFFF
        assert a > prev_end + 1  # sorted, disjoint, and adjacent ranges merged
        assert b < 0xD800 or a > 0xDFFF  # no surrogates
        prev_end = b


def test_table_keys_match_installed_versions():
    if _installed() != _table():
        pytest.skip(
            f"the gap table is for {_table()}, installed is {_installed()}; semcer must not use it "
            "with these releases (regenerate with `python tools/gen_ugrapheme_gaps.py`)"
        )
    assert regex.__version__ in gaps.REGEX_VERSIONS


# Differences checked by hand (regex 2026.11.19, Unicode 18.0; ugrapheme 0.8, Unicode 16.0):
# (text, regex's clusters, ugrapheme's clusters, the gap code point responsible)
KNOWN = [
    # U+05C8 HEBREW mark, new after 16.0: Extend for regex, unknown (Other) to ugrapheme
    ("a\u05c8", ["a\u05c8"], ["a", "\u05c8"], 0x05C8),
    # U+0897 ARABIC PEPET (16.0): Extend for regex; ugrapheme 0.8 lacks it in its Extend table
    ("a\u0897", ["a\u0897"], ["a", "\u0897"], 0x0897),
    # GB9c, Unicode 18.0 rule: a linker no longer needs a consonant before it
    ("a\u094d\u0915", ["a\u094d\u0915"], ["a\u094d", "\u0915"], 0x094D),
    ("\u25cc\u094d\u0915", ["\u25cc\u094d\u0915"], ["\u25cc\u094d", "\u0915"], 0x094D),
    # U+1039 MYANMAR SIGN VIRAMA: InCB=Linker for regex, InCB=Extend for ugrapheme
    ("\u0915\u1039\u0915", ["\u0915\u1039\u0915"], ["\u0915\u1039", "\u0915"], 0x1039),
    # U+1CF5 VEDIC SIGN JIHVAMULIYA: GCB=Other but InCB=Linker in 18.0
    ("\u1cf5\u0995", ["\u1cf5\u0995"], ["\u1cf5", "\u0995"], 0x1CF5),
    # U+2388 HELM SYMBOL, U+2605 BLACK STAR, U+1F000 MAHJONG TILE EAST WIND: Extended_Pictographic
    # for ugrapheme, not for regex, so GB11 joins them after ZWJ only in ugrapheme
    ("\u2388\u200d\U0001f600", ["\u2388\u200d", "\U0001f600"], ["\u2388\u200d\U0001f600"], 0x2388),
    ("\U0001f600\u200d\u2605", ["\U0001f600\u200d", "\u2605"], ["\U0001f600\u200d\u2605"], 0x2605),
    ("\U0001f000\u200d\U0001f600", ["\U0001f000\u200d", "\U0001f600"], ["\U0001f000\u200d\U0001f600"], 0x1F000),
    # U+0CC0 KANNADA VOWEL SIGN II: Extend for regex (GB11 chain goes on), SpacingMark for ugrapheme
    ("\U0001f600\u0cc0\u200d\U0001f600", ["\U0001f600\u0cc0\u200d\U0001f600"],
     ["\U0001f600\u0cc0\u200d", "\U0001f600"], 0x0CC0),
    # U+11A3A ZANABAZAR SQUARE CLUSTER-INITIAL LETTER RA: Prepend for ugrapheme, Other for regex
    ("\U00011a3aa", ["\U00011a3a", "a"], ["\U00011a3aa"], 0x11A3A),
    # U+16D63 KIRAT RAI VOWEL SIGN AA: GCB=V for regex (V x V), Other for ugrapheme
    ("\U00016d63\U00016d63", ["\U00016d63\U00016d63"], ["\U00016d63", "\U00016d63"], 0x16D63),
]


@pytest.mark.parametrize("text, by_regex, by_ugrapheme, cp", KNOWN, ids=[f"U+{k[3]:04X}" for k in KNOWN])
def test_known_differences_are_in_table(same_versions, text, by_regex, by_ugrapheme, cp):
    assert CLUSTER.findall(text) == by_regex
    assert ugrapheme.grapheme_split(text) == by_ugrapheme
    assert chr(cp) in GAP


def test_every_linker_is_a_gap(same_versions):
    """GB9c differs at rule level (Unicode 18.0 vs 16.0): every InCB=Linker must be in the table."""
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    linkers = {ord(c) for c in regex.findall(r"\p{InCB=Linker}", every)}
    assert linkers <= set(gaps.GB9C_LINKERS)
    assert all(chr(c) in GAP for c in gaps.GB9C_LINKERS)


def test_common_conjuncts_still_agree():
    """The GB9c change does not touch the usual consonant + virama + consonant conjunct."""
    for text in ("\u0915\u094d\u0937\u093f", "\u0995\u09cd\u09b7", "\u0915\u094d\u200d\u0937"):
        assert CLUSTER.findall(text) == ugrapheme.grapheme_split(text)


# --- rule-level search --------------------------------------------------------------------------

# Representatives of every Grapheme_Cluster_Break class, Indic_Conjunct_Break value and
# Extended_Pictographic (a few of them gaps: the linkers).
POOL = (
    "\r", "\n", "\x00", "\x1f", "\x7f", "\u00ad", "\u200b", "\u2028", "\ufeff",  # CR, LF, Control
    "\u0300", "\u0301", "\u200c", "\ufe0f", "\U000e0020", "\u0941", "\u0bcd", "\u0f71",  # Extend
    "\u093c", "\u09bc",  # nuktas (Extend, InCB=Extend)
    "\U0001f3fb", "\U0001f3ff",  # emoji modifiers (Extend)
    "\u200d",  # ZWJ
    "\U0001f1e6", "\U0001f1e7",  # Regional_Indicator
    "\u0600", "\u0d4e", "\U000110bd",  # Prepend
    "\u0903", "\u093e", "\u0e33", "\u17b6",  # SpacingMark
    "\u1100", "\ua960", "\u1161", "\ud7b0", "\u11a8", "\ud7cb", "\uac00", "\uac01",  # L V T LV LVT
    "\U0001f600", "\u00a9", "\u2764", "\u2640", "\U0001f466", "\U0001f468", "\U0001f004", "\U0001fc00",  # ExtPict
    "\u0915", "\u0937", "\u0995", "\u0a95", "\u0b15", "\u0c15", "\u0d15", "\u1000", "\u1780",  # InCB=Consonant
    "\u094d", "\u09cd", "\u0c4d", "\u1039",  # viramas, InCB=Linker (gaps)
    "a", "1", " ", "\u4e00", "\u0627", "\u0e01", "\u0f40", "\u25cc", "\u0905",  # Other
)
ANY = st.characters(exclude_categories=("Cs",))


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(POOL) | ANY, max_size=12).map("".join))
def test_random_strings_agree_outside_gaps(same_versions, text):
    assert agree_outside_gaps(text), (
        f"{text!r}: regex {CLUSTER.findall(text)!r} != ugrapheme {ugrapheme.grapheme_split(text)!r}"
    )


def _check_batched(texts):
    """Check many strings at once: joined with U+001F (a Control: a break on both sides in both
    libraries), then split again; a batch that differs is checked one string at a time."""
    texts = [t for t in texts if GAP.isdisjoint(t)]
    for i in range(0, len(texts), 20000):
        chunk = texts[i : i + 20000]
        batch = "\x1f".join(chunk)
        r, u = CLUSTER.findall(batch), ugrapheme.grapheme_split(batch)
        if r == u and r.count("\x1f") == batch.count("\x1f"):
            continue
        bad = [t for t in chunk if not agree_outside_gaps(t)]
        assert not bad, [(t, CLUSTER.findall(t), ugrapheme.grapheme_split(t)) for t in bad[:5]]


def test_all_pool_strings_up_to_three_agree_outside_gaps(same_versions):
    pool = [c for c in POOL if c not in GAP]
    _check_batched(["".join(p) for n in (1, 2, 3) for p in itertools.product(pool, repeat=n)])


def test_many_seeded_pool_strings_agree_outside_gaps(same_versions):
    """Longer strings than the exhaustive test, more of them than Hypothesis can draw in time."""
    rng = random.Random(29)
    pool = [c for c in POOL if c not in GAP]
    _check_batched(["".join(rng.choices(pool, k=rng.randint(4, 12))) for _ in range(60000)])


# --- real text ----------------------------------------------------------------------------------


def _lines(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line)["text"] for line in fh if line.strip()]


#: The example's text collections (render_params.jsonl beside them holds how each line was rendered, no text).
EXAMPLE_TEXTS = [p for p in sorted((ROOT / "examples").glob("*.jsonl")) if p.name != "render_params.jsonl"]


@pytest.mark.parametrize("path", EXAMPLE_TEXTS, ids=lambda p: p.name)
def test_example_lines_agree_outside_gaps(same_versions, path):
    lines = _lines(path)
    assert lines
    bad = [t for t in lines if not agree_outside_gaps(t)]
    assert not bad, bad[:5]


#: Lines of the bench corpus made for the test below (about 1.5 s to make; the bench uses 100,000).
BENCH_LINES = 10_000


@pytest.fixture(scope="module")
def bench_corpus(tmp_path_factory):
    """A bench corpus made here by bench/make_corpus.py (same generator and seed as bench/run.py's,
    so its lines are a prefix of the 100,000-line corpus): (refs path, hyps path)."""
    spec = importlib.util.spec_from_file_location("make_corpus", ROOT / "bench" / "make_corpus.py")
    make_corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_corpus)
    return make_corpus.build(BENCH_LINES, out=tmp_path_factory.mktemp("bench-corpus"))


def test_bench_lines_agree_outside_gaps(same_versions, bench_corpus):
    """Every distinct line of a bench corpus (references and hypotheses, in 13 languages and scripts)."""
    lines = sorted({t for p in bench_corpus for t in _lines(p)})
    assert len(lines) > BENCH_LINES  # the references, and the outputs that differ from them
    _check_batched(lines)
