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
