"""The transformer student, end to end on a tiny backbone built here (random weights, tokenizer
trained on the spot, nothing downloaded): data sources, split, spans, readout, training, checkpoint,
judge, CLI. The model tests need torch, transformers and tokenizers (pip install "semcer[hf]")."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from semcer.errors import InputError, JudgeError
from semcer.judges import resolve_judge
from semcer.judges.base import EditContext, Judgement
from semcer.judges.student import StudentJudge, data_hash, load_judged_edits, require_hf, split_rows
from semcer.judges.student.data import (
    TEMPLATE,
    StudentRow,
    encode_pair,
    length_sorted_batches,
    token_range,
)

ROOT = Path(__file__).resolve().parent.parent
TRAIN = ROOT / "data" / "severity" / "train.jsonl"
N_ROWS = 200
MAX_LENGTH = 256

HAVE_HF = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "tokenizers"))
needs_hf = pytest.mark.skipif(not HAVE_HF, reason='needs torch, transformers, tokenizers: pip install "semcer[hf]"')


@pytest.fixture(scope="module")
def rows() -> list[StudentRow]:
    # Every 15th edit: all systems and languages of the file, not just its first block.
    return load_judged_edits(TRAIN)[::15][:N_ROWS]


# -- data: sources, hash, split (no torch) -------------------------------------------------------


def test_jsonl_rows_carry_pair_distribution_and_line(rows):
    assert len(rows) == N_ROWS
    first = json.loads(TRAIN.read_text(encoding="utf-8").splitlines()[0])
    row = load_judged_edits(TRAIN)[0]
    assert (row.marked_ref, row.marked_hyp, row.lang, row.op, row.line_id) == (
        first["marked_ref"], first["marked_hyp"], first["lang"], first["op"], first["line_id"])
    assert row.severity == pytest.approx(first["severity"])
    assert len({r.lang for r in rows}) >= 10


def test_store_parquet_and_jsonl_give_the_same_rows(tmp_path, rows):
    pytest.importorskip("pyarrow")
    from semcer.store import JudgedEditStore

    subset = rows[:30]
    store_path = tmp_path / "judged.sqlite"
    with JudgedEditStore(store_path) as store:
        entries = []
        for r in subset:
            ctx = EditContext(r.lang, r.op, "", "", 0, 0, "", "", r.marked_ref, r.marked_hyp)
            entries.append((JudgedEditStore.key("llm-test", ctx), "llm-test", ctx, Judgement(r.p)))
        store.put_many(entries)
        store.export_parquet(tmp_path / "judged.parquet")
    from_store = load_judged_edits(store_path)
    from_parquet = load_judged_edits(tmp_path / "judged.parquet")
    assert {r.judge for r in from_store} == {"llm-test"}
    expected = data_hash(subset)
    assert data_hash(from_store) == data_hash(from_parquet) == expected


def test_several_judges_need_a_choice(tmp_path, rows):
    from semcer.store import JudgedEditStore

    path = tmp_path / "two.sqlite"
    with JudgedEditStore(path) as store:
        for identity in ("judge-a", "judge-b"):
            ctx = EditContext("en", "S", "", "", 0, 0, "", "", rows[0].marked_ref, rows[0].marked_hyp)
            store.put_many([(JudgedEditStore.key(identity, ctx), identity, ctx, Judgement(rows[0].p))])
    with pytest.raises(InputError, match="--judge"):
        load_judged_edits(path)
    assert [r.judge for r in load_judged_edits(path, judge="judge-b")] == ["judge-b"]
    with pytest.raises(InputError, match="no edits of judge"):
        load_judged_edits(path, judge="judge-c")


def test_bad_rows_are_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"marked_ref": "a⟦b⟧", "marked_hyp": "a⟦c⟧", "p": [0.5, 0.5]}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:1: p must be 5"):
        load_judged_edits(path)
    path.write_text('{"marked_ref": "ab", "marked_hyp": "a⟦c⟧", "p": [1, 0, 0, 0, 0]}\n', encoding="utf-8")
    with pytest.raises(InputError, match="no ⟦…⟧ mark"):
        load_judged_edits(path)


def test_data_hash_ignores_order_and_sees_labels(rows):
    assert data_hash(rows) == data_hash(list(reversed(rows)))
    changed = [StudentRow(rows[0].marked_ref, rows[0].marked_hyp, (1.0, 0, 0, 0, 0)), *rows[1:]]
    assert data_hash(changed) != data_hash(rows)


def test_split_by_line_is_seeded_and_keeps_lines_whole(rows):
    train, val, unit = split_rows(rows, 0.2, seed=3)
    assert unit == "line" and len(train) + len(val) == len(rows) and val
    assert not {r.line_id for r in train} & {r.line_id for r in val}
    assert split_rows(rows, 0.2, seed=3)[1] == val
    assert split_rows(rows, 0.2, seed=4)[1] != val
    no_lines = [StudentRow(r.marked_ref, r.marked_hyp, r.p) for r in rows]
    train, val, unit = split_rows(no_lines, 0.1, seed=0)
    assert unit == "edit" and len(val) == 20
    assert split_rows(list(reversed(no_lines)), 0.1, seed=0)[1] == val[::-1]  # order-free


def test_token_range_uses_overlap_and_skips_special_tokens():
    # BOS (0, 0), then "Ġ⟦x" straddling the mark, then "⟧".
    offsets = [(0, 0), (0, 2), (2, 5), (5, 6), (6, 8)]
    assert token_range(offsets, (4, 5)) == (2, 3)
    assert token_range(offsets, (0, 1)) == (1, 2)
    with pytest.raises(ValueError):
        token_range(offsets, (9, 10))


def test_length_sorted_batches_cover_every_index_once():
    lengths = [5, 1, 9, 9, 3, 7, 2]
    batches = length_sorted_batches(lengths, 3)
    assert sorted(i for b in batches for i in b) == list(range(7))
    assert [lengths[i] for b in batches for i in b] == sorted(lengths, reverse=True)


def test_missing_torch_names_the_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(JudgeError, match=r'pip install "semcer\[hf\]"'):
        require_hf()


def test_not_a_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(JudgeError, match="not a student checkpoint"):
        resolve_judge(f"student:{tmp_path}")


# -- the tiny backbone ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def backbone(tmp_path_factory, rows) -> Path:
    """A 2-layer Llama with random weights and a byte-level BPE trained on the rows' texts."""
    if not HAVE_HF:
        pytest.skip('needs torch, transformers, tokenizers: pip install "semcer[hf]"')
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    texts = [TEMPLATE.format(ref=r.marked_ref, hyp=r.marked_hyp) for r in rows]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=["<pad>", "<s>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="<s>")
    fast.add_tokens(["⟦", "⟧"])
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=512, pad_token_id=fast.pad_token_id,
    )
    path = tmp_path_factory.mktemp("backbone")
    transformers.LlamaForCausalLM(config).save_pretrained(path)
    fast.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tokenizer(backbone):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(backbone)


