"""The unit rule (mlsys.units): every formula rejects every wrongly dimensioned argument.

A table gives, for each public function, the kind of each parameter and one valid
call; the table must cover every parameter of every function (a new formula must
join it). Hypothesis then replaces one argument at a time by a value of the wrong
kind and checks the error names the parameter and what it expected.
"""

import inspect
import warnings

import pint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlsys import formulas, simulation
from mlsys.constants import FIT, GB, Q_, byte, day, hour, second, ureg
from mlsys.units import ContractFormWarning, DimensionalityError, UnitError

TIME, INFO, RATE, COUNT, FRACTION, SEED = "time", "information", "rate", "count", "fraction", "seed"
DIMENSION_TEXT = {TIME: "[time]", INFO: "[information]", RATE: "1 / [time]"}

s, h = second, hour
WORK = dict(interval=854 * s, checkpoint_cost=24.5 * s, restart_time=114.5 * s, mtbf=14_897 * s)

# function -> {parameter: (kind, valid value)}
TABLE = {
    "calc_mtbf_series": {"components": ("series", [(50_000 * h, 8), (150_000 * h, 2)])},
    "calc_mtbf_node": {"gpu_mttf": (TIME, 50_000 * h), "n_gpus": (COUNT, 8),
                       "nic_mttf": (TIME, 150_000 * h), "n_nics": (COUNT, 2),
                       "psu_mttf": (TIME, 100_000 * h), "n_psus": (COUNT, 2)},
    "calc_mtbf_cluster": {"node_mtbf": (TIME, 5172 * h), "n_nodes": (COUNT, 1250)},
    "calc_failure_probability": {"mtbf": (TIME, 4 * h), "duration": (TIME, 24 * h)},
    "calc_expected_failures": {"mtbf": (TIME, 4 * h), "duration": (TIME, 24 * h)},
    "calc_mtbf_observed": {"duration": (TIME, 54 * day), "n_failures": (COUNT, 419)},
    "calc_mtbf_rescaled": {"mtbf": (TIME, 3 * h), "from_devices": (COUNT, 16_384),
                           "to_devices": (COUNT, 100_000)},
    "calc_fit_from_mttf": {"mttf": (TIME, 50_000 * h)},
    "calc_mttf_from_fit": {"fit": (RATE, 20_000 * FIT)},
    "calc_young_daly_interval": {"checkpoint_cost": (TIME, 24.5 * s), "mtbf": (TIME, 14_897 * s)},
    "calc_daly_interval": {"checkpoint_cost": (TIME, 24.5 * s), "mtbf": (TIME, 14_897 * s)},
    "calc_checkpoint_size": {"n_params": (COUNT, 175e9), "bytes_per_param": (INFO, 14 * byte)},
    "calc_recovery_time": {"detect": (TIME, 30 * s), "reschedule": (TIME, 60 * s),
                           "reload": (TIME, 24.5 * s), "replay": (TIME, 427 * s)},
    "calc_waste_terms": {"interval": (TIME, 854 * s), "checkpoint_cost": (TIME, 24.5 * s),
                         "mtbf": (TIME, 14_897 * s), "detect": (TIME, 30 * s),
                         "recover": (TIME, 84.5 * s)},
    "calc_waste_fraction": {"interval": (TIME, 854 * s), "checkpoint_cost": (TIME, 24.5 * s),
                            "mtbf": (TIME, 14_897 * s), "detect": (TIME, 30 * s),
                            "recover": (TIME, 84.5 * s)},
    "calc_stretch_factor": {"overhead_fraction": (FRACTION, 0.1)},
    "calc_expected_wall_time": {"solve_time": (TIME, 1e6 * s),
                                **{k: (TIME, v) for k, v in WORK.items()}},
    "calc_exact_efficiency": {k: (TIME, v) for k, v in WORK.items()},
    "calc_exact_optimal_interval": {"checkpoint_cost": (TIME, 24.5 * s), "mtbf": (TIME, 14_897 * s)},
    "calc_availability_stacked": {"availability": (FRACTION, 0.99), "k": (COUNT, 2)},
    "calc_availability_serial": {"availability": (FRACTION, 0.99), "n": (COUNT, 3)},
    "calc_nines": {"availability": (FRACTION, 0.99)},
    "calc_annual_downtime": {"availability": (FRACTION, 0.99)},
    "calc_chain_success": {"p": (FRACTION, 0.9), "n": (COUNT, 10)},
    "calc_chain_success_steps": {"probabilities": ("steps", [0.9, 0.8])},
    "calc_pass_k": {"successes": (COUNT, 6), "trials": (COUNT, 8), "k": (COUNT, 2)},
    "simulate_wall_time": {"solve_time": (TIME, 10 * 854 * s), **{k: (TIME, v) for k, v in WORK.items()},
                           "runs": (COUNT, 2), "seed": (SEED, 1)},
}
# Contract-form calls (mlsys-api.md): bare numbers accepted only all together.
CONTRACT_FORM = {"calc_mtbf_node": ("gpu_mttf", "nic_mttf", "psu_mttf"),
                 "calc_young_daly_interval": ("checkpoint_cost", "mtbf"),
                 "calc_recovery_time": ("detect", "reschedule", "reload", "replay"),
                 "calc_checkpoint_size": ("bytes_per_param",)}


