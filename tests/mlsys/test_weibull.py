"""The Weibull results of mlsys.weibull, against closed forms and against Monte Carlo.

The simulators sample Weibull lifetimes with numpy (fixed seeds) and do their
own bookkeeping; none calls into mlsys except to fetch the value under test.
Each Monte Carlo comparison allows 4 standard errors, and a power test beside it
shows that the criterion rejects the exponential answer the module corrects.
"""

import math

import numpy as np
import pytest

from mlsys.constants import hour, second
from mlsys.formulas import (
    calc_exact_efficiency, calc_exact_optimal_interval, calc_failure_probability,
    calc_young_daly_interval,
)
from mlsys.weibull import (
    calc_weibull_efficiency, calc_weibull_failure_probability, calc_weibull_lost_work,
    calc_weibull_optimal_interval, calc_weibull_scale,
)

M = 14_897.0          # seconds: the worked example's cluster MTBF
DELTA = 24.5          # seconds: its checkpoint write
R = 114.5             # seconds: detection, rescheduling and reload
SHAPES = [0.5, 0.7, 1.5, 2.0]


def lifetimes(rng, shape, n):
    """Weibull times to failure with mean M: numpy's unit-scale draw times η = M / Γ(1 + 1/β)."""
    return rng.weibull(shape, size=n) * M / math.gamma(1 + 1 / shape)


def within(samples, expected, k=4.0):
    mean, se = samples.mean(), samples.std(ddof=1) / math.sqrt(samples.size)
    return abs(mean - expected) <= k * se, f"simulated {mean:.6g} ± {se:.3g}, formula {expected:.6g}"


# ------------------------------------------------------------------- closed forms

def test_scale_gives_the_mean():
    assert calc_weibull_scale(M * second, shape=1.0).m_as("second") == pytest.approx(M, rel=1e-15)
    assert calc_weibull_scale(M * second, shape=2.0).m_as("second") == pytest.approx(
        M * 2 / math.sqrt(math.pi), rel=1e-14)          # Γ(3/2) = √π / 2
    assert calc_weibull_scale(3 * hour, shape=0.5).m_as("hour") == pytest.approx(1.5, rel=1e-14)  # Γ(3) = 2


def test_shape_one_is_the_exponential_model():
    for t in (0.01, 1.0, 3.0):
        assert calc_weibull_failure_probability(1 * hour, t * hour, shape=1.0) == pytest.approx(
            calc_failure_probability(1 * hour, t * hour), rel=1e-14)
    tau = 854.0
    lost = calc_weibull_lost_work(tau * second, M * second, shape=1.0).m_as("second")
    assert lost == pytest.approx(M - tau / math.expm1(tau / M), rel=1e-9)   # memoryless: no age
    lost_old = calc_weibull_lost_work(tau * second, M * second, shape=1.0, age=3 * M * second)
    assert lost_old.m_as("second") == pytest.approx(lost, rel=1e-7)
    efficiency = calc_weibull_efficiency(tau * second, DELTA * second, R * second, M * second, shape=1.0)
    assert efficiency == pytest.approx(tau / ((M + R) * math.expm1((tau + DELTA) / M)), rel=1e-12)
    optimum = calc_weibull_optimal_interval(DELTA * second, M * second, shape=1.0).m_as("second")
    assert optimum == pytest.approx(calc_exact_optimal_interval(DELTA * second, M * second)
                                    .m_as("second"), rel=1e-6)


def test_shape_one_efficiency_tends_to_dalys_exact_model_as_restarts_shrink():
    """M + R against Daly's M e^(R/M): equal to first order in R/M."""
    tau = 854.0
    ours = calc_weibull_efficiency(tau * second, DELTA * second, 1 * second, M * second, shape=1.0)
    daly = calc_exact_efficiency(tau * second, DELTA * second, 1 * second, M * second)
    assert ours == pytest.approx(daly, rel=1e-8)


@pytest.mark.parametrize("shape", SHAPES)
def test_first_interval_loses_beta_over_beta_plus_one_of_it(shape):
    """For τ ≪ η the density near age zero is ∝ t^(β−1), so E[lost] → β τ / (β + 1).

    The next term is of relative order (τ/η)^β, hence an interval with (τ/η)^β = 1e-6.
    """
    tau = calc_weibull_scale(M * second, shape=shape).m_as("second") * 1e-6 ** (1 / shape)
    lost = calc_weibull_lost_work(tau * second, M * second, shape=shape).m_as("second")
    assert lost / tau == pytest.approx(shape / (shape + 1), rel=1e-5)


def test_short_jobs_a_falling_hazard_interrupts_far_more_often():
    """P ≈ (Γ(1 + 1/β) T/M)^β for T ≪ M: at T = M/100 and β = 1/2, (2/100)^(1/2) ≈ 0.141."""
    p = calc_weibull_failure_probability(100 * hour, 1 * hour, shape=0.5)
    assert p == pytest.approx(-math.expm1(-math.sqrt(0.02)), rel=1e-14)
    assert p > 10 * calc_failure_probability(100 * hour, 1 * hour)


def test_bad_shapes_and_bare_numbers_are_errors_naming_the_parameter():
    with pytest.raises(ValueError, match="shape"):
        calc_weibull_failure_probability(1 * hour, 1 * hour, shape=0.0)
    with pytest.raises(ValueError, match="shape"):
        calc_weibull_scale(1 * hour, shape=50.0)
    with pytest.raises(TypeError, match="mtbf"):
        calc_weibull_failure_probability(1.0, 1 * hour, shape=1.0)
    with pytest.raises(TypeError):
        calc_weibull_failure_probability(1 * hour, 1 * hour, 1.0)   # shape is keyword-only
    with pytest.raises(ValueError, match="too unlikely"):
        calc_weibull_lost_work(1 * second, 1 * second, shape=3.0, age=100 * second)


