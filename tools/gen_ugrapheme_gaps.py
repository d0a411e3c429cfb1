"""Regenerate src/semcer/text/tables/ugrapheme_gaps.py: code points where ``ugrapheme`` may not segment as ``regex``.

    python tools/gen_ugrapheme_gaps.py

semcer's grapheme clusters are those of ``regex``'s ``\\X``. ``ugrapheme`` (a C extension, about 6x
faster) may be used instead only on strings in which it provably gives the same clusters. This
tool finds, for the installed ``regex`` and ``ugrapheme``, every code point whose segmentation
behaviour may differ between the two (a "gap"); a string with no gap code point is then split the
same by both (checked beyond single code points by tests/text/test_ugrapheme_gaps.py).

Method: behaviour probing of every code point except surrogates (unassigned and private-use code
points too: it costs little and assumes nothing about either library's defaults). For a code point
c, each of the context templates below is filled with c; the templates together tell apart every
Grapheme_Cluster_Break class (CR, LF, Control, Extend, ZWJ, Regional_Indicator, Prepend,
SpacingMark, L, V, T, LV, LVT, Other), every Indic_Conjunct_Break value (Consonant, Linker, Extend,
None) and Extended_Pictographic, through UAX #29 rules GB3-GB13 (GB9c and GB11 included). c is a
gap if ``regex.findall(r"\\X", s) != ugrapheme.grapheme_split(s)`` for any of its probes s.

Speed: probes are joined into one string per batch with U+001F (a Control other than CR and LF)
between them; UAX #29 breaks on both sides of a Control (GB4, GB5) and nothing looks back across
one (GB9c, GB11 and GB12/13 need an unbroken run of Extend/Linker/ZWJ/RI/consonant/pictographic
code points), so each probe is segmented in a batch exactly as alone. The tool checks this: every
separator must come out as a cluster of its own from both libraries (else that batch is probed
one string at a time), and a sample of batches is compared probe by probe with the probes
segmented alone. A batch whose two results differ is bisected down to single code points, whose
probes are then run alone. ``ugrapheme`` has separate code paths for 1-, 2- and 4-byte strings, so
probes are batched by their own storage width (a probe's width is what it would have alone).

Rule-level differences (a change in a rule rather than in a code point's properties) do not belong
to one code point. tests/text/test_ugrapheme_gaps.py looks for them (random, exhaustive short and real
strings over representatives of every class). With regex 2026.11.19 (Unicode 18.0) and ugrapheme
0.8 (Unicode 16.0) there is one: GB9c, rewritten in Unicode 18.0 so that a linker no longer needs a
consonant before it (see GB9C_RULE_PROBES). The tool detects it by behaviour and then adds every
InCB=Linker code point of either library to the gaps (without a linker GB9c never applies, under
either rule) and skips the templates whose context holds a linker. No other rule-level difference
was found (Hypothesis, all pool strings up to length 3 and 4, 2 million random strings, 185k
distinct bench lines). CR/LF (GB3-GB5) agree everywhere: no gap comes from them.
"""

from __future__ import annotations

import importlib.metadata
import os
import random
import runpy
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import regex
import ugrapheme

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
from semcer.text.scan import ranges as span_ranges  # noqa: E402
from semcer.text.units import unicode_versions  # noqa: E402

SEP = "\x1f"  # INFORMATION SEPARATOR ONE: GCB=Control in both libraries (checked per batch)

# Context representatives.
A = "a"  # Other
ACUTE = "\u0301"  # Extend, InCB=Extend
GRAVE_BELOW = "\u0316"  # Extend, InCB=Extend
ZWJ = "\u200d"  # ZWJ, InCB=Extend
ZWNJ = "\u200c"  # Extend, InCB=None
SM = "\u0903"  # SpacingMark
PREP = "\u0600"  # Prepend
CR, LF, CTRL = "\r", "\n", "\x7f"
L, V, T, LV, LVT = "\u1100", "\u1161", "\u11a8", "\uac00", "\uac01"
RI = "\U0001f1e6"
EP = "\U0001f600"  # Extended_Pictographic (astral)
EP_BMP = "\u00a9"  # Extended_Pictographic (Latin-1)
BOY, TONE = "\U0001f466", "\U0001f3fb"  # emoji, emoji modifier (Extend)
KA, VIRAMA, NUKTA = "\u0915", "\u094d", "\u093c"  # InCB Consonant, Linker, Extend (Devanagari)
BKA, BVIRAMA = "\u0995", "\u09cd"  # Bengali consonant, linker

