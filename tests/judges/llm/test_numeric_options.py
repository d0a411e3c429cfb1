"""The numeric options of the judges (OpenAIConfig, hf:PATH, the context window) each have one rule and
one message for every value it refuses: a timeout of 0 and of -1 are refused in the same words."""

from __future__ import annotations

import math

import pytest

from semcer.errors import JudgeError
from semcer.judges import resolve_judge
from semcer.judges.llm import OpenAIConfig

URL = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("value", [0, 0.0, -1.0, -1e-9, math.nan, True, "5"])
def test_every_refused_timeout_gets_the_same_message(value):
    # Defect: -1 said "a number of seconds, 0 or more", then 0 said "timeout must be positive".
    with pytest.raises(JudgeError) as info:
        OpenAIConfig(URL, "m", timeout=value)
    assert str(info.value) == f"timeout must be a number of seconds, more than 0; got {value!r}"


@pytest.mark.parametrize("name", ["backoff_base", "backoff_max"])
def test_backoff_may_be_zero_but_not_negative(name):
    assert getattr(OpenAIConfig(URL, "m", **{name: 0}), name) == 0
    for value in (-1.0, math.nan):
        with pytest.raises(JudgeError) as info:
            OpenAIConfig(URL, "m", **{name: value})
        assert str(info.value) == f"{name} must be a number of seconds, 0 or more; got {value!r}"


@pytest.mark.parametrize("name, least, most", [
    ("concurrency", 1, None), ("max_retries", 0, None), ("max_response_bytes", 1, None),
    ("max_connection_failures", 0, None), ("top_logprobs", 1, 20),
])
def test_whole_number_options_have_one_message(name, least, most):
    span = f"between {least} and {most}" if most else f"at least {least}"
    for value in (least - 1, least - 2, 1.5, True):
        with pytest.raises(JudgeError) as info:
            OpenAIConfig(URL, "m", **{name: value})
        assert str(info.value) == f"{name} must be a whole number {span}, got {value!r}"
    assert getattr(OpenAIConfig(URL, "m", **{name: least}), name) == least


@pytest.mark.parametrize("value", [0, -1, 1.5, True])
def test_hf_batch_size_is_a_whole_number_at_least_1(tmp_path, value):
    # Checked before anything is loaded (the directory here holds no model).
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(JudgeError) as info:
        resolve_judge(f"hf:{tmp_path}", batch_size=value)
    assert str(info.value) == f"batch_size must be a whole number at least 1, got {value!r}"


@pytest.mark.parametrize("judge", ["rubric", "compact"])
@pytest.mark.parametrize("value", [0, -1, 1.5, True])
def test_the_context_window_has_one_message(judge, value):
    with pytest.raises(JudgeError) as info:
        resolve_judge(judge, context_window=value)
    assert str(info.value) == f"context_window must be a whole number of grapheme units at least 1, got {value!r}"


def test_whole_number_accepts_integer_types_and_returns_an_int():
    import numpy as np

    from semcer.judges.base import whole_number

    assert whole_number("n", np.int64(3), 1) == 3 and type(whole_number("n", np.int64(3), 1)) is int
    with pytest.raises(JudgeError, match=r"^n must be a whole number between 1 and 2, got 3$"):
        whole_number("n", 3, 1, 2)
