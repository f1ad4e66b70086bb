"""The unit rule of mlsys: what each kind of parameter accepts, and the errors that say why not.

Layer 2 of ``mlsys`` (imports only :mod:`mlsys.constants`); :mod:`mlsys.formulas`
and :mod:`mlsys.simulation` validate every argument through it. One rule for
every function:

* A **dimensioned** parameter (a time, an amount of information, a failure rate)
  takes a pint Quantity of that dimension, in any unit of it: ``5172 * hour`` and
  ``18_620_640 * second`` are the same MTBF. A bare number is a :class:`UnitError`
  (a ``TypeError``) naming the parameter and the unit expected, because a bare
  number has no unit and mlsys does not guess one. A Quantity of another dimension
  is a :class:`DimensionalityError` (a ``pint.DimensionalityError``) naming the same.
  Information is a dimension of its own in this registry (see
  :mod:`mlsys.constants`), so a size is neither a time nor a bandwidth.
* A **count** (``n_gpus``, ``n_nodes``, ``k``, ``n_params`` …) is a plain whole
  number (an integral float such as ``175e9`` is fine); a Quantity is a
  :class:`UnitError`.
* A **fraction** or probability is a plain number or a dimensionless Quantity.
* **The contract form**, the one exception: the call shapes with which the two
  chapters written against ``../shared/spec/mlsys-api.md`` in this repository
  (the upstream appendix and the synthetic benchmark book) pass bare numbers:
  ``calc_mtbf_node`` (MTTFs in hours), ``calc_young_daly_interval`` and
  ``calc_recovery_time`` (seconds), ``calc_checkpoint_size``'s ``bytes_per_param``
  (bytes). They still accept them, all or nothing: every dimensioned argument of
  the call bare, read in the contract's unit, with a :class:`ContractFormWarning`.
  A bare number beside a Quantity in one call is a :class:`UnitError`. See
  docs/mlsys.md, "The unit rule".
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import NamedTuple

import pint

from mlsys.constants import Q_, ureg

__all__ = ["UnitError", "DimensionalityError", "ContractFormWarning", "Kind", "TIME",
           "INFORMATION", "RATE"]


class UnitError(TypeError):
    """A bare number where a dimensioned Quantity is needed, or a Quantity where a count is."""


class DimensionalityError(pint.DimensionalityError):
    """A Quantity of the wrong dimension; the message names the parameter and the unit expected."""

    def __init__(self, message: str, units1, units2, dim1: str, dim2: str):
        super().__init__(units1, units2, dim1, dim2)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ContractFormWarning(UserWarning):
    """A contract-form call: bare numbers read in the unit of ../shared/spec/mlsys-api.md."""


class Kind(NamedTuple):
    """A physical kind of parameter: what it is called and its pint dimension."""

    label: str
    dimension: str


TIME = Kind("a time", "[time]")
INFORMATION = Kind("an amount of information", "[information]")
RATE = Kind("a failure rate", "1 / [time]")

_PLURAL = {"second": "seconds", "hour": "hours", "byte": "bytes"}


def _expected(name: str, unit: str, kind: Kind) -> str:
    """'checkpoint_cost must be a time Quantity (seconds or any unit of [time], e.g. 2.5 * second)'."""
    return (f"{name} must be {kind.label} Quantity ({_PLURAL.get(unit, unit)} or any unit of "
            f"{kind.dimension}, for example {name}=2.5 * {unit})")


def _finite(m: float, name: str) -> float:
    if math.isnan(m):
        raise ValueError(f"{name} is NaN")
    if math.isinf(m):
        raise ValueError(f"{name} must be finite, got {m}")
    return m


def _real(value, name: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")
    return _finite(float(value), name)


def magnitude(value, unit: str, name: str, kind: Kind = TIME) -> float:
    """``value``, a Quantity of ``kind``, as a finite float in ``unit``."""
    if not isinstance(value, pint.Quantity):
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            raise UnitError(f"{_expected(name, unit, kind)}; got the bare number {value!r}, "
                            "which has no unit")
        raise TypeError(f"{name} must be {kind.label} Quantity, got {type(value).__name__}")
    expected = ureg.parse_units(unit)
    if value.dimensionality != expected.dimensionality:
        got = str(value.dimensionality) if not value.dimensionless else "dimensionless"
        raise DimensionalityError(f"{_expected(name, unit, kind)}; got {value:~P}, which is {got}",
                             value.units, expected, got, kind.dimension)
    return _real(value.m_as(unit), name, f"{kind.label} Quantity")


def positive(value, unit: str, name: str, kind: Kind = TIME) -> float:
    m = magnitude(value, unit, name, kind)
    if m <= 0:
        raise ValueError(f"{name} must be positive, got {m:g} {unit}")
    return m


def non_negative(value, unit: str, name: str, kind: Kind = TIME) -> float:
    m = magnitude(value, unit, name, kind)
    if m < 0:
        raise ValueError(f"{name} must not be negative, got {m:g} {unit}")
    return m


def fraction(value, name: str) -> float:
    """A plain number or a dimensionless Quantity, as a finite float."""
    if isinstance(value, pint.Quantity):
        if not value.dimensionless:
            raise DimensionalityError(
                f"{name} must be a plain number or a dimensionless Quantity; got {value:~P}, "
                f"which is {value.dimensionality}", value.units, ureg.dimensionless,
                str(value.dimensionality), "dimensionless")
        value = value.m_as("dimensionless")
    return _real(value, name, "a number")


def probability(value, name: str) -> float:
    m = fraction(value, name)
    if not 0.0 <= m <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {m:g}")
    return m


def count(value, name: str, minimum: int = 0) -> int:
    """A plain whole number >= ``minimum``; integral floats such as 175e9 are accepted."""
    if isinstance(value, pint.Quantity):
        raise UnitError(f"{name} is a count: pass a plain whole number, not the Quantity {value:~P}")
    m = _real(value, name, "a whole number")
    if m != int(m):
        raise ValueError(f"{name} must be a whole number, got {m:g}")
    if m < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {m:g}")
    return int(value) if isinstance(value, numbers.Integral) else int(m)


def contract_form(function: str, unit: str, **values):
    """The arguments of a contract-form call as Quantities (see the module docstring).

    All bare: each becomes a Quantity in ``unit``, with a ContractFormWarning.
    None bare: returned unchanged (validated later by the caller). Mixed: UnitError.
    """
    bare = [k for k, v in values.items() if not isinstance(v, pint.Quantity)
            and isinstance(v, numbers.Real) and not isinstance(v, bool)]
    if not bare:
        return values
    if len(bare) < len(values):
        given = [k for k in values if k not in bare]
        raise UnitError(
            f"{function}: {', '.join(bare)} given as bare numbers beside the Quantities "
            f"{', '.join(given)}; pass every one as a Quantity (for example {bare[0]}=2.5 * {unit})")
    warnings.warn(ContractFormWarning(
        f"{function}: bare numbers for {', '.join(bare)} read as {_PLURAL.get(unit, unit)} (the contract form of "
        "mlsys-api.md); pass Quantities to have their units checked"), stacklevel=3)
    return {k: Q_(float(_real(v, k, "a number")), unit) for k, v in values.items()}
