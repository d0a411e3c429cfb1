"""Training the transformer student (semcer.training.student, `semcer distill`) on a tiny backbone:
the loss falls, the checkpoint records its run and reloads to the same predictions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from student_fixtures import MAX_LENGTH, TRAIN, needs_hf

from semcer.judges.student import StudentJudge
from semcer.judges.student.data import data_hash, split_rows


@needs_hf
def test_training_reduces_the_loss(trained_student, student_rows):
    import torch

    from semcer.judges.student.model import student_loss

    out, result, untrained = trained_student
    metrics = result.metrics
    assert [m["epoch"] for m in metrics] == [0, 1, 2, 3, 4]
    assert metrics[0]["train_loss"] is None and metrics[-1]["train_loss"] < metrics[1]["train_loss"]
    assert result.best["val_loss"] < 0.6 * metrics[0]["val_loss"]
    # The loss on the training edits, recomputed from both checkpoints.
    pairs = [(r.marked_ref, r.marked_hyp) for r in student_rows]
    target = torch.tensor([r.p for r in student_rows], dtype=torch.float32)

    def loss_of(directory: Path) -> float:
        p = torch.tensor(StudentJudge(directory, device="cpu").predict(pairs), dtype=torch.float32)
        return float(student_loss(p.log(), target, 1.0)[0])

    assert loss_of(out) < 0.5 * loss_of(untrained)


@needs_hf
def test_checkpoint_config_records_the_run(trained_student, student_rows):
    out, result, _ = trained_student
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert (out / "backbone" / "config.json").is_file() and (out / "head.safetensors").is_file()
    assert config["max_length"] == MAX_LENGTH and config["readout"] == ["last", "ref", "out", "prod", "absdiff"]
    assert config["loss"] == {"kl_weight": 1.0, "mse_weight": 1.0} and config["seed"] == 1
    train, val, _ = split_rows(student_rows, 0.1, seed=1)
    assert config["data"]["train_sha256"] == data_hash(train) and config["data"]["split"] == "line"
    assert config["data"]["train_rows"] == len(train) and config["data"]["val_rows"] == len(val)
    assert len(config["metrics"]) == 5 and config["best_epoch"] == result.config["best_epoch"] > 0
    assert config["semcer_version"] and config["backbone"]


@needs_hf
def test_checkpoint_reloads_and_predicts_identically(trained_student, student_rows, tmp_path):
    import torch

    from semcer.judges.student.data import encode_pairs, pad_token_id
    from semcer.judges.student.model import load_student, predict_logits, save_checkpoint, student_loss

    out, result, _ = trained_student
    cpu = torch.device("cpu")
    model, tokenizer, _config = load_student(out, cpu)
    # The validation loss recorded at the best epoch during training, recomputed from the files.
    _, val, _ = split_rows(student_rows, 0.1, seed=1)
    enc = encode_pairs(tokenizer, [(r.marked_ref, r.marked_hyp) for r in val], MAX_LENGTH)
    logits = predict_logits(model, enc, pad_token_id(tokenizer), batch_size=7, device=cpu)
    loss = float(student_loss(logits, torch.tensor([r.p for r in val]), 1.0)[0])
    assert loss == pytest.approx(result.best["val_loss"], abs=1e-5)
    # Saved again and reloaded: bit-identical logits.
    save_checkpoint(model, tokenizer, tmp_path / "again")
    shutil.copy(out / "config.json", tmp_path / "again" / "config.json")
    again, _, _ = load_student(tmp_path / "again", cpu)
    torch.testing.assert_close(predict_logits(again, enc, pad_token_id(tokenizer), batch_size=3, device=cpu),
                               logits, rtol=0, atol=1e-6)


@needs_hf
def test_distill_cli_runs_one_epoch(student_backbone, student_rows, tmp_path, capsys):
    from semcer.cli import main

    data = tmp_path / "labels.jsonl"
    lines = TRAIN.read_text(encoding="utf-8").splitlines()[::40][:40]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "student"
    args = ["distill", "--data", str(data), "--backbone", str(student_backbone), "--out", str(out), "--epochs", "1",
            "--batch-size", "8", "--max-length", str(MAX_LENGTH), "--val-fraction", "0.2", "--device", "cpu", "-q"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "val Spearman" in captured.out and "best epoch" in captured.out and f"student:{out}" in captured.out
    assert "epoch 1: train loss" in captured.err
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["data"]["source"] == str(data) and len(config["metrics"]) == 2
    assert main(args) == 2 and "--overwrite" in capsys.readouterr().err
    assert main([*args, "--overwrite"]) == 0


@needs_hf
def test_training_leaves_the_callers_random_generators_alone(student_backbone, student_rows, tmp_path):
    """Training seeds its own generators: the caller's torch and Python ``random`` streams go on
    exactly as if it had not run (issue 10: training reseeded the global generators)."""
    import random

    import torch

    from semcer.training.student import TrainConfig, train_student

    random.seed(1234)
    torch.manual_seed(1234)
    py_before, torch_before = random.getstate(), torch.get_rng_state()
    cfg = TrainConfig(epochs=1, batch_size=16, val_fraction=0.1, max_length=MAX_LENGTH, device="cpu", seed=7)
    train_student(student_rows[:40], student_backbone, tmp_path / "s", cfg)
    assert random.getstate() == py_before
    assert torch.equal(torch.get_rng_state(), torch_before)
    # and the run itself is reproducible: the same seed gives the same head
    train_student(student_rows[:40], student_backbone, tmp_path / "t", cfg)
    assert (tmp_path / "s" / "head.safetensors").read_bytes() == (tmp_path / "t" / "head.safetensors").read_bytes()
