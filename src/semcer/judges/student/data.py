"""Judged edits for the transformer student: reading them, splitting them, turning them into tokens.

Three sources give the same rows (read by :mod:`semcer.io.judged`): a judged-edit store (SQLite),
its Parquet export, and the labelled JSONL of ``data/severity/``. A row is the marked pair, the
five-level distribution ``p`` and, where the source has one, the reference line id (used to split
train and validation by line).

The model reads one text per edit, the marked pair filled into :data:`TEMPLATE`. The *spans* are
the tokens between ⟦ and ⟧ on each line, found from the tokenizer's character offsets; for an empty
span (the reference side of an insertion, the output side of a deletion) the tokens of the two
marks themselves stand for it, so that every span has at least one token.

Nothing here imports torch; :func:`require_hf` is the one place that says how to install it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semcer.alignment.context import MARK_CLOSE, MARK_OPEN
from semcer.errors import InputError, JudgeError, quoted
from semcer.judges.distribution import expected_rating

#: How the marked pair becomes one text; the checkpoint's config records it.
TEMPLATE = "reference: {ref}\noutput: {hyp}"

HF_HINT = 'the transformer student needs torch and transformers: pip install "semcer[hf]"'

#: File names inside a checkpoint directory.
CONFIG_FILE = "config.json"
HEAD_FILE = "head.safetensors"
BACKBONE_DIR = "backbone"


def require_hf() -> None:
    """Raise a JudgeError naming the install command when torch or transformers is missing."""
    missing = [name for name in ("torch", "transformers") if importlib.util.find_spec(name) is None]
    if missing:
        raise JudgeError(f"{HF_HINT} ({' and '.join(missing)} not installed)")


def parse_config(raw: bytes, directory: Any) -> dict[str, Any]:
    """A checkpoint's config.json, checked to be a student config; a JudgeError naming ``directory``."""
    try:
        config = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JudgeError(f"{directory}/{CONFIG_FILE}: unreadable ({exc})") from None
    if not isinstance(config, dict) or config.get("format") != "semcer-student":
        raise JudgeError(f"{directory}/{CONFIG_FILE}: not a semcer student config")
    missing = [k for k in ("max_length", "template", "readout", "head") if k not in config]
    if missing:
        raise JudgeError(f"{directory}/{CONFIG_FILE}: missing {', '.join(missing)}")
    problem = _config_problem(config)
    if problem:
        raise JudgeError(f"{directory}/{CONFIG_FILE}: {problem}")
    return config


def _whole(value: Any) -> bool:
    return type(value) is int and value >= 1


def _config_problem(config: dict[str, Any]) -> str | None:
    """What is wrong with the values a student is rebuilt from (None when nothing is), so that a
    damaged config.json is refused when the judge is made, not with a traceback once it runs."""
    if not _whole(config["max_length"]):
        return f"max_length must be a whole number at least 1, got {config['max_length']!r}"
    template = config["template"]
    if not isinstance(template, str) or not 0 <= template.find("{ref}") < template.find("{hyp}"):
        return f"template must be a text with {{ref}} before {{hyp}}, got {quoted(template)}"
    readout = config["readout"]
    if not isinstance(readout, list) or not readout or not all(isinstance(part, str) for part in readout):
        return f"readout must be a list of readout part names, got {quoted(readout)}"
    head = config["head"]
    dropout = head.get("dropout") if isinstance(head, dict) else None
    if not isinstance(head, dict) or not _whole(head.get("hidden")) or isinstance(dropout, bool) \
            or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
        return f"head must be {{\"hidden\": a whole number at least 1, \"dropout\": from 0 to below 1}}, got {quoted(head)}"
    return None


def read_config(directory: str | Path) -> dict[str, Any]:
    """The config.json of a checkpoint directory; a JudgeError when it is not a student checkpoint."""
    path = Path(directory) / CONFIG_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise JudgeError(f"{directory}: not a student checkpoint (no {CONFIG_FILE}); train one with `semcer distill`") from None
    return parse_config(raw, directory)


# -- rows ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StudentRow:
    """One judged edit as the student learns it: the marked pair and the judge's distribution."""

    marked_ref: str
    marked_hyp: str
    p: tuple[float, ...]
    lang: str = ""
    op: str = ""
    line_id: str = ""
    judge: str = ""

    @property
    def severity(self) -> float:
        """The label's expected rating, Σ p_k · k/4."""
        return expected_rating(self.p)

    def hash_key(self) -> str:
        """The fields that define a training row, as one canonical line (for the data hash)."""
        return json.dumps(
            [self.lang, self.op, self.marked_ref, self.marked_hyp, [round(x, 9) for x in self.p]],
            ensure_ascii=False,
        )


