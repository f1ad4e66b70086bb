"""Exact (Garwood) confidence intervals for the mean of a Poisson count.

Layer 2 of ``mlsys`` beside :mod:`mlsys.formulas` (imports :mod:`mlsys.units` and
:mod:`mlsys.special`). Used where the book compares an expected number of
events with an observed count, as the calibration of @sec-fas-calibration does
part by part.
"""

from __future__ import annotations

from typing import NamedTuple

from mlsys.special import gamma_p, gamma_q
from mlsys.units import count, probability

__all__ = ["PoissonInterval", "calc_poisson_interval"]


class PoissonInterval(NamedTuple):
    """A confidence interval for a Poisson mean, in events (expected counts)."""

    low: float
    high: float


def _solve(f, target: float, lo: float, hi: float) -> float:
    """The root of the increasing function ``f - target`` on [lo, hi], by bisection to 1e-12 relative."""
    while f(hi) < target:
        hi *= 2.0
    for _ in range(400):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
        if hi - lo <= 1e-12 * hi:
            break
    return 0.5 * (lo + hi)


def calc_poisson_interval(*, n_events, confidence=0.95) -> PoissonInterval:
    """Exact two-sided interval for the mean λ of a Poisson count that came out ``n_events``.

    Formula (Garwood 1936), with α = 1 − ``confidence`` and X ~ Poisson(λ):

        low:  P(X ≥ k | λ_low)  = α/2   (λ_low = 0 when k = 0)
        high: P(X ≤ k | λ_high) = α/2

    equivalently λ_low = χ²(α/2; 2k)/2 and λ_high = χ²(1 − α/2; 2k + 2)/2, the
    chi-square relation; solved here with P(X ≤ k | λ) = Q(k + 1, λ) and
    bisection. "Exact" means the coverage is at least ``confidence`` for every
    λ (it is conservative), not that it equals it. ``n_events`` is a count
    (keyword-only); for 7 events the 95 % interval is about [2.81, 14.42], for 3
    about [0.62, 8.77].

    Assumes the events are a Poisson process: independent, at a rate constant
    over the window. Clustered events (one cause striking several times) widen the
    real uncertainty beyond this interval.
    """
    k = count(n_events, "n_events")
    level = probability(confidence, "confidence")
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {level:g}")
    tail = (1.0 - level) / 2.0
    # P(X <= k | lam) = Q(k + 1, lam) falls as lam grows; P(X >= k | lam) = P(k, lam) rises.
    high = _solve(lambda lam: 1.0 - gamma_q(k + 1, lam), 1.0 - tail, 0.0, k + 10.0)
    low = 0.0 if k == 0 else _solve(lambda lam: gamma_p(k, lam), tail, 0.0, float(k))
    return PoissonInterval(low, high)
