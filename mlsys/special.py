"""Special functions the formulas need: the regularized incomplete gamma functions.

Layer 1 of ``mlsys`` beside :mod:`mlsys.constants` (imports nothing of mlsys): plain
floats in, plain floats out, no units. :mod:`mlsys.poisson` reads Poisson tail
probabilities from them and :mod:`mlsys.weibull` the integral of a Weibull survival
function; scipy is not a dependency of the book.

Definitions (``a > 0``, ``x ≥ 0``):

* ``gamma_p(a, x)`` = P(a, x) = γ(a, x) / Γ(a) = (1/Γ(a)) ∫₀ˣ t^(a−1) e^(−t) dt
* ``gamma_q(a, x)`` = Q(a, x) = 1 − P(a, x), computed directly (no cancellation when
  P is near one).

Method: the power series of γ for x < a + 1 and the Legendre continued fraction of
Γ(a, x) (modified Lentz) otherwise, each to a relative 1e-15; both converge in a few
hundred terms at most for the arguments the book uses. Identities used elsewhere:
P(X ≤ k) = Q(k + 1, λ) for X Poisson with mean λ, and
∫₀ˣ exp(−(t/η)^β) dt = (η/β) Γ(1/β) P(1/β, (x/η)^β).
"""

from __future__ import annotations

import math

__all__ = ["gamma_p", "gamma_q"]

_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 100_000


def _check(a: float, x: float) -> None:
    if not (a > 0 and math.isfinite(a)):
        raise ValueError(f"the incomplete gamma function needs a > 0, got a = {a!r}")
    if not (x >= 0):
        raise ValueError(f"the incomplete gamma function needs x >= 0, got x = {x!r}")


def _prefactor(a: float, x: float) -> float:
    """x^a e^(−x) / Γ(a), in logs to stay finite."""
    return math.exp(a * math.log(x) - x - math.lgamma(a))


def _series_p(a: float, x: float) -> float:
    term = total = 1.0 / a
    ap = a
    for _ in range(_MAX_TERMS):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            return total * _prefactor(a, x)
    raise ArithmeticError(f"incomplete gamma series did not converge for a = {a}, x = {x}")


def _fraction_q(a: float, x: float) -> float:
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h * _prefactor(a, x)
    raise ArithmeticError(f"incomplete gamma fraction did not converge for a = {a}, x = {x}")


def gamma_p(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x), in [0, 1]."""
    _check(a, x)
    if x == 0:
        return 0.0
    if math.isinf(x):
        return 1.0
    return _series_p(a, x) if x < a + 1.0 else 1.0 - _fraction_q(a, x)


def gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) = 1 − P(a, x), in [0, 1]."""
    _check(a, x)
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    return 1.0 - _series_p(a, x) if x < a + 1.0 else _fraction_q(a, x)
