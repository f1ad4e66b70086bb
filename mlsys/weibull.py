"""Non-constant hazards: checkpoint/restart when times to failure are Weibull.

Layer 2 of ``mlsys`` beside :mod:`mlsys.formulas` (imports :mod:`mlsys.constants`,
:mod:`mlsys.units` and :mod:`mlsys.special`). Every other formula of mlsys
assumes exponential times to failure, a constant hazard; here the time X from a
(re)start to the next failure is Weibull with shape β and mean M:

    S(t) = P(X > t) = exp(−(t/η)^β),   h(t) = (β/η)(t/η)^(β−1),   M = η Γ(1 + 1/β)

β < 1 is a falling hazard (infant mortality, burn-in), β = 1 the exponential
model, β > 1 a rising one (wear-out). The shape is keyword-only everywhere and
must lie in [0.2, 10] (outside it the sums below get slow or the model is a
curiosity); times are Quantities (the unit rule of :mod:`mlsys.units`).

Assumption of the whole module, the **renewal** assumption: each restart
returns the job's hazard to age zero, as if the machine were new. It holds for
a hazard tied to the job's own start (a fleet commissioned together, a software
state that degrades from a restart) and not for a large fleet of mixed ages
where only the failed node is replaced; the superposition of many independent
such nodes tends to a Poisson process, which is the exponential model again.
Failures during a restart are not modelled (the restart R takes its time and
the hazard clock starts when computing resumes).

Verified by Monte Carlo in ``tests/mlsys/test_weibull.py``.
"""

from __future__ import annotations

import math

import pint

from mlsys.constants import Q_
from mlsys.special import gamma_p, gamma_q
from mlsys.units import fraction, non_negative, positive

__all__ = [
    "calc_weibull_scale", "calc_weibull_failure_probability", "calc_weibull_lost_work",
    "calc_weibull_efficiency", "calc_weibull_optimal_interval",
]

SHAPE_RANGE = (0.2, 10.0)
_EXPLICIT_TERMS = 2_000     # segments summed one by one before the tail integral


def _shape(value) -> float:
    beta = fraction(value, "shape")
    lo, hi = SHAPE_RANGE
    if not lo <= beta <= hi:
        raise ValueError(f"shape must lie in [{lo:g}, {hi:g}] (1 is the exponential model), "
                         f"got {beta:g}")
    return beta


def _eta_s(mtbf_s: float, beta: float) -> float:
    return mtbf_s / math.gamma(1.0 + 1.0 / beta)


def _survival(t: float, eta: float, beta: float) -> float:
    return math.exp(-((t / eta) ** beta))


def _survival_integral(a: float, b: float, eta: float, beta: float) -> float:
    """∫ₐᵇ S(t) dt = (η/β) Γ(1/β) [P(1/β, (b/η)^β) − P(1/β, (a/η)^β)], b may be inf."""
    s = 1.0 / beta
    xa = (a / eta) ** beta
    xb = math.inf if math.isinf(b) else (b / eta) ** beta
    scale = eta * math.gamma(s) / beta
    if xa >= s + 1.0:     # both in the upper tail: difference of Q avoids cancellation
        return scale * (gamma_q(s, xa) - gamma_q(s, xb))
    return scale * (gamma_p(s, xb) - gamma_p(s, xa))


def calc_weibull_scale(mtbf, *, shape) -> pint.Quantity:
    """Scale η of the Weibull distribution with mean ``mtbf`` and shape β: η = M / Γ(1 + 1/β).

    ``mtbf`` is a time Quantity; the result keeps its unit. β = 1 gives η = M.
    """
    beta = _shape(shape)
    positive(mtbf, "hour", "mtbf")
    return Q_(float(mtbf.magnitude) / math.gamma(1.0 + 1.0 / beta), mtbf.units)


def calc_weibull_failure_probability(mtbf, duration, *, shape) -> float:
    """Probability of at least one failure in the first ``duration`` T after a (re)start.

    Formula: P = 1 − exp(−(Γ(1 + 1/β) T / M)^β), the Weibull distribution function
    at T with mean M. β = 1 is the exponential 1 − exp(−T/M). For T ≪ M it is
    about (Γ(1 + 1/β) T/M)^β: far above T/M when β < 1 (the early hazard is high),
    far below when β > 1. Both are time Quantities.
    """
    beta = _shape(shape)
    m = positive(mtbf, "hour", "mtbf")
    t = non_negative(duration, "hour", "duration")
    return float(-math.expm1(-((t / _eta_s(m, beta)) ** beta)))


