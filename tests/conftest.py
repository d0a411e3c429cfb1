import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def read_jsonl(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="session")
def example_pairs():
    """(refs, hyps_clean, hyps_noisy) rows of the bundled example, aligned by id."""
    refs = read_jsonl(EXAMPLES / "references.jsonl")
    clean = {r["id"]: r for r in read_jsonl(EXAMPLES / "tess_clean.jsonl")}
    noisy = {r["id"]: r for r in read_jsonl(EXAMPLES / "tess_noisy.jsonl")}
    return refs, [clean[r["id"]] for r in refs], [noisy[r["id"]] for r in refs]
