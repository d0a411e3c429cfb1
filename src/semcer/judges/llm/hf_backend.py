"""A local Hugging Face causal LM: next-token probabilities of the label tokens, batched, CPU or GPU.

Loads only from a local directory (semcer never downloads a model). Prompts are rendered with the
tokenizer's chat template when it has one, else in a plain format; batches are left-padded with
explicit position ids, so a padded prompt gets exactly the logits it would get alone.
The helpers for rendering, label tokens and the model fingerprint are shared with the vLLM backend.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from semcer.errors import JudgeError
from semcer.judges.base import JudgeSpec, JudgeStats, loading, whole_number
from semcer.judges.llm.judge import Reading
from semcer.judges.llm.prompt import Prompt

_HF_HINT = 'the hf: judge needs torch and transformers: pip install "semcer[hf]"'

#: Files whose bytes are hashed whole into the fingerprint (small: configuration and tokenizer).
_SMALL_FILES = (
    "config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
    "special_tokens_map.json", "chat_template.jinja", "chat_template.json", "vocab.json",
    "merges.txt", "tokenizer.model", "added_tokens.json",
)
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
#: Bytes read from each end of a weights file for its fingerprint (whole-file hashes of GBs are too slow).
_EDGE = 1 << 20


def model_fingerprint(path: str | os.PathLike) -> str:
    """A short hash of a model directory that changes when its weights or tokenizer change.

    Hashes the configuration and tokenizer files whole, and for each weights file its name, size
    and first and last MiB (which hold the safetensors header and tensor data): stable when a
    directory is copied (no mtimes), cheap on multi-GB checkpoints.
    """
    root = Path(path)
    h = hashlib.sha256()
    for name in _SMALL_FILES:
        f = root / name
        if f.is_file():
            h.update(f"{name}\0".encode())
            h.update(f.read_bytes())
    weights = sorted(p for p in root.iterdir() if p.is_file() and p.name.endswith(_WEIGHT_SUFFIXES))
    for f in weights:
        size = f.stat().st_size
        h.update(f"{f.name}\0{size}\0".encode())
        with open(f, "rb") as fh:
            h.update(fh.read(_EDGE))
            if size > 2 * _EDGE:
                fh.seek(size - _EDGE)
                h.update(fh.read(_EDGE))
    return h.hexdigest()[:12]


def model_name(path: str | os.PathLike) -> str:
    """The model's name: ``_name_or_path`` of its config when that is a hub id, else the folder name.

    A directory inside a Hugging Face cache (``models--org--name/snapshots/REV``) gives ``org/name``.
    """
    root = Path(path).resolve()
    try:
        config = json.loads((root / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = {}
    name = config.get("_name_or_path") if isinstance(config, dict) else None
    if isinstance(name, str) and name and not os.path.isabs(name) and not name.startswith("."):
        return name
    if root.parent.name == "snapshots" and root.parent.parent.name.startswith("models--"):
        return root.parent.parent.name[len("models--"):].replace("--", "/")
    return root.name


def render_text(tokenizer: Any, prompt: Prompt, chat_template_kwargs: Mapping[str, Any] | None = None) -> tuple[str, bool]:
    """The prompt as text for a local causal LM, and whether it came from the chat template.

    With a chat template: the system and user messages and the generation prompt (the answer
    follows directly). A template that refuses a system message gets it prepended to the user
    message. Without one: :meth:`Prompt.plain`.
    """
    if getattr(tokenizer, "chat_template", None):
        kwargs = dict(chat_template_kwargs or {})
        try:
            return tokenizer.apply_chat_template(prompt.messages(), tokenize=False, add_generation_prompt=True, **kwargs), True
        except Exception:  # e.g. "System role not supported"
            merged = [{"role": "user", "content": f"{prompt.system}\n\n{prompt.user}"}]
            return tokenizer.apply_chat_template(merged, tokenize=False, add_generation_prompt=True, **kwargs), True
    return prompt.plain(), False


def label_token_ids(tokenizer: Any, labels: Sequence[str]) -> list[list[int]]:
    """For each label, the ids of the tokens that answer it; the first is the label's own token.

    Each label must encode to one token, and the five tokens must differ (JudgeError otherwise).
    Tokens that decode to the label with white space around it (``" 0"``) answer it too, as on
    the server side, so a plain-format prompt whose answer follows a space reads the same.
    """
    own: list[int] = []
    for label in labels:
        ids = tokenizer.encode(label, add_special_tokens=False)
        if len(ids) != 1:
            raise JudgeError(
                f"label {label!r} encodes to {len(ids)} tokens {ids} with this tokenizer; the judge needs one "
                "token per label: choose other labels (--labels letters, or five strings such as A,B,C,D,E)"
            )
        own.append(ids[0])
    if len(set(own)) != len(own):
        raise JudgeError(f"labels {', '.join(labels)} share tokens ({own}); choose labels that encode to distinct tokens")
    variants: list[list[int]] = [[i] for i in own]
    index = {label: k for k, label in enumerate(labels)}
    vocab = tokenizer.get_vocab()
    longest = max(len(label) for label in labels) + 4
    for piece, token_id in vocab.items():
        if len(piece) > longest or token_id in own:
            continue
        if not any(label in piece for label in labels):
            continue
        k = index.get(tokenizer.decode([token_id]).strip())
        if k is not None:
            variants[k].append(token_id)
    return variants


class HFBackend:
    """Next-token probabilities of the labels from a local ``transformers`` causal LM."""

    name = "hf"

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        device: str | None = None,
        dtype: str = "auto",
        batch_size: int = 8,
        chat_template_kwargs: Mapping[str, Any] | None = None,
        model: Any = None,
        tokenizer: Any = None,
    ) -> None:
        self.path = Path(path)
        if not self.path.is_dir() or not (self.path / "config.json").is_file():
            raise JudgeError(f"hf:{path}: not a local model directory with a config.json "
                             "(semcer loads local models only, never downloads)")
        batch_size = whole_number("batch_size", batch_size, 1)
        try:
            import torch
            import transformers
        except ImportError:
            raise JudgeError(_HF_HINT) from None
        self._torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.dtype = dtype
        self.batch_size = batch_size
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.model, self.tokenizer = self._load(transformers, model, tokenizer)
        self._pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        if self._pad_id is None:
            self._pad_id = 0  # every padded position is masked out, so any id will do
        self._fingerprint = model_fingerprint(self.path)
        self._name = model_name(self.path)
        self._variants: list[list[int]] = []

    def _load(self, transformers: Any, model: Any, tokenizer: Any) -> tuple[Any, Any]:
        """The model (in eval mode, on the device) and the tokenizer (padding on the left), each
        loaded from the directory unless given. Any failure, from a directory that is not a
        transformers model to a device torch does not know, is one JudgeError line naming the
        directory and the first line of the reason."""
        torch_dtype = self.dtype if self.dtype == "auto" else getattr(self._torch, str(self.dtype), None)
        if not isinstance(torch_dtype, (str, self._torch.dtype)):  # torch.cuda, torch.nn: not dtypes either
            raise JudgeError(f"dtype {self.dtype!r} is not a torch dtype (float32, bfloat16, float16) or 'auto'")
        where = f"hf:{self.path}"
        if tokenizer is None:
            with loading(where, "the tokenizer"):
                tokenizer = transformers.AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        if model is None:
            with loading(where, "the model"):
                model = transformers.AutoModelForCausalLM.from_pretrained(self.path, dtype=torch_dtype,
                                                                          local_files_only=True)
            with loading(where, f"the model onto device {self.device!r}"):
                model.to(self.device)
        tokenizer.padding_side = "left"
        return model.eval(), tokenizer

    @property
    def identity(self) -> str:
        """``hf:NAME@FINGERPRINT:dtype=...`` (plus the chat-template options when given)."""
        dtype = str(getattr(self.model, "dtype", self.dtype)).replace("torch.", "")
        extra = f":tmpl={json.dumps(self.chat_template_kwargs, sort_keys=True)}" if self.chat_template_kwargs else ""
        return f"{self.name}:{self._name}@{self._fingerprint}:dtype={dtype}{extra}"

    @property
    def preferred_batch_size(self) -> int:
        return 16 * self.batch_size

    def __repr__(self) -> str:
        return f"HFBackend({str(self.path)!r}, device={self.device!r})"

    def spec(self) -> JudgeSpec:
        options: dict[str, Any] = {"device": self.device, "dtype": self.dtype, "batch_size": self.batch_size}
        if self.chat_template_kwargs:
            options["chat_template_kwargs"] = self.chat_template_kwargs
        return JudgeSpec(f"hf:{self.path}", options)

    def prepare(self, labels: Sequence[str]) -> None:
        self._variants = label_token_ids(self.tokenizer, labels)

    def encode(self, prompt: Prompt) -> list[int]:
        """The token ids of a rendered prompt (special tokens come from the chat template itself)."""
        text, templated = render_text(self.tokenizer, prompt, self.chat_template_kwargs)
        return self.tokenizer.encode(text, add_special_tokens=not templated)

    def read(self, prompts: Sequence[Prompt], labels: Sequence[str], stats: JudgeStats) -> list[Reading]:
        if not self._variants:
            self.prepare(labels)
        encoded = [self.encode(p) for p in prompts]
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))  # similar lengths, less padding
        out: list[Reading | None] = [None] * len(encoded)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            stats.requests += 1
            stats.in_flight += len(chunk)
            try:
                probs = self.label_probs([encoded[i] for i in chunk])
            finally:
                stats.in_flight -= len(chunk)
            for i, p in zip(chunk, probs):
                out[i] = Reading(label_probs=p)
                stats.prompt_tokens += len(encoded[i])
            stats.tokens_reported = True
            stats.edits += len(chunk)
        return out  # type: ignore[return-value]

    def label_probs(self, batch: Sequence[Sequence[int]]) -> list[tuple[float, ...]]:
        """The (unnormalised) probability of each label after each prompt of a batch."""
        torch = self._torch
        width = max(len(ids) for ids in batch)
        input_ids = torch.full((len(batch), width), self._pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, ids in enumerate(batch):
            input_ids[row, width - len(ids):] = torch.tensor(ids, dtype=torch.long)
            mask[row, width - len(ids):] = 1
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            logits = self._last_logits(input_ids.to(self.device), mask.to(self.device), positions.to(self.device))
            logp = torch.log_softmax(logits.double(), dim=-1).cpu()  # double: label masses near 0 stay exact
        out = []
        for row in logp:
            out.append(tuple(math.fsum(math.exp(row[i].item()) for i in ids) for ids in self._variants))
        return out

    def _last_logits(self, input_ids: Any, mask: Any, positions: Any) -> Any:
        try:
            result = self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions, logits_to_keep=1)
        except TypeError:  # older transformers: no logits_to_keep
            result = self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions)
        return result.logits[:, -1, :]

    def close(self) -> None:
        self.model = None
