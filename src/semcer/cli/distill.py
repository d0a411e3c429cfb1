"""``semcer distill``: train the paper's transformer student on judged edits, for any local backbone."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from semcer.cli.options import Once, seed

HELP = """\
Train a transformer student to reproduce a judge: the paper's distilled scorer (Table 14), on any
local backbone (a causal LM directory saved with save_pretrained, with a fast tokenizer).

The student reads each edit's marked pair (reference and output lines, the edit between ⟦ ⟧) as
one text of at most --max-length tokens; a longer pair loses context evenly around the marks.
Its readout is the last token's hidden state with the mean hidden states of the reference span and
of the output span, their product and their absolute difference; a small head turns it into the
five level probabilities. All weights are trained. Loss: KL divergence from the judge's
distribution plus squared error on the expected rating.

DATA is one of:
  a judged-edit store (SQLite, filled by `semcer score --store` with a judge),
  its Parquet export (`semcer store export STORE judged.parquet`), or
  a labelled JSONL file such as data/severity/train.jsonl.
A store or export holding several judges needs --judge to pick the one to learn.

A validation split (--val-fraction; by reference line where the data has line ids, else by edit)
is scored after every epoch; the checkpoint in --out is always the best epoch by validation loss,
and training stops after --patience epochs without improvement. --out receives backbone/ (the
trained backbone and tokenizer), head.safetensors and config.json (options, data hashes, metrics
of every epoch). Score with it:  semcer score REFS HYPS --judge student:OUT

Needs torch and transformers: pip install "semcer[hf]". A GPU is used when there is one.

examples:
  semcer store export judged.sqlite judged.parquet
  semcer distill --data judged.parquet --backbone ~/models/Qwen3.5-0.8B-Base --out students/q08
  semcer distill --data data/severity/train.jsonl --backbone ./tiny-lm --out /tmp/s --epochs 1 --device cpu
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("distill", help="train a transformer student (the paper's distilled scorer) on judged edits",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, metavar="FILE", action=Once,
                   help="judged edits: a store (.sqlite), a Parquet export or a labelled .jsonl")
    p.add_argument("--backbone", required=True, metavar="PATH", help="local model directory (save_pretrained layout)")
    p.add_argument("--out", required=True, metavar="DIR", action=Once, help="checkpoint directory to write")
    p.add_argument("--judge", metavar="IDENTITY", help="learn this judge's edits (needed when DATA holds several)")
    p.add_argument("--name", metavar="NAME", help="name in the student's judge identity (default: the name of DIR)")
    p.add_argument("--epochs", type=int, default=3, metavar="N", help="at most N passes over the data (default: %(default)s)")
    p.add_argument("--batch-size", type=int, default=8, metavar="B", help="edits per step (default: %(default)s)")
    p.add_argument("--grad-accum", type=int, default=1, metavar="K",
                   help="accumulate K batches per optimiser step (effective batch B·K; default: %(default)s)")
    p.add_argument("--lr", type=float, default=2e-5, metavar="LR", help="backbone learning rate (default: %(default)g)")
    p.add_argument("--head-lr", type=float, default=1e-3, metavar="LR",
                   help="learning rate of the new head (default: %(default)g)")
    p.add_argument("--max-length", type=int, default=2048, metavar="L",
                   help="tokens per marked pair (default: %(default)s, as in the paper)")
    p.add_argument("--mse-weight", type=float, default=1.0, metavar="W",
                   help="weight of the squared error on the expected rating beside the KL term (default: %(default)g)")
    p.add_argument("--val-fraction", type=float, default=0.05, metavar="F",
                   help="share of lines (or edits) held out for validation (default: %(default)g; 0: none, no early stop)")
    p.add_argument("--patience", type=int, default=2, metavar="P",
                   help="stop after P epochs without a lower validation loss (default: %(default)s)")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                   help="where to train: auto picks a CUDA GPU when there is one (default: %(default)s)")
    p.add_argument("--precision", default="auto", choices=("auto", "fp32", "bf16"),
                   help="auto: bf16 autocast on a GPU that supports it, float32 otherwise (default: %(default)s)")
    p.add_argument("--gradient-checkpointing", action="store_true",
                   help="recompute activations in the backward pass: less GPU memory for long pairs, slower steps")
    p.add_argument("--seed", type=seed, default=0, metavar="S",
                   help="seed of the split, the head and the order (default: %(default)s)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing student checkpoint in DIR")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from semcer.io.judged import load_judged_edits
    from semcer.judges.student import require_hf

    require_hf()
    from semcer.training.student import TrainConfig, train_student

    cfg = TrainConfig(
        max_length=args.max_length, epochs=args.epochs, batch_size=args.batch_size, grad_accum=args.grad_accum,
        lr=args.lr, head_lr=args.head_lr, mse_weight=args.mse_weight, val_fraction=args.val_fraction,
        patience=args.patience, device=args.device, precision=args.precision,
        gradient_checkpointing=args.gradient_checkpointing, seed=args.seed,
    )
    cfg.check()
    rows = load_judged_edits(args.data, judge=args.judge)
    bar = _ProgressBar(enabled=not args.quiet and sys.stderr.isatty())
    try:
        result = train_student(rows, Path(args.backbone).expanduser(), Path(args.out), cfg, name=args.name,
                               source=str(args.data), overwrite=args.overwrite, progress=bar)
    finally:
        bar.close()
    print(_summary(result))
    return 0


class _ProgressBar:
    """A tqdm bar per epoch on standard error, and one line per finished epoch."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None

    def __call__(self, event: dict[str, Any]) -> None:
        if event["event"] == "step" and self.enabled:
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=event["steps"], desc=f"epoch {event['epoch']}", unit="batch", file=sys.stderr,
                                leave=False)
            self.bar.update(1)
            self.bar.set_postfix(loss=f"{event['loss']:.4f}", refresh=False)
        elif event["event"] == "epoch":
            self.close()
            print(_epoch_line(event), file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _fmt(value: Any, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _epoch_line(m: dict[str, Any]) -> str:
    return (f"epoch {m['epoch']}: train loss {_fmt(m['train_loss'])}  val loss {_fmt(m.get('val_loss'))}  "
            f"val Spearman {_fmt(m.get('val_spearman'), 3)}  ({m['seconds']:.0f} s)")


def _summary(result: Any) -> str:
    config, best = result.config, result.best
    data = config["data"]
    last_train = next((m["train_loss"] for m in reversed(result.metrics) if m["train_loss"] is not None), None)
    stop = "stopped early" if config.get("stopped_early") else "all epochs run"
    lines = [
        f"student checkpoint: {result.out}",
        f"data: {data['train_rows']} train / {data['val_rows']} validation edits (split by {data['split']}), "
        f"train sha256 {data['train_sha256'][:16]}",
        f"best epoch: {config['best_epoch']} of {len(result.metrics) - 1} ({stop})",
        f"train loss (last epoch): {_fmt(last_train)}",
        f"val loss: {_fmt(best.get('val_loss'))}   val Spearman: {_fmt(best.get('val_spearman'), 3)}   "
        f"val mode accuracy: {_fmt(best.get('val_mode_accuracy'), 3)}",
        f"score with it: semcer score REFS HYPS --judge student:{result.out}",
    ]
    return "\n".join(lines)
