"""semcer.compare and `semcer compare`: paired comparison of systems over documents, and the gate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import semcer
from semcer.api.comparison import Gate

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"

# The seed-002 fixture: six documents, 49 reference characters, baseline 17 edits, candidate 20
# (tests/statistics/test_fixture_seed002.py found these per-document figures).
CHARS = (6, 6, 7, 9, 10, 11)
BASELINE = (1, 1, 2, 1, 5, 7)
CANDIDATE = (1, 2, 6, 4, 5, 2)


def _write(path: Path, texts: list[str]) -> str:
    path.write_text("".join(json.dumps({"id": f"d{k}", "doc": f"d{k}", "text": t}) + "\n" for k, t in enumerate(texts)))
    return str(path)


def _substituted(n: int, e: int) -> str:
    return "x" * e + "a" * (n - e)  # e substitutions of 'a' by 'x': exactly e edits


@pytest.fixture()
def seed_fixture(tmp_path):
    refs = _write(tmp_path / "refs.jsonl", ["a" * n for n in CHARS])
    base = _write(tmp_path / "base.jsonl", [_substituted(n, e) for n, e in zip(CHARS, BASELINE)])
    cand = _write(tmp_path / "cand.jsonl", [_substituted(n, e) for n, e in zip(CHARS, CANDIDATE)])
    return refs, base, cand


def test_the_seed_fixture_figures(seed_fixture):
    refs, base, cand = seed_fixture
    p = subprocess.run([sys.executable, "-m", "semcer", "compare", refs, base, cand, "--no-judge", "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    b, c = out["systems"][base]["cer"], out["systems"][cand]["cer"]
    assert round(100 * b["corpus"]["value"], 2) == 34.69 and round(100 * c["corpus"]["value"], 2) == 40.82
    assert round(100 * b["document_mean"]["value"], 2) == 31.11 and round(100 * c["document_mean"]["value"], 2) == 41.39
    assert c["corpus"]["difference"] == pytest.approx(3 / 49)
    lo, hi = c["corpus"]["interval"]
    assert lo < c["corpus"]["difference"] < hi and lo < 0 < hi  # six documents cannot settle it
    assert b["corpus"]["difference"] is None and b["corpus"]["interval"] is None
    assert out["documents"] == 6 and "boot:10000" in out["signature"] and "resample:document" in out["signature"]


def test_noisy_is_significantly_worse_and_the_gate_trips():
    c = semcer.compare(str(EX / "references.jsonl"), [str(EX / "tess_clean.jsonl"), str(EX / "tess_noisy.jsonl")],
                       names=["clean", "noisy"], n_resamples=2000)
    for metric in ("cer", "semcer"):
        for agg in ("corpus", "document_mean"):
            r = c.result("noisy", metric, agg)
            assert r.interval[0] > 0 and r.p_value < 0.01 and r.significant
    # the comparison's values are exactly the ones `semcer score` reports
    ev = semcer.evaluate(str(EX / "references.jsonl"), str(EX / "tess_noisy.jsonl"), judge="compact")
    assert c.result("noisy", "semcer").value == ev.corpus.semcer
    assert c.result("noisy", "cer", "document_mean").value == ev.document_mean_cer
    assert Gate.parse("semcer:0.002").failures(c) and Gate.parse("cer.document_mean").failures(c)
    assert not Gate.parse("semcer:0.5").failures(c)  # worse, but not by half the scale


def test_cli_gate_exit_status_and_one_line(tmp_path):
    args = [sys.executable, "-m", "semcer", "compare", str(EX / "references.jsonl"), str(EX / "tess_clean.jsonl"),
            str(EX / "tess_noisy.jsonl"), "--n-resamples", "2000", "--quiet"]
    tripped = subprocess.run([*args, "--fail-if-worse", "semcer:0.002"], capture_output=True, text=True)
    assert tripped.returncode == 3
    (line,) = [x for x in tripped.stderr.splitlines() if x.startswith("semcer: gate:")]
    assert "tess_noisy.jsonl is worse than" in line and "semcer (corpus)" in line and "interval [" in line
    fine = subprocess.run([*args, "--fail-if-worse", "cer:0.5"], capture_output=True, text=True)
    assert fine.returncode == 0 and "gate" not in fine.stderr
    reversed_ = subprocess.run([*args[:5], str(EX / "tess_noisy.jsonl"), str(EX / "tess_clean.jsonl"), *args[7:],
                                "--fail-if-worse", "cer"], capture_output=True, text=True)
    assert reversed_.returncode == 0  # the clean system is better than the noisy baseline: nothing to fail


def test_seeded_and_reproducible(seed_fixture):
    refs, base, cand = seed_fixture
    a = semcer.compare(refs, [base, cand], judge=None, n_resamples=500, seed=1).result(cand, "cer").interval
    b = semcer.compare(refs, [base, cand], judge=None, n_resamples=500, seed=1).result(cand, "cer").interval
    c = semcer.compare(refs, [base, cand], judge=None, n_resamples=500, seed=2).result(cand, "cer").interval
    assert a == b and a != c


def test_systems_must_cover_the_same_ids(tmp_path, seed_fixture):
    refs, base, cand = seed_fixture
    short = tmp_path / "short.jsonl"
    short.write_text("".join(Path(cand).read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(semcer.InputError, match="unmatched"):
        semcer.compare(refs, [base, str(short)], judge=None, unmatched="drop")
    # with unmatched='empty' the missing document is scored as an empty output: 11 more deletions
    c = semcer.compare(refs, [base, str(short)], judge=None, unmatched="empty", n_resamples=200)
    assert c.result(str(short), "cer").value == pytest.approx((sum(CANDIDATE[:-1]) + CHARS[-1]) / sum(CHARS))


@pytest.mark.parametrize("text", ["wer", "cer:-1", "semcer:x", "cer.lines", "cer:inf"])
def test_bad_gates_are_clear_errors(text):
    with pytest.raises(semcer.SemcerError, match="--fail-if-worse"):
        Gate.parse(text)


def test_one_system_is_not_a_comparison(seed_fixture):
    refs, base, _ = seed_fixture
    with pytest.raises(semcer.InputError, match="at least two systems"):
        semcer.compare(refs, [base])


GERMAN_REFS = ["Die Straße ist schön und grün.", "Über den Bergen liegt Schnee.", "Der Bär frißt Äpfel."]
GERMAN_HYPS = ["Die Strasse ist schon und grun.", "Uber den Bergen liegt Schnee", "Der Bar frisst Apfel."]


def test_lang_is_the_language_of_lines_without_one(tmp_path):
    with_de = semcer.evaluate(GERMAN_REFS, GERMAN_HYPS, langs="de", judge="compact").corpus.semcer
    assert with_de != semcer.evaluate(GERMAN_REFS, GERMAN_HYPS, judge="compact").corpus.semcer  # it matters
    listed = semcer.compare(GERMAN_REFS, [GERMAN_HYPS, GERMAN_HYPS], lang="de", n_resamples=50)
    assert listed.names == ("system 1", "system 2") and listed.result("system 2", "semcer").value == with_de
    refs = _write(tmp_path / "r.jsonl", GERMAN_REFS)
    hyps = _write(tmp_path / "h.jsonl", GERMAN_HYPS)
    read = semcer.compare(refs, [hyps, hyps], names=["a", "b"], lang="de", n_resamples=50)
    assert read.result("a", "semcer").value == with_de
    # a line that names its language keeps it
    tagged = tmp_path / "t.jsonl"
    tagged.write_text("".join(json.dumps({"id": f"d{k}", "doc": f"d{k}", "text": t, "lang": "en"}) + "\n"
                              for k, t in enumerate(GERMAN_REFS)))
    en = semcer.compare(str(tagged), [hyps, hyps], names=["a", "b"], lang="de", n_resamples=50)
    assert en.result("a", "semcer").value == semcer.evaluate(GERMAN_REFS, GERMAN_HYPS, langs="en",
                                                              judge="compact").corpus.semcer


def test_the_same_file_twice_needs_names(seed_fixture):
    refs, base, _ = seed_fixture
    with pytest.raises(semcer.InputError, match=r"^systems 1 and 2 are the same file \("):
        semcer.compare(refs, [base, base], judge=None)
    named = semcer.compare(refs, [base, base], names=["x", "y"], judge=None, n_resamples=50)
    assert named.result("y", "cer").difference == 0


@pytest.mark.parametrize("names, blank", [(["A", ""], 2), (["  ", "B"], 1)])
def test_a_blank_system_name_is_refused(seed_fixture, names, blank):
    """`--names "A,"` gave a row without a label."""
    refs, base, cand = seed_fixture
    with pytest.raises(semcer.InputError, match=rf"^names: system {blank}'s name is empty"):
        semcer.compare(refs, [base, cand], names=names, judge=None, n_resamples=50)


def test_a_gate_on_a_metric_not_computed_is_refused():
    Gate.parse("cer").check(("cer",))
    Gate.parse("semcer:0.1").check(("cer", "semcer"))
    with pytest.raises(semcer.SemcerError, match="--fail-if-worse semcer: semcer is not computed without a judge"):
        Gate.parse("semcer.document_mean").check(("cer",))


def test_by_adds_each_system_s_groups(seed_fixture):
    refs, base, cand = seed_fixture
    c = semcer.compare(refs, [base, cand], judge=None, n_resamples=50)
    d = c.to_dict(by=("doc",))
    assert "by_lang" not in d and list(d["by_doc"]) == [base, cand]
    assert [g["edits"] for g in d["by_doc"][cand]] == list(CANDIDATE)  # the fixture's figures
    assert [g["units"] for g in d["by_doc"][base]] == list(CHARS)
    assert "by_doc" not in c.to_dict()


def test_comparison_notes_are_not_repeated_in_the_report(tmp_path, seed_fixture):
    from semcer.api.report import comparison_report
    from semcer.io.collections import read_collection

    refs, base, cand = seed_fixture
    short = tmp_path / "short.jsonl"
    short.write_text("".join(Path(cand).read_text().splitlines(keepends=True)[:-1]))
    c = semcer.compare(refs, [base, str(short)], judge=None, unmatched="empty", n_resamples=50)
    note = f"{short}: 1 reference(s) without an output scored against an empty output (--unmatched empty)"
    assert c.notes == (note,)
    data = comparison_report(c, references=read_collection(refs), systems=[read_collection(base),
                             read_collection(str(short))], unmatched="empty")
    assert data["comparison"]["notes"] == [note] and note not in data["notes"]
