"""Training the transformer student on judged edits: split, fit, stop early, write a checkpoint.

All weights are trained (backbone and head, as in the paper); the head, new, gets its own larger
learning rate. Each epoch ends with a pass over the validation edits; the checkpoint on disk is
always the best epoch so far by validation loss, and training stops when that loss has not improved
for ``patience`` epochs. The checkpoint directory holds ``backbone/`` (``save_pretrained``, with
the tokenizer), ``head.safetensors`` and ``config.json`` (everything needed to reload, what the
student was trained on, and the metrics of every epoch).

This module imports torch; import it only after :func:`semcer.judges.student.data.require_hf`.
Training never touches the global random generators of the caller: torch's are forked for the
run (``torch.random.fork_rng``) and Python's ``random`` is used through its own seeded instance.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import torch

from semcer.atomic import atomic_write
from semcer.errors import InputError
from semcer.judges.distribution import LEVELS, RATINGS, mode_of
from semcer.judges.student.data import (
    CONFIG_FILE,
    TEMPLATE,
    Encoded,
    StudentRow,
    bucketed_batches,
    collate,
    data_hash,
    encode_pairs,
    pad_token_id,
    split_rows,
)
from semcer.judges.student.model import (
    READOUT_PARTS,
    StudentModel,
    autocast,
    build_model,
    expected_rating,
    load_backbone,
    predict_logits,
    resolve_device,
    save_checkpoint,
    student_loss,
)
from semcer.statistics.correlation import spearman
from semcer.version import __version__

#: Version of the checkpoint layout written to config.json.
FORMAT_VERSION = 1


@dataclass(frozen=True)
class TrainConfig:
    """Everything that shapes a training run (all of it is written to the checkpoint's config)."""

    max_length: int = 2048
    epochs: int = 3
    batch_size: int = 8
    eval_batch_size: int = 16
    lr: float = 2e-5
    head_lr: float = 1e-3
    weight_decay: float = 0.01
    warmup_fraction: float = 0.05
    max_grad_norm: float = 1.0
    grad_accum: int = 1
    val_fraction: float = 0.05
    patience: int = 2
    mse_weight: float = 1.0
    seed: int = 0
    device: str = "auto"
    precision: str = "auto"
    gradient_checkpointing: bool = False
    head_hidden: int = 256
    dropout: float = 0.1
    readout: tuple[str, ...] = READOUT_PARTS
    template: str = TEMPLATE

    def check(self) -> None:
        """An InputError naming the option out of range (each is checked, and named, on its own)."""
        for name in ("max_length", "batch_size", "eval_batch_size", "grad_accum", "head_hidden", "patience"):
            _check_whole(name, getattr(self, name), 1)
        _check_whole("epochs", self.epochs, 0)
        for name, rule in _REAL_RULES.items():
            _check_real(name, getattr(self, name), rule)
        if "{ref}" not in self.template or "{hyp}" not in self.template:
            raise InputError("the template must contain {ref} and {hyp}")


#: The real-valued options and their ranges: (words, test). NaN and ±inf fail every test.
_REAL_RULES: dict[str, tuple[str, Callable[[float], bool]]] = {
    "lr": ("more than 0", lambda v: v > 0),
    "head_lr": ("more than 0", lambda v: v > 0),
    "mse_weight": ("0 or more", lambda v: v >= 0),
    "dropout": ("at least 0 and less than 1", lambda v: 0 <= v < 1),
    "val_fraction": ("at least 0 and less than 1", lambda v: 0 <= v < 1),
    "weight_decay": ("0 or more", lambda v: v >= 0),
    "warmup_fraction": ("from 0 to 1", lambda v: 0 <= v <= 1),
    "max_grad_norm": ("0 (no clipping) or more", lambda v: v >= 0),
}
#: The options `semcer distill` sets by a flag: a message names the flag too.
_FLAGS = frozenset({"lr", "head_lr", "mse_weight", "val_fraction", "max_length", "batch_size", "grad_accum",
                    "epochs", "patience"})


def _named(name: str) -> str:
    """An option as a message names it: ``lr (--lr)``, ``head_lr (--head-lr)``, ``dropout``."""
    return f"{name} (--{name.replace('_', '-')})" if name in _FLAGS else name


def _check_real(name: str, value: Any, rule: tuple[str, Callable[[float], bool]]) -> None:
    words, test = rule
    number = not isinstance(value, bool) and isinstance(value, numbers.Real)
    if not number or not math.isfinite(value) or not test(value):
        raise InputError(f"{_named(name)} must be a finite number {words}, got {value!r}")


def _check_whole(name: str, value: Any, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InputError(f"{_named(name)} must be a whole number at least {least}, got {value!r}")


def split_for_training(rows: Sequence[StudentRow], val_fraction: float,
                       seed: int) -> tuple[list[StudentRow], list[StudentRow], str]:
    """:func:`~semcer.judges.student.data.split_rows`, refusing first, in words that say so, a
    fraction that would leave the training split empty (it takes whole lines, or distinct edits)."""
    if not rows:
        raise InputError("no judged edits to train on")
    by_line = all(row.line_id for row in rows)
    units = len({row.line_id if by_line else (row.lang, row.op, row.marked_ref, row.marked_hyp) for row in rows})
    n_val = 0 if val_fraction == 0 else max(1, round(val_fraction * units))
    if n_val >= units and val_fraction > 0:
        unit = "line" if by_line else "distinct edit"
        if units == 1:
            raise InputError(f"--val-fraction {val_fraction:g}: all {len(rows)} judged edits are one {unit}, which the "
                             "validation split takes whole, leaving nothing to train on; give more data, or "
                             "--val-fraction 0 (no validation, no early stop)")
        most = math.floor((units - 1) / units * 1000) / 1000
        raise InputError(f"--val-fraction {val_fraction:g} holds out all {units} {unit}s of the {len(rows)} judged "
                         f"edits, leaving none to train on; give at most {most:g}, or 0 (no validation)")
    return split_rows(rows, val_fraction, seed)


@dataclass
class TrainResult:
    """What a run produced: the checkpoint directory, its config and the per-epoch metrics."""

    out: Path
    config: dict[str, Any]
    metrics: list[dict[str, Any]] = field(default_factory=list)

    @property
    def best(self) -> dict[str, Any]:
        """Metrics of the epoch whose weights are in the checkpoint."""
        best_epoch = self.config["best_epoch"]
        return next(m for m in self.metrics if m["epoch"] == best_epoch)


Progress = Callable[[dict[str, Any]], None]


def evaluate(model: StudentModel, encoded: Sequence[Encoded], rows: Sequence[StudentRow], *, pad_id: int,
             cfg: TrainConfig, device: torch.device) -> dict[str, Any]:
    """Loss, KL, squared error, Spearman of expected ratings and mode accuracy on ``rows``."""
    if not rows:
        return {}
    logits = predict_logits(model, encoded, pad_id, batch_size=cfg.eval_batch_size, device=device,
                            precision=cfg.precision)
    target = torch.tensor([row.p for row in rows], dtype=torch.float32)
    loss, kl, mse = student_loss(logits, target, cfg.mse_weight)
    predicted = expected_rating(logits).tolist()
    label_modes = [mode_of(row.p) for row in rows]
    modes = logits.argmax(dim=-1).tolist()
    return {
        "loss": float(loss), "kl": float(kl), "mse": float(mse),
        "spearman": spearman(predicted, [row.severity for row in rows]),
        "mode_accuracy": sum(a == b for a, b in zip(modes, label_modes)) / len(rows),
    }


def _optimizer(model: StudentModel, cfg: TrainConfig, total_steps: int):
    """AdamW with weight decay on matrices only, the head at its own rate; linear warmup then decay."""
    groups = []
    for params, lr in ((list(model.backbone.parameters()), cfg.lr), (list(model.head.parameters()), cfg.head_lr)):
        params = [p for p in params if p.requires_grad]
        groups.append({"params": [p for p in params if p.ndim >= 2], "lr": lr, "weight_decay": cfg.weight_decay})
        groups.append({"params": [p for p in params if p.ndim < 2], "lr": lr, "weight_decay": 0.0})
    optimizer = torch.optim.AdamW([g for g in groups if g["params"]])
    warmup = max(1, round(cfg.warmup_fraction * total_steps)) if cfg.warmup_fraction > 0 else 0

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup))

    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def _train_epoch(model: StudentModel, encoded: Sequence[Encoded], rows: Sequence[StudentRow], batches: list[list[int]],
                 optimizer, scheduler, *, pad_id: int, cfg: TrainConfig, device: torch.device, epoch: int,
                 progress: Progress | None) -> float:
    """One pass over the training edits; returns the mean training loss (per edit)."""
    model.train()
    total, seen = 0.0, 0
    optimizer.zero_grad(set_to_none=True)
    for step, idx in enumerate(batches, 1):
        batch = {k: v.to(device) for k, v in collate([encoded[i] for i in idx], pad_id).items()}
        target = torch.tensor([rows[i].p for i in idx], dtype=torch.float32, device=device)
        with autocast(device, cfg.precision):
            logits = model(batch)
        loss, _, _ = student_loss(logits, target, cfg.mse_weight)
        (loss / cfg.grad_accum).backward()
        if step % cfg.grad_accum == 0 or step == len(batches):
            if cfg.max_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
        value = loss.detach().item()
        total += value * len(idx)
        seen += len(idx)
        if progress is not None:
            progress({"event": "step", "epoch": epoch, "step": step, "steps": len(batches), "loss": value})
    return total / max(1, seen)


