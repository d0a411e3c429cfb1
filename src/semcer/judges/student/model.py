"""The transformer student: a backbone, the span readout, and a small head to five level logits.

Readout (paper, Table 14: "last token and the pooled reference and output spans"): the hidden state
of the last token, the mean of the hidden states over the reference span and over the output span
(the tokens between ⟦ and ⟧ on each line, or the two marks when the span is empty; see
:mod:`.data`), their elementwise product and their absolute difference, concatenated. A layer norm
and a two-layer MLP turn that into five logits; softmax gives the level distribution, whose
expected rating is the severity and whose argmax is the mode. Loss: KL divergence from the judge's
distribution plus a weighted squared error on the expected rating.

This module imports torch; import it only after :func:`.data.require_hf`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, cast

import torch
import torch.nn.functional as F
from torch import nn

from semcer.errors import JudgeError
from semcer.judges.base import loading
from semcer.judges.distribution import LEVELS, RATINGS
from semcer.judges.student.data import (
    BACKBONE_DIR,
    HEAD_FILE,
    check_tokenizer,
    collate,
    encode_pairs,
    length_sorted_batches,
    pad_token_id,
    read_config,
)

#: Readout parts, in the order they are concatenated.
READOUT_PARTS: tuple[str, ...] = ("last", "ref", "out", "prod", "absdiff")



def pool_span(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of ``hidden`` (B, T, H) over the positions where ``mask`` (B, T) is 1."""
    mask = mask.to(hidden.dtype)
    total = torch.einsum("bth,bt->bh", hidden, mask)
    return total / mask.sum(dim=1, keepdim=True).clamp_min(1.0)


def readout(hidden: torch.Tensor, last: torch.Tensor, ref_mask: torch.Tensor, hyp_mask: torch.Tensor,
            parts: Sequence[str] = READOUT_PARTS) -> torch.Tensor:
    """The readout vector (B, len(parts)·H) from the backbone's last hidden states."""
    rows = torch.arange(hidden.shape[0], device=hidden.device)
    ref = pool_span(hidden, ref_mask)
    out = pool_span(hidden, hyp_mask)
    available = {
        "last": lambda: hidden[rows, last],
        "ref": lambda: ref,
        "out": lambda: out,
        "prod": lambda: ref * out,
        "absdiff": lambda: (ref - out).abs(),
    }
    return torch.cat([available[part]() for part in parts], dim=-1)


class StudentHead(nn.Module):
    """Layer norm, then Linear → GELU → dropout → Linear to the five level logits."""

    def __init__(self, in_features: int, hidden: int = 256, dropout: float = 0.1) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(in_features)
        self.fc1 = nn.Linear(in_features, hidden)
        self.dropout = nn.Dropout(dropout)
        self.fc2 = nn.Linear(hidden, LEVELS)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.dropout(F.gelu(self.fc1(self.norm(features)))))


