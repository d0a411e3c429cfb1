"""A local model directory that does not load (hf:PATH) is one JudgeError line naming the directory
and the first line of the reason, and on the command line one line on standard error, exit status 2:
never a traceback from transformers. The directories are built here; nothing is downloaded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from semcer.errors import JudgeError
from semcer.judges import resolve_judge

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
pytest.importorskip("tokenizers")


def _tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {w: i for i, w in enumerate(["<pad>", "<s>", "</s>", "[UNK]", "0", "1", "2", "3", "4", "a", "b"])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>",
                                                eos_token="</s>")


def _model_dir(path, *, tokenizer=True, config=None, weights=None):
    """A model directory: a WordLevel tokenizer (``tokenizer``), then a config.json (``config``: a dict
    written as given, else a 1-layer Llama saved with its random weights; ``weights``: bytes that
    replace model.safetensors)."""
    path.mkdir()
    if tokenizer:
        _tokenizer().save_pretrained(path)
    if config is not None:
        (path / "config.json").write_text(json.dumps(config))
    else:
        cfg = transformers.LlamaConfig(vocab_size=11, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                                       num_attention_heads=2, num_key_value_heads=1)
        transformers.LlamaForCausalLM(cfg).save_pretrained(path)
    if weights is not None:
        (path / "model.safetensors").write_bytes(weights)
    return path


def _one_line_error(spec: str, words: str, **options):
    with pytest.raises(JudgeError) as info:
        resolve_judge(spec, **options)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{spec}: could not load ") and words in message, message
    return message


def test_a_config_without_a_tokenizer_is_one_line(tmp_path):
    # Defect: AutoTokenizer's ValueError ("Couldn't instantiate the backend tokenizer ...", four lines) escaped.
    path = _model_dir(tmp_path / "fakehf", tokenizer=False, config={})
    _one_line_error(f"hf:{path}", "the tokenizer (Couldn't instantiate the backend tokenizer")


def test_a_config_that_names_no_model_is_one_line(tmp_path):
    path = _model_dir(tmp_path / "tok-only", config={})
    _one_line_error(f"hf:{path}", "could not load the model (")


def test_damaged_weights_are_one_line(tmp_path):
    path = _model_dir(tmp_path / "damaged", weights=b"not safetensors" * 4)
    _one_line_error(f"hf:{path}", "could not load the model (")


def test_an_unknown_device_is_one_line(tmp_path):
    path = _model_dir(tmp_path / "good")
    _one_line_error(f"hf:{path}", "onto device 'nodevice'", device="nodevice")
    assert resolve_judge(f"hf:{path}", device="cpu").identity.startswith("llm/")  # the same directory loads


def test_a_dtype_that_is_no_dtype_is_refused_before_loading(tmp_path):
    path = _model_dir(tmp_path / "fakehf", tokenizer=False, config={})
    with pytest.raises(JudgeError, match="dtype 'cuda' is not a torch dtype"):
        resolve_judge(f"hf:{path}", dtype="cuda")  # torch.cuda is a module, not a dtype


@pytest.mark.parametrize("command", [["score", "examples/references.jsonl", "examples/tess_noisy.jsonl"],
                                     ["judge-eval", "data/severity/dev.jsonl"]])
def test_the_command_line_says_one_line_and_exits_2(tmp_path, command):
    path = _model_dir(tmp_path / "fakehf", tokenizer=False, config={})
    p = subprocess.run([sys.executable, "-m", "semcer", *command, "--judge", f"hf:{path}"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2, p.stderr[-2000:]
    assert p.stderr.splitlines() == [f"semcer: error: hf:{path}: could not load the tokenizer (Couldn't "
                                     "instantiate the backend tokenizer from one of:)"], p.stderr[-2000:]


def test_loading_keeps_judge_errors_and_cuts_others_to_their_first_line():
    from semcer.errors import first_line
    from semcer.judges.base import loading

    with pytest.raises(JudgeError, match=r"^own message$"), loading("d", "it"):
        raise JudgeError("own message")
    with pytest.raises(JudgeError, match=r"^d: could not load it \(first\)$") as info, loading("d", "it"):
        raise ValueError("\n  first \nsecond")
    assert isinstance(info.value.__cause__, ValueError)  # the whole reason stays for Python callers
    assert first_line(KeyError()) == "KeyError" and len(first_line(OSError("x" * 1000))) == 300