@pytest.fixture(scope="module")
def trained(tmp_path_factory, backbone, rows):
    """(checkpoint dir, TrainResult) of a few epochs on the rows, and the untrained checkpoint."""
    from semcer.judges.student.train import TrainConfig, train_student

    cfg = TrainConfig(epochs=4, batch_size=16, lr=3e-3, head_lr=3e-3, val_fraction=0.1, max_length=MAX_LENGTH,
                      patience=4, device="cpu", seed=1)
    base = tmp_path_factory.mktemp("students")
    result = train_student(rows, backbone, base / "tiny", cfg, source="train.jsonl")
    untrained = train_student(rows, backbone, base / "untrained", dataclasses.replace(cfg, epochs=0))
    return result.out, result, untrained.out


@needs_hf
def test_spans_are_the_tokens_between_the_marks(tokenizer):
    enc = encode_pair(tokenizer, "ab ⟦x⟧ cd", "ab ⟦⟧ cd", MAX_LENGTH)
    tokens = tokenizer.convert_ids_to_tokens(list(enc.input_ids))
    ref_open = tokens.index("⟦")
    assert enc.ref_span == (ref_open + 1, ref_open + 2) and tokens[ref_open + 1] == "x"
    # Empty output span (a deletion): the two marks stand for it.
    hyp_open = tokens.index("⟦", ref_open + 1)
    assert enc.hyp_span == (hyp_open, hyp_open + 2) and tokens[hyp_open + 1] == "⟧"
    # A multi-byte grapheme spans several byte tokens; the span takes all of them.
    enc = encode_pair(tokenizer, "Hà ⟦Nội⟧", "Hà ⟦Nộ⟧", MAX_LENGTH)
    assert tokenizer.decode(list(enc.input_ids[slice(*enc.ref_span)])) == "Nội"
    assert tokenizer.decode(list(enc.input_ids[slice(*enc.hyp_span)])) == "Nộ"


