"""The exact checkpoint/restart model (Daly 2006) against an independent,
seeded Monte Carlo simulation written here, and its limits."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mlsys import (
    calc_daly_interval, calc_exact_efficiency, calc_exact_optimal_interval,
    calc_expected_wall_time, calc_stretch_factor, calc_waste_fraction,
    calc_young_daly_interval, second,
)
from mlsys.validity import OutsideDomainError, beyond_first_order_domain
from mlsys.simulation import simulate_wall_time


def timeline_wall_time(solve_s, tau_s, delta_s, restart_s, mtbf_s, rng):
    """One job on an absolute clock: failures are points of a Poisson process laid
    on the wall clock; the job walks through work, checkpoint and restart phases and
    falls back to the last checkpoint whenever the next failure point lands inside
    a phase. Written independently of mlsys.simulation."""
    clock = 0.0
    next_failure = rng.exponential(mtbf_s)
    done = 0.0                                     # useful work secured by checkpoints
    restarting = False
    while done < solve_s - 1e-9:
        chunk = min(tau_s, solve_s - done)
        phases = ([restart_s] if restarting else []) + [chunk, delta_s]
        span = sum(phases)
        if clock + span <= next_failure:
            clock += span
            done += chunk
            restarting = False
        else:
            clock = next_failure                   # everything since the checkpoint is lost
            next_failure = clock + rng.exponential(mtbf_s)
            restarting = True
    return clock


def monte_carlo(solve_s, tau_s, delta_s, restart_s, mtbf_s, runs, seed):
    rng = np.random.default_rng(seed)
    samples = np.array([timeline_wall_time(solve_s, tau_s, delta_s, restart_s, mtbf_s, rng)
                        for _ in range(runs)])
    return samples.mean(), samples.std(ddof=1) / math.sqrt(runs)


def seconds(*values):
    """Plain numbers of the tables below as time Quantities (the unit rule of mlsys.units)."""
    return [v * second for v in values]


# (tau, delta, R, M) in seconds: from delta << M to tau + delta + R comparable with M.
CASES = [
    (900.0, 28.0, 118.0, 14_900.0),      # the appendix's worked example, roughly
    (300.0, 30.0, 120.0, 1_500.0),       # first order already off
    (200.0, 25.0, 115.0, 400.0),         # far outside the first-order range
]


@pytest.mark.parametrize("tau, delta, restart, mtbf", CASES)
def test_exact_wall_time_matches_independent_simulation(tau, delta, restart, mtbf):
    solve = 20 * tau
    exact = calc_expected_wall_time(*seconds(solve, tau, delta, restart, mtbf)).m_as(second)
    mean, stderr = monte_carlo(solve, tau, delta, restart, mtbf, runs=4_000, seed=20060301)
    assert abs(mean - exact) < 4 * stderr, (mean, stderr, exact)
    assert stderr < 0.01 * exact          # enough samples for the comparison to bite


@pytest.mark.parametrize("tau, delta, restart, mtbf", CASES)
def test_package_simulation_agrees_with_the_formula(tau, delta, restart, mtbf):
    solve = 20 * tau
    exact = calc_expected_wall_time(*seconds(solve, tau, delta, restart, mtbf)).m_as(second)
    sim = simulate_wall_time(*seconds(solve, tau, delta, restart, mtbf), runs=4_000, seed=7)
    assert abs(sim.mean_s - exact) < 4 * sim.stderr_s
    again = simulate_wall_time(*seconds(solve, tau, delta, restart, mtbf), runs=4_000, seed=7)
    assert again == sim                    # deterministic for a seed


def test_simulation_detects_a_wrong_formula():
    """The comparison bites: Daly's form without the restart factor e^(R/M) is rejected."""
    tau, delta, restart, mtbf = CASES[1]
    solve = 20 * tau
    wrong = mtbf * math.expm1((tau + delta) / mtbf) * solve / tau
    mean, stderr = monte_carlo(solve, tau, delta, restart, mtbf, runs=4_000, seed=20060301)
    assert abs(mean - wrong) > 10 * stderr


