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


def one_edit_context(lang: str, ref: str, hyp: str):
    """The one grapheme edit between ``ref`` and ``hyp`` (they differ in one place only), built by
    hand rather than by semcer's aligner, so judge tests do not depend on its tie-breaking."""
    from semcer.judges.base import MARK_CLOSE, MARK_OPEN, EditContext
    from semcer.judges.edit_class import graphemes

    r, h = graphemes(ref), graphemes(hyp)
    i = 0
    while i < min(len(r), len(h)) and r[i] == h[i]:
        i += 1
    if len(r) == len(h):
        op, ru, hu = "S", r[i], h[i]
    elif len(r) == len(h) + 1:
        op, ru, hu = "D", r[i], ""
    elif len(h) == len(r) + 1:
        op, ru, hu = "I", "", h[i]
    else:  # pragma: no cover - a test-writing mistake
        raise AssertionError("lines differ by more than one unit")
    assert r[i + (op != "I") :] == h[i + (op != "D") :], "lines differ in more than one place"
    mr = "".join(r[:i]) + MARK_OPEN + ru + MARK_CLOSE + "".join(r[i + (op != "I") :])
    mh = "".join(h[:i]) + MARK_OPEN + hu + MARK_CLOSE + "".join(h[i + (op != "D") :])
    return EditContext(lang, op, ru, hu, i, i, ref, hyp, mr, mh)
