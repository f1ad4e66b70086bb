"""Formulas against independent hand computations, and input validation."""

import math

import pint
import pytest

from mlsys.constants import CHECKPOINT_BYTES_PER_PARAM, FIT, GB, Q_, byte, gpu, node, ureg
from mlsys.formulas import (
    WasteTerms, calc_annual_downtime, calc_availability_quorum, calc_availability_serial,
    calc_availability_stacked,
    calc_chain_success, calc_chain_success_steps, calc_checkpoint_size, calc_daly_interval,
    calc_expected_failures, calc_failure_probability, calc_fit_from_mttf, calc_mtbf_cluster,
    calc_mtbf_node, calc_mtbf_observed, calc_mtbf_rescaled, calc_mtbf_series,
    calc_mttf_from_fit, calc_nines, calc_pass_k, calc_recovery_time, calc_waste_fraction,
    calc_waste_terms, calc_young_daly_interval,
)
from mlsys.units import UnitError

# Hand computation of the reference node: failures per hour summed by component type.
#   8 / 50,000 + 2 / 150,000 + 2 / 100,000 = 0.00016 + 0.00001333 + 0.00002 = 0.00019333 /h
NODE_RATE_PER_HOUR = 8 / 50_000 + 2 / 150_000 + 2 / 100_000
NODE_MTBF_H = 5172.4138  # 1 / 0.000193333...
h, s = ureg.hour, ureg.second


def node_mtbf():
    return calc_mtbf_node(50_000 * h, 8 * gpu, 150_000 * h, 2, 100_000 * h, 2)


# ----------------------------------------------------------- hand computations


def test_node_mtbf_hand_computation():
    mtbf = node_mtbf()
    assert mtbf.units == ureg.hour
    assert mtbf.m_as("hour") == pytest.approx(NODE_MTBF_H, abs=0.01)
    assert round(mtbf.m_as("hour"), 1) == 5172.4


def test_node_mtbf_accepts_quantities_in_any_time_unit():
    mtbf = calc_mtbf_node(Q_(50_000 / 24, "day"), 8 * gpu, Q_(150_000 * 60, "minute"), 2,
                          100_000 * ureg.hour, 2)
    assert mtbf.m_as("hour") == pytest.approx(NODE_MTBF_H, abs=0.01)


def test_series_matches_node_and_skips_zero_counts():
    series = calc_mtbf_series([(50_000 * h, 8), (150_000 * h, 2), (100_000 * h, 2), (1_000 * h, 0)])
    assert series.m_as("hour") == pytest.approx(node_mtbf().m_as("hour"))
    assert calc_mtbf_series(iter([(200.0 * h, 1)])).m_as("hour") == 200.0