def data_hash(rows: Iterable[StudentRow]) -> str:
    """sha256 of the rows' key fields (language, operation, marked pair, p), sorted: order-free."""
    digest = hashlib.sha256()
    for line in sorted(row.hash_key() for row in rows):
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def split_rows(rows: Sequence[StudentRow], val_fraction: float, seed: int) -> tuple[list[StudentRow], list[StudentRow], str]:
    """Seeded train/validation split; returns (train, val, unit) with unit "line" or "edit".

    When every row has a line id, whole lines go to one side (no line is in both); otherwise edits
    are split one by one (copies of one edit stay together). The split depends on the rows and the
    seed, not on the rows' order. At least one unit goes to validation when ``val_fraction`` > 0.
    """
    if not 0.0 <= val_fraction < 1.0:
        raise InputError(f"validation fraction must be in [0, 1), got {val_fraction}")
    by_line = all(row.line_id for row in rows)
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        key = row.line_id if by_line else json.dumps([row.lang, row.op, row.marked_ref, row.marked_hyp], ensure_ascii=False)
        groups.setdefault(key, []).append(i)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    n_val = 0 if val_fraction == 0 else max(1, round(val_fraction * len(keys)))
    if n_val >= len(keys) and val_fraction > 0:
        raise InputError(f"{len(rows)} judged edits are too few to split off a validation set")
    val_idx = sorted(i for key in keys[:n_val] for i in groups[key])
    val_set = set(val_idx)
    train = [row for i, row in enumerate(rows) if i not in val_set]
    return train, [rows[i] for i in val_idx], "line" if by_line else "edit"


# -- the marked pair as tokens ------------------------------------------------------------------


def span_chars(marked: str) -> tuple[int, int] | None:
    """Character positions of the first ⟦ and of the ⟧ after it, or None when the line has no mark."""
    start = marked.find(MARK_OPEN)
    if start < 0:
        return None
    end = marked.find(MARK_CLOSE, start + 1)
    return None if end < 0 else (start, end)


@dataclass(frozen=True, slots=True)
class Encoded:
    """One marked pair as tokens: ids, and the [start, end) token ranges of the two spans."""

    input_ids: tuple[int, ...]
    ref_span: tuple[int, int]
    hyp_span: tuple[int, int]
    truncated: bool = False


def _format(template: str, ref: str, hyp: str) -> tuple[str, int, int]:
    """The text and where the reference and output lines start in it."""
    ref_at = template.index("{ref}")
    hyp_at = template.index("{hyp}")
    if ref_at > hyp_at:
        raise ValueError("the template must put {ref} before {hyp}")
    text = template[:ref_at] + ref + template[ref_at + 5 : hyp_at] + hyp + template[hyp_at + 5 :]
    return text, ref_at, hyp_at - 5 + len(ref)


def _char_range(marked: str, offset: int) -> tuple[int, int]:
    """The characters to pool for one line: the span's content, or both marks when it is empty."""
    start, end = span_chars(marked)  # type: ignore[misc]
    if end == start + 1:  # empty span: the marks stand for it
        return offset + start, offset + end + 1
    return offset + start + 1, offset + end


def token_range(offsets: Sequence[tuple[int, int]], chars: tuple[int, int]) -> tuple[int, int]:
    """The [first, last+1) tokens whose character offsets overlap ``chars``.

    A token that straddles a mark and the content (``Ġ⟦x`` in a byte-level BPE) counts; tokens
    with empty offsets (special tokens such as BOS) never do.
    """
    lo, hi = chars
    hits = [i for i, (a, b) in enumerate(offsets) if b > a and a < hi and b > lo]
    if not hits:
        raise ValueError(f"no token covers characters {lo}..{hi}")
    return hits[0], hits[-1] + 1