def test_exact_values_by_hand():
    # M e^{R/M}(e^{(tau+delta)/M} - 1) T_s/tau with round numbers
    got = calc_expected_wall_time(*seconds(3_600, 600, 60, 120, 7_200)).m_as(second)
    want = 7_200 * math.exp(120 / 7_200) * (math.exp(660 / 7_200) - 1) * 6
    assert got == pytest.approx(want, rel=1e-12)
    assert calc_exact_efficiency(*seconds(600, 60, 120, 7_200)) == pytest.approx(3_600 / want, rel=1e-12)


def test_no_failures_limit_is_work_plus_checkpoints():
    got = calc_expected_wall_time(*seconds(3_600, 600, 60, 120, 1e12)).m_as(second)
    assert got == pytest.approx(3_600 + 6 * 60, rel=1e-6)


def test_first_order_limit():
    """For tau, delta, R << M the exact waste tends to delta/tau + tau/(2M) + R/M."""
    tau, delta, restart, mtbf = 1_000.0, 0.5, 20.0, 1e6
    exact_waste = 1 - calc_exact_efficiency(*seconds(tau, delta, restart, mtbf))
    first = calc_waste_fraction(*seconds(tau, delta, mtbf, 0, restart))
    assert exact_waste == pytest.approx(first, rel=5e-3)
    # ... and the gap grows with the expansion parameters (first order fails at scale)
    tau, delta, restart, mtbf = 200.0, 25.0, 115.0, 400.0
    with pytest.raises(OutsideDomainError, match=r"W = .* = 0.662 exceeds FIRST_ORDER_MAX_WASTE"):
        calc_waste_fraction(*seconds(tau, delta, mtbf, 0, restart))
    with beyond_first_order_domain("the test measures how far first order is off there"):
        first = calc_waste_fraction(*seconds(tau, delta, mtbf, 0, restart))
    gap = calc_exact_efficiency(*seconds(tau, delta, restart, mtbf)) - (1 - first)
    assert gap > 0.1


@pytest.mark.parametrize("delta, mtbf", [(28.0, 14_900.0), (30.0, 1_500.0), (25.0, 400.0),
                                          (1.0, 1e6)])
def test_optimal_interval_maximises_the_exact_efficiency(delta, mtbf):
    best = calc_exact_optimal_interval(*seconds(delta, mtbf)).m_as(second)
    e_best = calc_exact_efficiency(*seconds(best, delta, 100.0, mtbf))
    for factor in (0.9, 0.99, 1.01, 1.1):
        assert calc_exact_efficiency(*seconds(best * factor, delta, 100.0, mtbf)) < e_best
    # independent brute force over a fine grid
    grid = np.linspace(best * 0.5, best * 1.5, 2001)
    values = [calc_exact_efficiency(*seconds(t, delta, 100.0, mtbf)) for t in grid]
    assert abs(grid[int(np.argmax(values))] - best) <= (grid[1] - grid[0])


def test_daly_interval_approximates_the_exact_optimum_when_delta_is_small():
    delta, mtbf = 28.0, 14_900.0
    exact = calc_exact_optimal_interval(*seconds(delta, mtbf)).m_as(second)
    daly = calc_daly_interval(*seconds(delta, mtbf)).m_as(second)
    young = calc_young_daly_interval(*seconds(delta, mtbf)).m_as(second)
    assert abs(daly - exact) < abs(young - exact)
    assert daly == pytest.approx(exact, rel=2e-3)


def test_stretch_factor_is_one_over_one_minus_f():
    assert calc_stretch_factor(0.13) == pytest.approx(1 / 0.87)
    assert 30 * calc_stretch_factor(0.13) == pytest.approx(34.48, abs=0.01)
    assert calc_stretch_factor(0) == 1
    with pytest.raises(ValueError):
        calc_stretch_factor(1)
    with pytest.raises(ValueError):
        calc_stretch_factor(-0.1)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="interval"):
        calc_expected_wall_time(*seconds(100, 0, 1, 1, 100))
    with pytest.raises(ValueError, match="mtbf"):
        calc_exact_optimal_interval(*seconds(1, -5))
    with pytest.raises(ValueError, match="runs"):
        simulate_wall_time(*seconds(100, 10, 1, 1, 100), runs=1, seed=0)