@needs_hf
def test_long_pairs_are_cut_around_the_marks(tokenizer):
    ref = "chữ " * 300 + "⟦a⟧" + " dòng" * 300
    hyp = "chữ " * 300 + "⟦b⟧" + " dòng" * 300
    enc = encode_pair(tokenizer, ref, hyp, 64)
    assert enc.truncated and len(enc.input_ids) <= 64
    assert tokenizer.decode(list(enc.input_ids[slice(*enc.ref_span)])) == "a"
    assert tokenizer.decode(list(enc.input_ids[slice(*enc.hyp_span)])) == "b"
    assert not encode_pair(tokenizer, "a⟦b⟧", "a⟦c⟧", 64).truncated


@needs_hf
def test_readout_pools_exactly_the_span_tokens(backbone, tokenizer):
    import torch

    from semcer.judges.student.data import collate, pad_token_id
    from semcer.judges.student.model import build_model, load_backbone

    model = build_model(load_backbone(backbone)[0], ("last", "ref", "out", "prod", "absdiff"), 16, 0.0, 0).eval()
    short = encode_pair(tokenizer, "ab ⟦x⟧ cd", "ab ⟦⟧ cd", MAX_LENGTH)
    long = encode_pair(tokenizer, "Số tiền: ⟦1⟧.250", "Số tiền: ⟦7⟧.250 đồng", MAX_LENGTH)
    batch = collate([short, long], pad_token_id(tokenizer))
    with torch.no_grad():
        hidden = model.hidden_states(batch["input_ids"], batch["attention_mask"]).float()
        features = model.features(batch)
    h = hidden.shape[-1]
    assert features.shape == (2, 5 * h)
    for row, enc in enumerate((short, long)):
        ref = hidden[row, enc.ref_span[0] : enc.ref_span[1]].mean(dim=0)
        out = hidden[row, enc.hyp_span[0] : enc.hyp_span[1]].mean(dim=0)
        last = hidden[row, len(enc.input_ids) - 1]
        expected = torch.cat([last, ref, out, ref * out, (ref - out).abs()])
        torch.testing.assert_close(features[row], expected, rtol=1e-6, atol=1e-6)
    # The short pair is padded; its last token is its own, not a pad.
    assert len(short.input_ids) < batch["input_ids"].shape[1] and batch["last"][0] == len(short.input_ids) - 1


@needs_hf
def test_training_reduces_the_loss(trained, rows):
    import torch

    from semcer.judges.student.model import student_loss

    out, result, untrained = trained
    metrics = result.metrics
    assert [m["epoch"] for m in metrics] == [0, 1, 2, 3, 4]
    assert metrics[0]["train_loss"] is None and metrics[-1]["train_loss"] < metrics[1]["train_loss"]
    assert result.best["val_loss"] < 0.6 * metrics[0]["val_loss"]
    # The loss on the training edits, recomputed from both checkpoints.
    pairs = [(r.marked_ref, r.marked_hyp) for r in rows]
    target = torch.tensor([r.p for r in rows], dtype=torch.float32)

    def loss_of(directory: Path) -> float:
        p = torch.tensor(StudentJudge(directory, device="cpu").predict(pairs), dtype=torch.float32)
        return float(student_loss(p.log(), target, 1.0)[0])

    assert loss_of(out) < 0.5 * loss_of(untrained)


@needs_hf
def test_checkpoint_config_records_the_run(trained, rows):
    out, result, _ = trained
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert (out / "backbone" / "config.json").is_file() and (out / "head.safetensors").is_file()
    assert config["max_length"] == MAX_LENGTH and config["readout"] == ["last", "ref", "out", "prod", "absdiff"]
    assert config["loss"] == {"kl_weight": 1.0, "mse_weight": 1.0} and config["seed"] == 1
    train, val, _ = split_rows(rows, 0.1, seed=1)
    assert config["data"]["train_sha256"] == data_hash(train) and config["data"]["split"] == "line"
    assert config["data"]["train_rows"] == len(train) and config["data"]["val_rows"] == len(val)
    assert len(config["metrics"]) == 5 and config["best_epoch"] == result.config["best_epoch"] > 0
    assert config["semcer_version"] and config["backbone"]


