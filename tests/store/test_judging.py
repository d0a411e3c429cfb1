"""semCER: the paper's arithmetic, aggregation like CER, judge calls, failures, edits output."""

import json
import subprocess
import sys

import pytest

import semcer
from semcer.judges.base import FixedJudge, Judgement

from conftest import EXAMPLES

LEVEL = {0.0: (1, 0, 0, 0, 0), 0.25: (0, 1, 0, 0, 0), 0.5: (0, 0, 1, 0, 0), 0.75: (0, 0, 0, 1, 0), 1.0: (0, 0, 0, 0, 1)}


class CountingJudge:
    """Charges by a table keyed on the output unit and counts the edits it is asked about."""

    def __init__(self, table, identity="counting-1"):
        self.table, self.identity, self.calls = table, identity, []

    def judge(self, contexts):
        self.calls.extend(contexts)
        out = []
        for c in contexts:
            p = self.table.get(c.hyp_unit or c.ref_unit)
            out.append(Judgement(None, failure="no answer") if p is None else Judgement(tuple(p)))
        return out


def _dist(severity):
    """A five-level distribution with the given expected rating (one-hot when it is a level)."""
    p = [0.0] * 5
    k = int(severity * 4)
    frac = severity * 4 - k
    p[k] = 1 - frac
    if frac:
        p[k + 1] = frac
    return tuple(p)


def test_paper_figure_2_arithmetic():
    """Six edits over 35 graphemes give CER 0.171; severities summing to 1.90 give semCER 0.054."""
    ref = "The quick brown fox jumps over dogs"  # 35 graphemes
    hyp = "Thé quick brovn fax jumps ovr dog5!"  # é, v, a, 5 substituted; e deleted; ! inserted
    assert len(ref) == 35
    al = semcer.align(ref, hyp)
    assert (al.stats.substitutions, al.stats.deletions, al.stats.insertions) == (4, 1, 1)
    charges = {"é": 0.25, "v": 0.75, "a": 0.25, "5": 0.5, "e": 0.15, "!": 0.0}  # sum 1.90
    judge = CountingJudge({k: _dist(v) for k, v in charges.items()})
    ev = semcer.evaluate([ref], [hyp], judge=judge)
    assert len(judge.calls) == 6
    assert round(ev.corpus.cer, 3) == 0.171
    assert ev.corpus.severity == pytest.approx(1.90)
    assert round(ev.corpus.semcer, 3) == 0.054


def test_semcer_aggregates_like_cer():
    judge = FixedJudge((0, 0, 1, 0, 0))  # every edit 0.5
    ev = semcer.evaluate(["abcd", "efgh", "ij"], ["abcx", "e", "i"], docs=["A", "A", "B"], judge=judge)
    assert ev.corpus.severity == pytest.approx(0.5 * ev.corpus.edits)
    assert ev.corpus.semcer == pytest.approx(0.5 * ev.corpus.cer)
    assert ev.document_mean_semcer == pytest.approx(0.5 * ev.document_mean_cer)
    d = ev.to_dict()
    assert d["corpus"]["semcer"] == pytest.approx(0.25) and d["document_mean"]["semcer"] == pytest.approx(0.25)
    assert d["signature_fields"]["judge"] == judge.identity and "judge:" in d["signature"]
    assert all("semcer" in doc for doc in d["documents"])


def test_lines_without_edits_call_no_judge():
    judge = CountingJudge({"x": (0, 0, 0, 0, 1)})
    ev = semcer.evaluate(["same", "abc"], ["same", "abx"], judge=judge)
    assert len(judge.calls) == 1 and judge.calls[0].marked_ref == "ab⟦c⟧"
    assert ev.lines[0].stats.severity == 0.0 and ev.corpus.severity == 1.0


