"""The import-layers contract (import-linter, configured in pyproject.toml) holds, and it would catch
an import against the flow: a copy of the package with one wrong import breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("importlinter", reason='the layers contract needs import-linter: pip install "semcer[lint]"')


def _lint_imports(src: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True)


def test_the_layers_contract_is_kept():
    p = _lint_imports(ROOT / "src", ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 kept, 0 broken" in p.stdout


def test_a_wrong_import_breaks_the_contract(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "semcer", src / "semcer", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    units = src / "semcer" / "text" / "units.py"
    units.write_text(units.read_text(encoding="utf-8") + "\nfrom semcer.metrics.signature import Signature  # wrong\n",
                     encoding="utf-8")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    p = _lint_imports(src, tmp_path)
    assert p.returncode != 0
    assert "semcer.text is not allowed to import semcer.metrics" in p.stdout
    assert "semcer.text.units -> semcer.metrics.signature" in p.stdout
