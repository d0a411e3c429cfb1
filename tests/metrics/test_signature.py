"""The signature: every convention of a number, as fields and as one string."""

from helpers import ROOT

import semcer
from semcer.judges import DEFAULT_JUDGE


def test_signature_fields_and_text():
    ev = semcer.evaluate(["ab"], ["ab"], policy="normalized")
    f = ev.signature.fields()
    assert f["unit"] == "grapheme" and f["policy"] == "normalized" and len(f["policy_hash"]) == 8
    s = str(ev.signature)
    for part in ("unit:grapheme", "policy:normalized#", "empty:error", "agg:corpus+docmean", "semcer:"):
        assert part in s
    other = semcer.evaluate(["ab"], ["ab"], policy="casefold").signature
    assert other.policy_hash != f["policy_hash"]


def test_signature_names_the_default_judge():
    ev = semcer.evaluate(["abc"], ["abd"], judge=DEFAULT_JUDGE)
    assert ev.signature.judge.startswith(DEFAULT_JUDGE) and f"judge:{DEFAULT_JUDGE}" in str(ev.signature)


def test_method_signature_is_its_fields_in_order_escaped():
    from semcer.metrics.signature import MethodSignature

    sig = MethodSignature("judge", (("judge", "llm:m|labels:0|1"), ("boot", "10")), version="9.9")
    assert str(sig) == r"eval:judge|judge:llm:m\|labels:0\|1|boot:10|semcer:9.9"  # written out by hand
    assert sig.fields() == {"eval": "judge", "judge": "llm:m|labels:0|1", "boot": "10", "version": "9.9"}


def test_judge_and_meta_evaluations_sign_what_changes_their_numbers():
    from semcer.api.meta import meta_eval
    from semcer.statistics.judge_eval import evaluate_judge

    sev, lab = [0.1, 0.5, 0.9, 0.3, 0.7], [0.0, 0.5, 1.0, 0.25, 0.75]
    a = str(evaluate_judge(sev, lab, n_boot=40, seed=1).signature("j-1"))
    assert a.startswith("eval:judge|judge:j-1|boot:40|seed:1|conf:0.95|gap:0.5|unit:grapheme|unicode:nfc-")
    assert a != str(evaluate_judge(sev, lab, n_boot=40, seed=2).signature("j-1"))
    readers = ROOT / "tests" / "fixtures" / "readers"
    base: dict = {"ratings": readers / "ratings.jsonl", "items": readers / "items.jsonl", "score_columns": ["severity"],
                  "n_boot": 0}
    m = meta_eval(**base).to_dict()
    assert m["signature"].startswith("eval:meta|judges:none|columns:severity|bands:edit_class|panel:0.5|gap:0.5|")
    assert "|policy:nfc#" in m["signature"] and m["signature_fields"]["policy"].startswith("nfc#")
    assert meta_eval(**base, policy="casefold").to_dict()["signature"] != m["signature"]
    assert meta_eval(**base, min_rater_share=0.9).to_dict()["signature"] != m["signature"]
