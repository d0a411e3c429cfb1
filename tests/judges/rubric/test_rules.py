"""The rule table: consistent, documented, and each level's distribution peaks at that level."""

import math

from helpers import ROOT

from semcer.judges.rubric.rules import RULES, level_distribution


def test_rule_table_is_consistent():
    assert len({r.id for r in RULES}) == len(RULES)
    for r in RULES:
        assert 0 <= r.level <= 4 and 0.0 <= r.base <= 1.0 and r.meaning and r.example
        for tilt in (0.0, 0.5, 1.0):
            p = level_distribution(r.level, tilt)
            assert math.isclose(sum(p), 1.0) and max(range(5), key=lambda k: (p[k], -k)) == r.level


def test_rules_doc_lists_every_rule():
    doc = (ROOT / "docs" / "rubric.md").read_text(encoding="utf-8")
    for r in RULES:
        assert f"`{r.id}`" in doc, r.id
