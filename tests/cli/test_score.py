"""`semcer score` end to end: JSON, the edits file in every format, the table with the top edits."""

import json
import subprocess
import sys

import pytest
from helpers import DATA, EXAMPLES


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
    rows = [json.loads(line) for line in edits.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 818
    labelled = json.loads((DATA / "dev.jsonl").read_text(encoding="utf-8").splitlines()[0])
    for k in ("line_id", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos", "marked_ref", "marked_hyp", "p",
              "severity", "mode"):
        assert k in rows[0] and (k == "line_id" or k in labelled)
    sev = [r["severity"] for r in rows]
    assert sev == sorted(sev, reverse=True)
    assert sum(sev) == pytest.approx(d["corpus"]["severity"])
    for r in rows[:50]:
        assert abs(sum(r["p"]) - 1) < 1e-9 and r["mode"] == max(range(5), key=lambda k: (r["p"][k], -k))


def test_score_cli_table_shows_top_edits():
    p = _cli("score", str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_clean.jsonl"), "--top", "3")
    assert p.returncode == 0, p.stderr
    assert "semCER" in p.stdout and "most severe error spans (top 3, ranked by worst edit;" in p.stdout and "⟦" in p.stdout
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


def test_score_cli_with_compact_judge(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "semcer", "score", str(EXAMPLES / "references.jsonl"),
         str(EXAMPLES / "tess_noisy.jsonl"), "--judge", "compact", "--json", "--store", str(tmp_path / "s.sqlite")],
        capture_output=True, text=True,
    )
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["signature_fields"]["judge"].startswith("compact-1.0+")
    assert 0 < d["corpus"]["semcer"] < d["corpus"]["cer"]


def test_negative_top_is_one_line():
    # was: --top -1 silently showed all edits but the last
    p = _cli("score", str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_clean.jsonl"), "--top", "-1")
    assert p.returncode == 2 and "Traceback" not in p.stderr and "--top" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
