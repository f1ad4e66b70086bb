"""Property tests (hypothesis) for the reliability formulas."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from mlsys.formulas import (
    calc_availability_stacked, calc_daly_interval, calc_failure_probability, calc_mtbf_cluster,
    calc_mtbf_series, calc_waste_fraction, calc_young_daly_interval,
)

mttf_hours = st.floats(min_value=10.0, max_value=1e7, allow_nan=False)
counts = st.integers(min_value=1, max_value=64)
components = st.lists(st.tuples(mttf_hours, counts), min_size=1, max_size=8)
times = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)
fractions = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)

# per-test settings, so that other test packages keep their own hypothesis profile
thorough = settings(max_examples=150, deadline=None)


@thorough
@given(components, mttf_hours, counts)
def test_adding_components_lowers_mtbf(parts, extra_mttf, extra_count):
    before = calc_mtbf_series(parts).m_as("hour")
    after = calc_mtbf_series([*parts, (extra_mttf, extra_count)]).m_as("hour")
    assert after < before


@thorough
@given(components)
def test_series_mtbf_is_below_every_components_mttf(parts):
    mtbf = calc_mtbf_series(parts).m_as("hour")
    assert mtbf <= min(mttf / n for mttf, n in parts) * (1 + 1e-12)


@thorough
@given(mttf_hours, st.integers(min_value=1, max_value=100_000), st.integers(min_value=2, max_value=16))
def test_cluster_mtbf_is_node_mtbf_over_n(node, n_nodes, factor):
    small = calc_mtbf_cluster(node, n_nodes).m_as("hour")
    big = calc_mtbf_cluster(node, n_nodes * factor).m_as("hour")
    assert math.isclose(small * n_nodes, node, rel_tol=1e-12)
    assert math.isclose(small / big, factor, rel_tol=1e-12)


@thorough
@given(times, times, times)
def test_failure_probability_in_unit_interval_and_rises_with_duration(mtbf, t1, t2):
    p1 = calc_failure_probability(mtbf, t1)
    p2 = calc_failure_probability(mtbf, t2)
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
@given(st.floats(min_value=0.1, max_value=1e3), st.floats(min_value=1e3, max_value=1e7),
       st.floats(min_value=0.5, max_value=0.999))
def test_young_daly_minimises_first_order_waste(delta, mtbf, shrink):
    tau = calc_young_daly_interval(delta, mtbf).m_as("second")
    best = calc_waste_fraction(tau, delta, mtbf)
    assert best <= calc_waste_fraction(tau * shrink, delta, mtbf)
    assert best <= calc_waste_fraction(tau / shrink, delta, mtbf)


@thorough
@given(st.floats(min_value=1e-9, max_value=1e-2), st.floats(min_value=1.0, max_value=1e7))
def test_daly_approaches_young_as_delta_over_m_vanishes(ratio, mtbf):
    delta = ratio * mtbf
    young = calc_young_daly_interval(delta, mtbf).m_as("second")
    daly = calc_daly_interval(delta, mtbf).m_as("second")
    assert daly < young
    # relative gap is (2/3) * delta / sqrt(2 delta M) to leading order, i.e. O(sqrt(ratio))
    assert (young - daly) / young <= math.sqrt(ratio)


@thorough
@given(st.floats(min_value=1e-6, max_value=10.0), st.floats(min_value=1.0, max_value=1e7))
def test_daly_interval_is_positive_and_at_most_m_when_delta_large(ratio, mtbf):
    tau = calc_daly_interval(ratio * mtbf, mtbf).m_as("second")
    assert tau > 0
    if ratio >= 2:
        assert tau == mtbf