def function(name):
    return getattr(simulation if name == "simulate_wall_time" else formulas, name)


def call(name, **replace):
    args = {k: v for k, (_, v) in TABLE[name].items()}
    args.update(replace)
    return function(name)(**args)


def table_problems(table: dict) -> list[str]:
    """What `table` lacks or holds in excess against the public functions (the review gate)."""
    public = [n for n in formulas.__all__ if inspect.isfunction(getattr(formulas, n))]
    problems = []
    for name in public + ["simulate_wall_time"]:
        params = list(inspect.signature(function(name)).parameters)
        if name not in table:
            entry = ", ".join(f"{p!r}: (KIND, valid value)" for p in params)
            problems.append(f"mlsys.formulas.{name} has no entry in tests/mlsys/test_units.py::TABLE; "
                            f"add {name!r}: {{{entry}}} (KIND one of TIME, INFO, RATE, COUNT, FRACTION)")
        elif list(table[name]) != params:
            problems.append(f"tests/mlsys/test_units.py::TABLE[{name!r}] lists {list(table[name])}, "
                            f"but {name} takes {params}: list exactly its parameters, in order")
    problems += [f"tests/mlsys/test_units.py::TABLE[{name!r}]: no such public function "
                 "(delete the entry)" for name in table if name not in public + ["simulate_wall_time"]]
    return problems


def test_the_table_covers_every_function_and_parameter():
    problems = table_problems(TABLE)
    assert problems == [], "\n".join(problems)


def test_a_formula_missing_from_the_table_is_named_with_what_to_add():
    without = {name: params for name, params in TABLE.items() if name != "calc_nines"}
    assert table_problems(without) == [
        "mlsys.formulas.calc_nines has no entry in tests/mlsys/test_units.py::TABLE; "
        "add 'calc_nines': {'availability': (KIND, valid value)} "
        "(KIND one of TIME, INFO, RATE, COUNT, FRACTION)"]


def unmutated_counts(table: dict, mutated: set[str]) -> list[str]:
    """Count parameters of `table`'s formulas that `make mutate` would not perturb by one."""
    return [f"{name}({param}) is a count (tests/mlsys/test_units.py::TABLE) but "
            f"scripts/tools/mutation/mutants.py::COUNT_PARAMS lacks {param!r}: add it there"
            for name, params in sorted(table.items()) if name != "simulate_wall_time"
            for param, (kind, _) in params.items() if kind == COUNT and param not in mutated]


def test_mutation_perturbs_every_count_by_one():
    from scripts.tools.mutation.mutants import COUNT_PARAMS
    problems = unmutated_counts(TABLE, COUNT_PARAMS)
    assert problems == [], "\n".join(problems)
    planted = {"calc_new": {"mtbf": (TIME, 1 * h), "n_racks": (COUNT, 2)}}
    assert unmutated_counts(planted, COUNT_PARAMS) == [
        "calc_new(n_racks) is a count (tests/mlsys/test_units.py::TABLE) but "
        "scripts/tools/mutation/mutants.py::COUNT_PARAMS lacks 'n_racks': add it there"]


@pytest.mark.parametrize("name", sorted(TABLE))
def test_every_valid_call_runs_without_a_warning(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(name)


WRONG_UNITS = ["second", "hour", "day", "byte", "GB", "bit", "GB/s", "meter", "kilogram",
               "FIT", "1/second", "dimensionless", "percent", "watt"]
DIMENSIONED = [(n, p) for n, params in TABLE.items() for p, (kind, _) in params.items()
               if kind in DIMENSION_TEXT]
COUNTS = [(n, p) for n, params in TABLE.items() for p, (kind, _) in params.items() if kind == COUNT]
FRACTIONS = [(n, p) for n, params in TABLE.items() for p, (kind, _) in params.items()
             if kind == FRACTION]
magnitudes = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)
thorough = settings(max_examples=300, deadline=None)


def expected_dimension(name, param):
    return ureg.parse_units({TIME: "second", INFO: "byte", RATE: "FIT"}[TABLE[name][param][0]])


@thorough
@given(st.sampled_from(DIMENSIONED), st.sampled_from(WRONG_UNITS), magnitudes)
def test_a_quantity_of_the_wrong_dimension_is_refused(target, unit, magnitude):
    name, param = target
    wrong = Q_(magnitude, unit)
    if wrong.dimensionality == expected_dimension(name, param).dimensionality:
        return  # the right dimension in another unit is fine
    with pytest.raises(DimensionalityError) as info:
        call(name, **{param: wrong})
    assert isinstance(info.value, pint.DimensionalityError)
    message = str(info.value)
    assert message.startswith(f"{param} must be") and DIMENSION_TEXT[TABLE[name][param][0]] in message