# -------------------------------------------------------------------- Monte Carlo

@pytest.mark.parametrize("shape", SHAPES)
def test_failure_probability_matches_simulation(shape):
    rng = np.random.default_rng(1951)              # Weibull's paper
    x = lifetimes(rng, shape, 400_000)
    for t in (0.1 * M, M, 3 * M):
        expected = calc_weibull_failure_probability(M * second, t * second, shape=shape)
        ok, report = within((x < t).astype(float), expected)
        assert ok, f"shape {shape}, T = {t / M:g} M: {report}"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("age_in_m", [0.0, 1.0])
def test_lost_work_matches_simulation(shape, age_in_m):
    rng = np.random.default_rng(2024)
    tau, age = 0.3 * M, age_in_m * M
    x = lifetimes(rng, shape, 2_000_000)
    hit = x[(x > age) & (x < age + tau)] - age
    expected = calc_weibull_lost_work(tau * second, M * second, shape=shape,
                                      age=age * second).m_as("second")
    ok, report = within(hit, expected)
    assert ok, f"shape {shape}, age {age_in_m:g} M: {report}"


def test_simulation_rejects_half_an_interval_for_a_falling_hazard():
    """Power: in the first interval after a restart at β = 0.5, τ/2 is far outside 4 SE."""
    rng = np.random.default_rng(2024)
    tau = 0.3 * M
    x = lifetimes(rng, 0.5, 2_000_000)
    assert not within(x[x < tau], tau / 2)[0]


def simulated_efficiency(shape, tau, rng, n_cycles=400_000):
    """Useful fraction over many renewal cycles: each keeps τ ⌊X/(τ + δ)⌋ of X + R.

    Returns the ratio estimate and its standard error (delta method).
    """
    x = lifetimes(rng, shape, n_cycles)
    kept = tau * np.floor(x / (tau + DELTA))
    wall = x + R
    ratio = kept.sum() / wall.sum()
    residual = (kept - ratio * wall) / wall.mean()
    return ratio, residual.std(ddof=1) / math.sqrt(n_cycles)


@pytest.mark.parametrize("shape", SHAPES)
def test_efficiency_matches_simulation(shape):
    tau = calc_young_daly_interval(DELTA * second, M * second).m_as("second")
    ratio, se = simulated_efficiency(shape, tau, np.random.default_rng(7))
    expected = calc_weibull_efficiency(tau * second, DELTA * second, R * second, M * second, shape=shape)
    assert abs(ratio - expected) <= 4 * se, f"simulated {ratio:.6f} ± {se:.2g}, formula {expected:.6f}"


def test_efficiency_with_the_tail_integral_matches_simulation():
    """A short cycle at β = 0.5 needs more than the explicitly summed segments: the tail counts."""
    tau = 2.0
    ratio, se = simulated_efficiency(0.5, tau, np.random.default_rng(11), n_cycles=200_000)
    expected = calc_weibull_efficiency(tau * second, DELTA * second, R * second, M * second, shape=0.5)
    assert abs(ratio - expected) <= 4 * se, f"simulated {ratio:.6f} ± {se:.2g}, formula {expected:.6f}"


@pytest.mark.parametrize("shape", SHAPES)
def test_optimal_interval_beats_its_neighbours_and_young_is_near_it(shape):
    optimum = calc_weibull_optimal_interval(DELTA * second, M * second, shape=shape)

    def efficiency(tau):
        return calc_weibull_efficiency(tau, DELTA * second, R * second, M * second, shape=shape)

    best = efficiency(optimum)
    assert best > efficiency(optimum * 0.99) and best > efficiency(optimum * 1.01)
    young = calc_young_daly_interval(DELTA * second, M * second)
    # the first-order budget does not depend on the shape: Young's interval stays near-optimal
    assert best - efficiency(young) < 1e-3


def merged_gap_cv(shape, n_nodes, per_node, seed):
    """Coefficient of variation of the gaps between failures of n_nodes merged renewal processes."""
    rng = np.random.default_rng(seed)
    events = np.cumsum(lifetimes(rng, shape, n_nodes * per_node).reshape(n_nodes, per_node), axis=1)
    horizon = events[:, -1].min()                     # every node still renewing up to here
    merged = np.sort(events[(events > 0.5 * horizon) & (events < horizon)])   # ages mixed by then
    gaps = np.diff(merged)
    return gaps.std() / gaps.mean()


def test_a_large_fleet_of_mixed_ages_fails_like_a_poisson_process():
    """The module's caveat: many independent Weibull nodes, each replaced when it fails
    (a renewal process per node), merge into nearly exponential gaps at the job level.

    One node at β = 0.5 has a coefficient of variation √(Γ(5)/Γ(3)² − 1) = √5 ≈ 2.24;
    merged gaps approach the exponential's 1 as the fleet grows (measured, seed 1970,
    200 lives per node: 50 nodes 1.12, 200 nodes 1.09, 800 nodes 1.04, 3,200 nodes 1.02).
    """
    shape = 0.5
    cv_single = math.sqrt(math.gamma(1 + 2 / shape) / math.gamma(1 + 1 / shape) ** 2 - 1)
    assert cv_single == pytest.approx(math.sqrt(5), rel=1e-12)
    small, large = merged_gap_cv(shape, 50, 200, 1970), merged_gap_cv(shape, 3_200, 200, 1970)
    assert abs(large - 1) < 0.04, f"3,200 nodes: CV {large:.3f}"
    assert cv_single > small > large, f"CV: one node {cv_single:.2f}, 50 nodes {small:.3f}, 3,200 {large:.3f}"
