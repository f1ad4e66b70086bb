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
* Any other **count** (``n_nics``, ``k``, ``n_params``, ``n_failures`` …) is a
  plain whole number (an integral float such as ``175e9`` is fine); a Quantity
  is a :class:`UnitError`.
* A **fraction** or probability is a plain number or a dimensionless Quantity.
* A **count of GPUs or nodes** (``n_nodes``, ``n_gpus``, ``from_devices`` …) is
  a Quantity of the count unit ``gpu`` or ``node`` (each its own dimension), a
  whole number of them: ``1250 * node``. A bare number is a :class:`UnitError`
  and GPUs where nodes go a :class:`DimensionalityError`, both naming the
  parameter, so a count of GPUs cannot be read as nodes (8× too short).

There is no exception: a bare number for a dimensioned parameter is always an
error (the bare-number form of ``../shared/spec/mlsys-api.md``, numbers read in
a documented unit, was removed: ``calc_young_daly_interval(24.5, 4.14)`` with M
meant in hours gave 14.2 s instead of 854 s). See docs/mlsys.md, "The unit rule".
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import pint

from mlsys.constants import ureg

__all__ = ["UnitError", "DimensionalityError", "Kind", "TIME", "INFORMATION", "RATE",
           "GPUS", "NODES"]


class UnitError(TypeError):
    """A bare number where a dimensioned Quantity is needed, or a Quantity where a count is."""


class DimensionalityError(pint.DimensionalityError):
    """A Quantity of the wrong dimension; the message names the parameter and the unit expected."""

    def __init__(self, message: str, units1, units2, dim1: str, dim2: str):
        super().__init__(units1, units2, dim1, dim2)
        self.message = message

    def __str__(self) -> str:
        return self.message


class Kind(NamedTuple):
    """A physical kind of parameter: what it is called and its pint dimension."""

    label: str
    dimension: str


TIME = Kind("a time", "[time]")
INFORMATION = Kind("an amount of information", "[information]")
RATE = Kind("a failure rate", "1 / [time]")
GPUS = Kind("a count of GPUs", "[gpu]")
NODES = Kind("a count of nodes", "[node]")

_PLURAL = {"second": "seconds", "hour": "hours", "byte": "bytes", "gpu": "gpus", "node": "nodes"}


def _expected(name: str, unit: str, kind: Kind) -> str:
    """'checkpoint_cost must be a time Quantity (seconds or any unit of [time], e.g. 2.5 * second)'."""
    if kind in (GPUS, NODES):
        return (f"{name} must be {kind.label}, a Quantity of {kind.dimension} "
                f"(for example {name}=8 * {unit})")
    return (f"{name} must be {kind.label} Quantity ({_PLURAL.get(unit, unit)} or any unit of "
            f"{kind.dimension}, for example {name}=2.5 * {unit})")


def _hint(value: pint.Quantity, kind: Kind) -> str:
    """How to turn a count of GPUs into nodes and back, when one is passed for the other."""
    if kind == NODES and value.dimensionality == ureg.gpu.dimensionality:
        return "; a count of GPUs is not a count of nodes: divide by GPUS_PER_HOST * gpu / node"
    if kind == GPUS and value.dimensionality == ureg.node.dimensionality:
        return "; a count of nodes is not a count of GPUs: multiply by GPUS_PER_HOST * gpu / node"
    return ""


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
        raise DimensionalityError(f"{_expected(name, unit, kind)}; got {value:~P}, which is {got}"
                                  f"{_hint(value, kind)}",
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


def counted(value, unit: str, name: str, kind: Kind, minimum: int = 0) -> int:
    """``value``, a Quantity of ``kind`` (``1250 * node``), as a whole number >= ``minimum``."""
    m = magnitude(value, unit, name, kind)
    if m != int(m):
        raise ValueError(f"{name} must be a whole number of {_PLURAL[unit]}, got {m:g}")
    if m < minimum:
        raise ValueError(f"{name} must be at least {minimum} {unit}, got {m:g}")
    return int(m)