@thorough
@given(st.sampled_from(DIMENSIONED), magnitudes)
def test_a_bare_number_is_refused_naming_the_parameter_and_unit(target, magnitude):
    name, param = target
    if CONTRACT_FORM.get(name) == (param,):   # the whole contract form: accepted, with a warning
        with pytest.warns(ContractFormWarning):
            call(name, **{param: magnitude})
        return
    with pytest.raises(UnitError) as info:
        call(name, **{param: magnitude})
    message = str(info.value)
    assert param in message
    if name in CONTRACT_FORM and len(CONTRACT_FORM[name]) > 1:
        assert "beside the Quantities" in message   # mixing bare and Quantity
    else:
        assert message.startswith(f"{param} must be") and "bare number" in message
        assert DIMENSION_TEXT[TABLE[name][param][0]] in message


@thorough
@given(st.sampled_from(COUNTS), st.sampled_from(WRONG_UNITS), st.integers(1, 10_000))
def test_a_count_given_as_a_quantity_is_refused(target, unit, value):
    name, param = target
    with pytest.raises(UnitError, match=f"^{param} is a count"):
        call(name, **{param: Q_(value, unit)})


@thorough
@given(st.sampled_from(FRACTIONS), st.sampled_from(WRONG_UNITS), magnitudes)
def test_a_fraction_given_a_dimension_is_refused(target, unit, magnitude):
    name, param = target
    wrong = Q_(magnitude, unit)
    if wrong.dimensionless:
        return
    with pytest.raises(DimensionalityError, match=f"^{param} must be a plain number"):
        call(name, **{param: wrong})


@thorough
@given(st.sampled_from(WRONG_UNITS), magnitudes)
def test_series_and_step_lists_check_their_elements(unit, magnitude):
    wrong = Q_(magnitude, unit)
    if wrong.dimensionality != ureg.second.dimensionality:
        with pytest.raises(DimensionalityError, match=r"^components\[1\]\.mttf"):
            formulas.calc_mtbf_series([(50_000 * h, 8), (wrong, 2)])
    with pytest.raises(UnitError, match=r"^components\[0\]\.count is a count"):
        formulas.calc_mtbf_series([(50_000 * h, wrong)])
    with pytest.raises(UnitError, match=r"components\[0\]\.mttf"):
        formulas.calc_mtbf_series([(magnitude, 8)])
    if not wrong.dimensionless:
        with pytest.raises(DimensionalityError, match=r"^probabilities\[1\]"):
            formulas.calc_chain_success_steps([0.9, wrong])


# ------------------------------------------------------------- the contract form

def test_the_contract_form_reads_bare_numbers_in_the_contracts_units_with_a_warning():
    with pytest.warns(ContractFormWarning, match="read as hours"):
        node = formulas.calc_mtbf_node(50_000, 8, 150_000, 2, 100_000, 2)
    assert node == formulas.calc_mtbf_node(50_000 * h, 8, 150_000 * h, 2, 100_000 * h, 2)
    with pytest.warns(ContractFormWarning, match="read as seconds"):
        tau = formulas.calc_young_daly_interval(28.0, 14_896.6)
    assert tau == formulas.calc_young_daly_interval(28.0 * s, 14_896.6 * s)
    with pytest.warns(ContractFormWarning, match="read as bytes"):
        size = formulas.calc_checkpoint_size(175e9, 16)
    assert size.m_as(GB) == 2_800
    with pytest.warns(ContractFormWarning, match="read as seconds"):
        total = formulas.calc_recovery_time(30, 60, 24.5, 427)
    assert total == formulas.calc_recovery_time(30 * s, 60 * s, 24.5 * s, 427 * s)
    with pytest.raises(UnitError, match="replay given as bare numbers beside"):
        formulas.calc_recovery_time(30 * s, 60 * s, 24.5 * s, 427)


def test_the_issues_silent_errors_are_now_errors():
    node = formulas.calc_mtbf_node(50_000 * h, 8, 150_000 * h, 2, 100_000 * h, 2)
    # one minute as a bare number beside an MTBF Quantity: no longer read as one second
    with pytest.raises(UnitError, match="checkpoint_cost given as bare numbers beside"):
        formulas.calc_young_daly_interval(1, node)
    # a size where a count goes
    with pytest.raises(UnitError, match="n_nodes is a count"):
        formulas.calc_mtbf_cluster(node, 2450 * GB)
    # bytes are not dimensionless: a size is not a time, and says so
    with pytest.raises(DimensionalityError, match=r"mtbf must be a time Quantity.*\[information\]"):
        formulas.calc_young_daly_interval(24.5 * s, 2450 * GB)
    with pytest.raises(pint.DimensionalityError):
        (2450 * GB).to(second)
    assert (2450 * GB / (100 * GB / second)).to(second).magnitude == pytest.approx(24.5)
    assert (1 * byte).dimensionality != ureg.dimensionless.dimensionality
