"""The rubric's features of one edit: plain values, the same as a dict and as a tuple."""

import json

import pytest
from helpers import one_edit_context as ctx

from semcer.judges.rubric.features import EditFeatures, edit_features, feature_tuple
from semcer.judges.rubric.rules import rubric_rule


def test_features_are_plain_values():
    f = edit_features(ctx("vi", "Tổng cộng: 288.000 đ", "Tổng cộng: 238.000 đ"))
    assert json.loads(json.dumps(f)) == f
    assert f["in_number"] and f["number_changed"] and f["edit_class"] == "digit"


@pytest.mark.parametrize("lang,ref,hyp", [
    ("de", "Die Zeile ist zu lang", "Die Zeie ist zu lang"),
    ("zh_CN", "无法打开文件", "无法打开又件"),
    ("th", "ไม่สามารถลบรายชื่อ", "ไม่สามรรถลบรายชื่อ"),
    ("vi", "Tổng cộng: 288.000 đ", "Tổng cộng: 238.000 đ"),
])
def test_feature_tuple_is_the_dict_in_field_order(lang, ref, hyp):
    c = ctx(lang, ref, hyp)
    t, d = feature_tuple(c), edit_features(c)
    assert isinstance(t, EditFeatures) and list(d) == list(EditFeatures._fields)
    assert tuple(d.values()) == t and [type(v) for v in d.values()] == [type(v) for v in t]
    assert rubric_rule(d) == rubric_rule(t)
