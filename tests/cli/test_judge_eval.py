"""`semcer judge-eval` end to end on the labelled dev split."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
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
    assert d["n"] == len(labels) == 915
    assert abs(d["overall"]["spearman"]["value"] - spearman(sev, [lab.severity for lab in labels])) < 1e-12
    s = d["overall"]["spearman"]
    assert s["lo"] <= s["value"] <= s["hi"]
    assert {"en", "de", "vi", "zh-CN", "hi"} <= set(d["by_lang"])
    # the twelve smaller languages pooled: their edits' Spearman, with an interval
    small = [i for i, c in enumerate(contexts) if c.lang in ("ru", "ja", "ar", "th", "ko", "te", "ta", "bn", "mr", "el",
                                                             "he", "kn")]
    pooled = d["pooled"]["small languages pooled"]
    assert pooled["n"] == len(small) == 388
    want = spearman([sev[i] for i in small], [labels[i].severity for i in small])
    assert abs(pooled["spearman"]["value"] - want) < 1e-12
    assert pooled["spearman"]["lo"] <= want <= pooled["spearman"]["hi"]
    assert d["signature"].startswith(f"eval:judge|judge:{d['judge']}|boot:50|seed:0|")
    assert d["signature_fields"]["judge"] == d["judge"] and d["judge"].startswith("rubric-")


def test_judge_eval_table_and_bad_file(tmp_path):
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", DEV, "--n-boot", "40", "--by", "class"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and "| edit class |" in p.stdout and "**all**" in p.stdout
    assert p.stdout.rstrip().splitlines()[-1].startswith("signature: eval:judge|judge:compact-")
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", DEV, "--n-boot", "40"], capture_output=True, text=True)
    assert p.returncode == 0 and "| *small languages pooled* | 388 |" in p.stdout and "| th | 29 |" in p.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"lang": "en"}\n', encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "bad.jsonl" in p.stderr


# ---- malformed label files and bad options: one line, exit 2 (issue 11, item 6) -----------------

_ROW = json.loads(Path(DEV).read_text(encoding="utf-8").splitlines()[0])


def _with(**changes) -> str:
    row = {k: v for k, v in {**_ROW, **changes}.items() if v is not _DROP}
    return json.dumps(row, ensure_ascii=False) + "\n"


_DROP = object()

MALFORMED = {
    # name: (file content, or a callable making the path, and what the message says)
    "missing field": (_with(ref_pos=_DROP), "missing field 'ref_pos'"),
    "wrong type": (_with(ref_pos="27"), "'ref_pos' must be an integer"),
    "p too short": (_with(p=[0.5, 0.5]), "p has 2 values"),
    "p as strings": (_with(p=["0", "0", "0", "0.1", "0.9"]), "p is not a list of numbers"),
    "p not summing to 1": (_with(p=[0.5, 0.5, 0.5, 0, 0]), "p sums to"),
    "severity out of range": (_with(severity=1.5, p=_DROP), "'severity' must be a number in [0, 1]"),
    "severity a string": (_with(severity="high", p=_DROP), "'severity' must be a number in [0, 1]"),
    "empty file": ("", "empty"),
    "json array": (json.dumps([_ROW, _ROW], indent=2), "JSON array"),
    "json array on one line": (json.dumps([_ROW, _ROW]), "JSON array"),
    "nested too deeply": ("[" * 50_000 + "]" * 50_000 + "\n", "nested too deeply"),
    "huge integer": (_with().replace('"ref_pos": 27', '"ref_pos": ' + "9" * 4301), "unreadable JSON value"),
    "binary (PNG)": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "PNG"),
    "binary (gzip)": (gzip.compress(_with().encode()), "gzip"),
    "invalid UTF-8": (_with().encode() + b"\xff\n", "invalid UTF-8"),
    "directory": (None, "is a directory"),
    # fields that disagree with each other (the row: 'Schiebeanzahl muss 0 oder 1⟦6⟧ sein', p = [0, 0, 0, .1, .9])
    "ref_pos past the line": (_with(ref_pos=9999), ":1: 'ref_pos' is 9999, past the end of 'ref' (33 grapheme units"),
    "ref_unit not at ref_pos": (_with(ref_unit="QQ"), ":1: 'ref_unit' is 'QQ', but unit 27 of 'ref' is '6'"),
    "severity not p's": (_with(severity=0.1), ":1: severity 0.1 disagrees with p, whose expected rating (Σ p_k·k/4) is 0.975"),
    "mode not p's": (_with(mode=3), ":1: mode 3 disagrees with p, whose most likely level is 4"),
    "marked_ref without marks": (_with(marked_ref="Schiebeanzahl muss 0 oder 16 sein"),
                                 ":1: 'marked_ref' is not 'ref' with unit 27 between ⟦ ⟧"),
    "marks not around the edit": (_with(marked_hyp="Schiebeanzahl muss 0 oder ⟦1⟧1 sein"),
                                  ":1: 'marked_hyp' is not 'hyp' with unit 27 between ⟦ ⟧"),
    "repeated id": (_with() + _with(), ":2: duplicate id 'r2-digit:de-001-12:0' (first at "),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_judge_eval_malformed_labels_are_one_line(tmp_path, case):
    content, words = MALFORMED[case]
    path = tmp_path / "labels.jsonl"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", str(path), "--judge", "rubric", "--n-boot", "40"],
                       capture_output=True, text=True)
    assert p.returncode == 2, (p.returncode, p.stdout[-300:], p.stderr[-2000:])
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr[-2000:]
    assert str(path) in p.stderr and words in p.stderr, p.stderr


@pytest.mark.parametrize("option, words", [
    (("--n-boot", "-5"), "--n-boot"),
    (("--n-boot", "-1"), "--n-boot"),
    (("--seed", "-1"), "--seed"),
    (("--seed", str(2**32)), "--seed"),
    (("--seed", "9" * 30), "--seed"),
])
def test_judge_eval_bad_options_are_one_line(tmp_path, option, words):
    good = tmp_path / "labels.jsonl"
    good.write_text(_with() * 3, encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", str(good), "--judge", "rubric", *option],
                       capture_output=True, text=True)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr[-2000:]
    assert words in p.stderr


def test_judge_eval_n_boot_zero_means_no_intervals(tmp_path):
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", DEV, "--judge", "rubric", "--n-boot", "0", "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    s = d["overall"]["spearman"]
    assert d["n_boot"] == 0 and s["lo"] is None and s["hi"] is None and -1 <= s["value"] <= 1
    table = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", DEV, "--judge", "rubric", "--n-boot", "0"],
                           capture_output=True, text=True)
    assert table.returncode == 0 and "no bootstrap intervals" in table.stdout.splitlines()[0]


def test_a_failed_run_leaves_no_new_store(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    store = tmp_path / "judged.sqlite"
    p = subprocess.run([sys.executable, "-m", "semcer", "judge-eval", str(DATA / "dev.jsonl"), "--judge", "llm",
                        "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "m", "--timeout", "1",
                        "--max-retries", "0", "--store", str(store)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "cannot reach" in p.stderr, p.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []  # the store this run created, empty, is gone with its -wal and -shm
