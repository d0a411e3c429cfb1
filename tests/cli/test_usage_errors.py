"""A usage mistake is one line and exit status 2, like every other user error, for every subcommand."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("args", [
    ["cer", "a", "b", "--unit", "foo"],
    ["score", "a", "b", "--top", "many"],
    ["score", "a", "b", "--context-window", "x"],
    ["judge-eval"],
    ["store", "export"],
    ["nonsense"],
    ["cer", "--no-such-flag", "a", "b"],
])
def test_argparse_errors_are_one_line(args):
    p = subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("semcer: error:"), p.stderr
    assert "--help" in lines[0]


def test_a_bad_context_window_is_a_judge_error(tmp_path):
    ref = tmp_path / "r.txt"
    ref.write_text("abc\n")
    p = subprocess.run([sys.executable, "-m", "semcer", "score", str(ref), str(ref), "--context-window", "0"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "context_window must be" in p.stderr and len(p.stderr.strip().splitlines()) == 1