X = "{c}"
TEMPLATES: tuple[str, ...] = (
    X, X + X, X + X + X, X + X + X + X,  # alone; GB12/GB13 parity, joins with itself
    A + X + A, A + X, X + A,  # GB9/GB9a (joins left), GB9b (joins right)
    X + ACUTE, X + ZWJ, X + ZWNJ, X + SM, X + PREP, X + ACUTE + A,  # what may follow c
    PREP + X, PREP + X + ACUTE, ACUTE + X, ZWJ + X, SM + X,  # what may precede c
    CR + X, LF + X, CTRL + X, X + CR, X + LF, X + CTRL, CR + X + LF,  # GB3-GB5
    L + X, X + L, V + X, X + V, T + X, X + T, LV + X, X + LV, LVT + X, X + LVT,  # GB6-GB8
    L + X + V, LV + X + T,
    RI + X, X + RI, RI + X + RI, RI + RI + X, X + RI + RI, X + X + RI,  # GB12/GB13
    EP + ZWJ + X, X + ZWJ + EP, EP + X + ZWJ + EP, X + ACUTE + ZWJ + EP,  # GB11
    X + ZWJ + X, EP + X, X + EP, EP + ACUTE + X + ZWJ + EP, EP + ZWJ + X + ZWJ + EP,
    EP_BMP + ZWJ + X, X + ZWJ + EP_BMP, EP_BMP + X + ZWJ + EP_BMP, BOY + X, X + TONE,
    # GB9c (those with a linker in the context are skipped when GB9c itself differs, see below)
    KA + VIRAMA + X, X + VIRAMA + KA, KA + X + KA, KA + X + VIRAMA + KA,
    KA + VIRAMA + X + KA, KA + VIRAMA + NUKTA + X, KA + NUKTA + X + KA, KA + X + X + KA,
    KA + X, X + KA, X + NUKTA + VIRAMA + KA, KA + VIRAMA + ZWJ + X, KA + X + ZWJ + VIRAMA + KA,
    BKA + BVIRAMA + X, X + BVIRAMA + BKA, BKA + X + BKA, KA + GRAVE_BELOW + X + KA,
)
PARTS = tuple(t.split(X) for t in TEMPLATES)

# Unicode 18.0 (UAX #29 revision 49) replaced GB9c, and regex 2026.11.19 implements the new rule:
#   15.1-17.0: \p{InCB=Consonant} [\p{InCB=Extend}\p{InCB=Linker}]* \p{InCB=Linker}
#              [\p{InCB=Extend}\p{InCB=Linker}]* × \p{InCB=Consonant}
#   18.0:      \p{InCB=Linker} \p{InCB=Extend}* × \p{InCB=Consonant}
# (a linker no longer needs a consonant before it). That is a rule-level difference: "a" + VIRAMA
# + KA is one cluster under 18.0 and two under 16.0, whichever code point is attributed. Both
# rules need an InCB=Linker code point, so when these probes show the difference, every linker
# of either library is a gap; no string without a gap code point then contains a linker, and
# probes whose context holds a linker say nothing about such strings (they are skipped).
GB9C_RULE_PROBES = tuple(s + VIRAMA + KA for s in ("a", "", "\u25cc", "\u0905", EP))

_CLUSTER = regex.compile(r"\X")
CHUNK = 2048  # code points per worker task
VERIFY_EVERY = 37  # about one task in so many also compares its batches with probes segmented alone

_active: tuple[list[str], ...] = PARTS  # templates in use (set in each worker)


def _width(s: str) -> int:
    m = max(map(ord, s)) if s else 0
    return 1 if m < 0x100 else 2 if m < 0x10000 else 4


def probes(cp: int, parts=None) -> list[str]:
    c = chr(cp)
    return [c.join(p) for p in (_active if parts is None else parts)]


def differs_alone(s: str) -> bool:
    return _CLUSTER.findall(s) != ugrapheme.grapheme_split(s)


def linkers() -> tuple[set[int], set[int]]:
    """InCB=Linker code points of regex (its property data) and of ugrapheme (behaviour: under the
    16.0 GB9c rule, KA + c + KA is one cluster exactly when c is a linker)."""
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    rx = {ord(c) for c in regex.findall(r"\p{InCB=Linker}", every)}
    ug = {ord(c) for c in every if len(ugrapheme.grapheme_split(KA + c + KA)) == 1}
    return rx, ug


