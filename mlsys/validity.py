"""The domain of the first-order checkpoint model, and the error outside it.

Layer 2 of ``mlsys`` (imports :mod:`mlsys.constants` and :mod:`mlsys.units`);
:mod:`mlsys.formulas` guards Young's interval and the waste budget with it, and a
chapter may import :data:`FIRST_ORDER_MAX_WASTE` or
:func:`first_order_interval_range` to state or plot the same boundary.

The first-order (small-waste) model W(τ) ≈ δ/τ + τ/(2M) + (D+R)/M is the leading
term of the exact model of :func:`mlsys.formulas.calc_expected_wall_time`,
1 − E with E = τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)), expanded in small ratios:

* τ/M: e^{(τ+δ)/M} − 1 is kept to second order, so the rework term τ/(2M) is off
  by a relative ≈ τ/(3M);
* (D+R)/M: e^{R/M} ≈ 1 + R/M, and the three terms are added where the exact
  model multiplies their factors (an error of order W²);
* δ/τ: the checkpoint share of wall time is δ/(τ+δ), written as δ/τ, off by a
  relative ≈ δ/τ.

Every dropped term is of the order of W itself: the condition is **small waste**,
not only δ ≪ M. At the optimum τ* = √(2δM), W(τ*) = τ*/M + (D+R)/M, and τ*/M =
√(2δ/M) is far larger than δ/M (δ/M = 0.0077 gives τ*/M = 0.12).

:data:`FIRST_ORDER_MAX_WASTE` = 0.2 is the largest first-order W the model is used
for. Measured against the exact model over every mix of the three terms (the
tests recompute it): at W = 0.2 the first-order waste is within about 10 % of the
exact one at the optimal interval (the error grows as ≈ W/2) and within about
18 % at any interval (≈ W, when the checkpoint term dominates). Beyond it a formula
of the first-order model raises :class:`OutsideDomainError` naming the terms, the
parameters and the exact alternative.
"""

from __future__ import annotations

import contextlib
import contextvars
import math

from mlsys.constants import FIRST_ORDER_SMALL_RATIO, Q_
from mlsys.units import non_negative, positive

__all__ = ["FIRST_ORDER_MAX_WASTE", "OutsideDomainError", "ResultOverflowError",
           "beyond_first_order_domain", "first_order_interval_range"]

#: Largest first-order waste W = δ/τ + τ/(2M) + (D+R)/M (a fraction of wall time) for
#: which the first-order checkpoint model is used; see the module docstring. At Young's
#: interval W = τ*/M + (D+R)/M, so it is the book's condition (each ratio below
#: FIRST_ORDER_SMALL_RATIO, a constant of the book) at its limit: one threshold, not two.
FIRST_ORDER_MAX_WASTE = 2 * float(FIRST_ORDER_SMALL_RATIO)

EXACT_ALTERNATIVE = ("use the exact model: calc_exact_optimal_interval(checkpoint_cost, mtbf) "
                     "for the interval, calc_exact_efficiency(interval, checkpoint_cost, "
                     "restart_time, mtbf) for the useful fraction (1 - waste)")

_BEYOND_REASON = contextvars.ContextVar("beyond_first_order_domain", default=None)


class OutsideDomainError(ValueError):
    """Inputs outside the domain of an approximation: its answer would be wrong, not rough."""


class ResultOverflowError(OverflowError):
    """A result beyond any float (an expected wall time of a job that never finishes)."""


def first_order_domain(function: str, terms: dict[str, tuple[float, str]]) -> None:
    """Raise :class:`OutsideDomainError` when the first-order waste exceeds the limit.

    ``terms`` maps each term of W as written (``"tau/(2M)"``) to its value and the
    parameters it is made of (``"interval / (2 mtbf)"``); their sum is W. Inside
    :func:`beyond_first_order_domain` nothing is checked.
    """
    if _BEYOND_REASON.get() is not None:
        return
    waste = sum(value for value, _ in terms.values())
    if not waste <= FIRST_ORDER_MAX_WASTE:
        written = " + ".join(terms)
        shown = ", ".join(f"{term} = {parameters} = {value:.3g}"
                          for term, (value, parameters) in terms.items())
        raise OutsideDomainError(
            f"{function}: the first-order waste W = {written} = {waste:.3g} exceeds "
            f"FIRST_ORDER_MAX_WASTE = {FIRST_ORDER_MAX_WASTE} ({shown}): the first-order "
            f"(small-waste) model needs tau/M, (D+R)/M and checkpoint_cost/tau small; "
            f"{EXACT_ALTERNATIVE}")


def first_order_interval_range(checkpoint_cost, mtbf, detect=None, recover=None):
    """The intervals τ at which the first-order model holds: (τ_min, τ_max), in seconds.

    Solves δ/τ + τ/(2M) + r = FIRST_ORDER_MAX_WASTE with r = (D+R)/M, a quadratic
    in τ: τ = M (L − r ∓ √((L − r)² − 2δ/M)), L the limit. Time Quantities in,
    as in :func:`mlsys.formulas.calc_waste_terms`. Raises :class:`OutsideDomainError`
    when no interval qualifies (even τ* wastes more than the limit).
    """
    delta = positive(checkpoint_cost, "second", "checkpoint_cost")
    m = positive(mtbf, "second", "mtbf")
    d = 0.0 if detect is None else non_negative(detect, "second", "detect")
    r = 0.0 if recover is None else non_negative(recover, "second", "recover")
    room = FIRST_ORDER_MAX_WASTE - (d + r) / m
    discriminant = room * room - 2.0 * delta / m
    if room <= 0 or discriminant < 0:
        raise OutsideDomainError(
            f"first_order_interval_range: no interval keeps the first-order waste within "
            f"FIRST_ORDER_MAX_WASTE = {FIRST_ORDER_MAX_WASTE}: even at tau* it is "
            f"{math.sqrt(2 * delta / m) + (d + r) / m:.3g} (checkpoint_cost, detect + recover "
            f"too large against mtbf); {EXACT_ALTERNATIVE}")
    root = math.sqrt(discriminant)
    return Q_(m * (room - root), "second"), Q_(m * (room + root), "second")


@contextlib.contextmanager
def beyond_first_order_domain(reason: str):
    """Evaluate the first-order model outside its domain, on purpose, saying why.

    For the one honest use of a first-order value past its domain: showing where
    and how it fails against the exact model (a comparison figure). ``reason`` is
    required and non-empty, so the call site says so::

        with beyond_first_order_domain("the figure shows where first order fails"):
            tau = calc_young_daly_interval(delta, mtbf)
    """
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError("beyond_first_order_domain needs a reason: say why a first-order value "
                         "outside its domain is wanted (e.g. a figure comparing it with the exact model)")
    token = _BEYOND_REASON.set(reason)
    try:
        yield
    finally:
        _BEYOND_REASON.reset(token)
