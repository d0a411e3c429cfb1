"""`semcer policies` lists every preset and step, wrapped to the terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from semcer.text.policy import PRESETS, STEPS, get_policy


def test_every_preset_and_step_is_listed_and_no_line_is_wider_than_the_terminal():
    p = subprocess.run([sys.executable, "-m", "semcer", "policies"], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "72"})
    assert p.returncode == 0
    for name in PRESETS:
        assert f"  {name}  " in p.stdout and f"#{get_policy(name).hash}" in p.stdout
    for name in STEPS:
        assert f"  {name} " in p.stdout
    assert max(len(line) for line in p.stdout.splitlines()) <= 72


def test_json_lists_them_exactly():
    p = subprocess.run([sys.executable, "-m", "semcer", "policies", "--json"], capture_output=True, text=True)
    out = json.loads(p.stdout)
    assert set(out["presets"]) == set(PRESETS) and set(out["steps"]) == set(STEPS)
    assert out["presets"]["jiwer"]["steps"] == ["trim"]
