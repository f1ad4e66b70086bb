"""The domain of the first-order checkpoint model, and the error outside it.

Layer 2 of ``mlsys`` (imports nothing else from the package); :mod:`mlsys.formulas`
guards Young's interval and the waste budget with it, and a chapter may import
:data:`FIRST_ORDER_MAX_RATIO` to state or plot the same boundary.

The first-order (small-waste) model W(τ) ≈ δ/τ + τ/(2M) + (D+R)/M is the leading
term of the exact expected wall time of :func:`mlsys.formulas.calc_expected_wall_time`,
E = τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)), expanded in three small ratios:

* τ/M: e^{(τ+δ)/M} − 1 is kept to second order, so the rework term τ/(2M) is off
  by a relative ≈ τ/(3M) (the cubic term);
* (D+R)/M: e^{R/M} ≈ 1 + R/M is off by a relative ≈ R/(2M);
* δ/τ: the checkpoint share of wall time is δ/(τ+δ), written as δ/τ, off by a
  relative ≈ δ/τ.

"δ ≪ M" alone is not the condition: at the optimum τ* = √(2δM), τ*/M = √(2δ/M)
is far larger than δ/M (δ/M = 0.0077 gives τ*/M = 0.12), and W(τ*) ≈ τ*/M + (D+R)/M.

:data:`FIRST_ORDER_MAX_RATIO` = 0.3 is the largest value each ratio may take: there
the dropped terms amount to about a tenth of the term they correct (0.3/3 for
the rework, 0.3/2 for the restart), so the first-order numbers are good to about
10 %; beyond it a formula of the first-order model raises :class:`OutsideDomainError`
naming the ratio, the parameters and the exact alternative.
"""

from __future__ import annotations

import contextlib
import contextvars

__all__ = ["FIRST_ORDER_MAX_RATIO", "OutsideDomainError", "ResultOverflowError",
           "beyond_first_order_domain", "first_order_domain"]

#: Largest τ/M, (D+R)/M and δ/τ at which the first-order checkpoint model is used
#: (its waste is then within about 10 % of the exact model's; see the module docstring).
FIRST_ORDER_MAX_RATIO = 0.3

EXACT_ALTERNATIVE = ("use the exact model: calc_exact_optimal_interval(checkpoint_cost, mtbf) "
                     "for the interval, calc_exact_efficiency(interval, checkpoint_cost, "
                     "restart_time, mtbf) for the useful fraction (1 - waste)")


_BEYOND_REASON = contextvars.ContextVar("beyond_first_order_domain", default=None)


class OutsideDomainError(ValueError):
    """Inputs outside the domain of an approximation: its answer would be wrong, not rough."""


class ResultOverflowError(OverflowError):
    """A result beyond any float (an expected wall time of a job that never finishes)."""


def first_order_domain(function: str, ratios: dict[str, tuple[float, str]]) -> None:
    """Raise :class:`OutsideDomainError` when a ratio exceeds :data:`FIRST_ORDER_MAX_RATIO`.

    ``ratios`` maps the ratio as written (``"tau/M"``) to its value and the
    parameters it is made of (``"interval / mtbf"``); every ratio is checked, and
    the first too large is named in the message with the exact alternative. Inside
    :func:`beyond_first_order_domain` nothing is checked.
    """
    if _BEYOND_REASON.get() is not None:
        return
    for ratio, (value, parameters) in ratios.items():
        if not value <= FIRST_ORDER_MAX_RATIO:
            raise OutsideDomainError(
                f"{function}: {ratio} = {parameters} = {value:.3g} exceeds "
                f"FIRST_ORDER_MAX_RATIO = {FIRST_ORDER_MAX_RATIO}: the first-order "
                f"(small-waste) model needs tau/M, (D+R)/M and delta/tau small; "
                f"{EXACT_ALTERNATIVE}")


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