def test_cluster_mtbf_10k_gpus():
    cluster = calc_mtbf_cluster(node_mtbf(), 10_000 // 8 * node)
    assert cluster.m_as("hour") == pytest.approx(NODE_MTBF_H / 1250, rel=1e-6)
    assert round(cluster.m_as("hour"), 2) == 4.14
    minutes = calc_mtbf_cluster(Q_(600, "minute"), 4 * node)
    assert minutes.units == ureg.minute and minutes.magnitude == 150


def test_failure_probability():
    # 10,000 GPUs for one day: 1 - exp(-24 / 4.1379) = 1 - exp(-5.8)
    cluster = calc_mtbf_cluster(node_mtbf(), 1250 * node)
    p = calc_failure_probability(cluster, 24 * ureg.hour)
    assert p == pytest.approx(1 - math.exp(-24 * 1250 * NODE_RATE_PER_HOUR))
    assert p > 0.99 and isinstance(p, float)
    assert calc_failure_probability(10.0 * s, 10.0 * s) == pytest.approx(1 - math.exp(-1))
    assert calc_failure_probability(Q_(1, "day"), Q_(12, "hour")) == pytest.approx(1 - math.exp(-0.5))
    assert calc_failure_probability(5.0 * h, 0.0 * h) == 0.0


def test_expected_failures_and_fit():
    assert calc_expected_failures(4.0 * h, 24.0 * h) == 6.0
    assert calc_expected_failures(Q_(30, "minute"), Q_(1, "day")) == pytest.approx(48)
    assert calc_fit_from_mttf(50_000 * h).m_as(FIT) == pytest.approx(20_000)
    assert calc_fit_from_mttf(50_000 * h).m_as("1/hour") == pytest.approx(2e-5)
    assert calc_mttf_from_fit(20_000 * FIT).m_as("hour") == pytest.approx(50_000)


def test_llama_interval_and_projection():
    # 54 days x 24 h / 419 unexpected interruptions = 3.093 h
    observed = calc_mtbf_observed(54 * ureg.day, 419)
    assert observed.m_as("hour") == pytest.approx(54 * 24 / 419)
    # hold the per-GPU rate: 3.093 h x 16,384 / 100,000 = 0.507 h = 30.4 min
    projected = calc_mtbf_rescaled(observed, from_devices=16_384 * gpu, to_devices=100_000 * gpu)
    assert projected.m_as("minute") == pytest.approx(54 * 24 * 60 / 419 * 0.16384)
    assert 29 < projected.m_as("minute") < 31


def test_checkpoint_size_and_write_time():
    size = calc_checkpoint_size(175e9, 16 * byte)
    assert size.units == ureg.byte
    assert size.m_as(GB) == pytest.approx(2_800)
    assert size.m_as(GB) / 100 == pytest.approx(28.0)  # seconds at 100 GB/s
    # the book's convention: 14 B/param (bf16 + fp32 master + two fp32 moments, no gradients)
    assert calc_checkpoint_size(7_000_000_000, CHECKPOINT_BYTES_PER_PARAM * byte).m_as(GB) == pytest.approx(98)
    # the default is the convention, not the contract's 16 (which counted gradients)
    assert calc_checkpoint_size(7_000_000_000) == calc_checkpoint_size(7e9, 14 * byte)
    assert calc_checkpoint_size(10, Q_(2, "byte")).m_as("byte") == 20
    assert calc_checkpoint_size(8, Q_(4, "bit")).m_as("byte") == 4  # e.g. 4-bit weights
    assert size.dimensionality == ureg.byte.dimensionality != ureg.dimensionless.dimensionality


def test_young_daly_worked_example():
    # delta = 28 s, M = 4.1379 h = 14,896.6 s: sqrt(2 * 28 * 14,896.6) = 913.4 s = 15.22 min
    mtbf_s = NODE_MTBF_H / 1250 * 3600
    tau = calc_young_daly_interval(28.0 * s, mtbf_s * s)
    assert tau.units == ureg.second
    assert tau.m_as("second") == pytest.approx(math.sqrt(2 * 28 * mtbf_s))
    assert round(tau.m_as("minute"), 1) == 15.2
    tau_q = calc_young_daly_interval(Q_(28, "second"), Q_(NODE_MTBF_H / 1250, "hour"))
    assert tau_q.m_as("second") == pytest.approx(tau.m_as("second"))
    # 20,000 GPUs halve M, so tau shrinks by sqrt(2): 15.22 / 1.414 = 10.76 min
    assert round(calc_young_daly_interval(28.0 * s, mtbf_s / 2 * s).m_as("minute"), 1) == 10.8


@pytest.mark.parametrize("mtbf_min, delta_min, expected_min", [
    (24 * 60, 5, 117), (6 * 60, 5, 57), (15, 5, 9.1),  # Daly (2006), Figs. 3-5
])
def test_daly_interval_reproduces_dalys_examples(mtbf_min, delta_min, expected_min):
    tau = calc_daly_interval(Q_(delta_min, "minute"), Q_(mtbf_min, "minute"))
    assert tau.m_as("minute") == pytest.approx(expected_min, abs=0.5 if expected_min > 20 else 0.05)


def test_daly_interval_hand_computation_and_regimes():
    # delta = 1, M = 50: x = 0.01; sqrt(100) * (1 + 0.1/3 + 0.01/9) - 1 = 9.3444
    assert calc_daly_interval(1 * s, 50 * s).m_as("second") == pytest.approx(10 * (1 + 0.1 / 3 + 0.01 / 9) - 1)
    assert calc_daly_interval(1 * s, 50 * s) < calc_young_daly_interval(1 * s, 50 * s)


def test_daly_interval_at_and_beyond_delta_equal_two_m():
    # delta >= 2M: the series is not used and tau = M exactly
    assert calc_daly_interval(200 * s, 100 * s).m_as("second") == 100.0  # delta = 2M, the boundary
    assert calc_daly_interval(200.0001 * s, 100 * s).m_as("second") == 100.0
    assert calc_daly_interval(1_000 * s, 100 * s).m_as("second") == 100.0  # delta = 10M
    assert calc_daly_interval(1e9 * s, 3 * s).m_as("second") == 3.0
    tau = calc_daly_interval(Q_(10, "minute"), Q_(4, "minute"))  # delta = 2.5M
    assert tau.units == ureg.second and tau.magnitude == 240.0
    # just below the boundary the series still applies: delta = 199, M = 100, x = 0.995:
    # sqrt(39,800) = 199.499; 199.499 * (1 + 0.99750 / 3 + 0.995 / 9) - 199 = 88.89 s (not M)
    below = calc_daly_interval(199 * s, 100 * s).m_as("second")
    assert below == pytest.approx(88.89, abs=0.01)
    assert below == pytest.approx(math.sqrt(39_800) * (1 + math.sqrt(0.995) / 3 + 0.995 / 9) - 199)


def test_recovery_time_worked_example():
    # 30 s detect + 60 s reschedule + 28 s reload + 913.4 s / 2 replay = 574.7 s = 9.58 min
    mtbf_s = NODE_MTBF_H / 1250 * 3600
    replay = math.sqrt(2 * 28 * mtbf_s) / 2
    total = calc_recovery_time(30 * s, 60 * s, 28.0 * s, replay * ureg.second)
    assert total.units == ureg.second
    assert total.m_as("second") == pytest.approx(118 + replay)
    assert round(total.m_as("minute"), 1) == 9.6
    assert calc_recovery_time(0 * s, 0 * s, 0 * s, 0 * s).m_as("second") == 0


def test_waste_budget_llama_example():
    # M = 54 d / 419 = 11,135 s, C = D = R = 60 s: tau* = sqrt(2 * 60 * M) = 1,156 s = 19.3 min
    mtbf_s = 54 * 86_400 / 419
    tau = calc_young_daly_interval(60 * s, mtbf_s * s)
    assert 18.5 < tau.m_as("minute") < 19.5
    terms = calc_waste_terms(tau, 60 * s, mtbf_s * s, detect=60 * s, recover=60 * s)
    assert isinstance(terms, WasteTerms)
    assert terms.checkpoint == pytest.approx(60 / tau.m_as("second"))
    assert terms.rework == pytest.approx(tau.m_as("second") / (2 * mtbf_s))
    assert terms.recovery == pytest.approx(120 / mtbf_s)
    assert terms.checkpoint == pytest.approx(terms.rework)  # equal at the optimum
    waste = calc_waste_fraction(tau, 60 * s, mtbf_s * s, 60 * s, 60 * s)
    # at Young's optimum C/tau = tau/(2M) = sqrt(C/(2M)), so W = sqrt(2C/M) + (D+R)/M
    #   sqrt(120 / 11,135) + 120 / 11,135 = 0.10381 + 0.01078 = 0.1146
    assert waste == pytest.approx(math.sqrt(2 * 60 / mtbf_s) + 120 / mtbf_s, rel=1e-12)
    assert waste == pytest.approx(0.1146, abs=1e-4)
    assert round(1 - waste, 3) == pytest.approx(0.885, abs=0.001)
    assert calc_waste_fraction(Q_(20, "minute"), Q_(1, "minute"), Q_(10, "hour")) == pytest.approx(
        1 / 20 + 20 / 1200)


def test_availability():
    assert calc_availability_stacked(0.99, 1) == pytest.approx(0.99)
    assert calc_availability_stacked(0.99, 2) == pytest.approx(0.9999)
    assert calc_availability_stacked(0.99, 3) == pytest.approx(0.999999)
    assert calc_availability_stacked(0.99, 2) >= 0.9999 - 1e-12
    assert calc_availability_serial(0.9999, 10_000) == pytest.approx(math.exp(10_000 * math.log(0.9999)))
    assert round(calc_availability_serial(0.9999, 10_000), 2) == 0.37
    assert calc_nines(0.999) == pytest.approx(3)
    assert calc_nines(0.9999) == pytest.approx(4)
    assert calc_annual_downtime(0.99).m_as("hour") == pytest.approx(87.6)
    assert calc_annual_downtime(0.9999).m_as("minute") == pytest.approx(52.56)


def test_quorum_availability_by_enumerating_every_state():
    """Every up/down state of n replicas, weighted by its probability: the states with
    at least `quorum` up add up to the availability."""
    import itertools
    for a, n in ((0.9, 3), (0.99, 4), (0.7, 5)):
        for quorum in range(1, n + 1):
            expected = sum(math.prod(a if up else 1 - a for up in state)
                           for state in itertools.product((True, False), repeat=n)
                           if sum(state) >= quorum)
            assert calc_availability_quorum(a, n, quorum) == pytest.approx(expected, abs=1e-15)
    assert calc_availability_quorum(0.9, 3, 2) == pytest.approx(0.972)     # 3·0.81·0.1 + 0.729
    assert calc_availability_quorum(0.99, 2, 1) == pytest.approx(calc_availability_stacked(0.99, 2))
    assert calc_availability_quorum(0.99, 3, 3) == pytest.approx(calc_availability_serial(0.99, 3))
    # a majority of two is both: less available than one replica
    assert calc_availability_quorum(0.99, 2, 2) < 0.99
    # many nines keep their precision (the down states are summed, not 1 - up)
    assert calc_nines(calc_availability_quorum(0.999, 4, 1)) == pytest.approx(12, abs=1e-3)
    with pytest.raises(ValueError, match="at most n"):
        calc_availability_quorum(0.99, 2, 3)
    with pytest.raises(ValueError):
        calc_availability_quorum(0.99, 2, 0)


def test_agents():
    assert calc_chain_success(0.95, 20) == pytest.approx(0.95 ** 20)
    assert calc_chain_success(0.5, 0) == 1.0
    assert calc_chain_success_steps([0.9, 0.8, 0.5]) == pytest.approx(0.36)
    assert calc_chain_success_steps([]) == 1.0
    # 6 successes of 8 trials: pass^2 = C(6,2)/C(8,2) = 15/28; pass^1 is the success rate
    assert calc_pass_k(6, 8, 2) == pytest.approx(15 / 28)
    assert calc_pass_k(6, 8, 1) == pytest.approx(0.75)
    assert calc_pass_k(1, 8, 2) == 0.0
    assert calc_pass_k(8, 8, 8) == 1.0


def test_return_types():
    assert type(calc_nines(0.99)) is float
    assert type(calc_availability_stacked(0.99, 2)) is float
    assert type(calc_failure_probability(1.0 * h, 1.0 * h)) is float
    assert type(calc_pass_k(3, 4, 2)) is float
    assert isinstance(calc_young_daly_interval(1 * s, 2_000 * s), pint.Quantity)


# ------------------------------------------------- probability endpoints 0 and 1
# Every function taking a probability / availability accepts exactly 0 and exactly 1
# (except calc_nines at 1, which has no finite value) and rejects the nearest floats
# outside [0, 1] with a ValueError naming the parameter.

ABOVE_ONE = math.nextafter(1.0, 2.0)  # 1.0000000000000002
BELOW_ZERO = math.nextafter(0.0, -1.0)  # -5e-324


@pytest.mark.parametrize("call, expected", [
    (lambda: calc_availability_stacked(0.0, 1), 0.0),
    (lambda: calc_availability_stacked(0.0, 3), 0.0),  # 1 - 1^3
    (lambda: calc_availability_stacked(1.0, 1), 1.0),
    (lambda: calc_availability_stacked(1.0, 3), 1.0),  # 1 - 0^3
    (lambda: calc_availability_stacked(Q_(100, "percent"), 2), 1.0),
    (lambda: calc_availability_serial(0.0, 5), 0.0),
    (lambda: calc_availability_serial(0.0, 0), 1.0),  # no components: nothing can fail
    (lambda: calc_availability_serial(1.0, 10_000), 1.0),
    (lambda: calc_availability_serial(1, 3), 1.0),  # plain int 1
    (lambda: calc_nines(0.0), 0.0),  # -log10(1) = 0 nines
    (lambda: calc_nines(0), 0.0),
    (lambda: calc_annual_downtime(0.0).m_as("hour"), 8_760.0),  # down all year
    (lambda: calc_annual_downtime(1.0).m_as("hour"), 0.0),
    (lambda: calc_annual_downtime(1).m_as("hour"), 0.0),
    (lambda: calc_chain_success(0.0, 4), 0.0),
    (lambda: calc_chain_success(0.0, 0), 1.0),  # an empty chain always succeeds
    (lambda: calc_chain_success(1.0, 50), 1.0),
    (lambda: calc_chain_success(1, 2), 1.0),
    (lambda: calc_chain_success_steps([1.0, 1.0, 1.0]), 1.0),
    (lambda: calc_chain_success_steps([0.9, 0.0, 0.5]), 0.0),
    (lambda: calc_chain_success_steps([0.5, 1.0]), 0.5),
    (lambda: calc_chain_success_steps([0, 1]), 0.0),
])
def test_probability_endpoints_are_accepted_with_exact_values(call, expected):
    assert call() == expected


@pytest.mark.parametrize("call, parameter", [
    (lambda: calc_availability_stacked(ABOVE_ONE, 2), "availability"),
    (lambda: calc_availability_stacked(BELOW_ZERO, 2), "availability"),
    (lambda: calc_availability_stacked(Q_(100.001, "percent"), 2), "availability"),
    (lambda: calc_availability_serial(ABOVE_ONE, 2), "availability"),
    (lambda: calc_availability_serial(BELOW_ZERO, 2), "availability"),
    (lambda: calc_nines(ABOVE_ONE), "availability"),
    (lambda: calc_nines(BELOW_ZERO), "availability"),
    (lambda: calc_nines(1.0), "availability"),  # 1 is a probability but has infinite nines
    (lambda: calc_annual_downtime(ABOVE_ONE), "availability"),
    (lambda: calc_annual_downtime(BELOW_ZERO), "availability"),
    (lambda: calc_chain_success(ABOVE_ONE, 2), "p"),
    (lambda: calc_chain_success(BELOW_ZERO, 2), "p"),
    (lambda: calc_chain_success(ABOVE_ONE, 0), "p"),  # validated even when n = 0
    (lambda: calc_chain_success_steps([1.0, ABOVE_ONE]), "probabilities[1]"),
    (lambda: calc_chain_success_steps([BELOW_ZERO]), "probabilities[0]"),
    (lambda: calc_chain_success_steps([0.0, BELOW_ZERO]), "probabilities[1]"),
])
def test_just_outside_unit_interval_is_rejected_naming_the_parameter(call, parameter):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{parameter} must"), message
    assert "[0, 1]" in message or "below 1" in message, message


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize("call, parameter", [
    (lambda: calc_mtbf_node(0 * h, 8 * gpu, 150_000 * h, 2, 100_000 * h, 2), "gpu_mttf"),
    (lambda: calc_mtbf_node(50_000 * h, 8 * gpu, -1 * h, 2, 100_000 * h, 2), "nic_mttf"),
    (lambda: calc_mtbf_node(50_000 * h, 8 * gpu, 150_000 * h, 2, math.nan * h, 2), "psu_mttf"),
    (lambda: calc_mtbf_node(50_000 * h, -8 * gpu, 150_000 * h, 2, 100_000 * h, 2), "n_gpus"),
    (lambda: calc_mtbf_node(50_000 * h, 8 * gpu, 150_000 * h, 2.5, 100_000 * h, 2), "n_nics"),
    (lambda: calc_mtbf_node(50_000 * h, 0 * gpu, 150_000 * h, 0, 100_000 * h, 0), "n_gpus"),
    (lambda: calc_mtbf_series([(50_000 * h, 8), (0 * h, 1)]), "components[1].mttf"),
    (lambda: calc_mtbf_series([(50_000 * h, -1)]), "components[0].count"),
    (lambda: calc_mtbf_series([]), "components"),
    (lambda: calc_mtbf_cluster(0 * h, 10 * node), "node_mtbf"),
    (lambda: calc_mtbf_cluster(100 * h, 0 * node), "n_nodes"),
    (lambda: calc_mtbf_cluster(100 * h, 2.5 * node), "n_nodes"),
    (lambda: calc_mtbf_cluster(math.inf * h, 2 * node), "node_mtbf"),
    (lambda: calc_failure_probability(0 * h, 1 * h), "mtbf"),
    (lambda: calc_failure_probability(10 * h, -1 * h), "duration"),
    (lambda: calc_failure_probability(10 * h, math.nan * h), "duration"),
    (lambda: calc_young_daly_interval(0 * s, 100 * s), "checkpoint_cost"),
    (lambda: calc_young_daly_interval(-5 * s, 100 * s), "checkpoint_cost"),
    (lambda: calc_young_daly_interval(5 * s, 0 * s), "mtbf"),
    (lambda: calc_young_daly_interval(5 * s, math.nan * s), "mtbf"),
    (lambda: calc_daly_interval(0 * s, 100 * s), "checkpoint_cost"),
    (lambda: calc_daly_interval(5 * s, -100 * s), "mtbf"),
    (lambda: calc_checkpoint_size(2.5, 14 * byte), "n_params"),
    (lambda: calc_checkpoint_size(-1, 14 * byte), "n_params"),
    (lambda: calc_checkpoint_size(1e9, 0 * byte), "bytes_per_param"),
    (lambda: calc_recovery_time(-1 * s, 0 * s, 0 * s, 0 * s), "detect"),
    (lambda: calc_recovery_time(0 * s, 0 * s, 0 * s, math.nan * s), "replay"),
    (lambda: calc_waste_fraction(0 * s, 1 * s, 100 * s), "interval"),
    (lambda: calc_waste_fraction(10 * s, 0 * s, 100 * s), "checkpoint_cost"),
    (lambda: calc_waste_fraction(10 * s, 1 * s, 0 * s), "mtbf"),
    (lambda: calc_waste_fraction(10 * s, 1 * s, 100 * s, detect=-1 * s), "detect"),
    (lambda: calc_availability_stacked(1.01, 2), "availability"),
    (lambda: calc_availability_stacked(-0.1, 2), "availability"),
    (lambda: calc_availability_stacked(0.99, -1), "k"),
    (lambda: calc_availability_stacked(0.99, 1.5), "k"),
    (lambda: calc_availability_serial(0.99, -2), "n"),
    (lambda: calc_nines(1.0), "availability"),
    (lambda: calc_nines(math.nan), "availability"),
    (lambda: calc_annual_downtime(2), "availability"),
    (lambda: calc_chain_success(1.2, 3), "p"),
    (lambda: calc_chain_success(0.9, -3), "n"),
    (lambda: calc_chain_success_steps([0.9, 1.5]), "probabilities[1]"),
    (lambda: calc_pass_k(9, 8, 2), "successes"),
    (lambda: calc_pass_k(6, 8, 9), "k"),
    (lambda: calc_pass_k(6, 8, 0), "k"),
    (lambda: calc_pass_k(6, 0, 1), "trials"),
    (lambda: calc_mtbf_observed(100 * h, 0), "n_failures"),
    (lambda: calc_mtbf_rescaled(3 * h, from_devices=0 * gpu, to_devices=10 * gpu), "from_devices"),
    (lambda: calc_fit_from_mttf(0 * h), "mttf"),
    (lambda: calc_mttf_from_fit(0 * FIT), "fit"),
])
def test_bad_values_raise_value_error_naming_the_parameter(call, parameter):
    with pytest.raises(ValueError) as info:
        call()
    assert parameter in str(info.value)


@pytest.mark.parametrize("call, parameter, expected", [
    (lambda: calc_mtbf_node(Q_(5, "GB"), 8 * gpu, 150_000 * h, 2, 100_000 * h, 2), "gpu_mttf", "hours"),
    (lambda: calc_mtbf_cluster(Q_(5, "meter"), 2 * node), "node_mtbf", "hours"),
    (lambda: calc_failure_probability(Q_(5, "hour"), Q_(5, "byte")), "duration", "hours"),
    (lambda: calc_young_daly_interval(Q_(28, "GB"), 1000 * s), "checkpoint_cost", "seconds"),
    (lambda: calc_checkpoint_size(1e9, Q_(2, "second")), "bytes_per_param", "bytes"),
    (lambda: calc_recovery_time(1 * s, 1 * s, Q_(1, "GB"), 1 * s), "reload", "seconds"),
    (lambda: calc_mtbf_cluster(5172 * h, Q_(2450, "GB")), "n_nodes", "count"),
    (lambda: calc_mttf_from_fit(20_000 * h), "fit", "FIT"),
])
def test_wrong_dimension_raises_an_error_naming_parameter_and_unit(call, parameter, expected):
    with pytest.raises((pint.DimensionalityError, UnitError)) as info:
        call()
    assert str(info.value).startswith(parameter) and expected in str(info.value), str(info.value)


def test_non_numbers_are_type_errors():
    with pytest.raises(TypeError, match="mtbf"):
        calc_young_daly_interval(1 * s, "100")
    with pytest.raises(TypeError, match="n_nodes"):
        calc_mtbf_cluster(100 * h, True)
    with pytest.raises(TypeError, match="components\\[0\\]"):
        calc_mtbf_series([50_000])
