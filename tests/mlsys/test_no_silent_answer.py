"""Acceptance (issue 36): no public mlsys function gives a silent wrong answer.

Every public function that computes (those of mlsys.formulas, mlsys.validity and
mlsys.simulation, enumerated from mlsys.__all__ and the modules, so a new one is
covered by itself) is called with bare numbers for its dimensioned parameters,
with counts of GPUs and nodes swapped, and with inputs outside its domain
(NaN, infinite, negative, out of [0, 1], past the first-order model). Each call
raises an error whose message names the parameter. No ContractFormWarning (the
removed bare-number form) remains anywhere in the project.
"""
from __future__ import annotations

import inspect
import math
from pathlib import Path

import pint
import pytest

import mlsys
from mlsys import formulas, poisson, redundancy, simulation, validity, weibull
from mlsys.constants import gpu, hour, node, second
from mlsys.examples import EXAMPLES
from mlsys.units import DimensionalityError, UnitError

REPO = Path(__file__).resolve().parents[2]
s = second

# One valid call of each computing function the examples do not hold.
EXTRA_CALLS = {
    "first_order_interval_range": {"checkpoint_cost": 60 * s, "mtbf": 11_160 * s,
                                   "detect": 60 * s, "recover": 60 * s},
    "simulate_wall_time": {"solve_time": 10 * 854 * s, "interval": 854 * s,
                           "checkpoint_cost": 24.5 * s, "restart_time": 114.5 * s,
                           "mtbf": 14_897 * s, "runs": 2, "seed": 1},
}
# Public names of mlsys that display or look up, not compute: not science, listed so
# that a new public function must be either computing (and covered) or named here.
NOT_COMPUTING = {"ureg", "constant_info", "list_constants", "beyond_first_order_domain",
                 "check", "fmt", "fmt_percent", "fmt_duration", "sci", "md_math", "md_table",
                 "explorer"}      # a grid over the formulas (tests/mlsys/test_explorers.py)
COMPUTING_MODULES = (formulas, validity, simulation, weibull, poisson, redundancy)
RANGED = {"shape": weibull.SHAPE_RANGE}   # numbers with a range of their own, not fractions
SEED_LIKE = {"seed", "runs"}      # ints that choose a simulation, not counts of anything


def public_functions():
    names = {n for n in mlsys.__all__ if inspect.isfunction(getattr(mlsys, n))}
    names |= {n for n in getattr(simulation, "__all__", dir(simulation))
              if not n.startswith("_") and inspect.isfunction(getattr(simulation, n))
              and getattr(simulation, n).__module__ == simulation.__name__}
    return sorted(names)


def computing_functions():
    return [n for n in public_functions() if n not in NOT_COMPUTING]


def function(name):
    for module in (mlsys, simulation):
        if hasattr(module, name):
            return getattr(module, name)
    raise AssertionError(name)


def valid_call(name) -> dict:
    return dict(EXAMPLES.get(name) or EXTRA_CALLS[name])


def call(name, **replace):
    return function(name)(**{**valid_call(name), **replace})


def is_count_unit(value) -> bool:
    return str(getattr(value, "dimensionality", "")) in ("[gpu]", "[node]")


def parameters_of(kind_test):
    return [(name, param) for name in computing_functions()
            for param, value in valid_call(name).items() if kind_test(value)]


def test_every_public_function_is_classified_and_has_a_valid_call():
    for name in public_functions():
        f = function(name)
        assert name in NOT_COMPUTING or inspect.getmodule(f) in COMPUTING_MODULES, (
            f"{name}: a new public function: add it to NOT_COMPUTING or compute in "
            "mlsys.formulas / validity / simulation")
    missing = [n for n in computing_functions() if n not in EXAMPLES and n not in EXTRA_CALLS]
    assert missing == [], f"no valid call for {missing}: add one to mlsys/examples.py::EXAMPLES"
    for name in computing_functions():
        call(name)          # the valid call runs


DIMENSIONED = parameters_of(lambda v: isinstance(v, pint.Quantity))


@pytest.mark.parametrize("name, param", DIMENSIONED, ids=[f"{n}-{p}" for n, p in DIMENSIONED])
def test_a_bare_number_is_an_error_naming_the_parameter(name, param):
    bare = valid_call(name)[param].magnitude
    with pytest.raises(UnitError, match=rf"^{param} must be .*bare number"):
        call(name, **{param: bare})


def test_bare_numbers_inside_structured_parameters_are_errors_too():
    with pytest.raises(UnitError, match=r"^components\[0\]\.mttf must be"):
        mlsys.calc_mtbf_series([(50_000, 8)])


COUNTS = parameters_of(is_count_unit)


