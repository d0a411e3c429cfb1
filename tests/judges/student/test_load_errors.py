"""A student checkpoint that does not load (student:DIR) is one JudgeError line naming what does not
load and the first line of the reason, on the command line one line on standard error and exit
status 2: a damaged config.json when the judge is made, a broken backbone or head when it first
judges. Nothing is downloaded; the directories are built here."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from student_fixtures import needs_hf

from semcer.alignment.context import EditContext
from semcer.errors import JudgeError
from semcer.judges import resolve_judge

CONFIG = {"format": "semcer-student", "name": "broken", "max_length": 64, "template": "reference: {ref}\noutput: {hyp}",
          "readout": ["last", "ref", "out", "prod", "absdiff"], "head": {"hidden": 8, "dropout": 0.0}}
EDIT = EditContext("en", "sub", "", "", 0, 0, "", "", "ab ⟦x⟧ cd", "ab ⟦y⟧ cd")


def _checkpoint(path, *, config=None, head=b"not safetensors", backbone=None):
    """A checkpoint directory: config.json, head.safetensors, and ``backbone`` copied in (a directory),
    or an empty backbone folder ("empty"), or none (None)."""
    path.mkdir()
    (path / "config.json").write_text(json.dumps(CONFIG if config is None else config), encoding="utf-8")
    (path / "head.safetensors").write_bytes(head)
    if backbone == "empty":
        (path / "backbone").mkdir()
    elif backbone is not None:
        shutil.copytree(backbone, path / "backbone")
    return path


def _judge_error(spec: str) -> str:
    with pytest.raises(JudgeError) as info:
        resolve_judge(spec).judge([EDIT])
    message = str(info.value)
    assert "\n" not in message, message
    return message


@pytest.mark.parametrize("change, words", [
    ({"max_length": "abc"}, "max_length must be a whole number at least 1, got 'abc'"),
    ({"max_length": 0}, "max_length must be a whole number at least 1, got 0"),
    ({"template": "no marks"}, "template must be a text with {ref} before {hyp}"),
    ({"template": "{hyp} then {ref}"}, "template must be a text with {ref} before {hyp}"),
    ({"readout": "last"}, "readout must be a list of readout part names"),
    ({"head": 5}, 'head must be {"hidden": a whole number at least 1'),
    ({"head": {"hidden": "x", "dropout": 0.0}}, 'head must be {"hidden"'),
    ({"head": {"hidden": 8, "dropout": 1.5}}, 'head must be {"hidden"'),
])
def test_a_damaged_config_is_refused_when_the_judge_is_made(tmp_path, change, words):
    # Defect: a config.json with the keys but unusable values passed, and failed later with a
    # traceback (int('abc'), 'int' object is not subscriptable).
    path = _checkpoint(tmp_path / "ckpt", config={**CONFIG, **change})
    with pytest.raises(JudgeError) as info:
        resolve_judge(f"student:{path}")
    assert str(info.value).startswith(f"{path}/config.json: {words}"), str(info.value)


@needs_hf
@pytest.mark.parametrize("backbone", ["empty", "config only"])
def test_a_backbone_that_does_not_load_is_one_line(tmp_path, backbone):
    # Defect: AutoTokenizer's four-line ValueError was put whole into the message.
    if backbone == "config only":
        (tmp_path / "bb").mkdir()
        (tmp_path / "bb" / "config.json").write_text("{}")
    path = _checkpoint(tmp_path / "ckpt", backbone="empty" if backbone == "empty" else tmp_path / "bb")
    assert _judge_error(f"student:{path}") == (f"{path}/backbone: could not load the backbone's tokenizer "
                                               "(Couldn't instantiate the backend tokenizer from one of:)")


@needs_hf
def test_damaged_head_weights_are_one_line(tmp_path, student_backbone):
    # Defect: safetensors' SafetensorError is neither an OSError nor a RuntimeError: a traceback.
    path = _checkpoint(tmp_path / "ckpt", backbone=student_backbone)
    message = _judge_error(f"student:{path}")
    assert message.startswith(f"{path}/head.safetensors: could not load the head weights (")


@needs_hf
def test_head_weights_of_another_shape_are_one_line(tmp_path, student_backbone):
    import torch
    from safetensors.torch import save_file

    save_file({"fc2.bias": torch.zeros(3)}, str(tmp_path / "h.safetensors"))
    path = _checkpoint(tmp_path / "ckpt", backbone=student_backbone, head=(tmp_path / "h.safetensors").read_bytes())
    message = _judge_error(f"student:{path}")
    assert message.startswith(f"{path}/head.safetensors: could not load the head weights (")


@needs_hf
@pytest.mark.parametrize("command", [["score", "examples/references.jsonl", "examples/tess_noisy.jsonl"],
                                     ["judge-eval", "data/severity/dev.jsonl"]])
def test_the_command_line_says_one_line_and_exits_2(tmp_path, command):
    path = _checkpoint(tmp_path / "ckpt", backbone="empty")
    p = subprocess.run([sys.executable, "-m", "semcer", *command, "--judge", f"student:{path}"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2, p.stderr[-2000:]
    assert p.stderr.splitlines() == [f"semcer: error: {path}/backbone: could not load the backbone's tokenizer "
                                     "(Couldn't instantiate the backend tokenizer from one of:)"], p.stderr[-2000:]



@pytest.mark.parametrize("value", [0, -1, 1.5, True])
def test_the_batch_size_is_a_whole_number_at_least_1(tmp_path, value):
    # As for hf:PATH (one message for the same option of two judges).
    path = _checkpoint(tmp_path / "ckpt")
    with pytest.raises(JudgeError) as info:
        resolve_judge(f"student:{path}", batch_size=value)
    assert str(info.value) == f"batch_size must be a whole number at least 1, got {value!r}"
