"""vLLM's offline engine for GPU batches: one generated token per prompt, label log-probabilities read off.

``vllm.LLM(model).generate(prompts, SamplingParams(max_tokens=1, temperature=0, logprobs=20))``
with automatic prefix caching, so the rubric and each line are computed once. Prompts are rendered
and tokenised exactly as by the Hugging Face backend (same chat template, same label tokens).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from semcer.errors import JudgeError
from semcer.judges.base import JudgeSpec, JudgeStats, loading
from semcer.judges.llm.hf_backend import label_token_ids, model_fingerprint, model_name, render_text
from semcer.judges.llm.judge import Reading
from semcer.judges.llm.prompt import Prompt

_VLLM_HINT = 'the vllm: judge needs vLLM (and a GPU): pip install "semcer[vllm]"'

#: Top log-probabilities asked per prompt (vLLM's default ``max_logprobs`` is 20).
TOP_LOGPROBS = 20


class VLLMBackend:
    """Label probabilities from ``vllm.LLM``; the model is a local directory or a name vLLM can load."""

    name = "vllm"

    def __init__(
        self,
        model: str | os.PathLike,
        *,
        revision: str = "",
        dtype: str = "auto",
        chat_template_kwargs: Mapping[str, Any] | None = None,
        engine_kwargs: Mapping[str, Any] | None = None,
        llm: Any = None,
    ) -> None:
        try:
            import vllm
        except ImportError:
            raise JudgeError(_VLLM_HINT) from None
        self._vllm = vllm
        self.model = str(model)
        self.revision = revision
        self.dtype = dtype
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.engine_kwargs = dict(engine_kwargs or {})
        local = Path(self.model).is_dir()
        self._name = model_name(self.model) if local else self.model
        self._fingerprint = model_fingerprint(self.model) if local else (revision or "unpinned")
        if llm is None:
            kwargs: dict[str, Any] = {"model": self.model, "dtype": dtype, "enable_prefix_caching": True}
            if revision:
                kwargs["revision"] = revision
            kwargs.update(engine_kwargs or {})
            with loading(f"vllm:{self.model}", "the engine"):  # a bad model, dtype or GPU: one line, not a traceback
                llm = vllm.LLM(**kwargs)
        self.llm = llm
        with loading(f"vllm:{self.model}", "the tokenizer"):
            self.tokenizer = llm.get_tokenizer()
        self._variants: list[list[int]] = []

    @property
    def identity(self) -> str:
        extra = f":tmpl={sorted(self.chat_template_kwargs.items())}" if self.chat_template_kwargs else ""
        return f"{self.name}:{self._name}@{self._fingerprint}:dtype={self.dtype}{extra}"

    #: vLLM schedules a whole batch itself; larger batches keep the GPU full.
    preferred_batch_size = 4096

    def __repr__(self) -> str:
        return f"VLLMBackend({self.model!r})"

    def spec(self) -> JudgeSpec:
        options: dict[str, Any] = {"dtype": self.dtype}
        if self.revision:
            options["revision"] = self.revision
        if self.chat_template_kwargs:
            options["chat_template_kwargs"] = self.chat_template_kwargs
        if self.engine_kwargs:
            options["engine_kwargs"] = self.engine_kwargs
        return JudgeSpec(f"vllm:{self.model}", options)

    def prepare(self, labels: Sequence[str]) -> None:
        self._variants = label_token_ids(self.tokenizer, labels)

    def read(self, prompts: Sequence[Prompt], labels: Sequence[str], stats: JudgeStats) -> list[Reading]:
        if not self._variants:
            self.prepare(labels)
        token_prompts = []
        for p in prompts:
            text, templated = render_text(self.tokenizer, p, self.chat_template_kwargs)
            token_prompts.append({"prompt_token_ids": self.tokenizer.encode(text, add_special_tokens=not templated)})
        params = self._vllm.SamplingParams(max_tokens=1, temperature=0.0, logprobs=TOP_LOGPROBS)
        stats.requests += 1
        stats.in_flight += len(prompts)
        try:
            outputs = self.llm.generate(token_prompts, params, use_tqdm=False)
        finally:
            stats.in_flight -= len(prompts)
        readings = []
        for tp, out in zip(token_prompts, outputs):
            readings.append(self._reading(out))
            stats.prompt_tokens += len(tp["prompt_token_ids"])
            stats.completion_tokens += 1
        stats.tokens_reported = True
        stats.edits += len(readings)
        return readings

    def _reading(self, output: Any) -> Reading:
        """Label probabilities from the first generated position's top log-probabilities (id -> Logprob)."""
        try:
            top = output.outputs[0].logprobs[0]
        except (AttributeError, IndexError, TypeError):
            return Reading(failure="vLLM returned no log-probabilities for the answer token")
        probs = []
        missing = 0
        for ids in self._variants:
            seen = [top[i] for i in ids if i in top]
            if not seen:
                missing += 1
            probs.append(math.fsum(math.exp(getattr(lp, "logprob", lp)) for lp in seen))
        if math.fsum(probs) <= 0.0:
            return Reading(failure=f"no label token among the top {len(top)} tokens")
        return Reading(label_probs=tuple(probs), missing=missing)

    def close(self) -> None:
        self.llm = None