class StudentModel(nn.Module):
    """Backbone + readout + head; ``forward`` takes a batch from :func:`.data.collate` and gives logits."""

    def __init__(self, backbone: nn.Module, head: StudentHead, parts: Sequence[str] = READOUT_PARTS) -> None:
        super().__init__()
        unknown = [p for p in parts if p not in READOUT_PARTS]
        if unknown or not parts:
            raise JudgeError(f"unknown readout part(s) {unknown}; choose from {', '.join(READOUT_PARTS)}")
        self.backbone = backbone
        self.head = head
        self.parts = tuple(parts)

    def hidden_states(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        out = self.backbone(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)
        hidden = getattr(out, "last_hidden_state", None)
        return out[0] if hidden is None else hidden

    def features(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """The readout vector, in float32 whatever the backbone computes in."""
        hidden = self.hidden_states(batch["input_ids"], batch["attention_mask"]).float()
        return readout(hidden, batch["last"], batch["ref_mask"], batch["hyp_mask"], self.parts)

    def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.head(self.features(batch))


def hidden_size(backbone: nn.Module) -> int:
    """Width of the backbone's hidden states (read from its input embeddings, whatever the config calls it)."""
    return int(cast(Any, backbone).get_input_embeddings().embedding_dim)


def expected_rating(logits: torch.Tensor) -> torch.Tensor:
    """Σ softmax(logits)_k · k/4 per row."""
    ratings = torch.tensor(RATINGS, dtype=logits.dtype, device=logits.device)
    return logits.softmax(dim=-1) @ ratings


def student_loss(logits: torch.Tensor, target: torch.Tensor, mse_weight: float
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(loss, kl, mse) for logits (B, 5) against target distributions (B, 5), each a batch mean.

    kl = KL(target ‖ softmax(logits)); mse = (expected rating − target's expected rating)²;
    loss = kl + mse_weight · mse.
    """
    logits = logits.float()
    kl = F.kl_div(logits.log_softmax(dim=-1), target, reduction="batchmean")
    ratings = torch.tensor(RATINGS, dtype=logits.dtype, device=logits.device)
    mse = ((expected_rating(logits) - target @ ratings) ** 2).mean()
    return kl + mse_weight * mse, kl, mse


# -- devices and precision -----------------------------------------------------------------------


def resolve_device(device: str) -> torch.device:
    """``auto`` picks CUDA when available, else CPU; asking for CUDA without it is an error."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise JudgeError(f"device {device!r} requested but torch sees no CUDA GPU (torch {torch.__version__})")
    try:
        return torch.device(device)
    except RuntimeError:
        raise JudgeError(f"unknown device {device!r}; use auto, cpu or cuda") from None


def autocast(device: torch.device, precision: str):
    """bf16 autocast for ``precision`` bf16, or auto on a GPU that supports it; otherwise full float32."""
    if precision not in ("auto", "fp32", "bf16"):
        raise JudgeError(f"unknown precision {precision!r}; use auto, fp32 or bf16")
    use_bf16 = precision == "bf16" or (
        precision == "auto" and device.type == "cuda" and torch.cuda.is_bf16_supported()
    )
    return torch.autocast(device.type, dtype=torch.bfloat16) if use_bf16 else nullcontext()


# -- building, saving, loading ------------------------------------------------------------------


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' load reports and shard progress bars for the duration (then restore).

    Loading a causal LM's checkpoint as a base model always reports the unused LM head, which is
    expected here and would only alarm a user.
    """
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def load_backbone(path: str | os.PathLike) -> tuple[nn.Module, Any]:
    """The backbone (base model, no LM head) and its fast tokenizer from a local directory."""
    from transformers import AutoModel, AutoTokenizer

    path = Path(path)
    if not path.is_dir():
        raise JudgeError(f"{path}: no such backbone directory (a local model saved with save_pretrained)")
    with quiet_transformers():
        with loading(str(path), "the backbone's tokenizer"):
            tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        with loading(str(path), "the backbone"):
            backbone = AutoModel.from_pretrained(path, local_files_only=True)
    check_tokenizer(tokenizer, str(path))
    return backbone, tokenizer


def build_model(backbone: nn.Module, parts: Sequence[str], head_hidden: int, dropout: float, seed: int) -> StudentModel:
    """A student with a freshly initialised head (seeded, so a rerun starts from the same head)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        head = StudentHead(len(parts) * hidden_size(backbone), head_hidden, dropout)
    return StudentModel(backbone, head, parts)


def save_checkpoint(model: StudentModel, tokenizer: Any, directory: Path) -> None:
    """Backbone and tokenizer (``save_pretrained``) and head weights into ``directory``."""
    from safetensors.torch import save_file

    directory.mkdir(parents=True, exist_ok=True)
    with quiet_transformers():
        cast(Any, model.backbone).save_pretrained(directory / BACKBONE_DIR)
        tokenizer.save_pretrained(directory / BACKBONE_DIR)
    state = {k: v.detach().to("cpu").contiguous() for k, v in model.head.state_dict().items()}
    save_file(state, str(directory / HEAD_FILE))


def load_student(directory: str | os.PathLike, device: torch.device) -> tuple[StudentModel, Any, dict[str, Any]]:
    """The trained student of a checkpoint directory, in eval mode on ``device``."""
    from safetensors.torch import load_file

    directory = Path(directory)
    config = read_config(directory)
    backbone, tokenizer = load_backbone(directory / BACKBONE_DIR)
    head_cfg = config["head"]
    parts = tuple(config["readout"])
    with loading(str(directory / HEAD_FILE), "the head weights"):
        head = StudentHead(len(parts) * hidden_size(backbone), int(head_cfg["hidden"]), float(head_cfg["dropout"]))
        head.load_state_dict(load_file(str(directory / HEAD_FILE)))
    model = StudentModel(backbone, head, parts)
    with loading(str(directory), f"the student onto device {str(device)!r}"):
        model.to(device)
    model.eval()
    return model, tokenizer, config


# -- inference ----------------------------------------------------------------------------------


@torch.no_grad()
def predict_logits(model: StudentModel, encoded: Sequence[Any], pad_id: int, *, batch_size: int,
                   device: torch.device, precision: str = "auto") -> torch.Tensor:
    """Logits (N, 5) in input order; batches are formed by length (longest first) to limit padding."""
    was_training = model.training
    model.eval()
    out = torch.empty((len(encoded), LEVELS), dtype=torch.float32)
    try:
        for idx in length_sorted_batches([len(e.input_ids) for e in encoded], batch_size):
            batch = {k: v.to(device) for k, v in collate([encoded[i] for i in idx], pad_id).items()}
            with autocast(device, precision):
                logits = model(batch)
            out[torch.tensor(idx)] = logits.float().cpu()
    finally:
        model.train(was_training)
    return out


def distributions(logits: torch.Tensor) -> list[tuple[float, ...]]:
    """Five-level distributions from logits, computed in float64 and summing to 1."""
    probs = logits.double().softmax(dim=-1)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    return [tuple(float(x) for x in row) for row in probs.tolist()]


def predict_pairs(model: StudentModel, tokenizer: Any, pairs: Sequence[tuple[str, str]], *, max_length: int,
                  template: str, batch_size: int, device: torch.device, precision: str = "auto") -> list[tuple[float, ...]]:
    """The level distribution of each (marked_ref, marked_hyp) pair, in input order."""
    encoded = encode_pairs(tokenizer, list(pairs), max_length, template)
    logits = predict_logits(model, encoded, pad_token_id(tokenizer), batch_size=batch_size, device=device,
                            precision=precision)
    return distributions(logits)
