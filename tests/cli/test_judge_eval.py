"""`semcer judge-eval` end to end on the labelled dev split."""

import json
import subprocess
import sys

from helpers import DATA

from semcer.io.labels import load_labelled
from semcer.judges.rubric import RubricJudge
from semcer.statistics.correlation import spearman

DEV = str(DATA / "dev.jsonl")


def test_judge_eval_json_matches_direct_computation(tmp_path):
    out = tmp_path / "eval.json"
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", DEV, "--judge", "rubric", "--n-boot", "50",
                        "--json", "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == ""  # no chatter from tokenizer libraries
    d = json.loads(out.read_text())
    contexts, labels = load_labelled(DEV)
    sev = [j.severity for j in RubricJudge().judge(contexts)]
    assert d["n"] == len(labels) == 689
    assert abs(d["overall"]["spearman"]["value"] - spearman(sev, [lab.severity for lab in labels])) < 1e-12
    s = d["overall"]["spearman"]
    assert s["lo"] <= s["value"] <= s["hi"]
    assert {"en", "de", "vi", "zh_CN", "hi"} <= set(d["by_lang"])


def test_judge_eval_table_and_bad_file(tmp_path):
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", DEV, "--n-boot", "20", "--by", "class"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and "| edit class |" in p.stdout and "**all**" in p.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"lang": "en"}\n', encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "bad.jsonl" in p.stderr
