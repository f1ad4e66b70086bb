"""One valid call of every formula, in the book's units.

``EXAMPLES[name]`` holds keyword arguments with which ``mlsys.formulas.<name>``
runs without an error or a warning. It is documentation (what a call of each
formula looks like, with realistic values) and the ground the unit tests
perturb: ``tests/mlsys/test_units.py`` replaces one argument at a time by a value
of the wrong kind and checks the error names the parameter. Every public
function of ``mlsys.formulas.__all__`` needs an entry; a missing one fails the
tests with the entry to add.

The kind of each parameter is read from its example value, so write it as such:

* a pint Quantity (``24.5 * second``, ``14 * byte``, ``20_000 * FIT``): a
  dimensioned parameter of that dimension (time, information, failure rate …);
* an ``int`` (``1250``, ``175_000_000_000``, not ``175e9``): a count, which
  ``make mutate`` also perturbs by one; a count of GPUs or nodes carries its unit
  (``8 * gpu``, ``1250 * node``), is perturbed by one of that unit, and is
  checked like a dimensioned parameter (its dimension is ``[gpu]`` or ``[node]``);
* a ``float`` (``0.99``, ``1.0``, not ``1``): a fraction or probability;
* a ``list``: a structured parameter (components of a series, step
  probabilities), checked element by element by its own tests.

Layer: imports only :mod:`mlsys.constants` (never formatting); not re-exported by
``mlsys``.
"""

from __future__ import annotations

from mlsys.constants import FIT, byte, day, gpu, hour, node, second

__all__ = ["EXAMPLES"]

h, s = hour, second
_CHECKPOINTED_WORK = {"interval": 854 * s, "checkpoint_cost": 24.5 * s,
                      "restart_time": 114.5 * s, "mtbf": 14_897 * s}
_WASTE = {"interval": 854 * s, "checkpoint_cost": 24.5 * s, "mtbf": 14_897 * s,
          "detect": 30 * s, "recover": 84.5 * s}

# formula name -> {parameter: valid value}, parameters in the formula's order
EXAMPLES = {
    "calc_mtbf_node": {"gpu_mttf": 50_000 * h, "n_gpus": 8 * gpu, "nic_mttf": 150_000 * h,
                       "n_nics": 2, "psu_mttf": 100_000 * h, "n_psus": 2},
    "calc_mtbf_series": {"components": [(50_000 * h, 8), (150_000 * h, 2)]},
    "calc_mtbf_cluster": {"node_mtbf": 5172 * h, "n_nodes": 1250 * node},
    "calc_failure_probability": {"mtbf": 4 * h, "duration": 24 * h},
    "calc_expected_failures": {"mtbf": 4 * h, "duration": 24 * h},
    "calc_mtbf_observed": {"duration": 54 * day, "n_failures": 419},
    "calc_mtbf_rescaled": {"mtbf": 3 * h, "from_devices": 16_384 * gpu,
                           "to_devices": 100_000 * gpu},
    "calc_fit_from_mttf": {"mttf": 50_000 * h},
    "calc_mttf_from_fit": {"fit": 20_000 * FIT},
    "calc_young_daly_interval": {"checkpoint_cost": 24.5 * s, "mtbf": 14_897 * s},
    "calc_daly_interval": {"checkpoint_cost": 24.5 * s, "mtbf": 14_897 * s},
    "calc_checkpoint_size": {"n_params": 175_000_000_000, "bytes_per_param": 14 * byte},
    "calc_recovery_time": {"detect": 30 * s, "reschedule": 60 * s, "reload": 24.5 * s,
                           "replay": 427 * s},
    "calc_waste_terms": dict(_WASTE),
    "calc_waste_fraction": dict(_WASTE),
    "calc_expected_wall_time": {"solve_time": 1e6 * s, **_CHECKPOINTED_WORK},
    "calc_exact_efficiency": dict(_CHECKPOINTED_WORK),
    "calc_exact_optimal_interval": {"checkpoint_cost": 24.5 * s, "mtbf": 14_897 * s},
    "calc_stretch_factor": {"overhead_fraction": 0.1},
    "calc_availability_stacked": {"availability": 0.99, "k": 2},
    "calc_availability_serial": {"availability": 0.99, "n": 3},
    "calc_availability_quorum": {"availability": 0.99, "n": 3, "quorum": 2},
    "calc_nines": {"availability": 0.99},
    "calc_annual_downtime": {"availability": 0.99},
    "calc_chain_success": {"p": 0.9, "n": 10},
    "calc_chain_success_steps": {"probabilities": [0.9, 0.8]},
    "calc_pass_k": {"successes": 6, "trials": 8, "k": 2},
    # mlsys.weibull, mlsys.poisson, mlsys.redundancy
    "calc_weibull_scale": {"mtbf": 4 * h, "shape": 0.7},
    "calc_weibull_failure_probability": {"mtbf": 4 * h, "duration": 24 * h, "shape": 0.7},
    "calc_weibull_lost_work": {"interval": 854 * s, "mtbf": 14_897 * s, "shape": 0.7,
                               "age": 3_600 * s},
    "calc_weibull_efficiency": {"interval": 854 * s, "checkpoint_cost": 24.5 * s,
                                "restart_time": 114.5 * s, "mtbf": 14_897 * s, "shape": 0.7},
    "calc_weibull_optimal_interval": {"checkpoint_cost": 24.5 * s, "mtbf": 14_897 * s, "shape": 0.7},
    "calc_poisson_interval": {"n_events": 7, "confidence": 0.95},
    "calc_mtbf_n_plus_one": {"mttf": 100_000 * h, "repair_time": 24 * h, "n_units": 2},
}
