"""`semcer study create --from STORE` draws one judge's edits: a store that holds several judges is
refused unless `--judge IDENTITY` names one, and then only that judge's edits are drawn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from semcer.cli import main
from semcer.store.sqlite import JudgedEditStore
from semcer.study.db import StudyDB

REFS = [("l1", "en", "is not valid"), ("l2", "en", "total 1,250 EUR"), ("l3", "en", "the quick brown fox")]
HYPS = {"l1": "is now valid", "l2": "total 1,750 EUR", "l3": "the quick brovn fox"}


def _store(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    refs.write_text("".join(json.dumps({"id": i, "lang": lang, "text": t}) + "\n" for i, lang, t in REFS))
    hyps.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in HYPS.items()))
    store = tmp_path / "judged.sqlite"
    for judge in ("compact", "rubric"):
        assert main(["score", str(refs), str(hyps), "--judge", judge, "--store", str(store), "--quiet", "--json",
                     "-o", str(tmp_path / f"{judge}.json")]) == 0
    with JudgedEditStore(store, readonly=True) as s:
        counts: dict[str, int] = {}
        for r in s.rows():
            counts[r["judge"]] = counts.get(r["judge"], 0) + 1
    return store, counts


def test_a_store_of_two_judges_needs_one_named(tmp_path, capsys):
    store, counts = _store(tmp_path)
    # By hand: not->now (1 edit), 2->7 (1), w->v (1): three edits, judged by each of the two judges.
    assert sorted(counts.values()) == [3, 3] and len(counts) == 2
    capsys.readouterr()
    out = tmp_path / "s.study"
    assert main(["study", "create", str(out), "--from", str(store), "--reader", "ana", "--repeats", "0"]) == 2
    err = capsys.readouterr().err
    assert "holds the edits of 2 judges" in err and "--judge IDENTITY" in err and "Traceback" not in err
    assert not out.exists()

    compact = next(j for j in counts if j.startswith("compact-"))
    assert main(["study", "create", str(out), "--from", str(store), "--judge", compact, "--reader", "ana",
                 "--repeats", "0"]) == 0
    assert "3 single edits (of 3)" in capsys.readouterr().out
    items = StudyDB(out).items()
    assert len(items) == 3


def test_judge_names_a_judge_of_the_store(tmp_path, capsys):
    store, counts = _store(tmp_path)
    capsys.readouterr()
    out = tmp_path / "s.study"
    assert main(["study", "create", str(out), "--from", str(store), "--judge", "llm/none", "--reader", "ana",
                 "--repeats", "0"]) == 2
    err = capsys.readouterr().err
    assert "no edits of judge 'llm/none'" in err and all(j in err for j in counts)
    assert not out.exists()


def test_judge_without_a_store_is_refused(tmp_path, capsys):
    _store(tmp_path)
    edits = tmp_path / "edits.jsonl"
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    assert main(["score", str(refs), str(hyps), "--edits", str(edits), "--quiet", "--json", "-o",
                 str(tmp_path / "x.json")]) == 0
    capsys.readouterr()
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "--judge", "compact",
                 "--reader", "ana", "--repeats", "0"]) == 2
    assert "no --from is a store" in capsys.readouterr().err


@pytest.mark.parametrize("repeats", [4])
def test_too_many_repeats_says_how_many_were_drawn(tmp_path, capsys, repeats):
    store, counts = _store(tmp_path)
    compact = next(j for j in counts if j.startswith("compact-"))
    capsys.readouterr()
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(store), "--judge", compact,
                 "--reader", "ana", "--repeats", str(repeats)]) == 2
    assert "more than the 3 item(s) drawn" in capsys.readouterr().err
