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


# ------------------------------------------- the N+1 group of mlsys.redundancy

from mlsys.constants import hour  # noqa: E402
from mlsys.redundancy import calc_mtbf_n_plus_one  # noqa: E402


def test_one_plus_one_pair_is_the_textbook_markov_result():
    """1-out-of-2 with repair: MTTF_sys = (3λ + μ) / (2λ²)."""
    lam, mu = 1 / 100_000, 1 / 24
    got = calc_mtbf_n_plus_one(100_000 * hour, 24 * hour, n_units=2).m_as("hour")
    assert got == pytest.approx((3 * lam + mu) / (2 * lam ** 2), rel=1e-14)


def test_n_plus_one_matches_simulation():
    """Simulated 2+1 group (three units, one spare), fast failures so the chain is short."""
    rng = np.random.default_rng(5)
    mttf, mttr, n = 10.0, 2.0, 3
    times = []
    for _ in range(20_000):
        t, down = 0.0, 0
        while down < 2:
            up = n - down
            rate = up / mttf + (1 / mttr if down else 0.0)
            t += rng.exponential(1 / rate)
            down += 1 if rng.random() < (up / mttf) / rate else -1
        times.append(t)
    times = np.array(times)
    expected = calc_mtbf_n_plus_one(mttf * hour, mttr * hour, n_units=n).m_as("hour")
    se = times.std(ddof=1) / math.sqrt(times.size)
    assert abs(times.mean() - expected) < 4 * se, f"{times.mean():.3f} ± {se:.3f} vs {expected:.3f}"
    assert expected > mttf / n        # redundancy outlives the series group


def test_n_plus_one_needs_two_units():
    with pytest.raises(ValueError, match="n_units"):
        calc_mtbf_n_plus_one(1 * hour, 1 * hour, n_units=1)
