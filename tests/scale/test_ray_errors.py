"""The Ray engine's start-up errors, each one line at once: an address where nothing listens, `auto`
with no cluster, more GPUs per actor than any node has. Apart from tests/scale/test_ray.py, whose
module-wide local Ray would answer `auto`. Skipped only when Ray is not installed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install 'semcer[ray]')")

ROOT = Path(__file__).resolve().parents[2]
REFS, HYPS = ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"


def _run_cli(*args, timeout=120):
    import subprocess
    import sys

    env = {**os.environ, "RAY_ADDRESS": ""}
    return subprocess.run([sys.executable, "-m", "semcer", "score", str(REFS), str(HYPS), "--engine", "ray", "--quiet",
                           *args], capture_output=True, text=True, env=env, timeout=timeout)


def test_an_address_where_nothing_listens_is_one_line_at_once():
    """Ray would retry such an address for a minute or more, printing warnings; semcer says it in one
    line within its reach timeout."""
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there now
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        run = _run_cli("--ray-address", address, timeout=60)
        assert run.returncode == 2
        assert run.stderr.strip().splitlines() == [f"semcer: error: --ray-address {address}: cannot reach a Ray "
                                                   "cluster there (Connection refused)"]


def test_auto_with_no_cluster_running_is_one_line():
    run = _run_cli("--ray-address", "auto", timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("semcer: error: --ray-address auto: cannot connect to a Ray cluster: ")


def test_more_gpus_than_any_node_has_is_refused_not_waited_for():
    """No machine has 1,000 GPUs: actors reserving them could never be placed, and Ray would wait for
    ever without a word."""
    import re

    run = _run_cli("--workers", "1", "--ray-gpus", "1000")
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert re.fullmatch(r"semcer: error: --ray-gpus 1000: no node of the Ray cluster has 1000 GPU\(s\) for an actor "
                        r"\(the most on one node: \d+\)", line), line


def test_an_address_ray_cannot_parse_is_one_line():
    run = _run_cli("--ray-address", "nonsense", timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == ["semcer: error: --ray-address nonsense: not a Ray address (Invalid "
                                               "address format: nonsense); give auto, HOST:PORT or ray://HOST:PORT"]


def test_starting_ray_keeps_the_stop_signal_handlers():
    """ray.init installs its own SIGTERM handler; a stopped Ray run must still end as a local one
    (`semcer: stopped by SIGTERM`, status 143), so the handlers from before are put back."""
    import signal

    from semcer.scale import ray_engine

    class FakeRay:
        def is_initialized(self):
            return False

        def init(self, **kwargs):
            signal.signal(signal.SIGTERM, lambda *a: None)
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    ours = lambda *a: None
    before = signal.signal(signal.SIGTERM, ours), signal.getsignal(signal.SIGINT)
    try:
        assert ray_engine._start_ray(FakeRay(), None, 0) is True
        assert signal.getsignal(signal.SIGTERM) is ours and signal.getsignal(signal.SIGINT) is before[1]
    finally:
        signal.signal(signal.SIGTERM, before[0])
        signal.signal(signal.SIGINT, before[1])


def test_a_stop_signal_while_waiting_on_ray_comes_out_as_itself():
    """Ray's waiting loop wraps any BaseException but KeyboardInterrupt raised by a signal handler in
    a SystemError (a traceback and status 1 instead of `stopped by SIGTERM`)."""
    from semcer.cli import Stopped
    from semcer.scale.ray_engine import _ray_get

    class FakeRay:
        def __init__(self, cause):
            self.cause = cause

        def get(self, refs):
            raise SystemError("returned a result with an exception set") from self.cause

    with pytest.raises(Stopped):
        _ray_get(FakeRay(Stopped(15)), [])
    with pytest.raises(SystemError):  # a real SystemError stays one
        _ray_get(FakeRay(ValueError("x")), [])
