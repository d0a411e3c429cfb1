"""The line engine: policy, units, alignment and counts of every line of a corpus, chunk by chunk.

For each chunk the policy and the :mod:`semcer.text.scan` flags are computed for all texts at once,
the units to align are prepared together (:mod:`semcer.text.cluster_ids`), and then each line is
aligned and counted, in C (``semcer.alignment._speedups``) when it was built, else in
:func:`_python_lines`, with identical results. No per-line helper on the common path: a function
call costs as much as the whole grapheme check.

The engine does nothing to the interpreter: callers that build millions of results may pause the
cyclic garbage collector around it (:func:`semcer.scale.gc.collector_paused`, used by the CLI).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from operator import eq, itemgetter, mul
from typing import Any, NamedTuple, cast

import numpy as np
from rapidfuzz.distance import Levenshtein

from semcer.alignment.edits import Edit, count_ops, editops, to_edits, unit_spans, with_spans
from semcer.alignment.line import Alignment, LineResult, LineStats
from semcer.caches import cache
from semcer.errors import EmptyReferenceError, InputError, SemcerError, quoted
from semcer.speedups import compiled
from semcer.text.cluster_ids import Clusters, cluster_ids
from semcer.text.policy import TextPolicy
from semcer.text.scan import JOINS, NFC, SLOW_SEGMENT, scan
from semcer.text.segmenter import CLUSTER, fast_splitter
from semcer.text.units import Unit, alignable_pair

#: Lines prepared at once (policy and flags for the whole chunk, then line by line).
CHUNK = 20000
#: The largest line pair aligned, in reference units × output units: the aligner's work grows with
#: this product (about a minute at 10^12, two unrelated lines of a million graphemes, on one core),
#: and it cannot be interrupted inside a line. A larger pair is refused before any is aligned.
MAX_ALIGN_CELLS = 10**12

EMPTY_REF_POLICIES: dict[str, str] = {
    "error": "default: stop with an error naming the first line whose reference is empty after the policy",
    "skip": "leave such lines out of every number; how many were skipped is reported",
    "insertions": "count their insertions in the corpus numerator (0 units in the denominator); "
    "their line CER is undefined (null) and a document with no reference units is left out of the document mean",
}

#: ``progress(lines)`` is called after each chunk with the number of lines it held.
Progress = Callable[[int], None]


class Pair(NamedTuple):
    """One reference with its output, and the document and language they belong to."""

    id: str
    ref: str
    hyp: str
    doc: str  # the item's doc if given on either side, else the id (the line is its own document)
    lang: str | None


def check_empty_ref(empty_ref: str) -> str:
    """``empty_ref`` if it is a known empty-reference policy, else a clear error."""
    if empty_ref not in EMPTY_REF_POLICIES:
        raise SemcerError(f"unknown empty-reference policy {empty_ref!r}; choose one of: {', '.join(EMPTY_REF_POLICIES)}")
    return empty_ref


def align_one(ref: str, hyp: str, unit: Unit, pol: TextPolicy, *, edits: bool, offsets: bool,
              line_id: str | None = None) -> Alignment:
    """The alignment of one line (policy, units, edits and, with ``offsets``, original offsets);
    ``line_id`` names it in the error for a pair beyond :data:`MAX_ALIGN_CELLS`."""
    r, h = pol(ref), pol(hyp)
    a, b, ru, hu = alignable_pair(r, h, unit)
    if len(a) * len(b) > MAX_ALIGN_CELLS:
        raise too_long(line_id, len(a), len(b), unit)
    ops = editops(a, b)
    s, d, i = count_ops(ops)
    stats = tuple.__new__(LineStats, (s, d, i, len(ru), None))
    ed: Sequence[Edit] = to_edits(ops, ru, hu) if edits else ()
    have_offsets = False
    if edits and offsets:
        rmap = _identity_map(ref) if pol.is_identity else pol.offset_map(ref)
        hmap = _identity_map(hyp) if pol.is_identity else pol.offset_map(hyp)
        rs, hs = unit_spans(ru, rmap), unit_spans(hu, hmap)
        if rs is not None and hs is not None:
            ed = with_spans(ed, rs, hs, len(ref), len(hyp))
            have_offsets = True
    return tuple.__new__(Alignment, (r, h, ru, hu, tuple(ed), stats, have_offsets))


def _identity_map(text: str) -> list[tuple[int, int]]:
    return [(k, k + 1) for k in range(len(text))]


def align_lines(
    pairs: Sequence[Pair], unit: Unit, pol: TextPolicy, empty_ref: str, *, edits: bool, offsets: bool,
    progress: Progress | None = None,
) -> tuple[list[LineResult], list[str]]:
    """Every line's :class:`LineResult` (in input order) and the ids skipped for an empty reference.

    ``edits`` keeps each line's typed edits and alignment; ``offsets`` also maps them back to the
    original strings (one line at a time: slower). An empty reference follows ``empty_ref``.
    """
    rows: list[LineResult] = []
    skipped: list[str] = []
    _loop(pairs, unit, pol, empty_ref, edits, offsets, progress, rows, skipped)
    return rows, skipped


def _prepared(texts: list[str], unit: Unit, pol: TextPolicy) -> tuple[list[str], np.ndarray | None]:
    """Policy-applied ``texts`` and, for graphemes, each one's :mod:`semcer.text.scan` flags.

    With the default ``nfc`` policy only strings flagged as possibly non-NFC are looked at again;
    the others are already NFC and stay the same objects.
    """
    cp = unit == "codepoint"
    if pol.is_identity and cp:
        return texts, None
    if pol.steps == ("nfc",) or pol.is_identity:
        flags = scan(texts)
        if not pol.is_identity:
            changed = []
            for k in np.flatnonzero(flags & NFC).tolist():
                t = texts[k]
                if not unicodedata.is_normalized("NFC", t):
                    texts[k] = unicodedata.normalize("NFC", t)
                    changed.append(k)
            if changed and not cp:
                flags[changed] = scan([texts[k] for k in changed])
    else:
        texts = list(map(pol, texts))
        if cp:
            return texts, None
        flags = scan(texts)
    return texts, None if cp else flags


def _sequences(texts: list[str], flags: np.ndarray | None, n: int, names: bool, same: np.ndarray) -> tuple[list, dict[str, str]]:
    """What to align for each of the ``2n`` texts (references, then outputs) and the id names.

    A text whose code points are its clusters is aligned as itself; the other texts are segmented
    together by :func:`semcer.text.cluster_ids.cluster_ids` into id strings. A pair where either side
    needs ``\\X`` (``SLOW_SEGMENT``) is aligned as two lists of cluster strings instead. The
    outputs of pairs that are the ``same`` as their reference are not segmented (never aligned).
    """
    if flags is None:
        return texts, {}
    seqs: list[Any] = list(texts)
    slow = (flags[:n] | flags[n:]) & SLOW_SEGMENT != 0
    batch = np.flatnonzero((flags & JOINS != 0) & ~np.concatenate([slow, slow | same])).tolist()
    found = cluster_ids([texts[k] for k in batch], names=names) if batch else None
    named: dict[str, str] = {}
    fsplit = fast_splitter() or CLUSTER.findall
    if found is None:  # more distinct clusters than ids: one by one
        for k in batch:
            seqs[k] = fsplit(texts[k])
    else:
        ids, named = found
        for k, s in zip(batch, ids):
            seqs[k] = s
    if slow.any():
        for k in np.flatnonzero(np.tile(slow, 2)).tolist():
            t, f = texts[k], int(flags[k])
            seqs[k] = CLUSTER.findall(t) if f & SLOW_SEGMENT else fsplit(t) if f & JOINS else list(t)
    return seqs, named


def _loop(pairs, unit, pol, empty_ref, need_edits, offsets, progress, rows, skipped) -> None:
    """Chunk by chunk: policy and flags for all texts at once (:func:`_prepared`), the units to
    align (:func:`_sequences`), then per line the alignment, the counts and the results, in C
    (``semcer.alignment._speedups``) when it was built, else in :func:`_python_lines`."""
    tick = progress or _no_progress
    new = tuple.__new__
    append = rows.append
    get_ref, get_hyp = itemgetter(1), itemgetter(2)
    fast = _fast_lines()
    for lo in range(0, len(pairs), CHUNK):
        chunk = pairs[lo : lo + CHUNK]
        n = len(chunk)
        if offsets:
            for p in chunk:
                al = align_one(p[1], p[2], unit, pol, edits=True, offsets=True, line_id=p[0])
                if al.stats[3] or _keep_empty(p, pol, empty_ref, skipped):
                    append(new(LineResult, (p[0], p[3], p[4], al.stats, al.edits, al)))
            tick(n)
            continue
        refs, hyps = list(map(get_ref, chunk)), list(map(get_hyp, chunk))
        same = np.fromiter(map(eq, refs, hyps), dtype=bool, count=n)  # exact lines: prepared once
        differ = np.flatnonzero(~same).tolist()
        texts, flags = _prepared(refs + [hyps[k] for k in differ], unit, pol)
        hyps = texts[:n]
        for k, t in zip(differ, texts[n:]):
            hyps[k] = t
        if flags is not None:
            hflags = flags[:n].copy()
            hflags[differ] = flags[n:]
            flags = np.concatenate([flags[:n], hflags])
        texts[n:] = hyps
        seqs, names = _sequences(texts, flags, n, need_edits, same)
        _check_sizes(chunk, seqs, same, unit)
        k = 0
        while k < n:
            if fast is None:
                _python_lines(chunk, texts, seqs, names, need_edits, k, n, rows, pol, empty_ref, skipped)
                break
            empty = fast(chunk, texts, seqs, names, need_edits, k, rows)
            if empty < 0:
                break
            _python_lines(chunk, texts, seqs, names, need_edits, empty, empty + 1, rows, pol, empty_ref, skipped)
            k = empty + 1
        tick(n)


def _check_sizes(chunk: Sequence[Pair], seqs: list, same: np.ndarray, unit: Unit) -> None:
    """Refuse the first line pair of ``chunk`` beyond :data:`MAX_ALIGN_CELLS` (lines equal to their
    reference are never aligned), before any line of it is."""
    n = len(chunk)
    lens = np.fromiter(map(len, seqs), dtype=np.float64, count=2 * n)
    cells = lens[:n] * lens[n:]
    cells[same] = 0
    over = np.flatnonzero(cells > MAX_ALIGN_CELLS)
    if over.size:
        k = int(over[0])
        raise too_long(chunk[k][0], int(lens[k]), int(lens[n + k]), unit)


def too_long(line_id: str | None, ref_units: int, hyp_units: int, unit: Unit) -> InputError:
    """The error for a line pair beyond :data:`MAX_ALIGN_CELLS`."""
    where = "a line" if line_id is None else f"line {quoted(line_id)}"
    return InputError(f"{where}: {ref_units:,} reference {unit}s against {hyp_units:,} output {unit}s is beyond what "
                      f"semcer aligns ({MAX_ALIGN_CELLS:,} {unit} pairs, about a minute of one core); split it "
                      "into lines or pages (e.g. page files, or --by-line)")


def _python_lines(chunk, texts, seqs, names, need_edits, start, stop, rows, pol, empty_ref, skipped) -> None:
    """Lines ``start:stop`` of a chunk: alignment, counts and results, appended to ``rows``.

    ``texts`` are the ``2n`` policy-applied references then outputs, ``seqs`` what is aligned for
    each: the text itself, its id string (:mod:`semcer.text.cluster_ids`) or a list of clusters. The C
    loop (``_speedups.c``) does the same and hands lines with an empty reference to this one.
    """
    n = len(chunk)
    raw_editops = Levenshtein.editops
    new = tuple.__new__
    first = itemgetter(0)
    append = rows.append
    for p, r, h, a, b in zip(chunk[start:stop], texts[start:stop], texts[n + start : n + stop],
                             seqs[start:stop], seqs[n + start : n + stop]):
        if h == r:
            b = a
            ops = []
            stats = new(LineStats, (0, 0, 0, len(a), None))
        else:
            ops = cast(list[tuple[str, int, int]], raw_editops(a, b).as_list())
            # deletions - insertions = len(a) - len(b), so one count gives all three
            i = list(map(first, ops)).count("insert")
            d = i + len(a) - len(b)
            stats = new(LineStats, (len(ops) - i - d, d, i, len(a), None))
        if not a and not _keep_empty(p, pol, empty_ref, skipped):
            continue
        if need_edits:
            ru = a if a is r or type(a) is list else Clusters(a, names)
            hu = ru if b is a else b if b is h or type(b) is list else Clusters(b, names)
            ed = to_edits(ops, a, b, names if ru is not a or hu is not b else None)
            append(new(LineResult, (p[0], p[3], p[4], stats, ed, new(Alignment, (r, h, ru, hu, ed, stats, False)))))
        else:
            append(new(LineResult, (p[0], p[3], p[4], stats, None, None)))


@cache(maxsize=1)
def _fast_lines():
    """The C loop (``semcer.alignment._speedups.lines``), or None when it was not built or
    ``SEMCER_PURE_PYTHON=1`` asks for the Python loop."""
    _speedups = compiled("semcer.alignment._speedups")
    if _speedups is None:
        return None
    _speedups.setup(Levenshtein.editops, Clusters, LineStats, LineResult, Alignment, Edit)
    return _speedups.lines


def _keep_empty(p: Pair, pol: TextPolicy, empty_ref: str, skipped: list[str]) -> bool:
    """A line whose reference is empty after the policy: an error, skipped, or kept (insertions)."""
    if empty_ref == "error":
        raise empty_reference_error(p, pol)
    if empty_ref == "skip":
        skipped.append(p.id)
        return False
    return True


def empty_reference_error(p: Pair, pol: TextPolicy) -> EmptyReferenceError:
    """The error of line ``p``, whose reference is empty after ``pol``, under ``empty_ref='error'``."""
    detail = "" if not p.ref else f" after policy {pol.name!r} (raw reference {quoted(p.ref)})"
    return EmptyReferenceError(
        f"line {quoted(p.id)}: the reference is empty{detail}, so its CER is undefined; choose how such lines "
        "count: empty_ref='skip' or 'insertions' (command line: --empty-ref skip or --empty-ref insertions)"
    )


def first_empty_reference(pairs: Iterable[Pair], pol: TextPolicy) -> Pair | None:
    """The first of ``pairs`` whose reference is empty after ``pol`` (it has no units then), or None:
    what :func:`align_lines` stops at under ``empty_ref='error'``, found before any alignment."""
    if pol.is_identity or pol.steps == ("nfc",):  # a normal form of a non-empty text is not empty
        return next((p for p in pairs if not p.ref), None)
    return next((p for p in pairs if not p.ref or not pol(p.ref)), None)


def first_too_long(pairs: Sequence[Pair], pol: TextPolicy, unit: Unit) -> InputError | None:
    """The error for the first of ``pairs`` beyond :data:`MAX_ALIGN_CELLS`, found before any
    alignment, or None. A pair's code points, times what the policy can lengthen a text by
    (:attr:`~semcer.text.policy.TextPolicy.max_growth`: NFKC's ligatures), bound its units: only
    pairs past that bound are measured in units (the chunk's check still refuses any other)."""
    lengths = list(map(mul, map(len, map(itemgetter(1), pairs)), map(len, map(itemgetter(2), pairs))))
    bound = MAX_ALIGN_CELLS // pol.max_growth**2
    if not lengths or max(lengths) <= bound:
        return None
    for p, cells in zip(pairs, lengths):
        if cells > bound:
            a, b, _, _ = alignable_pair(pol(p[1]), pol(p[2]), unit)
            if len(a) * len(b) > MAX_ALIGN_CELLS:
                return too_long(p[0], len(a), len(b), unit)
    return None


def _no_progress(n: int) -> None:
    pass
