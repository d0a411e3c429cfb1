"""Progress bars on standard error (tqdm), as the callbacks the lower layers accept."""

from __future__ import annotations

import sys
import threading
from typing import Any

from semcer.judges.base import JudgeBase

#: Below this many lines or edits no bar is shown (the work takes well under a second).
MIN_ITEMS = 1000


class LineBar:
    """A bar over lines: call it with the number of lines just done (the engine's ``progress``)."""

    def __init__(self, total: int, desc: str = "aligning") -> None:
        from tqdm import tqdm

        self._bar = tqdm(total=total, desc=desc, unit="line", leave=False, mininterval=0.2, file=sys.stderr)

    def __call__(self, n: int) -> None:
        self._bar.update(n)

    def close(self) -> None:
        self._bar.close()


class JudgeBar:
    """A bar over the edits a judging pass sends (``progress(done, total)``); with a judge that keeps
    counters (an LLM judge), it also shows requests in flight, failures and retries, refreshed a few
    times a second from a background thread."""

    def __init__(self, judge: JudgeBase, desc: str = "judging") -> None:
        from tqdm import tqdm

        self._stats = judge.stats
        self._base = self._stats.edits if self._stats is not None else 0
        self._done = 0
        self._bar = tqdm(total=0, desc=desc, unit="edit", file=sys.stderr, dynamic_ncols=True,
                         mininterval=0.25, smoothing=0.1, leave=False)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self._stats is not None:
            self._thread = threading.Thread(target=self._poll, name="semcer-progress", daemon=True)
            self._thread.start()

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            if self._bar.total != total:
                self._bar.total = total
                self._bar.refresh()
            self._done = done
            self._refresh_locked()

    def _poll(self) -> None:
        while not self._stop.wait(0.25):
            with self._lock:
                self._refresh_locked()

    def _refresh_locked(self) -> None:
        s = self._stats
        done = self._done
        if s is not None:
            done = max(done, s.edits - self._base)
            self._bar.set_postfix_str(f"in-flight={s.in_flight} failures={s.failures} requests={s.requests} "
                                      f"retries={s.retries}", refresh=False)
        n = min(self._bar.total or 0, done)
        if n > self._bar.n:
            self._bar.update(n - self._bar.n)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        self._bar.close()


def line_bar(total: int, enabled: bool, desc: str = "aligning") -> Any:
    """A :class:`LineBar` when ``enabled`` and the work is large enough, else None."""
    return LineBar(total, desc) if enabled and total >= MIN_ITEMS else None


def judge_bar(judge: JudgeBase, total: int, enabled: bool) -> JudgeBar | None:
    """A :class:`JudgeBar` when ``enabled`` and there are enough edits (or a judge that counts requests)."""
    if not enabled or (total < MIN_ITEMS and judge.stats is None):
        return None
    return JudgeBar(judge)