def _trim(marked: str, keep: int) -> str:
    """At most ``keep`` characters of context around the mark: half before, half after, and what
    one side cannot use goes to the other."""
    start, end = span_chars(marked)  # type: ignore[misc]
    before = min(start, keep // 2)
    after = min(len(marked) - end - 1, keep - before)
    before = min(start, keep - after)
    return marked[start - before : end + 1 + after]


def _encoded(ids: Sequence[int], offsets: Sequence[Any], ref: str, hyp: str, ref_at: int, hyp_at: int,
             truncated: bool) -> Encoded:
    offsets = [tuple(o) for o in offsets]
    return Encoded(
        tuple(ids),
        token_range(offsets, _char_range(ref, ref_at)),
        token_range(offsets, _char_range(hyp, hyp_at)),
        truncated,
    )


def _check_marked(marked_ref: str, marked_hyp: str) -> None:
    for side, marked in (("reference", marked_ref), ("output", marked_hyp)):
        if span_chars(marked) is None:
            raise InputError(f"the marked {side} line has no {MARK_OPEN}…{MARK_CLOSE} mark: {quoted(marked)}")


def encode_pair(tokenizer: Any, marked_ref: str, marked_hyp: str, max_length: int,
                template: str = TEMPLATE) -> Encoded:
    """Tokenise one marked pair into at most ``max_length`` tokens, keeping both marks in.

    A pair that is too long loses context on both lines, evenly around each mark, until it fits.
    """
    _check_marked(marked_ref, marked_hyp)
    ref, hyp = marked_ref, marked_hyp
    truncated = False
    full = max(len(ref), len(hyp))
    keep = full
    while True:
        text, ref_at, hyp_at = _format(template, ref, hyp)
        enc = tokenizer(text, return_offsets_mapping=True, add_special_tokens=True)
        ids = enc["input_ids"]
        if len(ids) <= max_length:
            return _encoded(ids, enc["offset_mapping"], ref, hyp, ref_at, hyp_at, truncated)
        if keep == 0:
            raise InputError(f"max length {max_length} tokens cannot hold even the marked units of {marked_hyp!r}")
        # Aim straight at the budget, then shrink by a tenth at a time if the estimate falls short.
        keep = min(int(keep * 0.9), int(full * max_length / len(ids)))
        ref, hyp = _trim(marked_ref, keep), _trim(marked_hyp, keep)
        truncated = True


def encode_pairs(tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int, template: str = TEMPLATE,
                 chunk: int = 1024) -> list[Encoded]:
    """:func:`encode_pair` for many pairs, tokenising them in batches (the pairs that are too long
    go through :func:`encode_pair` one by one)."""
    encoded: list[Encoded] = []
    for start in range(0, len(pairs), chunk):
        part = pairs[start : start + chunk]
        for ref, hyp in part:
            _check_marked(ref, hyp)
        formatted = [_format(template, ref, hyp) for ref, hyp in part]
        enc = tokenizer([f[0] for f in formatted], return_offsets_mapping=True, add_special_tokens=True)
        for (ref, hyp), (_, ref_at, hyp_at), ids, offsets in zip(part, formatted, enc["input_ids"], enc["offset_mapping"]):
            if len(ids) > max_length:
                encoded.append(encode_pair(tokenizer, ref, hyp, max_length, template))
            else:
                encoded.append(_encoded(ids, offsets, ref, hyp, ref_at, hyp_at, False))
    return encoded


def check_tokenizer(tokenizer: Any, where: str) -> None:
    """The student needs character offsets, which only "fast" (Rust) tokenizers give."""
    if not getattr(tokenizer, "is_fast", False):
        raise JudgeError(f"{where}: the tokenizer is not a fast tokenizer; the student needs its character "
                         "offsets to find the marked spans (save a tokenizer.json with the backbone)")


def pad_token_id(tokenizer: Any) -> int:
    """The id used for padding (masked out, so any id works): pad, else EOS, else 0."""
    for attr in ("pad_token_id", "eos_token_id"):
        value = getattr(tokenizer, attr, None)
        if isinstance(value, int):
            return value
    return 0


def collate(batch: Sequence[Encoded], pad_id: int) -> dict[str, Any]:
    """Right-padded tensors for a batch: input_ids, attention_mask, last (index of the last token)
    and the two span masks (float, one row per example)."""
    import torch

    width = max(len(e.input_ids) for e in batch)
    n = len(batch)
    input_ids = torch.full((n, width), pad_id, dtype=torch.long)
    attention = torch.zeros((n, width), dtype=torch.long)
    ref_mask = torch.zeros((n, width), dtype=torch.float32)
    hyp_mask = torch.zeros((n, width), dtype=torch.float32)
    for i, e in enumerate(batch):
        length = len(e.input_ids)
        input_ids[i, :length] = torch.tensor(e.input_ids, dtype=torch.long)
        attention[i, :length] = 1
        ref_mask[i, e.ref_span[0] : e.ref_span[1]] = 1.0
        hyp_mask[i, e.hyp_span[0] : e.hyp_span[1]] = 1.0
    last = torch.tensor([len(e.input_ids) - 1 for e in batch], dtype=torch.long)
    return {"input_ids": input_ids, "attention_mask": attention, "last": last, "ref_mask": ref_mask, "hyp_mask": hyp_mask}


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices in batches of similar length (longest first), for inference with little padding."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def bucketed_batches(lengths: Sequence[int], batch_size: int, rng: random.Random, pool: int = 50) -> list[list[int]]:
    """Shuffled training batches of similar length: shuffle, sort within pools of ``pool`` batches,
    cut into batches, shuffle the batches."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    batches = []
    step = batch_size * pool
    for start in range(0, len(order), step):
        chunk = sorted(order[start : start + step], key=lambda i: lengths[i])
        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches
