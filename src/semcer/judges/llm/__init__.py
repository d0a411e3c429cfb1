"""The LLM judge (the paper's method) and its backends.

    >>> from semcer.judges.llm import LLMJudge, OpenAIBackend, OpenAIConfig
    >>> judge = LLMJudge(OpenAIBackend(OpenAIConfig("http://127.0.0.1:8000/v1", "Qwen/Qwen3-8B")))

or by name: ``resolve_judge("llm", endpoint=..., model=...)``, ``resolve_judge("hf:/path/to/model")``,
``resolve_judge("vllm:/path/to/model")``. Backends that need torch, transformers or vLLM import
them only when built.
"""

from __future__ import annotations

from typing import Any

from semcer.alignment.context import DEFAULT_CONTEXT_WINDOW
from semcer.errors import JudgeError
from semcer.judges.base import JudgeStats
from semcer.judges.llm.judge import (
    LABEL_MASS_FLAG,
    MISSING_FLAG,
    ONE_HOT_FLAG,
    LLMJudge,
    MassSummary,
    Reading,
    judgement_from,
    label_mass,
)
from semcer.judges.llm.openai_backend import OpenAIBackend, OpenAIConfig, check_endpoint
from semcer.judges.llm.prompt import LABEL_SETS, TEMPLATE_VERSION, Prompt, build_prompt

__all__ = [
    "HF_OPTIONS",
    "LABEL_MASS_FLAG",
    "LABEL_SETS",
    "MISSING_FLAG",
    "ONE_HOT_FLAG",
    "OPENAI_OPTIONS",
    "TEMPLATE_VERSION",
    "VLLM_OPTIONS",
    "JudgeStats",
    "LLMJudge",
    "MassSummary",
    "OpenAIBackend",
    "OpenAIConfig",
    "Prompt",
    "Reading",
    "build_llm_judge",
    "build_prompt",
    "check_endpoint",
    "is_llm_spec",
    "judgement_from",
    "label_mass",
    "llm_options",
]

#: The options of each LLM backend (every one also takes ``labels``): the one list the Python API
#: and the command line (``semcer.cli.options``) both check against.
OPENAI_OPTIONS = frozenset({
    "endpoint", "model", "api_key_env", "concurrency", "timeout", "max_retries", "backoff_base",
    "backoff_max", "model_revision", "top_logprobs", "extra_body", "max_response_bytes",
    "max_connection_failures",
})
HF_OPTIONS = frozenset({"device", "dtype", "batch_size", "chat_template_kwargs"})
VLLM_OPTIONS = frozenset({"revision", "dtype", "chat_template_kwargs", "engine_kwargs"})


def llm_options(spec: str) -> frozenset[str]:
    """The options the LLM judge named by ``spec`` takes (``labels`` included)."""
    common = {"labels", "context_window"}
    if spec == "llm":
        return OPENAI_OPTIONS | common
    if spec.startswith("hf:"):
        return HF_OPTIONS | common
    if spec.startswith("vllm:"):
        return VLLM_OPTIONS | common
    raise JudgeError(f"{spec!r} is not an LLM judge (llm, hf:PATH or vllm:MODEL)")


def is_llm_spec(spec: str) -> bool:
    """Whether a judge name is one of the LLM judge's: ``llm``, ``hf:PATH`` or ``vllm:MODEL``."""
    return spec == "llm" or spec.startswith(("hf:", "vllm:"))


def build_llm_judge(spec: str, **options: Any) -> LLMJudge:
    """An :class:`LLMJudge` from a name and options.

    ``llm``: an OpenAI-compatible server, from ``config=OpenAIConfig(...)`` or the options
    ``endpoint``, ``model`` and optionally ``api_key_env``, ``concurrency``, ``timeout``,
    ``max_retries``, ``backoff_base``, ``backoff_max``, ``model_revision``, ``top_logprobs``,
    ``extra_body``, ``max_response_bytes`` (the cap on an answer's body, 1 MiB by default) and
    ``max_connection_failures`` (connection failures in a row that stop the run, 3 by default; 0:
    never). ``hf:PATH``: a local model directory, with
    ``device``, ``dtype``, ``batch_size``, ``chat_template_kwargs``. ``vllm:MODEL``: vLLM's offline
    engine, with ``revision``, ``dtype``, ``engine_kwargs``, ``chat_template_kwargs``. Every form
    takes ``labels`` (``digits``, ``letters`` or five strings). Options that are None are ignored.
    """
    opts = {k: v for k, v in options.items() if v is not None}
    labels = opts.pop("labels", "digits")
    window = opts.pop("context_window", DEFAULT_CONTEXT_WINDOW)
    if spec == "llm":
        config = opts.pop("config", None)
        if config is not None:
            if not isinstance(config, OpenAIConfig):
                raise JudgeError(f"config must be an OpenAIConfig, got {type(config).__name__}")
            _check_options(spec, opts, frozenset())
        else:
            _check_options(spec, opts, OPENAI_OPTIONS)
            missing = [name for name in ("endpoint", "model") if not opts.get(name)]
            if missing:
                raise JudgeError(
                    f"the llm judge needs {' and '.join(missing)}: e.g. --endpoint http://127.0.0.1:8000/v1 --model NAME "
                    "(or endpoint=..., model=... in Python)"
                )
            config = OpenAIConfig(**opts)
        return LLMJudge(OpenAIBackend(config), labels=labels, context_window=window)
    if spec.startswith("hf:"):
        from semcer.judges.llm.hf_backend import HFBackend

        _check_options(spec, opts, HF_OPTIONS)
        return LLMJudge(HFBackend(_path_of(spec, "hf:"), **opts), labels=labels, context_window=window)
    if spec.startswith("vllm:"):
        from semcer.judges.llm.vllm_backend import VLLMBackend

        _check_options(spec, opts, VLLM_OPTIONS)
        return LLMJudge(VLLMBackend(_path_of(spec, "vllm:"), **opts), labels=labels, context_window=window)
    raise JudgeError(f"{spec!r} is not an LLM judge (llm, hf:PATH or vllm:MODEL)")


def _path_of(spec: str, prefix: str) -> str:
    path = spec[len(prefix):].strip()
    if not path:
        raise JudgeError(f"{spec!r}: give the model after the colon, e.g. {prefix}/models/Qwen3-8B")
    return path


def _check_options(spec: str, opts: dict[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(opts) - allowed)
    if unknown:
        choices = ", ".join(sorted(allowed)) or "none besides labels"
        raise JudgeError(f"judge {spec!r} does not take {', '.join(unknown)} (it takes: {choices})")