@pytest.mark.parametrize("name, param", COUNTS, ids=[f"{n}-{p}" for n, p in COUNTS])
def test_a_count_of_gpus_for_nodes_or_back_is_an_error_naming_the_parameter(name, param):
    value = valid_call(name)[param]
    other = value.magnitude * (node if value.dimensionality == gpu.dimensionality else gpu)
    with pytest.raises(DimensionalityError, match=rf"^{param} must be a count of .*is not a count"):
        call(name, **{param: other})


def test_two_counts_of_one_kind_are_keyword_only_so_they_cannot_be_swapped():
    """Counts of different units are caught by their units; two counts of the same
    unit (from_devices and to_devices) only by their names: they must be keyword-only."""
    checked = 0
    for name in computing_functions():
        example = valid_call(name)
        units = [str(v.dimensionality) for v in example.values() if is_count_unit(v)]
        signature = inspect.signature(function(name))
        for param, value in example.items():
            if is_count_unit(value) and units.count(str(value.dimensionality)) > 1:
                assert signature.parameters[param].kind is inspect.Parameter.KEYWORD_ONLY, (name, param)
                checked += 1
    assert checked >= 2
    # the swap: 18.9 h instead of 30 min, now refused
    with pytest.raises(TypeError, match="positional argument"):
        mlsys.calc_mtbf_rescaled(3 * hour, 100_000 * gpu, 16_384 * gpu)
    # GPUs passed where nodes go, by position too
    node_mtbf = mlsys.calc_mtbf_node(**EXAMPLES["calc_mtbf_node"])
    with pytest.raises(DimensionalityError, match="^n_nodes must be a count of nodes"):
        mlsys.calc_mtbf_cluster(node_mtbf, 10_000 * gpu)


def out_of_domain(value, param=None):
    """Values no parameter of this kind accepts: NaN and infinity always; a negative
    time, size or count; a number outside its own range."""
    if param in RANGED:
        low, high = RANGED[param]
        return [math.nan, math.inf, low / 2, high * 2]
    if isinstance(value, pint.Quantity):
        return [value * math.nan, value * math.inf, -value]
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [-1 - value, value + 0.5]
    if isinstance(value, float):
        return [math.nan, math.inf, 1.5, -0.5]       # fractions and probabilities lie in [0, 1]
    return []


DOMAIN = [(name, param, bad) for name in computing_functions()
          for param, value in valid_call(name).items() if param not in SEED_LIKE
          for bad in out_of_domain(value, param)]


@pytest.mark.parametrize("name, param, bad", DOMAIN,
                         ids=[f"{n}-{p}-{b!r}" for n, p, b in DOMAIN])
def test_an_input_outside_the_domain_is_an_error_naming_the_parameter(name, param, bad):
    with pytest.raises(ValueError) as info:
        call(name, **{param: bad})
    assert str(info.value).startswith(param) or f" {param}" in str(info.value), str(info.value)


def first_order_functions():
    """The functions of the first-order checkpoint model: those that call the domain guard."""
    return [n for n in computing_functions()
            if "first_order_domain(" in inspect.getsource(function(n))]


def test_the_first_order_model_refuses_a_short_mtbf_and_names_the_exact_model():
    names = first_order_functions()
    assert {"calc_young_daly_interval", "calc_waste_terms"} <= set(names), names
    for name in names:
        example = valid_call(name)
        with pytest.raises(validity.OutsideDomainError) as info:
            call(name, mtbf=example["mtbf"] / 1_000)
        message = str(info.value)
        assert "mtbf" in message and "calc_exact_efficiency" in message, message
    # calc_waste_fraction goes through calc_waste_terms and is refused the same way
    with pytest.raises(validity.OutsideDomainError, match="mtbf"):
        call("calc_waste_fraction", mtbf=valid_call("calc_waste_fraction")["mtbf"] / 1_000)


def test_the_exact_model_stays_a_share_of_wall_time_at_any_mtbf():
    for m in (1e-3 * s, 1 * s, 100 * s, 1e9 * s):
        e = mlsys.calc_exact_efficiency(854 * s, 24.5 * s, 114.5 * s, m)
        assert 0.0 <= e <= 1.0 and math.copysign(1.0, e) == 1.0, (m, e)


def test_no_contract_form_warning_remains_anywhere():
    """Every source and document of the project (not .venv, builds or hidden folders)."""
    this_file = Path(__file__).resolve()
    hits = sorted(
        str(path.relative_to(REPO)) for path in REPO.rglob("*")
        if path.suffix in {".py", ".md", ".qmd", ".toml", ".yml", ".txt"} and path.is_file()
        and path.resolve() != this_file
        and not any(part.startswith((".", "_")) or part in {"node_modules"}
                    for part in path.relative_to(REPO).parts[:-1])
        and "ContractFormWarning" in path.read_text(encoding="utf-8", errors="replace"))
    assert hits == []
    assert not hasattr(mlsys, "ContractFormWarning") and not hasattr(mlsys.units, "contract_form")
