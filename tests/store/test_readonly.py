"""A read-only store can be read (issue 11, item 3d): a WAL store in a directory the reader may not
write (SQLite cannot create STORE-shm there) is opened immutable; `store info`, `check` and
`export` open stores read-only.

The reader must really lack write access, and these tests run as root in CI containers, where
chmod stops nobody: so the reading runs in a forked child that, when we are root, drops to the
user ``nobody`` (the store and its directory stay root's, mode 0755/0644); otherwise the directory
is chmod 0555 for the test.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import dump, fill_store, make_ctx, p_of

import semcer.cli
import semcer.store.parquet  # imported before the fork: as nobody, the child may not read the stdlib
from semcer.errors import StoreError
from semcer.judges.base import FixedJudge
from semcer.judges.distribution import Judgement
from semcer.store.sqlite import JudgedEditStore

NOBODY = 65534
ROOT = os.geteuid() == 0


@contextlib.contextmanager
def _shared_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory the child can reach (as nobody, pytest's 0700 tmp_path is closed to it)."""
    if not ROOT:
        yield tmp_path
        return
    d = Path(tempfile.mkdtemp(prefix="semcer-ro-", dir="/tmp"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _read_only(directory: Path) -> None:
    """Make ``directory`` and its files read-only for the child."""
    if not ROOT:
        for f in directory.iterdir():
            f.chmod(0o444)
        directory.chmod(0o555)


def _restore(directory: Path) -> None:
    if not ROOT:
        directory.chmod(0o755)
        for f in directory.iterdir():
            f.chmod(0o644)


def _in_child(fn: Callable[[], object], timeout: float = 60) -> object:
    """``fn()`` in a forked child without write access (as nobody when we are root); its JSON result."""
    if ROOT and not hasattr(os, "setuid"):  # pragma: no cover
        pytest.skip("running as root without os.setuid: cannot drop write access")
    semcer.cli.build_parser()  # every subcommand module imported before the fork
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        status = 0
        try:
            if ROOT:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            out = json.dumps({"ok": fn()})
        except BaseException as exc:
            out = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
            status = 1
        with contextlib.suppress(BaseException):
            os.write(w, out.encode())
        os._exit(status)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([r], [], [], 0.1)
            if ready:
                chunk = os.read(r, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
        else:
            os.kill(pid, signal.SIGKILL)
            pytest.fail("the read-only child did not finish")
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    result = json.loads(b"".join(chunks).decode())
    if "error" in result:
        return result
    return result["ok"]


def _cli(argv: list[str]) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = semcer.cli.main(argv)
    return {"status": status, "out": out.getvalue(), "err": err.getvalue()}


def test_a_store_in_a_read_only_directory_can_be_read(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    with _shared_dir(tmp_path / "ro") as d, _shared_dir(tmp_path / "out") as out_dir:
        if not ROOT:
            d.mkdir()
            out_dir.mkdir()
        store_path = fill_store(d / "judged.sqlite")
        assert sorted(p.name for p in d.iterdir()) == ["judged.sqlite"]  # no -wal or -shm left beside it
        expected = dump(store_path)
        out_dir.chmod(0o777)
        _read_only(d)
        exported = out_dir / "judged.parquet"

        def read():
            with JudgedEditStore(store_path, readonly=True) as store:
                opened = {"immutable": store.immutable, "count": len(store), "judges": store.judges(),
                          "rows": len(store.rows())}
            got = {"opened": opened, "info": _cli(["store", "info", str(store_path)]),
                   "check": _cli(["store", "check", str(store_path)]),
                   "export": _cli(["store", "export", str(store_path), str(exported)])}
            with pytest.raises(StoreError, match="cannot be written"):  # scoring needs write access: said so
                JudgedEditStore(store_path)
            return got

        try:
            got = _in_child(read)
        finally:
            _restore(d)
        assert "error" not in got, got
        thirds = FixedJudge(p=(1 / 3, 1 / 3, 1 / 3, 0.0, 0.0), name="thirds").identity
        assert got["opened"] == {"immutable": True, "count": 190, "judges": [["counting:v1", 150], [thirds, 40]],
                                 "rows": 190}
        assert got["info"]["status"] == 0 and "edits: 190" in got["info"]["out"], got["info"]
        assert "note: opened immutable" in got["info"]["out"]
        assert got["check"]["status"] == 0 and "corrupt: 0" in got["check"]["out"], got["check"]
        assert got["export"]["status"] == 0 and "exported 190" in got["export"]["out"], got["export"]
        assert pq.read_table(exported).num_rows == 190
        assert sorted(p.name for p in d.iterdir()) == ["judged.sqlite"] and dump(store_path) == expected


def test_a_read_only_store_file_in_a_writable_directory_can_be_read(tmp_path):
    with _shared_dir(tmp_path / "d") as d:
        if not ROOT:
            d.mkdir()
        store_path = fill_store(d / "judged.sqlite")
        store_path.chmod(0o444)
        d.chmod(0o777)  # SQLite may create the -shm file here

        def read():
            with JudgedEditStore(store_path, readonly=True) as store:
                return {"count": len(store), "info": _cli(["store", "info", str(store_path)])["status"]}

        try:
            got = _in_child(read)
        finally:
            store_path.chmod(0o644)
            d.chmod(0o755)
        assert got == {"count": 190, "info": 0}


def test_unmerged_write_ahead_log_in_a_read_only_directory_is_refused_not_ignored(tmp_path):
    """An immutable open ignores STORE-wal: with transactions in it, the reader is told, not misled."""
    with _shared_dir(tmp_path / "live") as live, _shared_dir(tmp_path / "copy") as copy:
        for d in (live, copy):
            d.mkdir(exist_ok=True)
        store_path = fill_store(live / "judged.sqlite")
        with JudgedEditStore(store_path) as writer:  # a writer that has not checkpointed yet
            ctx = make_ctx(500)
            writer.put_many([(writer.key("late:v1", ctx), "late:v1", ctx, Judgement(p_of(ctx)))])
            wal = Path(f"{store_path}-wal")
            assert wal.stat().st_size > 0
            shutil.copy(store_path, copy / "judged.sqlite")  # the store and its log, without the -shm file
            shutil.copy(wal, copy / "judged.sqlite-wal")
        copied = copy / "judged.sqlite"
        _read_only(copy)

        def read():
            try:
                with JudgedEditStore(copied, readonly=True) as store:
                    return {"count": len(store)}
            except StoreError as exc:
                return {"error_message": str(exc), "info": _cli(["store", "info", str(copied)])}

        try:
            got = _in_child(read)
        finally:
            _restore(copy)
        assert "judged.sqlite-wal holds transactions not yet merged" in got["error_message"], got
        assert got["info"]["status"] == 2 and got["info"]["err"].count("\n") == 1
        with JudgedEditStore(copied) as store:  # with write access, the log is merged and the late row is there
            assert len(store) == 191
