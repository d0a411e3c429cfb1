"""The signature: every convention of a number, as fields and as one string."""

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
