"""The paper's distilled scorer: a transformer student trained to reproduce a judge, any local backbone.

``semcer distill`` (or :func:`semcer.training.student.train_student`) fits one on judged edits; :class:`StudentJudge` loads a
checkpoint and judges like any other judge (``--judge student:DIR``). torch and transformers are an
optional extra (``pip install "semcer[hf]"``) and are imported only when a model is trained or run:
reading a checkpoint's identity, e.g. to find its edits in a store, needs neither.
See ``docs/student.md``.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from semcer.alignment.context import EditContext
from semcer.errors import JudgeError
from semcer.judges.base import JudgeBase, JudgeSpec, whole_number
from semcer.judges.distribution import Judgement
from semcer.judges.student.data import CONFIG_FILE, HEAD_FILE, HF_HINT, StudentRow, parse_config, require_hf

__all__ = ["HF_HINT", "StudentJudge", "StudentRow", "require_hf"]


class StudentJudge(JudgeBase):
    """A judge backed by a student checkpoint written by ``semcer distill``.

    ``identity`` is ``student:<name>+<hash>``, the hash covering the checkpoint's config.json and
    head weights (the backbone is trained together with the head, so a retrained checkpoint has a
    new head too; the backbone's gigabytes are not read to hash them). The model is loaded on the
    first call of :meth:`judge`, on ``device`` (``auto``: a CUDA GPU when there is one), and edits
    are run in batches of ``batch_size`` sorted by length.
    """

    def __init__(self, checkpoint_dir: str | os.PathLike, *, device: str = "auto", batch_size: int = 16,
                 precision: str = "auto") -> None:
        directory = Path(checkpoint_dir).expanduser()
        if not str(checkpoint_dir).strip():
            raise JudgeError("student judge needs a checkpoint directory: student:DIR")
        if not (directory / CONFIG_FILE).is_file() or not (directory / HEAD_FILE).is_file():
            raise JudgeError(f"{directory}: not a student checkpoint (needs {CONFIG_FILE} and {HEAD_FILE}); "
                             "train one with `semcer distill`")
        batch_size = whole_number("batch_size", batch_size, 1)
        self.directory = directory
        self.device = device
        self.batch_size = batch_size
        self.precision = precision
        config_bytes = (directory / CONFIG_FILE).read_bytes()
        head_bytes = (directory / HEAD_FILE).read_bytes()
        self.config = parse_config(config_bytes, directory)
        digest = hashlib.sha256(config_bytes + b"\x1e" + head_bytes).hexdigest()[:12]
        self._identity = f"student:{self.config.get('name') or directory.name}+{digest}"
        self._loaded: tuple[Any, Any, Any] | None = None
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        return self._identity

    def __repr__(self) -> str:
        return f"StudentJudge({str(self.directory)!r})"

    def spec(self) -> JudgeSpec:
        return JudgeSpec(f"student:{self.directory}", {"device": self.device, "batch_size": self.batch_size,
                                                        "precision": self.precision})

    def close(self) -> None:
        """Drop the loaded model (it is loaded again on the next call)."""
        with self._lock:
            self._loaded = None

    def _model(self) -> tuple[Any, Any, Any]:
        with self._lock:
            if self._loaded is None:
                require_hf()
                from semcer.judges.student.model import load_student, resolve_device

                device = resolve_device(self.device)
                model, tokenizer, _ = load_student(self.directory, device)
                self._loaded = (model, tokenizer, device)
            return self._loaded

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, ...]]:
        """Five-level distributions of (marked_ref, marked_hyp) pairs, in input order."""
        if not pairs:
            return []
        from semcer.judges.student.model import predict_pairs

        model, tokenizer, device = self._model()
        return predict_pairs(model, tokenizer, pairs, max_length=int(self.config["max_length"]),
                             template=self.config["template"], batch_size=self.batch_size, device=device,
                             precision=self.precision)

    def judge(self, contexts: Sequence[EditContext]) -> list[Judgement]:
        probs = self.predict([(ctx.marked_ref, ctx.marked_hyp) for ctx in contexts])
        return [Judgement(tuple(p)) for p in probs]  # type: ignore[arg-type]