def _prepare_out(out: Path, overwrite: bool) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        if not overwrite:
            raise InputError(f"{out}: exists and is not empty; choose another --out or pass --overwrite")
        if not out.is_dir() or not (out / CONFIG_FILE).is_file():
            raise InputError(f"{out}: exists and is not a student checkpoint; refusing to replace it")


def _write_checkpoint(model: StudentModel, tokenizer: Any, out: Path, config: dict[str, Any]) -> None:
    """Write the checkpoint beside ``out``, then swap it in, so ``out`` is never half written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        save_checkpoint(model, tokenizer, tmp)
        _write_config(tmp, config)
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _write_config(directory: Path, config: dict[str, Any]) -> None:
    with atomic_write(directory / CONFIG_FILE) as fh:
        fh.write(json.dumps(config, ensure_ascii=False, indent=2, allow_nan=False) + "\n")




def train_student(
    rows: Sequence[StudentRow],
    backbone: str | os.PathLike,
    out: str | os.PathLike,
    cfg: TrainConfig = TrainConfig(),
    *,
    name: str | None = None,
    source: str = "",
    overwrite: bool = False,
    progress: Progress | None = None,
) -> TrainResult:
    """Train a student on ``rows`` from the local ``backbone`` and write the checkpoint to ``out``.

    ``name`` goes into the judge identity (default: the name of ``out``); ``source`` is recorded in
    the config (where the rows came from). ``progress`` receives ``{"event": "step", ...}`` after each
    batch and ``{"event": "epoch", ...}`` with the metrics after each epoch (epoch 0: before training).
    The caller's random generators are left as they were.
    """
    cfg.check()
    out = Path(out)
    _prepare_out(out, overwrite)
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(cfg.seed)
        run = _Run.start(rows, backbone, out, cfg, name=name, source=source, progress=progress)
        return run.fit()


@dataclass
class _Run:
    """One training run: the model, the encoded data and what has been recorded so far."""

    cfg: TrainConfig
    out: Path
    model: StudentModel
    tokenizer: Any
    device: torch.device
    pad_id: int
    train_rows: Sequence[StudentRow]
    val_rows: Sequence[StudentRow]
    train_enc: Sequence[Encoded]
    val_enc: Sequence[Encoded]
    config: dict[str, Any]
    progress: Progress | None
    metrics: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def start(cls, rows: Sequence[StudentRow], backbone: str | os.PathLike, out: Path, cfg: TrainConfig, *,
              name: str | None, source: str, progress: Progress | None) -> _Run:
        train_rows, val_rows, split_unit = split_for_training(rows, cfg.val_fraction, cfg.seed)
        device = resolve_device(cfg.device)
        model_backbone, tokenizer = load_backbone(backbone)
        if cfg.gradient_checkpointing:
            cast(Any, model_backbone).gradient_checkpointing_enable()
        model = build_model(model_backbone, cfg.readout, cfg.head_hidden, cfg.dropout, cfg.seed).to(device)
        train_enc = encode_pairs(tokenizer, [(r.marked_ref, r.marked_hyp) for r in train_rows], cfg.max_length, cfg.template)
        val_enc = encode_pairs(tokenizer, [(r.marked_ref, r.marked_hyp) for r in val_rows], cfg.max_length, cfg.template)
        config = _config(cfg, backbone, name or out.name, source, split_unit, train_rows, val_rows,
                         truncated=sum(e.truncated for e in (*train_enc, *val_enc)), device=device)
        return cls(cfg, out, model, tokenizer, device, pad_token_id(tokenizer), train_rows, val_rows,
                   train_enc, val_enc, config, progress)

    def record(self, epoch: int, train_loss: float | None, started: float) -> dict[str, Any]:
        val = evaluate(self.model, self.val_enc, self.val_rows, pad_id=self.pad_id, cfg=self.cfg, device=self.device)
        entry = {"epoch": epoch, "train_loss": train_loss, **{f"val_{k}": v for k, v in val.items()},
                 "seconds": round(time.monotonic() - started, 3)}
        self.metrics.append(entry)
        if self.progress is not None:
            self.progress({"event": "epoch", **entry})
        return entry

    def fit(self) -> TrainResult:
        cfg = self.cfg
        rng = random.Random(cfg.seed)
        lengths = [len(e.input_ids) for e in self.train_enc]
        steps_per_epoch = math.ceil(math.ceil(len(self.train_rows) / cfg.batch_size) / cfg.grad_accum)
        optimizer, scheduler = _optimizer(self.model, cfg, max(1, steps_per_epoch * cfg.epochs))
        best_loss, best_epoch, since_best = math.inf, 0, 0
        for epoch in range(0, cfg.epochs + 1):
            started = time.monotonic()
            train_loss = None
            if epoch > 0:
                batches = bucketed_batches(lengths, cfg.batch_size, rng)
                train_loss = _train_epoch(self.model, self.train_enc, self.train_rows, batches, optimizer, scheduler,
                                          pad_id=self.pad_id, cfg=cfg, device=self.device, epoch=epoch,
                                          progress=self.progress)
            entry = self.record(epoch, train_loss, started)
            # Without a validation set every epoch counts as the best one (the last is kept).
            loss = entry.get("val_loss", -epoch)
            if loss < best_loss:
                best_loss, best_epoch, since_best = loss, epoch, 0
                self.config.update(best_epoch=best_epoch, metrics=self.metrics)
                _write_checkpoint(self.model, self.tokenizer, self.out, self.config)
            elif epoch > 0:
                since_best += 1
                if since_best >= cfg.patience:
                    break
        self.config.update(best_epoch=best_epoch, metrics=self.metrics, stopped_early=len(self.metrics) - 1 < cfg.epochs)
        _write_config(self.out, self.config)
        return TrainResult(self.out, self.config, self.metrics)


def _config(cfg: TrainConfig, backbone: str | os.PathLike, name: str, source: str, split_unit: str,
            train_rows: Sequence[StudentRow], val_rows: Sequence[StudentRow], *, truncated: int,
            device: torch.device) -> dict[str, Any]:
    import transformers

    training = asdict(cfg)
    for key in ("readout", "template", "max_length", "head_hidden", "dropout", "mse_weight"):
        training.pop(key)
    judges = sorted({row.judge for row in train_rows if row.judge})
    return {
        "format": "semcer-student",
        "format_version": FORMAT_VERSION,
        "name": name,
        "backbone": str(backbone),
        "max_length": cfg.max_length,
        "template": cfg.template,
        "readout": list(cfg.readout),
        "head": {"hidden": cfg.head_hidden, "dropout": cfg.dropout, "levels": LEVELS, "ratings": list(RATINGS)},
        "loss": {"kl_weight": 1.0, "mse_weight": cfg.mse_weight},
        "seed": cfg.seed,
        "training": {**training, "device_used": str(device)},
        "data": {
            "source": source,
            "judges": judges,
            "split": split_unit,
            "train_rows": len(train_rows),
            "val_rows": len(val_rows),
            "train_sha256": data_hash(train_rows),
            "val_sha256": data_hash(val_rows),
            "truncated_pairs": truncated,
        },
        "semcer_version": __version__,
        "torch_version": torch.__version__,
        "transformers_version": transformers.__version__,
        "best_epoch": 0,
        "metrics": [],
    }

