"""The judge contract's optional capabilities and the serialisable JudgeSpec a worker rebuilds from."""

from __future__ import annotations

import subprocess
import sys

import pytest

from semcer.alignment.context import EditContext
from semcer.errors import JudgeError
from semcer.judges import FixedJudge, Judgement, JudgeSpec, as_judge, resolve_judge
from semcer.judges.base import JudgeBase


class Minimal:
    """Only the contract: an identity and judge()."""

    identity = "minimal"

    def judge(self, contexts):
        return [Judgement((1.0, 0.0, 0.0, 0.0, 0.0)) for _ in contexts]


def test_a_minimal_judge_gets_the_default_capabilities():
    j = as_judge(Minimal())
    assert isinstance(j, JudgeBase)
    assert j.identity == "minimal" and j.preferred_batch_size == 256 and j.stats is None and j.spec() is None
    with j:
        pass  # close() is a no-op, and the context manager works
    assert as_judge(j) is j


def test_something_that_is_not_a_judge_is_a_clear_error():
    with pytest.raises(JudgeError, match="is not a judge"):
        as_judge(object())
    with pytest.raises(JudgeError, match="unknown judge 'nope'"):
        resolve_judge("nope")
    with pytest.raises(JudgeError, match="judge 'rubric'"):
        resolve_judge("rubric", no_such_option=1)


@pytest.mark.parametrize("name,options", [("rubric", {}), ("rubric", {"mode_mass": 0.9}), ("compact", {}),
                                          ("fixed", {"p": [0.0, 0.5, 0.5, 0.0, 0.0], "name": "half"})])
def test_spec_round_trips_through_json_and_rebuilds_the_same_judge(name, options):
    judge = resolve_judge(name, **options)
    spec = judge.spec()
    assert spec is not None and spec.name == name
    again = JudgeSpec.from_json(spec.to_json()).build()
    assert again.identity == judge.identity


def test_a_worker_process_rebuilds_the_judge_from_its_spec():
    judge = resolve_judge("compact")
    ctx = EditContext("vi", "S", "ấ", "á", 1, 1, "Tấm", "Tám", "T⟦ấ⟧m", "T⟦á⟧m")
    code = ("import sys; from semcer.judges import JudgeSpec; from semcer.alignment.context import EditContext\n"
            "j = JudgeSpec.from_json(sys.argv[1]).build()\n"
            "c = EditContext('vi', 'S', 'ấ', 'á', 1, 1, 'Tấm', 'Tám', 'T⟦ấ⟧m', 'T⟦á⟧m')\n"
            "print(j.identity); print(repr(j.judge([c])[0].p))\n")
    p = subprocess.run([sys.executable, "-c", code, judge.spec().to_json()], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    identity, probs = p.stdout.strip().splitlines()
    assert identity == judge.identity
    assert probs == repr(judge.judge([ctx])[0].p)  # bit for bit


def test_a_judge_made_of_a_function_has_no_spec():
    assert FixedJudge(fn=lambda c: (1.0, 0.0, 0.0, 0.0, 0.0)).spec() is None
    with pytest.raises(JudgeError, match="not a judge spec"):
        JudgeSpec.from_json("[1, 2]")


def test_llm_spec_carries_the_options_but_never_the_key(monkeypatch):
    pytest.importorskip("httpx")
    monkeypatch.setenv("SEMCER_TEST_KEY", "sk-secret-value-123")
    judge = resolve_judge("llm", endpoint="http://127.0.0.1:9/v1", model="m", concurrency=3,
                          api_key_env="SEMCER_TEST_KEY", labels="letters")
    try:
        text = judge.spec().to_json()
        assert "sk-secret-value-123" not in text and "SEMCER_TEST_KEY" in text
        again = JudgeSpec.from_json(text).build()
        try:
            assert again.identity == judge.identity and again.labels == judge.labels
        finally:
            again.close()
    finally:
        judge.close()
