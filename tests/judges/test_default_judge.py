"""The default judge of `semcer score` is whichever built-in judge agrees better with the dev labels."""

from helpers import DATA

from semcer.io.labels import load_labelled
from semcer.judges import DEFAULT_JUDGE, resolve_judge
from semcer.statistics.correlation import spearman

#: Measured dev Spearman (915 edits): compact 0.883, rubric 0.812 (README.md), a gap of 0.071. The
#: default must stay the better one by at least the measured gap less 0.02.
MIN_GAP = 0.071 - 0.02


def test_default_is_the_better_judge_on_dev():
    contexts, labels = load_labelled(DATA / "dev.jsonl")
    y = [lab.severity for lab in labels]
    rho = {name: spearman([j.severity for j in resolve_judge(name).judge(contexts)], y) for name in ("rubric", "compact")}
    assert max(rho, key=rho.get) == DEFAULT_JUDGE, rho
    other = min(rho, key=rho.get)
    assert rho[DEFAULT_JUDGE] - rho[other] >= MIN_GAP, rho
