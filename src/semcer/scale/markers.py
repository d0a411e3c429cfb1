"""Per-chunk completion markers: a resumable run's finished chunks, kept in its work folder.

When a chunk is finished (aligned, judged, its judgements in the store, its edits spilled) the
parent writes ``chunk-NNNNNN.pkl`` atomically: the chunk's fingerprint and everything the run needs
from it again (:class:`ChunkOutcome`). Chunks are finished in order, so the markers of a killed run
are a prefix of its chunks; a rerun with the same work folder loads that prefix instead of redoing
it (a marker whose fingerprint differs, because the inputs or settings changed, ends the prefix) and
goes on from the first chunk without one.

A marker is a Python pickle, and unpickling runs whatever code its bytes name, so the work folder
is not trusted: a marker is :data:`MAGIC` (with the format version), an HMAC-SHA256 of those bytes
and the pickle under this user's secret key (:func:`marker_key`, kept in semcer's cache folder), then
the pickle, and it is unpickled only when the MAC matches. A marker that does not match (planted by
whoever can write the folder, damaged, written under another user's key or by a semcer that did not
sign its markers) is never unpickled: its chunk is done again, as for a missing one.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import pickle
import secrets
import stat
import struct
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semcer.alignment.line import LineResult
from semcer.atomic import atomic_write, probe_folder, refused_reason
from semcer.cache_folder import cache_root
from semcer.errors import SemcerError
from semcer.judges.distribution import Judgement
from semcer.store.cached import CacheStats

MAGIC = b"SEMCERMK" + struct.pack("<H", 1)  # the marker format, version 1
KEY_BYTES = 32
_MAC_BYTES = hashlib.sha256().digest_size
_PREFIX, _SUFFIX = "chunk-", ".pkl"


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


def check_work_dir(path: str | Path, flag: str = "--work-dir") -> None:
    """Refuse, with one line naming ``flag``, a work folder that cannot be used: a path that is a
    file or lies under one, a new folder whose parent does not exist (only the folder itself is
    created, as an output file's folder must exist), a folder this process cannot write into."""
    p = Path(path)
    try:
        if p.exists() and not p.is_dir():
            raise SemcerError(f"{flag} {path}: is a file, not a folder; give a folder (a new name is created)")
        if not p.exists():
            blocker = next((a for a in p.parents if a.exists() and not a.is_dir()), None)
            if blocker is not None:
                raise SemcerError(f"{flag} {path}: {blocker} is a file, not a folder")
            if not p.parent.exists():
                raise SemcerError(f"{flag} {path}: folder {p.parent} does not exist; create it first "
                                  f"(mkdir -p {p.parent})")
            p = p.parent
    except OSError as exc:  # a folder on the way that this user may not enter
        raise SemcerError(f"{flag} {path}: cannot reach it ({exc.strerror or exc})") from None
    try:  # the markers are written into it, or it is made in its parent
        probe_folder(p)
    except OSError as exc:
        shown = str(p) if str(p) != "." else "the current folder"
        raise SemcerError(f"{flag} {path}: cannot write into {shown} ({refused_reason(exc)})") from None


class Markers:
    """The completion markers in ``folder`` (created when missing; its parent must exist), signed and
    checked with ``key`` (default: :func:`marker_key`)."""

    def __init__(self, folder: str | Path, key: bytes | None = None) -> None:
        check_work_dir(folder, "work folder")
        self.folder = Path(folder)
        self.folder.mkdir(exist_ok=True)
        self._key = marker_key() if key is None else key
        self._refused: set[int] = set()  # chunks whose marker failed authentication

    def path(self, index: int) -> Path:
        return self.folder / f"{_PREFIX}{index:06d}{_SUFFIX}"

    def load(self, index: int, fingerprint: str) -> ChunkOutcome | None:
        """The finished chunk ``index`` when its marker exists, is authentic and has ``fingerprint``,
        else None. A marker that fails authentication is not unpickled (and counts in :meth:`refused_from`)."""
        path = self.path(index)
        if not path.is_file() and not path.is_symlink():
            return None
        payload = self._verified(path)
        if payload is None:
            self._refused.add(index)
            return None
        try:
            outcome = pickle.loads(payload)  # authenticated: written by this user's semcer
        except (EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
            return None  # authentic but not loadable (another semcer version): the chunk is done again
        if not isinstance(outcome, ChunkOutcome) or outcome.fingerprint != fingerprint or outcome.index != index:
            return None
        return outcome

    def save(self, outcome: ChunkOutcome) -> None:
        payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        with atomic_write(self.path(outcome.index), "wb") as fh:
            fh.write(MAGIC + self._mac(payload) + payload)

    def refused_from(self, start: int) -> int:
        """How many markers of chunk ``start`` and after fail authentication, counted when ``start``'s
        did (a rerun redoes every chunk from there, so those markers are checked, never unpickled)."""
        if start not in self._refused:
            return 0
        later = [i for i in self._indices() if i > start]
        return 1 + sum(1 for i in later if i in self._refused or self._verified(self.path(i)) is None)

    def _indices(self) -> list[int]:
        """The chunk indices of the marker files in the folder."""
        names = (e.name for e in os.scandir(self.folder))
        digits = (n[len(_PREFIX):-len(_SUFFIX)] for n in names if n.startswith(_PREFIX) and n.endswith(_SUFFIX))
        return sorted(int(d) for d in digits if d.isdigit())

    def _mac(self, payload: bytes) -> bytes:
        return hmac.new(self._key, MAGIC + payload, hashlib.sha256).digest()

    def _verified(self, path: Path) -> bytes | None:
        """The pickle of the marker at ``path`` when its header and MAC are right, else None (also for
        anything that is not a regular file: a link, a pipe)."""
        data = _read_regular(path)
        if data is None or len(data) < len(MAGIC) + _MAC_BYTES or not data.startswith(MAGIC):
            return None
        mac, payload = data[len(MAGIC):len(MAGIC) + _MAC_BYTES], data[len(MAGIC) + _MAC_BYTES:]
        return payload if hmac.compare_digest(mac, self._mac(payload)) else None


def _read_regular(path: Path, limit: int | None = None) -> bytes | None:
    """The bytes of ``path`` (at most ``limit``) when it is a regular file owned by this user, not a
    link; else None. Opened without blocking, so that a named pipe cannot hang the run."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            return None
        return fh.read() if limit is None else fh.read(limit)


# ---- the per-user key ---------------------------------------------------------------------------


def key_path() -> Path:
    """Where this user's key for the markers is kept: :func:`semcer.cache_folder.cache_root` ``/marker.key``."""
    return cache_root() / "marker.key"


def marker_key() -> bytes:
    """This user's secret key for the markers' MACs: read from :func:`key_path`, created there on
    first use (:data:`KEY_BYTES` random bytes, mode 0600). A file there that is not a regular file of
    this user with the right size is refused and replaced. When the cache folder cannot be written,
    the key lives in this process only, and a warning says that a rerun cannot resume from its markers."""
    path = key_path()
    key = _read_key(path)
    if key is not None:
        return key
    try:
        return _create_key(path)
    except OSError as exc:
        warnings.warn(f"cannot keep the key of the completion markers in {path} ({exc.strerror or exc}): "
                      "a rerun will not resume from this run's markers", RuntimeWarning, stacklevel=2)
        return secrets.token_bytes(KEY_BYTES)


def _read_key(path: Path) -> bytes | None:
    key = _read_regular(path, KEY_BYTES + 1)
    return key if key is not None and len(key) == KEY_BYTES else None


def _create_key(path: Path) -> bytes:
    """A new key, written to a private temporary file and linked to ``path`` only if nothing is
    there yet, so that processes starting at once all end with the one key that won."""
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(KEY_BYTES)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), 0o600)
            fh.write(key)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)  # atomic, and fails where a file exists
        except FileExistsError:
            theirs = _read_key(path)
            if theirs is not None:
                return theirs  # another process created it first
            os.replace(tmp, path)  # a refused file (wrong size, a link, someone else's): replaced
        except OSError:
            os.replace(tmp, path)  # a file system without hard links
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return key
