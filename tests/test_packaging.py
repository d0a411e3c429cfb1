"""The package a user downloads: the license text, the metadata, an sdist that runs the quick start
and the tests (issue 11: the LICENSE was a short notice, no classifiers, URLs or keywords, no [all]
extra, and the sdist lacked what the tests and the quick start need)."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("sdist")
    p = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out), str(ROOT)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    (archive,) = out.glob("semcer-*.tar.gz")
    return archive


def test_license_is_the_apache_2_text():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text and "END OF TERMS AND CONDITIONS" in text
    assert len(text) > 10_000


def test_sdist_carries_the_quick_start_and_the_tests(sdist):
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("LICENSE", "README.md", "setup.py", "pyproject.toml", ".ci/run",
                   "src/semcer/alignment/_speedups.c", "src/semcer/judges/rubric/_lexicon_speedups.c",
                   "src/semcer/data/compact_forest.npz", "src/semcer/data/compact.json",
                   "src/semcer/py.typed", "examples/references.jsonl", "examples/tess_noisy.jsonl",
                   "data/severity/dev.jsonl", "data/severity/train.jsonl", "tests/conftest.py", "tests/llm_server.py",
                   "tests/fixtures/dinglehopper.json", "bench/run.py", "tools/train_compact.py"):
        assert needed in names, needed
    assert not any(n.startswith("bench/out/") or n.endswith((".so", ".pyc", ".sqlite")) for n in names)


def test_metadata_has_classifiers_urls_keywords_and_the_all_extra(sdist):
    with tarfile.open(sdist) as tar:
        pkg_info = next(m for m in tar.getmembers() if m.name.count("/") == 1 and m.name.endswith("PKG-INFO"))
        meta = Parser().parsestr(tar.extractfile(pkg_info).read().decode())
    assert meta["License-Expression"] == "Apache-2.0"
    classifiers = meta.get_all("Classifier")
    assert any(c.startswith("Topic :: Scientific/Engineering") for c in classifiers)
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "OCR" in meta["Keywords"] and "character error rate" in meta["Keywords"]
    assert meta.get_all("Project-URL")
    extras = set(meta.get_all("Provides-Extra"))
    assert {"all", "parquet", "llm", "hf", "test"} <= extras
    all_reqs = [r for r in meta.get_all("Requires-Dist") if 'extra == "all"' in r]
    assert all_reqs and all(x in all_reqs[0] for x in ("parquet", "llm", "hf"))
