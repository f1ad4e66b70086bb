"""Seeded Monte Carlo simulation of checkpoint/restart under exponential failures.

Layer 2 of ``mlsys`` beside :mod:`mlsys.formulas` (imports only
:mod:`mlsys.constants` and :mod:`mlsys.units`).
Deterministic: the same arguments and ``seed`` give the same result on every
platform (Python's ``random.Random``, Mersenne Twister).
"""

from __future__ import annotations

import math
import random
from typing import NamedTuple

from mlsys.units import count, non_negative, positive

__all__ = ["SimulatedWallTime", "simulate_wall_time"]


class SimulatedWallTime(NamedTuple):
    """Sample mean and standard error of the simulated wall time, in seconds."""

    mean_s: float
    stderr_s: float
    runs: int


def simulate_wall_time(solve_time, interval, checkpoint_cost, restart_time, mtbf, *,
                       runs: int, seed: int) -> SimulatedWallTime:
    """Simulate ``runs`` jobs and return the mean wall time with its standard error.

    Each job needs ``solve_time`` of useful work, split into segments of
    ``interval`` τ (the last one shorter when τ does not divide it), each followed
    by a checkpoint write of ``checkpoint_cost`` δ. Failures arrive as a Poisson
    process with mean gap ``mtbf`` M during work, writes and restarts alike. A
    failure discards the current segment and its unfinished write, costs
    ``restart_time`` R (itself interruptible) and the segment starts again from
    the last completed checkpoint. Times are Quantities (the unit rule of
    :mod:`mlsys.units`).
    """
    t_s = non_negative(solve_time, "second", "solve_time")
    tau = positive(interval, "second", "interval")
    delta = non_negative(checkpoint_cost, "second", "checkpoint_cost")
    r = non_negative(restart_time, "second", "restart_time")
    m = positive(mtbf, "second", "mtbf")
    n_runs = count(runs, "runs", minimum=2)
    rng = random.Random(seed)
    full, rest = divmod(t_s, tau)
    segments = [tau] * int(full) + ([rest] if rest > 1e-12 * tau else [])
    totals = []
    for _ in range(n_runs):
        total = 0.0
        for work in segments:
            needed = work + delta             # the first attempt starts right away
            while True:
                gap = rng.expovariate(1.0 / m)
                if gap >= needed:
                    total += needed
                    break
                total += gap                  # work and any restart so far are lost
                needed = r + work + delta     # restart, then redo the segment
        totals.append(total)
    mean = math.fsum(totals) / n_runs
    var = math.fsum((x - mean) ** 2 for x in totals) / (n_runs - 1)
    return SimulatedWallTime(mean, math.sqrt(var / n_runs), n_runs)
