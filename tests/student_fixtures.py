"""Fixtures of the transformer-student tests (tests/judges/student, tests/io, tests/training): the
labelled rows, a tiny backbone built here (random weights, tokenizer trained on the spot, nothing
downloaded) and a student trained on it, each made once per session. Registered in conftest.py."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import pytest
from helpers import DATA

from semcer.io.judged import load_judged_edits
from semcer.judges.student.data import TEMPLATE, StudentRow

TRAIN = DATA / "train.jsonl"
N_ROWS = 200
MAX_LENGTH = 256

HAVE_HF = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "tokenizers"))
needs_hf = pytest.mark.skipif(not HAVE_HF, reason='needs torch, transformers, tokenizers: pip install "semcer[hf]"')


@pytest.fixture(scope="session")
def student_rows() -> list[StudentRow]:
    # Every 15th edit: all systems and languages of the file, not just its first block.
    return load_judged_edits(TRAIN)[::15][:N_ROWS]


@pytest.fixture(scope="session")
def student_backbone(tmp_path_factory, student_rows) -> Path:
    """A 2-layer Llama with random weights and a byte-level BPE trained on the student_rows' texts."""
    if not HAVE_HF:
        pytest.skip('needs torch, transformers, tokenizers: pip install "semcer[hf]"')
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    texts = [TEMPLATE.format(ref=r.marked_ref, hyp=r.marked_hyp) for r in student_rows]
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


@pytest.fixture(scope="session")
def student_tokenizer(student_backbone):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(student_backbone)


@pytest.fixture(scope="session")
def trained_student(tmp_path_factory, student_backbone, student_rows):
    """(checkpoint dir, TrainResult) of a few epochs on the student_rows, and the untrained checkpoint."""
    from semcer.training.student import TrainConfig, train_student

    cfg = TrainConfig(epochs=4, batch_size=16, lr=3e-3, head_lr=3e-3, val_fraction=0.1, max_length=MAX_LENGTH,
                      patience=4, device="cpu", seed=1)
    base = tmp_path_factory.mktemp("students")
    result = train_student(student_rows, student_backbone, base / "tiny", cfg, source="train.jsonl")
    untrained = train_student(student_rows, student_backbone, base / "untrained", dataclasses.replace(cfg, epochs=0))
    return result.out, result, untrained.out
