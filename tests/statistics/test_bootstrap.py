"""Percentile bootstrap estimates: asymmetric bounds, never a ±."""

import math

from semcer.statistics.bootstrap import Estimate, percentile_estimate


def test_estimate_prints_asymmetric_bounds():
    assert str(Estimate(0.5, 0.4, 0.7)) == "0.500 [0.400, 0.700]"


def test_percentile_estimate_leaves_out_undefined_resamples():
    e = percentile_estimate(0.5, [0.1, float("nan"), 0.9] + [0.5] * 97, 0.95)
    assert e.value == 0.5 and 0.1 <= e.lo <= 0.5 <= e.hi <= 0.9
    assert math.isnan(percentile_estimate(0.5, None, 0.95).lo)
    assert math.isnan(percentile_estimate(0.5, [float("nan")], 0.95).hi)
