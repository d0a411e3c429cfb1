"""Atomic output files (semcer.atomic): modes as any other program would leave them, and no
temporary file left behind by a killed run (issue 11, item 7).

Defect: every output was created 0600 (and a replaced 0644 file became 0600), and a run killed
while writing left `.NAME.XXXX.tmp` beside the target forever.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semcer.atomic import atomic_path, atomic_write


@pytest.fixture
def umask():
    """Set the process umask for one test; the old one is restored."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _temps(folder: Path) -> list[str]:
    return sorted(f.name for f in folder.iterdir() if f.name.endswith(".tmp"))


_umasks = st.integers(0, 0o777)
_modes = st.integers(0, 0o777).map(lambda m: m | 0o600)  # a file its owner can still read and write


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mask=_umasks, binary=st.booleans())
def test_a_new_file_gets_0666_minus_the_umask(tmp_path, umask, mask, binary):
    target = tmp_path / f"new-{mask:o}-{binary}.json"
    umask(mask)
    with atomic_write(target, "wb" if binary else "w") as fh:
        fh.write(b"{}" if binary else "{}")
    umask(0o022)
    assert _mode(target) == 0o666 & ~mask
    assert target.read_bytes() == b"{}"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mask=_umasks, old=_modes)
def test_a_replaced_file_keeps_its_mode(tmp_path, umask, mask, old):
    target = tmp_path / f"old-{mask:o}-{old:o}.json"
    target.write_text("previous")
    target.chmod(old)
    umask(mask)
    with atomic_write(target) as fh:
        fh.write("new")
    umask(0o022)
    assert _mode(target) == old and target.read_text() == "new"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mask=_umasks, old=st.one_of(st.none(), _modes))
def test_atomic_path_follows_the_same_rules(tmp_path, umask, mask, old):
    target = tmp_path / f"p-{mask:o}-{old}.parquet"
    if old is not None:
        target.write_bytes(b"previous")
        target.chmod(old)
    umask(mask)
    with atomic_path(target) as tmp, open(tmp, "wb") as fh:  # what pyarrow does with the path it is given
        fh.write(b"new")
    umask(0o022)
    assert _mode(target) == (0o666 & ~mask if old is None else old) and target.read_bytes() == b"new"
    assert _temps(tmp_path) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("previous")
    with pytest.raises(ZeroDivisionError), atomic_write(target) as fh:
        fh.write("half")
        1 / 0  # noqa: B018
    assert target.read_text() == "previous" and _temps(tmp_path) == []


# ---- interrupted runs ---------------------------------------------------------------------------

WRITER = textwrap.dedent("""
    import sys, time
    from semcer.atomic import atomic_write
    with atomic_write(sys.argv[1]) as fh:
        fh.write("half a file")
        fh.flush()
        print("writing", flush=True)
        time.sleep(120)
""")


def _start_writer(target: Path) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "writing"
    return child


def test_a_temp_file_left_by_a_killed_run_is_removed_by_the_next(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("previous")
    child = _start_writer(target)
    child.kill()  # SIGKILL: nothing can clean up
    child.wait()
    left = _temps(tmp_path)
    assert len(left) == 1 and str(child.pid) in left[0] and left[0].startswith(".out.json.")
    unrelated = tmp_path / ".other.json.1.tmp"
    unrelated.write_text("not ours")
    alive = _start_writer(target)  # a concurrent writer of the same target: its file is kept
    try:
        with atomic_write(target) as fh:
            fh.write("new")
        remaining = _temps(tmp_path)
        assert left[0] not in remaining
        assert len([n for n in remaining if str(alive.pid) in n]) == 1 and unrelated.name in remaining
    finally:
        alive.kill()
        alive.wait()
    assert target.read_text() == "new"


def test_the_next_cli_run_removes_it_too(tmp_path):
    target = tmp_path / "result.json"
    child = _start_writer(target)
    child.kill()
    child.wait()
    assert len(_temps(tmp_path)) == 1
    examples = Path(__file__).resolve().parents[2] / "examples"
    p = subprocess.run([sys.executable, "-m", "semcer", "cer", str(examples / "references.jsonl"),
                        str(examples / "tess_clean.jsonl"), "--json", "-o", str(target)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert _temps(tmp_path) == [] and target.read_text().startswith("{")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_terminate_or_interrupt_during_the_write_removes_the_temp_file(tmp_path, sig):
    target = tmp_path / "out.json"
    target.write_text("previous")
    child = _start_writer(target)
    assert len(_temps(tmp_path)) == 1
    child.send_signal(sig)
    rc = child.wait(timeout=30)
    assert rc != 0
    if sig != signal.SIGINT:
        assert rc == -sig  # it still dies of the signal, as without semcer
    assert _temps(tmp_path) == [] and target.read_text() == "previous"


def test_signal_handlers_are_restored_after_a_write(tmp_path):
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)
    with atomic_write(tmp_path / "x.json") as fh:
        fh.write("x")
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == before


def test_a_named_pipe_or_device_is_written_directly_not_replaced(tmp_path):
    # replacing /dev/null (as root) or a pipe someone reads would replace the device or pipe itself
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen([sys.executable, "-c", "import sys; print(open(sys.argv[1]).read(), end='')", str(fifo)],
                              stdout=subprocess.PIPE, text=True)
    with atomic_write(fifo) as fh:
        fh.write("through the pipe")
    assert reader.communicate(timeout=30)[0] == "through the pipe"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and _temps(tmp_path) == []
    with atomic_write(os.devnull) as fh:
        fh.write("gone")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_symbolic_link_is_written_where_it_points(tmp_path):
    """As `> LINK` in a shell: the file the link names is replaced, the link stays a link."""
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target.name)
    with atomic_write(link) as fh:
        fh.write("new")
    assert link.is_symlink() and target.read_text() == "new" and _temps(tmp_path) == []
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to("made.json")
    with atomic_path(dangling) as tmp:
        tmp.write_text("made")
    assert dangling.is_symlink() and (tmp_path / "made.json").read_text() == "made"


def test_cli_output_through_a_link_into_a_folder_that_cannot_be_written_is_refused_before_work(tmp_path):
    """The folder checked is the link target's (/proc/self: not even root creates files there)."""
    from semcer.cli.common import _check_writable
    from semcer.errors import SemcerError

    link = tmp_path / "out.json"
    link.symlink_to("/proc/self/out.json")
    with pytest.raises(SemcerError, match=r"^--output .*out\.json: cannot write into /proc/\d+"):
        _check_writable("--output", str(link))