def calc_weibull_lost_work(interval, mtbf, *, shape, age=None) -> pint.Quantity:
    """Expected work lost by a failure that strikes during one checkpoint interval.

    The interval of compute τ starts at ``age`` a after the last renewal (omitted:
    zero, the first interval after a restart). Given a failure X in (a, a + τ),
    the work lost since the checkpoint is X − a, with mean

        E[X − a | a < X < a + τ] = (∫ₐ^(a+τ) S(t) dt − τ S(a + τ)) / (S(a) − S(a + τ))

    (integration by parts of ∫ u f(a + u) du). Only a constant hazard makes this
    τ/2 − τ²/(12M) + … ≈ τ/2 at every age (memorylessness); for τ ≪ η the first
    interval gives β τ/(β + 1) (τ/3 at β = 1/2, 2τ/3 at β = 2), because the
    density there is ∝ t^(β−1). Times are Quantities; returns seconds.
    """
    beta = _shape(shape)
    tau = positive(interval, "second", "interval")
    m = positive(mtbf, "second", "mtbf")
    a = 0.0 if age is None else non_negative(age, "second", "age")
    eta = _eta_s(m, beta)
    s_start, s_end = _survival(a, eta, beta), _survival(a + tau, eta, beta)
    if s_start - s_end <= 1e-9 * s_start:
        raise ValueError(f"a failure in this interval is too unlikely to condition on "
                         f"(S(a) − S(a + τ) = {s_start - s_end:.3g}); shorten age or lengthen interval")
    lost = (_survival_integral(a, a + tau, eta, beta) - tau * s_end) / (s_start - s_end)
    return Q_(lost, "second")


def _segments_survived(cycle: float, eta: float, beta: float) -> float:
    """E[completed segments before the first failure] = Σ_{i≥1} S(i c), c = τ + δ.

    The first ``_EXPLICIT_TERMS`` terms one by one, the rest by the midpoint rule
    (1/c) ∫ from (I + ½)c to ∞ of S, accurate to O(c² S'') where S is smooth.
    """
    total = 0.0
    for i in range(1, _EXPLICIT_TERMS + 1):
        term = _survival(i * cycle, eta, beta)
        total += term
        if term < 1e-18 * total:
            return total
    return total + _survival_integral((_EXPLICIT_TERMS + 0.5) * cycle, math.inf, eta, beta) / cycle


def calc_weibull_efficiency(interval, checkpoint_cost, restart_time, mtbf, *, shape) -> float:
    """Long-run useful fraction of wall time with periodic checkpoints under Weibull failures.

    Formula (renewal–reward): a cycle runs from the end of one restart to the end
    of the next; it holds X of running, of which τ · ⌊X/(τ + δ)⌋ is kept, and R of
    restart, so

        E = τ Σ_{i≥1} S(i (τ + δ)) / (M + R)

    with τ the compute between checkpoints, δ the write, R the restart (detection
    to resumed compute), M the mean time to failure after a restart; all time
    Quantities. At β = 1 the sum is 1/(e^((τ+δ)/M) − 1) and E = τ / ((M + R)
    (e^((τ+δ)/M) − 1)), Daly's exact model of :func:`mlsys.formulas.calc_exact_efficiency`
    with M e^(R/M) replaced by M + R (no failures during restarts). To first order
    in (τ + δ)/M the sum is M/(τ + δ) − ½ for every β, so the small-waste budget
    δ/τ + τ/(2M) + R/M holds whatever the shape; the shape enters at the next
    order, through a term −ζ(−β) ((τ + δ)/η)^β.
    """
    beta = _shape(shape)
    tau = positive(interval, "second", "interval")
    delta = non_negative(checkpoint_cost, "second", "checkpoint_cost")
    r = non_negative(restart_time, "second", "restart_time")
    m = positive(mtbf, "second", "mtbf")
    return tau * _segments_survived(tau + delta, _eta_s(m, beta), beta) / (m + r)


def calc_weibull_optimal_interval(checkpoint_cost, mtbf, *, shape) -> pint.Quantity:
    """The periodic interval τ that maximises :func:`calc_weibull_efficiency`.

    The restart time drops out (it only scales the denominator). Found by
    golden-section search on ln τ between Young's √(2δM)/30 and the smaller of
    30 √(2δM) and 10 η, to a relative 1e-9 in τ. β = 1 gives the exact optimum
    of the exponential model (:func:`mlsys.formulas.calc_exact_optimal_interval`).
    Time Quantities in; returns seconds.
    """
    beta = _shape(shape)
    delta = positive(checkpoint_cost, "second", "checkpoint_cost")
    m = positive(mtbf, "second", "mtbf")
    eta = _eta_s(m, beta)
    young = math.sqrt(2.0 * delta * m)

    def gain(log_tau: float) -> float:
        tau = math.exp(log_tau)
        return tau * _segments_survived(tau + delta, eta, beta)

    lo, hi = math.log(young / 30.0), math.log(min(30.0 * young, 10.0 * eta))
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    g1, g2 = gain(x1), gain(x2)
    while hi - lo > 1e-9:
        if g1 < g2:
            lo, x1, g1 = x1, x2, g2
            x2 = lo + ratio * (hi - lo)
            g2 = gain(x2)
        else:
            hi, x2, g2 = x2, x1, g1
            x1 = hi - ratio * (hi - lo)
            g1 = gain(x1)
    return Q_(math.exp(0.5 * (lo + hi)), "second")
