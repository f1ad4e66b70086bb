"""The unit rule (mlsys.units): every formula rejects every wrongly dimensioned argument.

The table gives, for each public function, the kind of each parameter and one valid
call. The calls are mlsys.examples.EXAMPLES (one per formula, which must cover
every parameter of every formula: a new formula adds its example there), plus
simulate_wall_time's row here; each kind is read from its example value (a
Quantity: its dimension; an int: a count; a float: a fraction; a list: a
structured parameter). Hypothesis then replaces one argument at a time by a value
of the wrong kind and checks the error names the parameter and what it expected.
"""

import inspect
import numbers
import warnings

import pint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlsys
from mlsys import formulas, poisson, redundancy, simulation, weibull
from mlsys.constants import GB, Q_, byte, gpu, hour, second, ureg
from mlsys.examples import EXAMPLES
from mlsys.units import DimensionalityError, UnitError

COUNT, FRACTION, STRUCTURED, SEED = "count", "fraction", "structured", "seed"
EXAMPLES_AT = "mlsys/examples.py::EXAMPLES"

s, h = second, hour


def kind_of(value) -> str:
    """A parameter's kind, read from its example value; a dimension reads as pint writes it."""
    if isinstance(value, pint.Quantity):
        return str(value.dimensionality)            # "[time]", "[information]", "1 / [time]"
    if isinstance(value, bool):
        raise TypeError(f"no kind for the example value {value!r}")
    if isinstance(value, numbers.Integral):
        return COUNT
    if isinstance(value, numbers.Real):
        return FRACTION
    if isinstance(value, (list, tuple)):
        return STRUCTURED
    raise TypeError(f"no kind for the example value {value!r}")


def kinds(example: dict) -> dict:
    """{parameter: (kind, valid value)} of one example call."""
    return {param: (kind_of(value), value) for param, value in example.items()}


def is_dimensioned(kind: str) -> bool:
    return kind not in (COUNT, FRACTION, STRUCTURED, SEED)


# Not a formula of the recipe (mlsys.simulation): its row is kept here; seed is an int
# but not a count (any int seeds the generator), so it is marked explicitly.
SIMULATION = {"simulate_wall_time": {
    **kinds({"solve_time": 10 * 854 * s, "interval": 854 * s, "checkpoint_cost": 24.5 * s,
             "restart_time": 114.5 * s, "mtbf": 14_897 * s, "runs": 2}),
    "seed": (SEED, 1)}}

# function -> {parameter: (kind, valid value)}
TABLE = {**{name: kinds(example) for name, example in EXAMPLES.items()}, **SIMULATION}


# the modules whose public functions need an example (mlsys.formulas and its siblings)
FORMULA_MODULES = (formulas, weibull, poisson, redundancy)


def function(name):
    return getattr(simulation if name in SIMULATION else mlsys, name)


def call(name, **replace):
    args = {k: v for k, (_, v) in TABLE[name].items()}
    args.update(replace)
    return function(name)(**args)


def examples_problems(examples: dict) -> list[str]:
    """What `examples` lacks or holds in excess against mlsys.formulas.__all__ (the review gate)."""
    public = [n for module in FORMULA_MODULES for n in module.__all__
              if inspect.isfunction(getattr(module, n))]
    problems = []
    for name in public:
        params = list(inspect.signature(getattr(mlsys, name)).parameters)
        if name not in examples:
            entry = ", ".join(f"{p!r}: ..." for p in params)
            problems.append(f"mlsys.formulas.{name} has no example in {EXAMPLES_AT}; "
                            f"add {name!r}: {{{entry}}} (one valid call: a Quantity for a "
                            "time, size or rate, an int for a count, a float for a fraction)")
        elif list(examples[name]) != params:
            problems.append(f"{EXAMPLES_AT}[{name!r}] gives {list(examples[name])}, "
                            f"but {name} takes {params}: give exactly its parameters, in order")
        else:
            for param, value in examples[name].items():
                try:
                    kind_of(value)
                except TypeError as error:
                    problems.append(f"{EXAMPLES_AT}[{name!r}][{param!r}]: {error} (write a "
                                    "Quantity, an int for a count or a float for a fraction)")
    problems += [f"{EXAMPLES_AT}[{name!r}]: no such public function of mlsys.formulas "
                 "(delete the entry)" for name in examples if name not in public]
    return problems


def test_the_examples_cover_every_formula_and_parameter():
    problems = examples_problems(EXAMPLES)
    assert problems == [], "\n".join(problems)
    for name, params in SIMULATION.items():
        assert list(params) == list(inspect.signature(function(name)).parameters), name


def test_a_formula_missing_from_the_examples_is_named_with_what_to_add():
    without = {name: example for name, example in EXAMPLES.items() if name != "calc_mtbf_cluster"}
    assert examples_problems(without) == [
        "mlsys.formulas.calc_mtbf_cluster has no example in mlsys/examples.py::EXAMPLES; "
        "add 'calc_mtbf_cluster': {'node_mtbf': ..., 'n_nodes': ...} (one valid call: "
        "a Quantity for a time, size or rate, an int for a count, a float for a fraction)"]
    wrong = {**EXAMPLES, "calc_nines": {"availability": "0.99"}}
    assert examples_problems(wrong) == [
        "mlsys/examples.py::EXAMPLES['calc_nines']['availability']: no kind for the example "
        "value '0.99' (write a Quantity, an int for a count or a float for a fraction)"]