# With a consonant right before every linker, the 15.1-17.0 and 18.0 forms of GB9c agree (18.0 only
# dropped that requirement), so a linker of both libraries is safe in that context. These probes
# put c after such a linker (as the consonant that may join, or as an InCB=Extend in between); a
# code point on which they differ is a gap even then.
CONTEXT_TEMPLATES = (
    KA + VIRAMA + X, KA + VIRAMA + X + KA, KA + VIRAMA + NUKTA + X, KA + VIRAMA + ZWJ + X,
    BKA + BVIRAMA + X, BKA + BVIRAMA + X + BKA, KA + VIRAMA + X + ACUTE,
)


def context_stage(gaps: set[int], rx: set[int], ug: set[int]) -> tuple[set[int], list[int], set[int]]:
    """(more gaps, context linkers, consonants): linkers of both libraries, code points that are an
    InCB=Consonant for both (regex's property; ugrapheme's behaviour: c + linker + KA is one
    cluster), and the code points on which CONTEXT_TEMPLATES differ."""
    every = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    text = "".join(map(chr, every))
    rx_cons = {ord(c) for c in regex.findall(r"\p{InCB=Consonant}", text)}
    both = sorted((rx & ug) - {c for c in gaps if c not in rx | ug})
    cons = {c for c in rx_cons if len(ugrapheme.grapheme_split(chr(c) + VIRAMA + KA)) == 1
            and len(_CLUSTER.findall(chr(c) + VIRAMA + KA)) == 1}
    parts = tuple(t.split(X) for t in CONTEXT_TEMPLATES)
    more = {c for c in every if c not in gaps and any(differs_alone(chr(c).join(p)) for p in parts)}
    return more, both, cons - gaps - more


def _split_batch(clusters: list[str], pieces: list[str]) -> list[list[str]] | None:
    """Per-piece cluster lists of a batch result, or None if a piece boundary falls inside a cluster."""
    out, i = [], 0
    for k, piece in enumerate(pieces):
        if k:
            if i >= len(clusters) or clusters[i] != SEP:
                return None
            i += 1
        got, n = [], 0
        while n < len(piece):
            if i >= len(clusters):
                return None
            got.append(clusters[i])
            n += len(clusters[i])
            i += 1
        if n != len(piece):
            return None
        out.append(got)
    return out if i == len(clusters) else None


def _batches(cps: list[int]) -> list[tuple[list[int], list[str]]]:
    """(owner code point of each probe, probes) per storage width."""
    by_width: dict[int, tuple[list[int], list[str]]] = {}
    for cp in cps:
        for s in probes(cp):
            owners, pieces = by_width.setdefault(_width(s), ([], []))
            owners.append(cp)
            pieces.append(s)
    return list(by_width.values())


def _gaps(owners: list[int], pieces: list[str], stats: dict) -> set[int]:
    """Owners (code points) of the probes that differ; the probes are of one storage width."""
    batch = SEP.join(pieces)
    r, u = _CLUSTER.findall(batch), ugrapheme.grapheme_split(batch)
    seps = batch.count(SEP)
    if r.count(SEP) != seps or u.count(SEP) != seps:
        # a separator joined a neighbour in one library: no batching for these probes
        stats["unbatched"] += len(pieces)
        return {cp for cp, s in zip(owners, pieces) if differs_alone(s)}
    if r == u:
        return set()
    stats["bisected"] += 1
    if owners[0] == owners[-1]:  # one code point (a code point's probes are adjacent)
        if not any(differs_alone(s) for s in pieces):
            raise SystemExit(f"U+{owners[0]:04X}: batch results differ but no probe differs alone")
        return {owners[0]}
    # split at the code point boundary nearest the middle
    mid = len(owners) // 2
    cut = mid
    while cut > 0 and owners[cut - 1] == owners[cut]:
        cut -= 1
    if cut == 0:
        cut = mid
        while owners[cut - 1] == owners[cut]:
            cut += 1
    return _gaps(owners[:cut], pieces[:cut], stats) | _gaps(owners[cut:], pieces[cut:], stats)


