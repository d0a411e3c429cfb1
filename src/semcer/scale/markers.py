"""Per-chunk completion markers: a resumable run's finished chunks, kept in its work folder.

When a chunk is finished (aligned, judged, its judgements in the store, its edits spilled) the
parent writes ``chunk-NNNNNN.pkl`` atomically: the chunk's fingerprint and everything the run needs
from it again (:class:`ChunkOutcome`). Chunks are finished in order, so the markers of a killed run
are a prefix of its chunks; a rerun with the same work folder loads that prefix instead of redoing
it (a marker whose fingerprint differs, because the inputs or settings changed, ends the prefix) and
goes on from the first chunk without one. The work folder is trusted like the store: its markers
are Python pickles, read only from a folder the user named.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semcer.alignment.line import LineResult
from semcer.atomic import atomic_write
from semcer.judges.distribution import Judgement
from semcer.store.cached import CacheStats


@dataclass(frozen=True)
class ChunkOutcome:
    """A finished chunk: its rows (statistics with severity masses, no edits), skipped ids, the
    distinct edits it judged first (key, judgement), its store counters and its candidates for the
    top list (the chunk's own top ``n``: the corpus top ``n`` is among the chunks' ones), and what is
    measured beside CER (``--wer``, ``--page-score``)."""

    index: int
    fingerprint: str
    rows: Sequence[LineResult]  # a LineTable
    skipped: tuple[str, ...]
    new: tuple[tuple[str, Judgement], ...]
    cache: CacheStats
    top: tuple[Any, ...]
    words: tuple[Any, ...] | None = None  # WER words of the chunk's pairs (Prepared.words), when asked
    pages: tuple[Any, ...] | None = None  # page scores of the chunk's pairs (Prepared.pages), when asked
    report: Any = None  # the chunk's part of the report (semcer.scale.report_fold.ChunkDigest), when asked


class Markers:
    """The completion markers in ``folder`` (created when missing)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def path(self, index: int) -> Path:
        return self.folder / f"chunk-{index:06d}.pkl"

    def load(self, index: int, fingerprint: str) -> ChunkOutcome | None:
        """The finished chunk ``index`` when its marker exists and has ``fingerprint``, else None."""
        path = self.path(index)
        if not path.is_file():
            return None
        try:
            with open(path, "rb") as fh:
                outcome = pickle.load(fh)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
            return None  # unreadable: the chunk is done again
        if not isinstance(outcome, ChunkOutcome) or outcome.fingerprint != fingerprint or outcome.index != index:
            return None
        return outcome

    def save(self, outcome: ChunkOutcome) -> None:
        with atomic_write(self.path(outcome.index), "wb") as fh:
            pickle.dump(outcome, fh, protocol=pickle.HIGHEST_PROTOCOL)
