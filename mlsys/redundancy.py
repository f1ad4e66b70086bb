"""Redundant parts inside a node: an N+1 group with repair.

Layer 2 of ``mlsys`` beside :mod:`mlsys.formulas` (imports :mod:`mlsys.constants` and
:mod:`mlsys.units`). The series model of :func:`mlsys.formulas.calc_mtbf_node`
stops a node at the first failure of any part; server power supplies are
normally redundant (N+1: one more than the load needs), and then a node loses
power only when a second supply fails before the first is replaced.
"""

from __future__ import annotations

import pint

from mlsys.constants import Q_
from mlsys.units import count, positive

__all__ = ["calc_mtbf_n_plus_one"]


def calc_mtbf_n_plus_one(mttf, repair_time, *, n_units) -> pint.Quantity:
    """Mean time until an N+1 group of ``n_units`` identical units has two down at once.

    Formula (a three-state Markov chain: all up, one down under repair, group
    failed), with λ = 1/MTTF per unit and μ = 1/MTTR:

        MTBF = ((2n − 1) λ + μ) / (n (n − 1) λ²)  ≈  MTTF² / (n (n − 1) MTTR)  for MTTR ≪ MTTF

    so two supplies of 100,000 h replaced within a day fail together about once
    in 2 × 10⁸ h, against 50,000 h for the same two in series. Assumes
    independent exponential failures and repairs, one unit repaired at a time,
    and a failover that always works (a unit whose failure itself trips the
    load, or a shared feed, is a series part again). ``mttf`` and
    ``repair_time`` are time Quantities; ``n_units`` (keyword-only) is at least 2.
    Returns hours.
    """
    lam = 1.0 / positive(mttf, "hour", "mttf")
    mu = 1.0 / positive(repair_time, "hour", "repair_time")
    n = count(n_units, "n_units", minimum=2)
    return Q_(((2 * n - 1) * lam + mu) / (n * (n - 1) * lam ** 2), "hour")
