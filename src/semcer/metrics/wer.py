"""Word error rate and the bag-of-words error, aggregated exactly like CER.

**WER** of a line: the words of the reference and of the output (:mod:`semcer.text.words`, after the
text policy) are aligned by minimum edit distance over words (each distinct word mapped to an
integer, then rapidfuzz's Levenshtein on the integer sequences: unit costs, the same tie rule as
characters, :mod:`semcer.alignment.edits`), giving (S, D, I) and the number of reference words N.
WER = (S + D + I) / N. These are sufficient statistics: corpus WER = Σ (S + D + I) / Σ N over all
lines (long documents weigh more); document-mean WER = mean over documents of (document edits /
document words), a document's lines summed first (:func:`semcer.metrics.aggregate.aggregate`, the
one aggregation rule).

**A reference without words** follows the run's declared empty-reference rule, the one CER follows
(``empty_ref``, :data:`semcer.alignment.engine.EMPTY_REF_POLICIES`, named in the word signature's
``empty:`` field), a reference without words standing where CER has one without units: a line can
have characters but no words (``— …``, ``* * *``: punctuation only), so WER can meet such a line
where CER does not. ``error`` (the default, as for CER) stops with an error naming the first such line;
``skip`` leaves it out of every WER number (corpus, document mean, bag of words) and lists it;
``insertions`` gives it no WER of its own (``None``), counts its insertions in the corpus numerator
(and its words in its document's bag), and leaves a document with no reference words out of the
document mean, how many being reported (``left_out``). (jiwer up to 3.x raised on an empty reference;
jiwer 4 counts its insertions over no words, as ``insertions`` does for the corpus.) A line whose words
are undefined (tokenizer ``auto`` on Thai) is left out of everything and counted (``undefined``).

**Bag-of-words error** (order-free). OCR-D's evaluation spec defines the bag of words of a text —
each word with its number of occurrences, order ignored — but no error rate over it; semcer uses the
bag-of-words WER of Vidal et al. (2023), *End-to-end page-level assessment of handwritten text
recognition*, Pattern Recognition 142: with c_r(w), c_h(w) the counts of word w in the reference
and the output bags, N and M their sizes,

    missing = Σ_w max(0, c_r(w) − c_h(w))    (reference words the output lacks)
    extra   = Σ_w max(0, c_h(w) − c_r(w))    (output words the reference lacks)
    errors  = (Σ_w |c_r(w) − c_h(w)| + |N − M|) / 2  =  max(missing, extra)

and the bag error rate is errors / N: a missing and an extra word pair up as one substitution, the
rest are deletions or insertions, wherever the words stand. It is never more than the WER of the same
texts (an alignment's substitutions, deletions and insertions are one way of pairing the bags), and it
is 0 exactly when the two bags are equal (any reading order). The bag is the document's: all words
of a document's lines in one bag (a word that moved to another line of the same page is no error),
each item without a document its own; corpus bag error = Σ errors / Σ N over documents;
document-mean bag error = mean over documents with reference words of errors / N.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from semcer.alignment.edits import count_ops, editops
from semcer.alignment.engine import check_empty_ref
from semcer.alignment.line import LineStats
from semcer.errors import EmptyReferenceError, InputError, quoted
from semcer.metrics.aggregate import aggregate
from semcer.metrics.rows import Totals
from semcer.metrics.signature import Signature
from semcer.text.policy import TextPolicy, get_policy
from semcer.text.words import check_tokenizer, tokenize, tokenizer_identity

__all__ = ["BagStats", "LineWords", "WerResult", "WerTally", "WordStats", "bag_stats", "check_word_references",
           "line_words", "wer", "word_stats", "wordless_reference_error"]


class WordStats(NamedTuple):
    """Sufficient statistics of one line's word alignment."""

    substitutions: int
    deletions: int
    insertions: int
    words: int  # reference words

    @property
    def edits(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def wer(self) -> float | None:
        """Edits per reference word; None without reference words."""
        return self.edits / self.words if self.words else None


class BagStats(NamedTuple):
    """Sufficient statistics of a bag-of-words comparison."""

    missing: int  # reference words the output lacks (counted with multiplicity)
    extra: int  # output words the reference lacks
    ref_words: int
    hyp_words: int

    @property
    def errors(self) -> int:
        """max(missing, extra) = (Σ|c_r - c_h| + |N - M|) / 2."""
        return max(self.missing, self.extra)

    @property
    def rate(self) -> float | None:
        return self.errors / self.ref_words if self.ref_words else None


def word_stats(ref: Sequence[str], hyp: Sequence[str]) -> WordStats:
    """(S, D, I, N) of the minimum-edit alignment of two word lists."""
    vocab: dict[str, int] = {}
    a = [vocab.setdefault(w, len(vocab)) for w in ref]
    b = [vocab.setdefault(w, len(vocab)) for w in hyp]
    if a == b:
        return WordStats(0, 0, 0, len(a))
    s, d, i = count_ops(editops(a, b))
    return WordStats(s, d, i, len(a))


def _bag(ref: Counter[str], hyp: Counter[str]) -> BagStats:
    missing = sum((ref - hyp).values())
    extra = sum((hyp - ref).values())
    return BagStats(missing, extra, sum(ref.values()), sum(hyp.values()))


def bag_stats(ref: Sequence[str], hyp: Sequence[str]) -> BagStats:
    """Bag-of-words statistics of two word lists (order ignored)."""
    return _bag(Counter(ref), Counter(hyp))


@dataclass(frozen=True)
class WerResult:
    """WER and bag-of-words error of a corpus, with the per-line rows they are sums of.

    ``lines[k]`` is the :class:`WordStats` of line ``ids[k]``, None where its words are undefined
    (listed in ``undefined``) or it was skipped for a reference without words (``empty_ref='skip'``);
    ``docs[k]`` its document (None: none given, the line is its own). ``corpus`` sums the lines kept
    (its ``units`` are reference words, its ``cer`` is the corpus WER). ``without_words`` lists the
    lines whose reference has no words, skipped or counted for their insertions as the signature's
    ``empty_ref`` says; ``left_out`` counts the documents left with no reference word (every line
    without words, or skipped), which the document means leave out. ``bags`` holds each document's
    :class:`BagStats`, keyed by document id, or by line id for a line without a document (by
    ``"\\0"`` + line id should that line id also name a document).
    """

    signature: Signature
    ids: tuple[str, ...]
    docs: tuple[str | None, ...]
    lines: tuple[WordStats | None, ...]
    corpus: Totals
    document_mean: float | None
    documents: int  # documents with reference words (those in the mean)
    undefined: tuple[str, ...]
    bags: dict[str, BagStats]
    without_words: tuple[str, ...] = ()
    left_out: int = 0  # documents without reference words (left out of the document means)

    @property
    def wer(self) -> float | None:
        """Corpus WER: Σ edits / Σ reference words; None without reference words."""
        return self.corpus.cer

    @property
    def bag_error(self) -> float | None:
        """Corpus bag-of-words error: Σ over documents of max(missing, extra) / Σ reference words."""
        n = sum(b.ref_words for b in self.bags.values())
        return sum(b.errors for b in self.bags.values()) / n if n else None

    @property
    def bag_document_mean(self) -> float | None:
        rates = [r for b in self.bags.values() if (r := b.rate) is not None]
        return math.fsum(rates) / len(rates) if rates else None

    def to_dict(self) -> dict:
        c = self.corpus
        return {
            "signature": str(self.signature),
            "corpus": {"wer": self.wer, "edits": c.edits, "substitutions": c.substitutions, "deletions": c.deletions,
                       "insertions": c.insertions, "words": c.units, "lines": c.lines},
            "document_mean": {"wer": self.document_mean, "documents": self.documents, "left_out": self.left_out},
            "bag_of_words": {"error": self.bag_error, "document_mean": self.bag_document_mean,
                             "missing": sum(b.missing for b in self.bags.values()),
                             "extra": sum(b.extra for b in self.bags.values())},
            "no_reference_words": {"rule": self.signature.empty_ref, "lines": len(self.without_words),
                                   "ids": list(self.without_words)},
            "undefined": {"lines": len(self.undefined), "ids": list(self.undefined)},
        }

    def notes(self) -> list[str]:
        """What the numbers leave out or count specially, one short phrase each (for the terminal)."""
        out = []
        n, rule = len(self.without_words), self.signature.empty_ref
        if n:
            out.append(f"{n} line(s) without reference words " + ("skipped (empty:skip)" if rule == "skip" else
                                                                   "count their insertions only (empty:insertions)"))
        if self.left_out:
            out.append(f"document means over {self.documents} document(s), {self.left_out} without reference words "
                       "left out")
        if self.undefined:
            out.append(f"{len(self.undefined)} line(s) without words of this tokenizer left out")
        return out


def _per_line(given: Sequence[str | None] | Mapping[str, str | None] | str | None, ids: Sequence[str], what: str
              ) -> list[str | None]:
    if given is None or isinstance(given, str):
        return [given] * len(ids)
    if isinstance(given, Mapping):
        return [given.get(i) for i in ids]
    if len(given) != len(ids):
        raise InputError(f"{what} has {len(given)} entries for {len(ids)} lines")
    return list(given)


def wer(
    references: Sequence[str],
    hypotheses: Sequence[str],
    *,
    tokenizer: str = "uax29",
    policy: str | TextPolicy | None = None,
    ids: Sequence[str] | None = None,
    docs: Sequence[str | None] | Mapping[str, str | None] | None = None,
    langs: Sequence[str | None] | Mapping[str, str | None] | str | None = None,
    empty_ref: str = "error",
    unmatched: str = "error",
    reading: Sequence[tuple[str, str]] = (),
) -> WerResult:
    """WER and bag-of-words error of aligned lists of reference and output lines.

    ``ids`` default to ``"1"``..``"n"``; ``docs`` (a list or a dict id -> doc; None: each line its own
    document) group lines into documents; ``langs`` (one tag, a list or a dict) only matter for the
    ``auto`` tokenizer. The policy (default ``nfc``) is applied to both sides before tokenizing.
    ``empty_ref``: what a reference without words does, as for CER (``error``, ``skip``,
    ``insertions``: see the module documentation). ``unmatched`` and ``reading``: how the lines were
    paired and read, for the signature (:meth:`semcer.metrics.signature.Signature.build`).
    """
    if len(references) != len(hypotheses):
        raise InputError(f"{len(references)} references but {len(hypotheses)} outputs; pass two lists of the same length")
    check_tokenizer(tokenizer)
    pol = get_policy(policy)
    n = len(references)
    line_ids = [str(k) for k in range(1, n + 1)] if ids is None else [str(i) for i in ids]
    if len(line_ids) != n:
        raise InputError(f"{len(line_ids)} ids for {n} lines")
    doc_of = _per_line(docs, line_ids, "docs")
    lang_of = _per_line(langs, line_ids, "langs")
    tally = WerTally(tokenizer, pol, empty_ref=empty_ref, unmatched=unmatched, reading=reading)
    for ref, hyp, lid, doc, lang in zip(references, hypotheses, line_ids, doc_of, lang_of):
        tally.add(lid, doc, line_words(ref, hyp, tokenizer, pol, lang), ref=ref)
    return tally.result()


class LineWords(NamedTuple):
    """One line's words after the policy (None where the tokenizer leaves them undefined) and the
    statistics of their alignment: what a worker computes for a line (:func:`line_words`)."""

    stats: WordStats | None
    ref: tuple[str, ...] | None
    hyp: tuple[str, ...] | None


def line_words(ref: str, hyp: str, tokenizer: str, policy: TextPolicy, lang: str | None) -> LineWords:
    """The words of one line pair and their alignment statistics (:class:`LineWords`)."""
    rw = tokenize(policy(ref), tokenizer, lang)
    hw = tokenize(policy(hyp), tokenizer, lang)
    if rw is None or hw is None:
        return LineWords(None, None, None)
    return LineWords(word_stats(rw, hw), tuple(rw), tuple(hw))


class _Bag:
    """A document's bag comparison so far, kept as what it needs: the nonzero differences
    c_r(w) − c_h(w) and the two sizes (memory grows with the words that differ, not the words)."""

    __slots__ = ("diff", "hyp_words", "ref_words")

    def __init__(self) -> None:
        self.diff: dict[str, int] = {}
        self.ref_words = self.hyp_words = 0

    def add(self, ref: Sequence[str], hyp: Sequence[str]) -> None:
        d = self.diff
        for w in ref:
            d[w] = d.get(w, 0) + 1
        for w in hyp:
            v = d.get(w, 0) - 1
            if v:
                d[w] = v
            else:
                del d[w]
        self.ref_words += len(ref)
        self.hyp_words += len(hyp)

    def stats(self) -> BagStats:
        values = self.diff.values()
        return BagStats(sum(v for v in values if v > 0), -sum(v for v in values if v < 0), self.ref_words, self.hyp_words)


def wordless_reference_error(line_id: str, tokenizer: str, policy: TextPolicy, ref: str | None = None
                             ) -> EmptyReferenceError:
    """The error of line ``line_id``, whose reference has no words, under ``empty_ref='error'``."""
    raw = "" if ref is None else f"; raw reference {quoted(ref)}"
    return EmptyReferenceError(
        f"line {quoted(line_id)}: the reference has no words (tokenizer {tokenizer!r}, policy {policy.name!r}{raw}), "
        "so its WER is undefined; choose how such lines count: empty_ref='skip' or 'insertions' "
        "(command line: --empty-ref skip or --empty-ref insertions; the same rule applies to CER)"
    )


def check_word_references(lines: Iterable[tuple[str, str, str, str | None]], tokenizer: str, policy: TextPolicy
                          ) -> None:
    """Under ``empty_ref='error'``, stop before any work at the first ``(line id, reference, output,
    lang)`` whose reference has no words (:func:`wordless_reference_error`), as :func:`wer` would
    after it: a run that computes WER beside a judged CER checks this first, so that a judge's work
    is not thrown away. A line whose words are undefined on either side (tokenizer ``auto``) passes,
    as :func:`line_words` leaves it out of everything."""
    check_tokenizer(tokenizer)
    for line_id, ref, hyp, lang in lines:
        words = tokenize(policy(ref), tokenizer, lang)
        if words is not None and not words and tokenize(policy(hyp), tokenizer, lang) is not None:
            raise wordless_reference_error(line_id, tokenizer, policy, ref)


class WerTally:
    """The running sums of :func:`wer`, fed a line at a time (in corpus order): a streamed run adds
    its chunks' :class:`LineWords` as they come and gets the result of one pass over the corpus.
    Each document's bag is kept as the words its two sides differ by (its lines may come anywhere).
    A line whose reference has no words follows ``empty_ref`` (``error`` raises in :meth:`add`)."""

    def __init__(self, tokenizer: str, policy: TextPolicy, *, empty_ref: str = "error", unmatched: str = "error",
                 reading: Sequence[tuple[str, str]] = ()) -> None:
        self.tokenizer, self.policy = check_tokenizer(tokenizer), policy
        self.empty_ref = check_empty_ref(empty_ref)
        self.unmatched, self.reading = unmatched, tuple(reading)  # for the signature
        self.without_words: list[str] = []
        self.skipped_docs: set[str] = set()
        self.ids: list[str] = []
        self.docs: list[str | None] = []
        self.rows: list[WordStats | None] = []
        self.kept: list[LineStats] = []
        self.kept_docs: list[str] = []
        self.undefined: list[str] = []
        self.bags: dict[str, _Bag] = {}

    def add(self, line_id: str, doc: str | None, words: LineWords, *, ref: str | None = None) -> None:
        """Add one line (``ref``, its raw reference, only names it in the error of ``empty_ref='error'``)."""
        st, rw, hw = words
        key = doc if doc is not None else f"\0{line_id}"  # no doc: its own document
        if st is not None and not st.words:
            if self.empty_ref == "error":
                raise wordless_reference_error(line_id, self.tokenizer, self.policy, ref)
            self.without_words.append(line_id)
            if self.empty_ref == "skip":
                st = None
                self.skipped_docs.add(key)
        self.ids.append(line_id)
        self.docs.append(doc)
        self.rows.append(st)
        if st is None or rw is None or hw is None:
            if words.stats is None:
                self.undefined.append(line_id)
            return
        self.kept.append(LineStats(st.substitutions, st.deletions, st.insertions, st.words, None))
        self.kept_docs.append(key)
        bag = self.bags.get(key)
        if bag is None:
            bag = self.bags[key] = _Bag()
        bag.add(rw, hw)

    def result(self) -> WerResult:
        if not self.kept and self.without_words:
            raise InputError("no line is left to score: every reference without words was skipped "
                             "(empty_ref='skip') and the other lines have no defined words")
        if not self.kept:
            raise InputError("no line has defined words (every line is in a language without a word tokenizer)")
        agg = aggregate(self.kept, self.kept_docs, judged=False)
        sig = Signature.build("word", self.policy, self.empty_ref, unmatched=self.unmatched,
                              reading=self.reading).with_extras(tokenizer=tokenizer_identity(self.tokenizer))
        given = {d for d in self.docs if d is not None}
        shown = {d: d[1:] if d.startswith("\0") and d[1:] not in given else d for d in self.bags}
        left_out = len(self.skipped_docs | set(self.kept_docs)) - agg.documents_defined
        return WerResult(sig, tuple(self.ids), tuple(self.docs), tuple(self.rows), agg.corpus, agg.document_mean_cer,
                         agg.documents_defined, tuple(self.undefined),
                         {shown[d]: b.stats() for d, b in self.bags.items()}, tuple(self.without_words), left_out)
