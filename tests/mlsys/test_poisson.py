"""Exact Poisson intervals (mlsys.poisson) against the chi-square relation and coverage."""

import math

import numpy as np
import pytest

from mlsys.poisson import calc_poisson_interval


def poisson_cdf(k, lam):
    """P(X <= k) by direct summation, independent of mlsys.special."""
    return math.fsum(math.exp(i * math.log(lam) - lam - math.lgamma(i + 1)) for i in range(k + 1))


@pytest.mark.parametrize("k, low, high", [
    # chi-square quantiles / 2 (Garwood), to the digits published in tables
    (0, 0.0, 3.6889), (3, 0.6187, 8.7673), (7, 2.8144, 14.4227), (268, 236.8714, 302.0822)])
def test_known_intervals(k, low, high):
    interval = calc_poisson_interval(n_events=k)
    assert interval.low == pytest.approx(low, abs=1e-4)
    assert interval.high == pytest.approx(high, abs=1e-4)


@pytest.mark.parametrize("k", [1, 7, 53, 425])
def test_each_bound_leaves_alpha_over_two_in_its_tail(k):
    interval = calc_poisson_interval(n_events=k, confidence=0.9)
    assert poisson_cdf(k, interval.high) == pytest.approx(0.05, rel=1e-9)
    assert 1 - poisson_cdf(k - 1, interval.low) == pytest.approx(0.05, rel=1e-9)


def test_coverage_is_at_least_the_confidence():
    """Simulated counts at a fixed mean: the interval holds the mean in >= 95 % of draws."""
    rng = np.random.default_rng(36)
    lam = 5.0
    counts = rng.poisson(lam, size=4_000)
    cache = {k: calc_poisson_interval(n_events=int(k)) for k in set(counts.tolist())}
    covered = np.mean([cache[k].low <= lam <= cache[k].high for k in counts.tolist()])
    assert covered >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / counts.size)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="n_events"):
        calc_poisson_interval(n_events=-1)
    with pytest.raises(ValueError, match="confidence"):
        calc_poisson_interval(n_events=3, confidence=1.0)
    with pytest.raises(TypeError):
        calc_poisson_interval(3)        # keyword-only
