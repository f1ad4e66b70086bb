"""Monte Carlo checks of the formulas (fixed seeds, vectorised with numpy).

The simulators below use only sampling and bookkeeping; none calls into
``mlsys.formulas`` except to fetch the value under test for comparison.
"""

import math

import numpy as np
import pytest

from mlsys.formulas import calc_daly_interval, calc_mtbf_cluster, calc_mtbf_node

NODE = [(50_000.0, 8), (150_000.0, 2), (100_000.0, 2)]  # (MTTF hours, count)


def node_first_failure_hours(rng, n_samples):
    """Sample each component's exponential lifetime; a node dies with its first component."""
    lifetimes = [rng.exponential(mttf, size=(n_samples, count)) for mttf, count in NODE]
    return np.concatenate(lifetimes, axis=1).min(axis=1)


def within_standard_errors(samples, expected, k=4.0):
    mean = samples.mean()
    standard_error = samples.std(ddof=1) / math.sqrt(samples.size)
    return abs(mean - expected) <= k * standard_error, mean, standard_error


def test_node_time_to_first_failure_matches_cascade():
    rng = np.random.default_rng(20240601)
    samples = node_first_failure_hours(rng, 200_000)
    expected = calc_mtbf_node(50_000, 8, 150_000, 2, 100_000, 2).m_as("hour")
    ok, mean, se = within_standard_errors(samples, expected)
    assert ok, f"simulated {mean:.1f} h ± {se:.1f}, formula {expected:.1f} h"


def test_cluster_time_to_first_failure_matches_cascade():
    rng = np.random.default_rng(7)
    n_nodes, n_trials = 1_250, 2_000
    node_mtbf_h = 1.0 / sum(n / mttf for mttf, n in NODE)
    # each node's time to failure sampled from its components, then the cluster's first
    per_node = node_first_failure_hours(rng, n_nodes * n_trials).reshape(n_trials, n_nodes)
    samples = per_node.min(axis=1)
    expected = calc_mtbf_cluster(node_mtbf_h, n_nodes).m_as("hour")
    ok, mean, se = within_standard_errors(samples, expected)
    assert ok, f"simulated {mean:.3f} h ± {se:.3f}, formula {expected:.3f} h"


def test_monte_carlo_detects_a_wrong_mtbf():
    """The 4-SE criterion has power: a 5 % error in the expected value is caught."""
    rng = np.random.default_rng(20240601)
    samples = node_first_failure_hours(rng, 200_000)
    expected = calc_mtbf_node(50_000, 8, 150_000, 2, 100_000, 2).m_as("hour")
    assert not within_standard_errors(samples, expected * 1.05)[0]


def simulated_wall_time(interval, checkpoint_cost, mtbf, restart, n_segments, rng):
    """Wall time to finish ``n_segments`` segments of ``interval`` compute, each followed
    by a checkpoint of ``checkpoint_cost``, under exponential failures.

    Each attempt at a segment draws a fresh exponential lifetime (failures are
    memoryless). If the lifetime outlasts compute plus checkpoint, the segment is
    saved; otherwise the time until the failure plus ``restart`` is lost and the
    segment is attempted again.
    """
    attempt = interval + checkpoint_cost
    total, saved = 0.0, 0
    while saved < n_segments:
        needed = n_segments - saved
        batch = int(needed * 1.2 * math.exp(min(attempt / mtbf, 30.0))) + 1_000
        lifetimes = rng.exponential(mtbf, size=batch)
        survived = lifetimes >= attempt
        saved_so_far = np.cumsum(survived)
        if saved_so_far[-1] >= needed:
            stop = int(np.searchsorted(saved_so_far, needed)) + 1
            lifetimes, survived = lifetimes[:stop], survived[:stop]
        total += float(np.where(survived, attempt, lifetimes + restart).sum())
        saved += int(survived.sum())
    return total


@pytest.mark.parametrize("delta_over_m", [0.01, 0.002])
def test_simulated_best_interval_is_near_dalys(delta_over_m):
    mtbf = 3_600.0  # seconds; only ratios matter
    delta = delta_over_m * mtbf
    restart = 0.05 * mtbf
    daly = calc_daly_interval(delta, mtbf).m_as("second")
    candidates = daly * np.linspace(0.5, 1.6, 23)
    useful_work = 60_000 * mtbf
    time_per_work = []
    for interval in candidates:
        rng = np.random.default_rng(99)  # common random numbers across candidates
        n_segments = int(round(useful_work / interval))
        wall = simulated_wall_time(interval, delta, mtbf, restart, n_segments, rng)
        time_per_work.append(wall / (n_segments * interval))
    best = candidates[int(np.argmin(time_per_work))]
    assert abs(best - daly) / daly < 0.15, f"simulated optimum {best:.1f} s vs Daly {daly:.1f} s"
    # the curve really has an interior minimum: both ends are clearly worse
    assert min(time_per_work) < time_per_work[0] and min(time_per_work) < time_per_work[-1]
