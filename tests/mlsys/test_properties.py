"""Property tests (hypothesis) for the reliability formulas."""

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mlsys.constants import hour, second, ureg
from mlsys.formulas import (
    calc_annual_downtime, calc_availability_serial, calc_availability_stacked,
    calc_chain_success, calc_chain_success_steps, calc_daly_interval, calc_failure_probability,
    calc_mtbf_cluster, calc_mtbf_series, calc_nines, calc_waste_fraction,
    calc_young_daly_interval,
)

mttf_hours = st.floats(min_value=10.0, max_value=1e7, allow_nan=False)
counts = st.integers(min_value=1, max_value=64)
components = st.lists(st.tuples(mttf_hours, counts), min_size=1, max_size=8)
times = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)
fractions = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
# the endpoints themselves, drawn often rather than left to chance
fractions_with_endpoints = st.one_of(st.sampled_from([0.0, 1.0]), fractions)
outside_unit_interval = st.one_of(
    st.floats(min_value=1.0, exclude_min=True, allow_nan=False, allow_infinity=False),
    st.floats(max_value=0.0, exclude_max=True, allow_nan=False, allow_infinity=False),
)
small_counts = st.integers(min_value=0, max_value=40)



def hours(parts):
    """(mttf in hours, count) pairs as (time Quantity, count): the unit rule of mlsys.units."""
    return [(mttf * hour, n) for mttf, n in parts]


# per-test settings, so that other test packages keep their own hypothesis profile
thorough = settings(max_examples=150, deadline=None)


@thorough
@given(components, mttf_hours, counts)
def test_adding_components_lowers_mtbf(parts, extra_mttf, extra_count):
    before = calc_mtbf_series(hours(parts)).m_as("hour")
    after = calc_mtbf_series(hours([*parts, (extra_mttf, extra_count)])).m_as("hour")
    assert after < before


@thorough
@given(components)
def test_series_mtbf_is_below_every_components_mttf(parts):
    mtbf = calc_mtbf_series(hours(parts)).m_as("hour")
    assert mtbf <= min(mttf / n for mttf, n in parts) * (1 + 1e-12)


@thorough
@given(mttf_hours, st.integers(min_value=1, max_value=100_000), st.integers(min_value=2, max_value=16))
def test_cluster_mtbf_is_node_mtbf_over_n(node, n_nodes, factor):
    small = calc_mtbf_cluster(node * hour, n_nodes * ureg.node).m_as("hour")
    big = calc_mtbf_cluster(node * hour, n_nodes * factor * ureg.node).m_as("hour")
    assert math.isclose(small * n_nodes, node, rel_tol=1e-12)
    assert math.isclose(small / big, factor, rel_tol=1e-12)


@thorough
@given(times, times, times)
def test_failure_probability_in_unit_interval_and_rises_with_duration(mtbf, t1, t2):
    p1 = calc_failure_probability(mtbf * second, t1 * second)
    p2 = calc_failure_probability(mtbf * second, t2 * second)
    assert 0.0 <= p1 <= 1.0 and 0.0 <= p2 <= 1.0
    if t1 < t2:
        assert p1 <= p2


@thorough
@given(st.floats(min_value=0.0, max_value=0.999999), st.integers(min_value=1, max_value=20))
def test_stacked_availability_rises_with_k(a, k):
    a_k = calc_availability_stacked(a, k)
    a_next = calc_availability_stacked(a, k + 1)
    assert a <= a_k + 1e-15
    assert a_k <= a_next <= 1.0
    if a > 1e-9 and (1 - a) ** k > 1e-9:  # strictly, while the gain is above float resolution
        assert a_k < a_next


@thorough
@given(st.floats(min_value=1e-9, max_value=0.01), st.floats(min_value=1e3, max_value=1e7),
       st.floats(min_value=0.5, max_value=0.999))
def test_young_daly_minimises_first_order_waste(ratio, mtbf, shrink):
    """Within the first-order domain (delta/M <= 0.01 keeps W <= 0.18 at tau*/2 and 2 tau*)."""
    delta, mtbf = ratio * mtbf * second, mtbf * second
    tau = calc_young_daly_interval(delta, mtbf)
    best = calc_waste_fraction(tau, delta, mtbf)
    assert best <= calc_waste_fraction(tau * shrink, delta, mtbf)
    assert best <= calc_waste_fraction(tau / shrink, delta, mtbf)