def _verify_isolation(cps: list[int]) -> None:
    """Each probe is segmented in its batch exactly as alone, by both libraries."""
    for _owners, pieces in _batches(cps):
        batch = SEP.join(pieces)
        for seg in (_CLUSTER.findall, ugrapheme.grapheme_split):
            split = _split_batch(seg(batch), pieces)
            if split is None:
                continue  # that batch is probed one string at a time anyway
            for got, s in zip(split, pieces):
                if got != seg(s):
                    raise SystemExit(f"{seg!r}: {s!r} segmented differently in a batch than alone")


def _init(active: tuple[list[str], ...]) -> None:
    global _active
    _active = active


def task(args: tuple[int, int, bool, frozenset[int]]) -> tuple[set[int], dict]:
    start, end, verify, skip = args
    cps = [c for c in range(start, end) if not 0xD800 <= c <= 0xDFFF and c not in skip]
    stats = {"unbatched": 0, "bisected": 0, "probes": len(cps) * len(_active)}
    if not cps:
        return set(), stats
    if verify:
        _verify_isolation(cps)
    gaps: set[int] = set()
    for owners, pieces in _batches(cps):
        gaps |= _gaps(owners, pieces, stats)
    return gaps, stats


def _check_separator() -> None:
    for s in (CR + SEP, SEP + LF, EP + ZWJ + SEP + EP, RI + SEP + RI, KA + VIRAMA + SEP + KA, PREP + SEP, SEP + ACUTE):
        for seg in (_CLUSTER.findall, ugrapheme.grapheme_split):
            assert SEP in seg(s), (seg, s)


def _versions(out: Path, ranges: list, rule_gaps: set, context_linkers: list, consonants: set, regex_unicode: str,
              ug_version: str) -> tuple[str, ...]:
    """The regex releases the table holds for: the installed one, and those of the table at ``out``
    when it holds exactly the same (the same gaps, linkers and consonants, for the same Unicode and
    ugrapheme release: a regex release that changed nothing of segmentation)."""
    if not out.is_file():
        return (regex.__version__,)
    old = runpy.run_path(str(out))  # the table this tool wrote
    same = (old.get("RANGES") == tuple(ranges) and old.get("GB9C_LINKERS") == tuple(sorted(rule_gaps))
            and old.get("CONTEXT_LINKERS") == tuple(context_linkers)
            and old.get("CONSONANTS") == tuple(span_ranges(sorted(consonants)))
            and old.get("REGEX_UNICODE") == regex_unicode and old.get("UGRAPHEME_VERSION") == ug_version)
    kept = old.get("REGEX_VERSIONS", (old.get("REGEX_VERSION"),)) if same else ()
    return tuple(sorted({regex.__version__, *(v for v in kept if v)}))


