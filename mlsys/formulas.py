"""Reliability formulas: validated pure functions from inputs to Quantities or floats.

Layer 2 of ``mlsys`` (imports only :mod:`mlsys.constants`). Nothing here formats.

Input rules, shared by every function (the unit rule of :mod:`mlsys.units`):

* A dimensioned parameter (time, information, failure rate) takes a pint Quantity
  of that dimension in any unit; a bare number is a ``UnitError`` and a wrong
  dimension a ``DimensionalityError`` (a ``pint.DimensionalityError``), both naming the
  parameter and the unit expected. Counts are plain whole numbers (integral floats
  such as ``175e9`` are accepted); fractions and probabilities plain numbers.
* Counts of GPUs and nodes carry their unit (``8 * gpu``, ``1250 * node``), so
  GPUs passed where nodes go are an error; ``calc_mtbf_rescaled``'s two counts
  are keyword-only, so they cannot be swapped by position.
* The first-order checkpoint model (``calc_young_daly_interval``,
  ``calc_waste_terms``, ``calc_waste_fraction``) raises ``OutsideDomainError``
  outside its domain (:mod:`mlsys.validity`), naming the exact alternative.
* Bad values raise ``ValueError`` naming the parameter: NaN or infinite inputs,
  zero or negative MTBF / MTTF / checkpoint cost, probabilities outside [0, 1],
  negative or non-integer counts.
* Scalars only. Results are Python ``float`` or Quantities with ``float`` magnitude.

Common assumptions (stated again where they matter): failures are independent and
exponentially distributed (constant hazard, the useful-life part of the bathtub
curve); any component failure fails its node, any node failure fails the job.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

import pint

from mlsys.constants import CHECKPOINT_BYTES_PER_PARAM, FIT, HOURS_PER_YEAR, Q_, byte
from mlsys.units import (
    GPUS, INFORMATION, NODES, RATE, count, counted, non_negative, positive, probability,
)
from mlsys.validity import ResultOverflowError, first_order_domain

__all__ = [
    "calc_mtbf_node", "calc_mtbf_series", "calc_mtbf_cluster", "calc_failure_probability",
    "calc_expected_failures", "calc_mtbf_observed", "calc_mtbf_rescaled",
    "calc_fit_from_mttf", "calc_mttf_from_fit",
    "calc_young_daly_interval", "calc_daly_interval", "calc_checkpoint_size",
    "calc_recovery_time", "WasteTerms", "calc_waste_terms", "calc_waste_fraction",
    "calc_expected_wall_time", "calc_exact_efficiency", "calc_exact_optimal_interval",
    "calc_stretch_factor",
    "calc_availability_stacked", "calc_availability_serial", "calc_availability_quorum", "calc_nines",
    "calc_annual_downtime", "calc_chain_success", "calc_chain_success_steps", "calc_pass_k",
]

UnitInterval = float    # the result type of a formula whose result lies in [0, 1] (make mutate's range rule)

# ---------------------------------------------------------------- failure rates


def calc_mtbf_series(components: Iterable) -> pint.Quantity:
    """MTBF of a series system: it fails when any of its components fails.

    Formula: 1/MTBF = Σ nᵢ / MTTFᵢ over ``components``, an iterable of
    ``(mttf, count)`` pairs: a time Quantity and a plain count. A count of 0
    leaves that component out; at least one component must be present.

    Assumes independent components with constant failure rates (exponential
    lifetimes), so the system's time to first failure is exponential too.
    Returns a Quantity in hours.
    """
    rate_per_hour = 0.0
    for i, pair in enumerate(components):
        try:
            mttf, n = pair
        except (TypeError, ValueError):
            raise TypeError(f"components[{i}] must be an (mttf, count) pair, got {pair!r}") from None
        rate_per_hour += count(n, f"components[{i}].count") / positive(
            mttf, "hour", f"components[{i}].mttf")
    if rate_per_hour == 0:
        raise ValueError("components must contain at least one component with a positive count")
    return Q_(1.0 / rate_per_hour, "hour")


def calc_mtbf_node(gpu_mttf, n_gpus, nic_mttf, n_nics, psu_mttf, n_psus) -> pint.Quantity:
    """MTBF of one node built from GPUs, NICs and PSUs in series.

    Formula: 1/MTBF_node = n_gpus/MTTF_gpu + n_nics/MTTF_nic + n_psus/MTTF_psu.
    MTTFs are time Quantities; ``n_gpus`` is a count of GPUs (``8 * gpu``), the
    NIC and PSU counts plain whole numbers. Same assumptions as
    :func:`calc_mtbf_series`. Returns a Quantity in hours (8 GPUs at 50,000 h,
    2 NICs at 150,000 h and 2 PSUs at 100,000 h give about 5,172.4 h).
    """
    parts = [(positive(gpu_mttf, "hour", "gpu_mttf"), counted(n_gpus, "gpu", "n_gpus", GPUS)),
             (positive(nic_mttf, "hour", "nic_mttf"), count(n_nics, "n_nics")),
             (positive(psu_mttf, "hour", "psu_mttf"), count(n_psus, "n_psus"))]
    rate_per_hour = sum(n / mttf for mttf, n in parts)   # validated in parameter order
    if rate_per_hour == 0:
        raise ValueError("n_gpus, n_nics and n_psus are all zero: an empty node never fails")
    return Q_(1.0 / rate_per_hour, "hour")


def calc_mtbf_cluster(node_mtbf, n_nodes) -> pint.Quantity:
    """MTBF of a job that stops when any of ``n_nodes`` identical nodes fails.

    Formula: MTBF_cluster = MTBF_node / N, ``node_mtbf`` a time Quantity (the
    result keeps its unit) and N = ``n_nodes`` a count of nodes (``1250 * node``;
    a count of GPUs is refused: divide it by ``GPUS_PER_HOST * gpu / node``).
    Assumes independent nodes with exponential lifetimes.
    """
    n = counted(n_nodes, "node", "n_nodes", NODES, minimum=1)
    positive(node_mtbf, "hour", "node_mtbf")
    return Q_(float(node_mtbf.magnitude) / n, node_mtbf.units)


def calc_failure_probability(mtbf, duration) -> UnitInterval:
    """Probability of at least one failure during ``duration``.

    Formula: P = 1 − exp(−T / MTBF), both time Quantities. Assumes a constant
    failure rate (exponential time to failure).
    """
    m = positive(mtbf, "hour", "mtbf")
    t = non_negative(duration, "hour", "duration")
    return float(-math.expm1(-t / m))


def calc_expected_failures(mtbf, duration) -> float:
    """Expected number of failures in ``duration``: T / MTBF (constant failure rate).

    Both are time Quantities, as in :func:`calc_failure_probability`.
    """
    return non_negative(duration, "hour", "duration") / positive(mtbf, "hour", "mtbf")


def calc_mtbf_observed(duration, n_failures) -> pint.Quantity:
    """Mean interval between observed failures: T / n (the constant-rate estimate).

    ``duration`` is a time Quantity. Returns a Quantity in hours. For example
    54 days with 419 unexpected interruptions gives about 3.1 h.
    """
    n = count(n_failures, "n_failures", minimum=1)
    return Q_(positive(duration, "hour", "duration") / n, "hour")


def calc_mtbf_rescaled(mtbf, *, from_devices, to_devices) -> pint.Quantity:
    """Project an observed MTBF to another fleet size: MTBF × from / to.

    Assumes the per-device failure rate stays as observed and failures stay
    independent, so the job failure rate scales linearly with device count.
    ``mtbf`` is a time Quantity; the two counts are keyword-only (swapped they
    give the inverse ratio) and counts of GPUs (``16_384 * gpu``). Returns a
    Quantity in hours.
    """
    n_from = counted(from_devices, "gpu", "from_devices", GPUS, minimum=1)
    n_to = counted(to_devices, "gpu", "to_devices", GPUS, minimum=1)
    return Q_(positive(mtbf, "hour", "mtbf") * n_from / n_to, "hour")


def calc_fit_from_mttf(mttf) -> pint.Quantity:
    """Failures in time: FIT = 10⁹ h / MTTF, a rate Quantity in FIT (failures per 10⁹ device-hours)."""
    return Q_(1e9 / positive(mttf, "hour", "mttf"), FIT)


def calc_mttf_from_fit(fit) -> pint.Quantity:
    """MTTF = 10⁹ h / FIT, as a Quantity in hours; ``fit`` is a rate Quantity (``20_000 * FIT``)."""
    return Q_(1.0 / positive(fit, "FIT", "fit", RATE) * 1e9, "hour")


# ----------------------------------------------------------------- checkpointing


def calc_young_daly_interval(checkpoint_cost, mtbf) -> pint.Quantity:
    """First-order optimal compute time between checkpoints (Young 1974).

    Formula: τ* = √(2 δ M), where δ is the time to write one checkpoint and M the
    job MTBF, both time Quantities. τ* minimises the first-order waste
    δ/τ + τ/(2M), with exponential failures; valid while the waste it leaves,
    τ*/M = √(2δ/M), is small (not only δ ≪ M): above
    :data:`mlsys.validity.FIRST_ORDER_MAX_WASTE` it raises ``OutsideDomainError``
    (use :func:`calc_exact_optimal_interval`). Returns seconds.
    """
    delta = positive(checkpoint_cost, "second", "checkpoint_cost")
    m = positive(mtbf, "second", "mtbf")
    tau = math.sqrt(2.0 * delta * m)
    first_order_domain("calc_young_daly_interval", {   # at tau*, delta/tau* = tau*/(2M)
        "delta/tau*": (delta / tau, "checkpoint_cost / tau*"),
        "tau*/(2M)": (tau / (2.0 * m), "tau* / (2 mtbf), tau* = sqrt(2 checkpoint_cost mtbf)")})
    return Q_(tau, "second")


def calc_daly_interval(checkpoint_cost, mtbf) -> pint.Quantity:
    """Daly's (2006) higher-order optimal compute time between checkpoints.

    Formula, with x = δ / (2M):
        τ* = √(2 δ M) · [1 + √x / 3 + x / 9] − δ    for δ < 2M
        τ* = M                                       for δ ≥ 2M
    Both are time Quantities. Minimises the expected wall time of a job with
    exponential failures, checkpoint cost δ and a restart after each failure;
    for δ ≪ M it lies just below Young's √(2δM). Returns seconds.
    """
    delta = positive(checkpoint_cost, "second", "checkpoint_cost")
    m = positive(mtbf, "second", "mtbf")
    if delta >= 2.0 * m:
        return Q_(m, "second")
    x = delta / (2.0 * m)
    return Q_(math.sqrt(2.0 * delta * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta, "second")


def calc_checkpoint_size(n_params, bytes_per_param=CHECKPOINT_BYTES_PER_PARAM * byte) -> pint.Quantity:
    """Size of one full training checkpoint: N_params × bytes per parameter.

    ``n_params`` is a whole number (an integral float such as 175e9 is fine);
    ``bytes_per_param`` an information Quantity (``14 * byte``). The default is the
    book's convention ``CHECKPOINT_BYTES_PER_PARAM`` = 14 bytes: mixed precision
    with Adam, bf16 weights, fp32 master weights and two fp32 moments, and no
    gradients (they are recomputed by the first step after a restart); 12 without
    the bf16 copy. (The contract's default of 16 counted gradients too.) Returns a
    Quantity in bytes.
    """
    n = count(n_params, "n_params")
    per_param = positive(bytes_per_param, "byte", "bytes_per_param", INFORMATION)
    return Q_(float(n * per_param), "byte")


def calc_recovery_time(detect, reschedule, reload, replay) -> pint.Quantity:
    """Time from a failure to full-speed training again: the sum of four phases.

    Formula: T = T_detect + T_reschedule + T_reload + T_replay, each a
    non-negative time Quantity. Replay is typically half the checkpoint interval
    (the expected lost work under uniformly placed failures). Returns seconds.
    """
    phases = {"detect": detect, "reschedule": reschedule, "reload": reload, "replay": replay}
    return Q_(sum(non_negative(v, "second", k) for k, v in phases.items()), "second")


class WasteTerms(NamedTuple):
    """The three first-order terms of the wasted fraction of wall time W(τ)."""

    checkpoint: float  # C / τ: time spent writing checkpoints
    rework: float  # τ / (2M): work lost since the last checkpoint, on average
    recovery: float  # (D + R) / M: detection and restart per failure

    @property
    def total(self) -> float:
        return self.checkpoint + self.rework + self.recovery


def calc_waste_terms(interval, checkpoint_cost, mtbf, detect=None, recover=None) -> WasteTerms:
    """The terms of W(τ) ≈ C/τ + τ/(2M) + (D+R)/M, separately.

    ``interval`` τ is the compute time between checkpoints, ``checkpoint_cost`` C
    the time to write one, ``mtbf`` M the job MTBF, ``detect`` D and ``recover`` R
    the per-failure detection and restart times (omitted: zero); all are time
    Quantities.
    First-order model: exponential failures, small waste, failures uniformly
    placed within an interval. Its domain is a small total, W at most
    :data:`mlsys.validity.FIRST_ORDER_MAX_WASTE`; outside it, ``OutsideDomainError``
    (the exact model is :func:`calc_exact_efficiency`).
    """
    tau = positive(interval, "second", "interval")
    c = positive(checkpoint_cost, "second", "checkpoint_cost")
    m = positive(mtbf, "second", "mtbf")
    d = 0.0 if detect is None else non_negative(detect, "second", "detect")
    r = 0.0 if recover is None else non_negative(recover, "second", "recover")
    first_order_domain("calc_waste_terms", {
        "C/tau": (c / tau, "checkpoint_cost / interval"),
        "tau/(2M)": (tau / (2.0 * m), "interval / (2 mtbf)"),
        "(D+R)/M": ((d + r) / m, "(detect + recover) / mtbf")})
    return WasteTerms(checkpoint=c / tau, rework=tau / (2.0 * m), recovery=(d + r) / m)


def calc_waste_fraction(interval, checkpoint_cost, mtbf, detect=None, recover=None) -> UnitInterval:
    """Wasted fraction of wall time W(τ) ≈ C/τ + τ/(2M) + (D+R)/M (see :func:`calc_waste_terms`).

    The useful fraction is 1 − W. All inputs are time Quantities.
    """
    return calc_waste_terms(interval, checkpoint_cost, mtbf, detect, recover).total


def calc_stretch_factor(overhead_fraction) -> float:
    """Wall time over useful time when a share ``f`` of the wall time is overhead.

    Formula: T_wall / T_useful = 1 / (1 − f). ``f`` is a fraction of *wall* time
    (as every waste term of this module is), so a run needing T of useful work
    occupies the machine for T / (1 − f), not T (1 + f). Requires 0 ≤ f < 1.
    """
    f = probability(overhead_fraction, "overhead_fraction")
    if f == 1.0:
        raise ValueError("overhead_fraction must be below 1: a run that is all overhead never ends")
    return 1.0 / (1.0 - f)


# ------------------------------------------------- exact checkpoint/restart model


def calc_expected_wall_time(solve_time, interval, checkpoint_cost, restart_time, mtbf) -> pint.Quantity:
    """Exact expected wall time of checkpoint/restart under exponential failures (Daly 2006).

    Formula: T_w = M · e^(R/M) · (e^((τ+δ)/M) − 1) · T_s / τ

    with T_s the failure-free solve time (useful work), τ the compute time between
    checkpoints, δ the checkpoint write time, R the time from a failure until
    computation resumes (detection, rescheduling and reload, here one term) and M
    the job MTBF, all time Quantities; returns seconds.

    Assumptions: failures form a Poisson process of rate 1/M that runs during
    computation, checkpoint writes and restarts alike; each segment of τ work
    plus its checkpoint must run without a failure to count; after a failure
    the restart R and the whole segment are repeated; T_s / τ segments (the
    formula is exact when T_s is a whole number of intervals). Expanding
    e^((τ+δ)/M) − 1 to second order in (τ+δ)/M (the τ/(2M) term comes from the
    square; first order alone gives only 1 + δ/τ) and e^(R/M) to first order in
    R/M, and dropping terms of order δ/M and products of small terms, recovers
    the small-waste budget δ/τ + τ/(2M) + R/M.
    """
    t_s = non_negative(solve_time, "second", "solve_time")
    tau = positive(interval, "second", "interval")
    wall = _segment_wall_time(tau, checkpoint_cost, restart_time, mtbf) * (t_s / tau)
    if math.isinf(wall):
        raise ResultOverflowError(
            "calc_expected_wall_time: the expected wall time exceeds any float: mtbf is too "
            "short against interval + checkpoint_cost + restart_time (the job practically "
            "never finishes; calc_exact_efficiency gives its useful fraction, about 0)")
    return Q_(wall, "second")


def calc_exact_efficiency(interval, checkpoint_cost, restart_time, mtbf) -> UnitInterval:
    """Useful fraction of wall time in the exact model: T_s / T_w (see :func:`calc_expected_wall_time`).

    Formula: E = τ / (M · e^(R/M) · (e^((τ+δ)/M) − 1)), all time Quantities.
    Unlike the first-order 1 − W(τ), it never goes negative: it tends to zero as
    M shrinks against τ + δ + R, and is 0.0 (not an OverflowError) once the wall
    time exceeds any float.
    """
    tau = positive(interval, "second", "interval")
    return tau / _segment_wall_time(tau, checkpoint_cost, restart_time, mtbf)


def _segment_wall_time(tau: float, checkpoint_cost, restart_time, mtbf) -> float:
    """M · e^(R/M) · (e^((τ+δ)/M) − 1) in seconds, the expected wall time of one segment;
    ``inf`` (not an OverflowError) when it exceeds any float."""
    delta = non_negative(checkpoint_cost, "second", "checkpoint_cost")
    r = non_negative(restart_time, "second", "restart_time")
    m = positive(mtbf, "second", "mtbf")
    x = (tau + delta) / m
    if r / m < 700 and x < 700:
        return m * math.exp(r / m) * math.expm1(x)
    log_wall = math.log(m) + r / m + (math.log(math.expm1(x)) if x < 700 else x)
    return math.inf if log_wall > _LOG_FLOAT_MAX else math.exp(log_wall)


_LOG_FLOAT_MAX = math.log(1e308)


def calc_exact_optimal_interval(checkpoint_cost, mtbf) -> pint.Quantity:
    """Interval τ that maximises the exact efficiency of :func:`calc_exact_efficiency`.

    Setting dE/dτ = 0 gives 1 − τ/M = e^(−(τ+δ)/M), whose single root in
    0 < τ < M is found by bisection to machine precision. The restart time
    drops out (e^(R/M) is a constant factor). Time Quantities in; returns
    seconds. For δ ≪ M it approaches Daly's √(2δM)(1 + …) − δ.
    """
    delta = positive(checkpoint_cost, "second", "checkpoint_cost")
    m = positive(mtbf, "second", "mtbf")
    d = delta / m
    lo, hi = 0.0, 1.0   # in units of M: g(lo) > 0 > g(hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if 1.0 - mid - math.exp(-mid - d) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15:
            break
    return Q_(0.5 * (lo + hi) * m, "second")


# ------------------------------------------------------------------ availability


def calc_availability_stacked(availability, k) -> UnitInterval:
    """Availability of k independent replicas, any one of which suffices.

    Formula: A_k = 1 − (1 − A)^k. Assumes independent (uncorrelated) replica
    failures; correlated failures make the real value lower.
    """
    a = probability(availability, "availability")
    return float(1.0 - (1.0 - a) ** count(k, "k"))


def calc_availability_serial(availability, n) -> UnitInterval:
    """Availability of n independent components that must all be up: A^n."""
    return float(probability(availability, "availability") ** count(n, "n"))


def calc_availability_quorum(availability, n, quorum) -> UnitInterval:
    """Availability of n independent replicas of which at least ``quorum`` must be up.

    Formula: A_q = 1 − Σ_{i<q} C(n, i) Aⁱ (1 − A)ⁿ⁻ⁱ, the binomial tail, summed over
    the states that are down so that many nines keep their precision. ``quorum`` = 1
    is :func:`calc_availability_stacked`, ``quorum`` = n is
    :func:`calc_availability_serial`. Assumes independent replica failures.
    """
    a = probability(availability, "availability")
    n = count(n, "n", minimum=1)
    q = count(quorum, "quorum", minimum=1)
    if q > n:
        raise ValueError(f"quorum must be at most n: {q} of {n} replicas can never be up")
    down = sum(math.comb(n, i) * a ** i * (1.0 - a) ** (n - i) for i in range(q))
    return float(min(1.0, max(0.0, 1.0 - down)))


def calc_nines(availability) -> float:
    """Number of nines: −log10(1 − A). Requires A < 1 (A = 1 has no finite value)."""
    a = probability(availability, "availability")
    if a == 1.0:
        raise ValueError("availability must be below 1 for a finite number of nines")
    return float(-math.log10(1.0 - a)) + 0.0   # + 0.0: A = 0 has 0 nines, not -0.0


def calc_annual_downtime(availability) -> pint.Quantity:
    """Expected downtime per year: (1 − A) × 8,760 h, as a Quantity in hours."""
    a = probability(availability, "availability")
    return Q_((1.0 - a) * HOURS_PER_YEAR, "hour")


# -------------------------------------------------------------------- agents


def calc_chain_success(p, n) -> UnitInterval:
    """Probability that all of n independent steps succeed, each with probability p: pⁿ."""
    return float(probability(p, "p") ** count(n, "n"))


def calc_chain_success_steps(probabilities: Iterable) -> UnitInterval:
    """Chain rule: Pr(S₁…Sₙ) = Π Pr(Sᵢ | S₁…Sᵢ₋₁), given the conditional step probabilities."""
    result = 1.0
    for i, p in enumerate(probabilities):
        result *= probability(p, f"probabilities[{i}]")
    return result


def calc_pass_k(successes, trials, k) -> UnitInterval:
    """Unbiased pass^k estimate: probability that k fresh trials all succeed.

    Formula: pass^k = C(c, k) / C(n, k) from c successes in n repeated trials of the
    same task, with 1 ≤ k ≤ n and 0 ≤ c ≤ n (trials assumed exchangeable).
    """
    n = count(trials, "trials", minimum=1)
    c = count(successes, "successes")
    kk = count(k, "k", minimum=1)
    if c > n:
        raise ValueError(f"successes ({c}) must not exceed trials ({n})")
    if kk > n:
        raise ValueError(f"k ({kk}) must not exceed trials ({n})")
    return math.comb(c, kk) / math.comb(n, kk)
