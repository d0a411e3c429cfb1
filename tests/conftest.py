import pytest
from helpers import EXAMPLES, read_jsonl

pytest_plugins = ["student_fixtures"]  # the tiny transformer student, shared by several folders


@pytest.fixture(scope="session")
def example_pairs():
    """(refs, hyps_clean, hyps_noisy) rows of the bundled example, aligned by id."""
    refs = read_jsonl(EXAMPLES / "references.jsonl")
    clean = {r["id"]: r for r in read_jsonl(EXAMPLES / "tess_clean.jsonl")}
    noisy = {r["id"]: r for r in read_jsonl(EXAMPLES / "tess_noisy.jsonl")}
    return refs, [clean[r["id"]] for r in refs], [noisy[r["id"]] for r in refs]
