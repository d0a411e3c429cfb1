"""The default judge of `semcer score` is whichever built-in judge agrees better with the dev labels."""

from conftest import ROOT

from semcer.judge_eval import load_labelled, spearman
from semcer.judges import DEFAULT_JUDGE, resolve_judge


def test_default_is_the_better_judge_on_dev():
    contexts, labels = load_labelled(ROOT / "data" / "severity" / "dev.jsonl")
    y = [l.severity for l in labels]
    rho = {name: spearman([j.severity for j in resolve_judge(name).judge(contexts)], y) for name in ("rubric", "compact")}
    assert DEFAULT_JUDGE == max(rho, key=rho.get), rho


def test_signature_names_the_default_judge():
    import semcer

    ev = semcer.evaluate(["abc"], ["abd"], judge=DEFAULT_JUDGE)
    assert ev.signature.judge.startswith(DEFAULT_JUDGE) and f"judge:{DEFAULT_JUDGE}" in str(ev.signature)
