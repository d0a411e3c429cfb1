"""The student judge (semcer.judges.student.StudentJudge) on a checkpoint trained here: distributions
in input order, an identity that follows the weights, `--judge student:DIR`."""

from __future__ import annotations

import json
import shutil

import pytest
from student_fixtures import needs_hf

from semcer.alignment.context import EditContext
from semcer.errors import JudgeError
from semcer.judges import resolve_judge
from semcer.judges.student import StudentJudge


def test_not_a_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(JudgeError, match="not a student checkpoint"):
        resolve_judge(f"student:{tmp_path}")


@needs_hf
def test_student_judge_gives_distributions_in_input_order(trained_student, student_rows):
    out, _, _ = trained_student
    judge = StudentJudge(out, device="cpu", batch_size=4)
    contexts = [EditContext(r.lang, r.op, "", "", 0, 0, "", "", r.marked_ref, r.marked_hyp) for r in student_rows[:11]]
    judged = judge.judge(contexts)
    assert len(judged) == 11
    for j in judged:
        assert len(j.p) == 5 and abs(sum(j.p) - 1) < 1e-9 and min(j.p) >= 0 and 0 <= j.severity <= 1
    one_by_one = [judge.judge([c])[0].p for c in contexts]
    for a, b in zip(one_by_one, (j.p for j in judged)):
        assert a == pytest.approx(b, abs=1e-5)


@needs_hf
def test_identity_changes_when_the_head_changes(trained_student, tmp_path):
    from safetensors.torch import load_file, save_file

    out, _, _ = trained_student
    judge = StudentJudge(out)
    assert judge.identity.startswith("student:tiny+") and StudentJudge(out).identity == judge.identity
    copy = tmp_path / "tiny"
    shutil.copytree(out, copy)
    assert StudentJudge(copy).identity == judge.identity  # content, not location
    head = load_file(str(copy / "head.safetensors"))
    head["fc2.bias"] = head["fc2.bias"] + 0.5
    save_file(head, str(copy / "head.safetensors"))
    assert StudentJudge(copy).identity != judge.identity


@needs_hf
def test_resolve_judge_and_score_cli(trained_student, tmp_path, capsys):
    from semcer.cli import main

    out, _, _ = trained_student
    judge = resolve_judge(f"student:{out}")
    assert isinstance(judge, StudentJudge) and judge.identity == StudentJudge(out).identity
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    lines = [("1", "Hà Nội mùa thu", "Hà Nội mùa thư"), ("2", "Amount due: 1,250.00 EUR", "Amount due: 1,750.00 EUR")]
    refs.write_text("".join(json.dumps({"id": i, "text": r}, ensure_ascii=False) + "\n" for i, r, _ in lines), encoding="utf-8")
    hyps.write_text("".join(json.dumps({"id": i, "text": h}, ensure_ascii=False) + "\n" for i, _, h in lines), encoding="utf-8")
    assert main(["score", str(refs), str(hyps), "--judge", f"student:{out}", "--json", "-q"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["judge"]["identity"] == judge.identity and result["corpus"]["edits"] == 2
    assert 0 < result["corpus"]["semcer"] < result["corpus"]["cer"]