def main() -> None:
    t0 = time.perf_counter()
    _check_separator()

    # rule level: GB9c (see GB9C_RULE_PROBES)
    rule_gaps: set[int] = set()
    active = PARTS
    if any(differs_alone(s) for s in GB9C_RULE_PROBES):
        rx, ug = linkers()
        rule_gaps = rx | ug
        active = tuple(p for p in PARTS if rule_gaps.isdisjoint(map(ord, "".join(p))))
        print(
            f"GB9c differs (Unicode 18.0 rule vs 15.1-17.0 rule): {len(rule_gaps)} linkers are gaps "
            f"(regex {len(rx)}, ugrapheme {len(ug)}); {len(PARTS) - len(active)} of {len(PARTS)} "
            "templates hold a linker and are skipped"
        )

    rng = random.Random(0)
    skip = frozenset(rule_gaps)
    jobs = [(s, min(s + CHUNK, 0x110000), rng.randrange(VERIFY_EVERY) == 0, skip) for s in range(0, 0x110000, CHUNK)]
    jobs[0] = (jobs[0][0], jobs[0][1], True, skip)  # always verify the chunk holding ASCII and Latin-1
    probed: set[int] = set()
    totals = {"unbatched": 0, "bisected": 0, "probes": 0}
    with Pool(os.cpu_count(), initializer=_init, initargs=(active,)) as pool:
        for found, stats in pool.imap_unordered(task, jobs):
            probed |= found
            for k in totals:
                totals[k] += stats[k]
    gaps = probed | rule_gaps
    context_linkers: list[int] = []
    consonants: set[int] = set()
    if rule_gaps:
        more, context_linkers, consonants = context_stage(gaps, rx, ug)
        print(f"context stage: {len(more)} more gaps, {len(context_linkers)} linkers of both libraries, "
              f"{len(consonants)} consonants of both")
        gaps |= more
    ranges = span_ranges(sorted(gaps))
    context = {ord(ch) for p in active for ch in "".join(p)}
    if context & gaps:  # harmless (only conservative), but worth knowing
        print("note: context code points that are gaps:", sorted(f"U+{c:04X}" for c in context & gaps))

    regex_unicode = unicode_versions()["segmenter"]
    ug_version = importlib.metadata.version("ugrapheme")
    body = "".join(f"    (0x{a:04X}, 0x{b:04X}),\n" for a, b in ranges)
    rule_note = (
        "Rule level: GB9c differs. Unicode 18.0 reads InCB=Linker InCB=Extend* x InCB=Consonant\n"
        "(regex); 15.1-17.0 required an InCB=Consonant before the linker (ugrapheme). So every InCB=Linker\n"
        f"code point of either library ({len(rule_gaps)}, listed in GB9C_LINKERS) is a gap: without a\n"
        "linker GB9c never applies under either rule. Probes whose context holds a linker were skipped.\n"
        if rule_gaps
        else "Rule level: GB9c agrees between the two libraries.\n"
    )
    linker_body = "".join(f"    0x{c:04X},\n" for c in sorted(rule_gaps))
    out = ROOT / "src" / "semcer" / "text" / "tables" / "ugrapheme_gaps.py"
    versions = _versions(out, ranges, rule_gaps, context_linkers, consonants, regex_unicode, ug_version)
    out.write_text(
        '"""Generated by tools/gen_ugrapheme_gaps.py: code points where ugrapheme may not segment as regex.\n\n'
        "Regenerate with ``python tools/gen_ugrapheme_gaps.py`` (a few minutes).\n\n"
        "For the ``regex`` and ``ugrapheme`` releases named below, ``RANGES`` (sorted, disjoint, merged,\n"
        "inclusive) holds every code point c whose grapheme-cluster behaviour differs between\n"
        '``regex.findall(r"\\\\X", s)`` and ``ugrapheme.grapheme_split(s)`` in at least one probe string\n'
        f"s built around c ({len(active)} contexts telling apart every Grapheme_Cluster_Break class,\n"
        "Indic_Conjunct_Break value and Extended_Pictographic under UAX #29 rules GB3-GB13). Every code\n"
        "point but the surrogates was probed.\n\n"
        + rule_note +
        "\nA string containing none of these code points is segmented the same by both libraries; tests\n"
        "over representatives of every class and real text find no other difference\n"
        "(tests/text/test_ugrapheme_gaps.py). The table is valid only for these exact releases.\n"
        '"""\n\n'
        f"REGEX_VERSIONS = {versions!r}\n"
        f"REGEX_UNICODE = {regex_unicode!r}\n"
        f"UGRAPHEME_VERSION = {ug_version!r}\n\n"
        f"RANGES: tuple[tuple[int, int], ...] = (\n{body})\n\n"
        "# gaps because of the GB9c rule difference (also in RANGES)\n"
        f"GB9C_LINKERS: tuple[int, ...] = (\n{linker_body})\n\n"
        "# Linkers of both libraries (in RANGES): the two forms of GB9c agree on them when the code point\n"
        "# right before each is one of CONSONANTS (an InCB=Consonant for both); semcer checks that per line.\n"
        f"CONTEXT_LINKERS: tuple[int, ...] = ({''.join(f'0x{c:04X}, ' for c in context_linkers)})\n\n"
        "CONSONANTS: tuple[tuple[int, int], ...] = (\n"
        + "".join(f"    (0x{a:04X}, 0x{b:04X}),\n" for a, b in span_ranges(sorted(consonants))) + ")\n",
        encoding="utf-8",
    )
    dt = time.perf_counter() - t0
    print(
        f"{out}: {len(gaps)} gap code points in {len(ranges)} ranges "
        f"({len(probed)} found by probing, {len(rule_gaps - probed)} more from the GB9c rule; "
        f"regex {regex.__version__}, Unicode {regex_unicode}; ugrapheme {ug_version}); "
        f"{totals['probes']:,} probes, {totals['bisected']} bisected batches, "
        f"{totals['unbatched']} probes run unbatched; {dt:.1f} s"
    )


if __name__ == "__main__":
    main()
