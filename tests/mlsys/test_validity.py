"""The domain of the first-order checkpoint model (mlsys.validity) and the exact
model's behaviour at its extremes: outside a domain an error, never a wrong number."""
from __future__ import annotations

import math
import re

import pytest

from mlsys import (
    FIRST_ORDER_MAX_WASTE, OutsideDomainError, ResultOverflowError, beyond_first_order_domain,
    calc_exact_efficiency, calc_exact_optimal_interval, calc_expected_wall_time, calc_nines,
    calc_waste_fraction, calc_waste_terms, calc_young_daly_interval, first_order_interval_range,
    hour, second,
)

s, h = second, hour
LIMIT = FIRST_ORDER_MAX_WASTE


def exact_waste(tau, delta, restart, m):
    """1 - E of the exact model, in plain seconds."""
    return 1 - calc_exact_efficiency(tau * s, delta * s, restart * s, m * s)


def test_the_issues_silent_answers_are_errors_naming_the_condition_and_the_exact_model():
    # tau = sqrt(2 * 10 h * 1 h) = 4.47 h, longer than the MTBF itself
    with pytest.raises(OutsideDomainError) as info:
        calc_young_daly_interval(10 * h, 1 * h)
    message = str(info.value)
    assert message.startswith("calc_young_daly_interval: the first-order waste W = "
                              "delta/tau* + tau*/(2M) = 4.47 exceeds FIRST_ORDER_MAX_WASTE")
    assert "checkpoint_cost" in message and "mtbf" in message
    assert "calc_exact_optimal_interval" in message and "calc_exact_efficiency" in message
    # "fractions of wall time" of 7.1 (checkpointing every 1/7 of a write) and 600
    with pytest.raises(OutsideDomainError, match=r"C/tau = checkpoint_cost / interval = 7\.1,"):
        calc_waste_fraction(10 * s, 71 * s, 100_000 * s)
    with pytest.raises(OutsideDomainError, match=r"tau/\(2M\) = interval / \(2 mtbf\) = 600,"):
        calc_waste_fraction(1_200 * h, 1 * s, 1 * h)
    with pytest.raises(OutsideDomainError, match=r"\(D\+R\)/M = \(detect \+ recover\) / mtbf = 0\.5\)"):
        calc_waste_terms(100 * s, 1 * s, 10_000 * s, detect=2_000 * s, recover=3_000 * s)


def test_young_daly_domain_boundary_is_small_waste_not_delta_over_m():
    m = 10_000.0
    inside = (LIMIT * 0.999) ** 2 / 2 * m      # tau*/M (the waste at tau*) just below the limit
    outside = (LIMIT * 1.001) ** 2 / 2 * m     # just above
    tau = calc_young_daly_interval(inside * s, m * s).m_as(s)
    assert tau / m == pytest.approx(LIMIT * 0.999)
    with pytest.raises(OutsideDomainError):
        calc_young_daly_interval(outside * s, m * s)
    assert outside / m < 0.025     # "delta << M" holds, yet the model is at its edge


@pytest.mark.parametrize("which", ["C/tau", "tau/(2M)", "(D+R)/M"])
def test_the_waste_budget_is_guarded_at_the_limit_whichever_term_carries_it(which):
    m = 1e9
    tau, c, downtime = {"C/tau": (1_000.0, LIMIT * 1_000.0 * 0.99, 0.0),
                        "tau/(2M)": (2 * LIMIT * m * 0.99, 1e-9, 0.0),
                        "(D+R)/M": (1_000.0, 1e-9, LIMIT * m * 0.99 - 5.0)}[which]
    calc_waste_terms(tau * s, c * s, m * s, detect=downtime * s)      # just inside: fine
    bump = {"C/tau": (tau, c * 1.03, downtime), "tau/(2M)": (tau * 1.03, c, downtime),
            "(D+R)/M": (tau, c, downtime * 1.03)}[which]
    with pytest.raises(OutsideDomainError, match=re.escape(which) + " = "):
        calc_waste_terms(bump[0] * s, bump[1] * s, m * s, detect=bump[2] * s)