def test_kinds_are_read_from_the_example_values():
    assert TABLE["calc_mtbf_cluster"]["node_mtbf"][0] == "[time]"
    assert TABLE["calc_checkpoint_size"]["bytes_per_param"][0] == "[information]"
    assert TABLE["calc_mttf_from_fit"]["fit"][0] == "1 / [time]"
    assert TABLE["calc_checkpoint_size"]["n_params"][0] == COUNT
    assert TABLE["calc_nines"]["availability"][0] == FRACTION
    assert TABLE["calc_mtbf_series"]["components"][0] == STRUCTURED
    # an integral float is still accepted where a count goes (the contract's 175e9)
    assert formulas.calc_checkpoint_size(175e9, 14 * byte) == call("calc_checkpoint_size")


def test_the_examples_import_only_constants():
    """Layer rule: mlsys.examples sits beside the formulas, on mlsys.constants alone."""
    import ast
    import mlsys.examples
    tree = ast.parse(inspect.getsource(mlsys.examples))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    assert imported <= {"__future__", "mlsys.constants"}, imported


def test_mutation_perturbs_every_count_by_one():
    """make mutate's count+1 mutants come from the examples' int values and counts of
    GPUs or nodes, per formula."""
    from booktools.mutation.mutants import count_params, formula_ops
    for name, params in TABLE.items():
        if name not in SIMULATION:
            assert count_params(name) == [p for p, (kind, _) in params.items()
                                          if kind in (COUNT, "[gpu]", "[node]")]
    assert count_params("calc_mtbf_cluster") == ["n_nodes"]
    planted = {"mtbf": 1 * h, "n_racks": 2, "share": 0.5}
    assert formula_ops(list(planted), count_params("calc_new", {"calc_new": planted})) == [
        "x0.1", "x10", "neg", "swap", "count+1:n_racks"]


@pytest.mark.parametrize("name", sorted(TABLE))
def test_every_valid_call_runs_without_a_warning(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(name)


WRONG_UNITS = ["second", "hour", "day", "byte", "GB", "bit", "GB/s", "meter", "kilogram",
               "FIT", "1/second", "dimensionless", "percent", "watt"]
DIMENSIONED = [(n, p) for n, params in TABLE.items() for p, (kind, _) in params.items()
               if is_dimensioned(kind)]
COUNTS = [(n, p) for n, params in TABLE.items() for p, (kind, _) in params.items() if kind == COUNT]
FRACTIONS = [(n, p) for n, params in TABLE.items() for p, (kind, _) in params.items()
             if kind == FRACTION]
magnitudes = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)
thorough = settings(max_examples=300, deadline=None)


def expected_dimension(name, param):
    return TABLE[name][param][1].dimensionality


@thorough
@given(st.sampled_from(DIMENSIONED), st.sampled_from(WRONG_UNITS), magnitudes)
def test_a_quantity_of_the_wrong_dimension_is_refused(target, unit, magnitude):
    name, param = target
    wrong = Q_(magnitude, unit)
    if wrong.dimensionality == expected_dimension(name, param):
        return  # the right dimension in another unit is fine
    with pytest.raises(DimensionalityError) as info:
        call(name, **{param: wrong})
    assert isinstance(info.value, pint.DimensionalityError)
    message = str(info.value)
    assert message.startswith(f"{param} must be") and TABLE[name][param][0] in message


@thorough
@given(st.sampled_from(DIMENSIONED), magnitudes)
def test_a_bare_number_is_refused_naming_the_parameter_and_unit(target, magnitude):
    name, param = target
    with pytest.raises(UnitError) as info:
        call(name, **{param: magnitude})
    message = str(info.value)
    assert message.startswith(f"{param} must be") and "bare number" in message
    assert TABLE[name][param][0] in message


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


def test_the_issues_silent_errors_are_now_errors():
    node = formulas.calc_mtbf_node(50_000 * h, 8 * gpu, 150_000 * h, 2, 100_000 * h, 2)
    # one minute as a bare number beside an MTBF Quantity: no longer read as one second
    with pytest.raises(UnitError, match="^checkpoint_cost must be a time Quantity"):
        formulas.calc_young_daly_interval(1, node)
    # the contract's bare seconds, with M meant in hours: 14.2 s instead of 854 s, now an error
    with pytest.raises(UnitError, match="^checkpoint_cost must be .*bare number 24.5"):
        formulas.calc_young_daly_interval(24.5, 4.14)
    # a size where a count of nodes goes
    with pytest.raises(DimensionalityError, match=r"^n_nodes must be a count of nodes.*\[information\]"):
        formulas.calc_mtbf_cluster(node, 2450 * GB)
    # GPUs where nodes go (8x too short), and the fix it names
    with pytest.raises(DimensionalityError,
                       match=r"^n_nodes must be a count of nodes.*10000 gpu.*GPUS_PER_HOST \* gpu / node"):
        formulas.calc_mtbf_cluster(node, 10_000 * gpu)
    assert formulas.calc_mtbf_cluster(node, 10_000 * gpu / (8 * gpu / ureg.node)).m_as(h) == \
        pytest.approx(node.m_as(h) / 1250)
    # the two counts of calc_mtbf_rescaled cannot be swapped by position (18.9 h for 30 min)
    with pytest.raises(TypeError, match="positional argument"):
        formulas.calc_mtbf_rescaled(3 * h, 100_000 * gpu, 16_384 * gpu)
    # bytes are not dimensionless: a size is not a time, and says so
    with pytest.raises(DimensionalityError, match=r"mtbf must be a time Quantity.*\[information\]"):
        formulas.calc_young_daly_interval(24.5 * s, 2450 * GB)
    with pytest.raises(pint.DimensionalityError):
        (2450 * GB).to(second)
    assert (2450 * GB / (100 * GB / second)).to(second).magnitude == pytest.approx(24.5)
    assert (1 * byte).dimensionality != ureg.dimensionless.dimensionality
