"""The options shared by the subcommands (semcer.cli.options): one set of judge options, checked
against the LLM backends' own option lists."""

import argparse
import subprocess
import sys

import pytest

from semcer.cli.options import add_judge_options, judge_from_args
from semcer.errors import JudgeError
from semcer.judges.rubric import RubricJudge


def test_cli_options_are_shared_with_score():
    parser = argparse.ArgumentParser()
    add_judge_options(parser, default_judge="rubric")
    args = parser.parse_args(["--judge", "llm", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
                              "--concurrency", "7", "--labels", "letters"])
    judge = judge_from_args(args)
    assert judge.backend.config.concurrency == 7 and judge.labels[0] == "A"
    with pytest.raises(JudgeError, match="applies to the LLM judge only"):
        judge_from_args(parser.parse_args(["--endpoint", "http://127.0.0.1:9/v1"]))
    with pytest.raises(JudgeError, match="does not apply"):
        judge_from_args(parser.parse_args(["--judge", "llm", "--endpoint", "http://x/v1", "--model", "m", "--device", "cpu"]))
    assert isinstance(judge_from_args(parser.parse_args([])), RubricJudge)  # the default given
    with pytest.raises(JudgeError, match="no judge"):
        judge_from_args(parser.parse_args(["--judge", " "]))


@pytest.mark.parametrize("option", ["--extra-body", "--chat-template-kwargs"])
@pytest.mark.parametrize("value, words", [
    ("[" * 50_000 + "]" * 50_000, "nested too deeply"),
    ('{"a": ' + "9" * 4301 + "}", "unreadable JSON value"),
    ('{"a": "\\u0000"}', "NUL character"),
    ('{"a": ', "malformed JSON"),
    ("[1, 2]", "expected a JSON object"),
])
def test_json_options_go_through_the_one_json_reader(option, value, words):
    # Defect (issue 11, item 6): a JSON option nested 50,000 deep ended in a RecursionError traceback.
    judge = ["--judge", "llm", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"] if option == "--extra-body" \
        else ["--judge", "hf:/nonexistent"]
    p = subprocess.run([sys.executable, "-m", "semcer", "score", "refs.jsonl", "hyps.jsonl", *judge, option, value],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr[-2000:]
    assert "Traceback" not in p.stderr and words in p.stderr and option in p.stderr, p.stderr[-2000:]


def _refusal(argv: list[str]) -> str:
    parser = argparse.ArgumentParser()
    add_judge_options(parser, default_judge="rubric")
    with pytest.raises(JudgeError) as info:
        judge_from_args(parser.parse_args(argv))
    return str(info.value)


@pytest.mark.parametrize("argv, message", [
    (["--judge", "compact", "--concurrency", "0"],
     "--concurrency applies to the LLM judge only (--judge llm, hf:PATH or vllm:MODEL), not to 'compact'"),
    (["--judge", "compact", "--concurrency", "0", "--timeout", "3"],
     "--concurrency, --timeout apply to the LLM judge only (--judge llm, hf:PATH or vllm:MODEL), not to 'compact'"),
    (["--judge", "llm", "--endpoint", "http://x/v1", "--model", "m", "--device", "cpu"],
     "--device does not apply to --judge llm"),
    (["--judge", "llm", "--endpoint", "http://x/v1", "--model", "m", "--device", "cpu", "--batch-size", "2"],
     "--device, --batch-size do not apply to --judge llm"),
    (["--judge", "hf:/models/m", "--timeout", "3"], "--timeout does not apply to --judge hf:PATH"),
])
def test_inapplicable_options_agree_in_number(argv, message):
    # Defect: "--concurrency apply to the LLM judge only" for one option.
    assert _refusal(argv) == message


def test_options_given_to_a_judge_object_agree_in_number():
    from semcer.judges import resolve_judge
    from semcer.judges.base import FixedJudge

    with pytest.raises(JudgeError, match=r"^option name applies to a judge given by name"):
        resolve_judge(FixedJudge(), name="x")
    with pytest.raises(JudgeError, match=r"^options name, p apply to a judge given by name"):
        resolve_judge(FixedJudge(), name="x", p=(1, 0, 0, 0, 0))


def test_the_student_takes_its_device_and_batch_size_from_the_command_line(monkeypatch):
    # Defect: --device and --batch-size were refused for --judge student:DIR as LLM-only options.
    import semcer.judges

    seen = {}
    monkeypatch.setattr(semcer.judges, "resolve_judge", lambda spec, **options: seen.update(spec=spec, **options))
    parser = argparse.ArgumentParser()
    add_judge_options(parser, default_judge="compact")
    judge_from_args(parser.parse_args(["--judge", "student:ckpt", "--device", "cuda:1", "--batch-size", "64"]))
    assert seen == {"spec": "student:ckpt", "device": "cuda:1", "batch_size": 64}
    with pytest.raises(JudgeError) as info:
        judge_from_args(parser.parse_args(["--judge", "student:ckpt", "--timeout", "3", "--device", "cpu"]))
    assert str(info.value) == "--timeout does not apply to --judge student:DIR (it takes --batch-size, --device)"
