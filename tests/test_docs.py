"""The Python shown in the README and in docs/ names what the package has: every import line of a
fenced ``python`` block runs (a name moved to another module, or renamed, fails here)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _imports() -> list[tuple[str, str]]:
    out = []
    for doc in DOCS:
        for block in _BLOCK.findall(doc.read_text(encoding="utf-8")):
            for node in ast.parse(block).body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    out.append((doc.name, ast.unparse(node)))
    return out


IMPORTS = _imports()


def test_the_docs_show_python():
    # README.md and docs/student.md both have Python examples (a block that stopped parsing as
    # ```python would drop out of the test below without a word).
    assert {"README.md", "student.md"} <= {doc for doc, _ in IMPORTS}


@pytest.mark.parametrize("doc,line", IMPORTS, ids=[f"{d}:{i}" for d, i in IMPORTS])
def test_each_import_shown_runs(doc, line):
    try:
        exec(line, {})
    except ModuleNotFoundError as exc:
        if exc.name and not exc.name.startswith("semcer"):
            pytest.skip(f"{exc.name} is an optional extra, not installed here")
        raise