def test_the_limit_keeps_first_order_within_the_documented_error_of_the_exact_model():
    """The module docstring's promise, recomputed over every mix of the three terms
    at W = FIRST_ORDER_MAX_WASTE: within about 10 % at the optimum, 18 % anywhere."""
    m, w = 1.0e6, LIMIT * (1 - 1e-9)      # just inside, clear of float rounding
    at_optimum, anywhere = 0.0, 0.0
    for a in range(21):                    # share of W in C/tau, in twentieths
        for b in range(1, 21 - a):         # share in tau/(2M); the rest is (D+R)/M
            tau = 2 * (b / 20) * w * m
            delta = max((a / 20) * w * tau, 1e-9)
            restart = max((20 - a - b) / 20, 0.0) * w * m
            first = calc_waste_fraction(tau * s, delta * s, m * s, detect=restart * s)
            assert first == pytest.approx(LIMIT)
            error = abs(first - exact_waste(tau, delta, restart, m)) / exact_waste(tau, delta, restart, m)
            anywhere = max(anywhere, error)
            if a == b:
                at_optimum = max(at_optimum, error)
    assert 0.09 < at_optimum < 0.11 and 0.16 < anywhere < 0.19


def test_first_order_interval_range_solves_the_budget_at_the_limit():
    delta, m, d, r = 60 * s, 186 * 60 * s, 60 * s, 60 * s
    lo, hi = first_order_interval_range(delta, m, detect=d, recover=r)
    for tau in (lo, hi):
        assert calc_waste_fraction(tau, delta, m, detect=d, recover=r) == pytest.approx(LIMIT)
    assert lo < calc_young_daly_interval(delta, m) < hi
    with pytest.raises(OutsideDomainError):
        calc_waste_fraction(lo * 0.99, delta, m, detect=d, recover=r)
    with pytest.raises(OutsideDomainError, match="no interval keeps"):
        first_order_interval_range(1 * h, 2 * h)


def test_beyond_the_domain_only_when_the_caller_says_why():
    with beyond_first_order_domain("a figure comparing first order with the exact model"):
        tau = calc_young_daly_interval(10 * h, 1 * h)
        assert calc_waste_fraction(tau, 10 * h, 1 * h) == pytest.approx(2 * math.sqrt(5))
    assert tau.m_as(h) == pytest.approx(math.sqrt(20))
    with pytest.raises(OutsideDomainError):        # the exemption ends with the block
        calc_young_daly_interval(10 * h, 1 * h)
    for reason in ("", "   ", None):
        with pytest.raises(ValueError, match="needs a reason"):
            with beyond_first_order_domain(reason):
                pass


def test_exact_efficiency_tends_to_zero_instead_of_overflowing():
    # M = 1 s against a 854 s interval: e^((854 + 24.5)/1) overflows a float
    assert calc_exact_efficiency(854 * s, 24.5 * s, 114.5 * s, 1 * s) == 0.0
    # continuous with the direct formula just below the overflow
    e = calc_exact_efficiency(600 * s, 0 * s, 0 * s, 1 * s)
    assert e == pytest.approx(600 / math.expm1(600))
    with pytest.raises(ResultOverflowError, match="calc_expected_wall_time: the expected wall time"):
        calc_expected_wall_time(1e6 * s, 854 * s, 24.5 * s, 114.5 * s, 1 * s)
    assert isinstance(ResultOverflowError("x"), OverflowError)


def test_exact_model_is_valid_where_first_order_is_not():
    tau = calc_exact_optimal_interval(10 * h, 1 * h)
    e = calc_exact_efficiency(tau, 10 * h, 0 * h, 1 * h)
    assert 0 < e < 1e-3 and tau < 1 * h


def test_zero_availability_has_zero_nines_not_minus_zero():
    assert math.copysign(1.0, calc_nines(0)) == 1.0
    assert calc_nines(0.99) == pytest.approx(2.0)