@thorough
@given(st.floats(min_value=1e-9, max_value=1e-2), st.floats(min_value=1.0, max_value=1e7))
def test_daly_approaches_young_as_delta_over_m_vanishes(ratio, mtbf):
    delta = ratio * mtbf
    young = calc_young_daly_interval(delta * second, mtbf * second).m_as("second")
    daly = calc_daly_interval(delta * second, mtbf * second).m_as("second")
    assert daly < young
    # relative gap is (2/3) * delta / sqrt(2 delta M) to leading order, i.e. O(sqrt(ratio))
    assert (young - daly) / young <= math.sqrt(ratio)


@thorough
@given(st.floats(min_value=1e-6, max_value=10.0), st.floats(min_value=1.0, max_value=1e7))
def test_daly_interval_is_positive_and_at_most_m_when_delta_large(ratio, mtbf):
    tau = calc_daly_interval(ratio * mtbf * second, mtbf * second).m_as("second")
    assert tau > 0
    if ratio >= 2:
        assert tau == mtbf


# ------------------------------------------------ probabilities over all of [0, 1]
# Expected values are built from repeated multiplication (math.prod), not from the
# closed forms the formulas use.


@thorough
@given(fractions_with_endpoints, small_counts)
@example(0.0, 1).via("endpoint 0")
@example(1.0, 1).via("endpoint 1")
def test_chain_success_is_repeated_product(p, n):
    result = calc_chain_success(p, n)
    assert result == pytest.approx(math.prod([p] * n), rel=1e-12, abs=1e-300)
    assert 0.0 <= result <= 1.0
    assert calc_chain_success(p, n + 1) <= result


@thorough
@given(st.lists(fractions_with_endpoints, max_size=12))
@example([1.0, 1.0]).via("all endpoint 1")
@example([0.3, 0.0]).via("an endpoint 0")
def test_chain_success_steps_is_product_of_steps(probabilities):
    result = calc_chain_success_steps(probabilities)
    assert result == pytest.approx(math.prod(probabilities), rel=1e-12, abs=1e-300)
    assert 0.0 <= result <= min(probabilities, default=1.0)


@thorough
@given(fractions_with_endpoints, st.integers(min_value=1, max_value=40))
@example(0.0, 2).via("endpoint 0")
@example(1.0, 2).via("endpoint 1")
def test_stacked_and_serial_availability_over_whole_interval(a, k):
    stacked = calc_availability_stacked(a, k)
    serial = calc_availability_serial(a, k)
    # stacked: fails only if all k replicas are down; serial: up only if all k are up
    assert stacked == pytest.approx(1.0 - math.prod([1.0 - a] * k), rel=1e-12, abs=1e-15)
    assert serial == pytest.approx(math.prod([a] * k), rel=1e-12, abs=1e-300)
    assert 0.0 <= serial <= a <= stacked + 1e-15 and stacked <= 1.0  # 1 - (1 - a) may round to 0
    if a in (0.0, 1.0):  # endpoints are fixed points of both
        assert stacked == serial == a


@thorough
@given(fractions_with_endpoints)
@example(0.0).via("endpoint 0")
@example(1.0).via("endpoint 1")
def test_annual_downtime_and_nines_over_whole_interval(a):
    downtime_h = calc_annual_downtime(a).m_as("hour")
    assert downtime_h == pytest.approx((1.0 - a) * 365 * 24, rel=1e-12, abs=1e-9)
    assert 0.0 <= downtime_h <= 8_760.0
    if a < 1.0:
        nines = calc_nines(a)
        assert nines >= 0.0
        assert 10.0 ** -nines == pytest.approx(1.0 - a, rel=1e-9)
    else:
        with pytest.raises(ValueError, match="availability"):
            calc_nines(a)


@thorough
@given(outside_unit_interval)
@example(math.nextafter(1.0, 2.0)).via("just above 1")
@example(math.nextafter(0.0, -1.0)).via("just below 0")
def test_values_outside_unit_interval_are_rejected_naming_the_parameter(value):
    calls = {
        "availability": [lambda: calc_availability_stacked(value, 2),
                         lambda: calc_availability_serial(value, 2),
                         lambda: calc_nines(value), lambda: calc_annual_downtime(value)],
        "p": [lambda: calc_chain_success(value, 3)],
        "probabilities[1]": [lambda: calc_chain_success_steps([0.5, value])],
    }
    for parameter, functions in calls.items():
        for call in functions:
            with pytest.raises(ValueError) as info:
                call()
            assert str(info.value).startswith(f"{parameter} must"), str(info.value)