@needs_hf
def test_checkpoint_reloads_and_predicts_identically(trained, rows, tmp_path):
    import torch

    from semcer.judges.student.data import encode_pairs, pad_token_id
    from semcer.judges.student.model import load_student, predict_logits, save_checkpoint, student_loss

    out, result, _ = trained
    cpu = torch.device("cpu")
    model, tokenizer, config = load_student(out, cpu)
    # The validation loss recorded at the best epoch during training, recomputed from the files.
    _, val, _ = split_rows(rows, 0.1, seed=1)
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
def test_student_judge_gives_distributions_in_input_order(trained, rows):
    out, _, _ = trained
    judge = StudentJudge(out, device="cpu", batch_size=4)
    contexts = [EditContext(r.lang, r.op, "", "", 0, 0, "", "", r.marked_ref, r.marked_hyp) for r in rows[:11]]
    judged = judge.judge(contexts)
    assert len(judged) == 11
    for j in judged:
        assert len(j.p) == 5 and abs(sum(j.p) - 1) < 1e-9 and min(j.p) >= 0 and 0 <= j.severity <= 1
    one_by_one = [judge.judge([c])[0].p for c in contexts]
    for a, b in zip(one_by_one, (j.p for j in judged)):
        assert a == pytest.approx(b, abs=1e-5)


@needs_hf
def test_identity_changes_when_the_head_changes(trained, tmp_path):
    from safetensors.torch import load_file, save_file

    out, _, _ = trained
    judge = StudentJudge(out)
    assert judge.identity.startswith("student:tiny+") and StudentJudge(out).identity == judge.identity
    copy = tmp_path / "tiny"
    shutil.copytree(out, copy)
    assert StudentJudge(copy).identity == judge.identity  # content, not location
    head = load_file(str(copy / "head.safetensors"))
    head["fc2.bias"] = head["fc2.bias"] + 0.5
    save_file(head, str(copy / "head.safetensors"))
    assert StudentJudge(copy).identity != judge.identity


@needs_hf
def test_resolve_judge_and_score_cli(trained, tmp_path, capsys):
    from semcer.cli import main

    out, _, _ = trained
    judge = resolve_judge(f"student:{out}")
    assert isinstance(judge, StudentJudge) and judge.identity == StudentJudge(out).identity
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    lines = [("1", "Hà Nội mùa thu", "Hà Nội mùa thư"), ("2", "Amount due: 1,250.00 EUR", "Amount due: 1,750.00 EUR")]
    refs.write_text("".join(json.dumps({"id": i, "text": r}, ensure_ascii=False) + "\n" for i, r, _ in lines), encoding="utf-8")
    hyps.write_text("".join(json.dumps({"id": i, "text": h}, ensure_ascii=False) + "\n" for i, _, h in lines), encoding="utf-8")
    assert main(["score", str(refs), str(hyps), "--judge", f"student:{out}", "--json", "-q"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["judge"]["identity"] == judge.identity and result["corpus"]["edits"] == 2
    assert 0 < result["corpus"]["semcer"] < result["corpus"]["cer"]


@needs_hf
def test_distill_cli_runs_one_epoch(backbone, rows, tmp_path, capsys):
    from semcer.cli import main

    data = tmp_path / "labels.jsonl"
    lines = TRAIN.read_text(encoding="utf-8").splitlines()[::40][:40]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "student"
    args = ["distill", "--data", str(data), "--backbone", str(backbone), "--out", str(out), "--epochs", "1",
            "--batch-size", "8", "--max-length", str(MAX_LENGTH), "--val-fraction", "0.2", "--device", "cpu", "-q"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "val Spearman" in captured.out and "best epoch" in captured.out and f"student:{out}" in captured.out
    assert "epoch 1: train loss" in captured.err
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["data"]["source"] == str(data) and len(config["metrics"]) == 2
    assert main(args) == 2 and "--overwrite" in capsys.readouterr().err
    assert main([*args, "--overwrite"]) == 0