def test_marked_pair_and_language():
    judge = CountingJudge({"": (1, 0, 0, 0, 0), "x": (1, 0, 0, 0, 0)})
    semcer.evaluate(["Tấm Cám"], ["Tấm Cm"], judge=judge)
    (c,) = judge.calls
    assert (c.op, c.marked_ref, c.marked_hyp) == ("D", "Tấm C⟦á⟧m", "Tấm C⟦⟧m")
    assert c.lang == "vi" and c.lang_source == "script"


def test_a_failed_edit_is_never_charged_zero():
    judge = CountingJudge({"x": (0, 0, 0, 0, 1)})  # no answer for "y"
    ev = semcer.evaluate(["ab", "cd"], ["xb", "cy"], judge=judge)
    assert ev.judge_summary["failures"] == 1
    assert ev.corpus.semcer is None and ev.lines[1].stats.severity is None
    assert ev.to_dict()["corpus"]["semcer"] is None


def test_store_makes_second_run_free(tmp_path):
    store = tmp_path / "judged.sqlite"
    j1 = CountingJudge({"x": (0, 0, 0, 1, 0)})
    ev1 = semcer.evaluate(["abc", "abc"], ["abx", "abx"], judge=j1, store=str(store))
    assert len(j1.calls) == 1  # the identical edit on the second line is the same edit
    j2 = CountingJudge({"x": (0, 0, 0, 1, 0)})
    ev2 = semcer.evaluate(["abc", "abc"], ["abx", "abx"], judge=j2, store=str(store))
    assert j2.calls == [] and ev2.corpus.semcer == ev1.corpus.semcer == pytest.approx(0.75 * 2 / 6)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True)


def test_score_cli_json_and_edits_file(tmp_path):
    refs, hyps = str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_noisy.jsonl")
    edits = tmp_path / "edits.jsonl"
    p = _cli("score", refs, hyps, "--json", "--edits", str(edits), "--store", str(tmp_path / "s.sqlite"))
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["corpus"]["edits"] == 818 and 0 < d["corpus"]["semcer"] < d["corpus"]["cer"]
    assert d["judge"]["identity"] == d["signature_fields"]["judge"]
    rows = [json.loads(l) for l in edits.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 818
    labelled = json.loads((EXAMPLES.parent / "data" / "severity" / "dev.jsonl").read_text(encoding="utf-8").splitlines()[0])
    for k in ("line_id", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos", "marked_ref", "marked_hyp", "p", "severity", "mode"):
        assert k in rows[0] and (k == "line_id" or k in labelled)
    sev = [r["severity"] for r in rows]
    assert sev == sorted(sev, reverse=True)
    assert sum(sev) == pytest.approx(d["corpus"]["severity"])
    for r in rows[:50]:
        assert abs(sum(r["p"]) - 1) < 1e-9 and r["mode"] == max(range(5), key=lambda k: (r["p"][k], -k))


def test_score_cli_table_shows_top_edits():
    p = _cli("score", str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_clean.jsonl"), "--top", "3")
    assert p.returncode == 0, p.stderr
    assert "semCER" in p.stdout and "most severe edits (top 3)" in p.stdout and "⟦" in p.stdout
    assert "judge:" in p.stdout


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_edits_other_formats(tmp_path, ext):
    out = tmp_path / f"e.{ext}"
    p = _cli("score", str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_clean.jsonl"), "--edits", str(out), "-q")
    assert p.returncode == 0, p.stderr
    if ext == "parquet":
        import pyarrow.parquet as pq

        t = pq.read_table(out).to_pylist()
        assert len(t) == 109 and len(t[0]["p"]) == 5
    else:
        import csv

        assert len(list(csv.DictReader(out.open(encoding="utf-8")))) == 109


def test_unknown_edits_extension_is_a_clear_error(tmp_path):
    p = _cli("score", str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_clean.jsonl"), "--edits", str(tmp_path / "e.xlsx"))
    assert p.returncode == 2 and "Traceback" not in p.stderr and ".jsonl, .csv or .parquet" in p.stderr
