"""The reliability appendix written against the mlsys contract runs, with Quantities.

Its ```{python} cells are read from the reference document at test time and
concatenated in order. The contract lets it pass bare numbers (hours, seconds,
bytes) to three functions; mlsys has no bare-number form, so the test gives
those calls their units (QUANTITIES: each argument times its unit, the number of
calls checked) and runs the result: every check() it makes must hold and its
published values stay. Left bare, each function's calls are an error naming the
parameter.
"""

import os
import re
import warnings
from pathlib import Path

import pytest

from mlsys import formatting, precision
from mlsys.units import UnitError

REPO = Path(__file__).resolve().parents[2]
SEEDS = Path(os.environ.get("MLSYS_SEEDS_DIR", REPO.parent / "shared" / "seeds"))
APPENDIX = SEEDS / "000_29f3eea53790adb1.txt"
CELL = re.compile(r"^```\{python\}[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

# The calls the contract lets take bare numbers: the unit of each positional
# argument (None: a plain count), how many such calls the appendix makes, and the
# parameter mlsys names when they are left bare.
QUANTITIES = [
    ("calc_mtbf_node", ["hour", "gpu", "hour", None, "hour", None], 1, "gpu_mttf"),
    ("calc_checkpoint_size", [None, "byte"], 2, "bytes_per_param"),
    ("calc_young_daly_interval", ["second", "second"], 2, "checkpoint_cost"),
]


def arguments_end(source: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """The (start, end) spans of the top-level arguments of the call whose "(" is at
    ``start``, and the index of its closing ")"."""
    depth, spans, begin = 0, [], start + 1
    for i in range(start, len(source)):
        if source[i] in "([{":
            depth += 1
        elif source[i] in ")]}":
            depth -= 1
            if depth == 0:
                return spans + [(begin, i)], i
        elif source[i] == "," and depth == 1:
            spans.append((begin, i))
            begin = i + 1
    raise AssertionError(f"unbalanced call at {start}")


def give_units(source: str, function: str, units: list, expected_calls: int) -> str:
    """Every call of ``function`` in ``source`` with `` * ureg.<unit>`` after each argument."""
    calls = [m.end() - 1 for m in re.finditer(rf"\b{function}\(", source)
             if "#" not in source[source.rfind("\n", 0, m.start()) + 1:m.start()]]  # not comments
    assert len(calls) == expected_calls, f"the appendix calls {function} {len(calls)} times"
    for start in reversed(calls):            # from the end, so earlier offsets hold
        spans, _ = arguments_end(source, start)
        assert len(spans) == len(units), f"{function} takes {len(spans)} arguments here"
        for (begin, end), unit in reversed(list(zip(spans, units))):
            if unit is not None:
                argument = source[begin:end].strip()
                source = source[:begin] + source[begin:end].replace(
                    argument, f"({argument}) * ureg.{unit}") + source[end:]
    return source


def appendix_cells():
    if not APPENDIX.is_file():
        pytest.skip(f"reference appendix not found at {APPENDIX} (set MLSYS_SEEDS_DIR)")
    return CELL.findall(APPENDIX.read_text(encoding="utf-8"))


def with_units(source: str, skip: int | None = None) -> str:
    """The appendix source with units given to every call of QUANTITIES but number ``skip``."""
    for i, (function, units, calls, _) in enumerate(QUANTITIES):
        if i != skip:
            source = give_units(source, function, units, calls)
    return source


def run(source: str, calls: list) -> dict:
    """Execute ``source`` as the appendix, recording every check() in ``calls``."""
    real_check = formatting.check

    def recording_check(condition, message):
        calls.append((bool(condition), message))
        real_check(condition, message)

    formatting.check = recording_check  # the cells import check from mlsys.formatting
    # The reference appendix predates the precision rule (it prints the node MTBF as
    # "5,172" hours, 4 figures from 1-figure MTTFs); this test is about its units and
    # invariants, so its displays run under the old cap of 5 figures, not the book's.
    caps = formatting.MAX_FIGURES, precision.MAX_FIGURES
    formatting.MAX_FIGURES = precision.MAX_FIGURES = 5
    try:
        namespace = {"__name__": "appendix"}
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # and no warning of any kind
            exec(compile(source, str(APPENDIX), "exec"), namespace)
    finally:
        formatting.check = real_check
        formatting.MAX_FIGURES, precision.MAX_FIGURES = caps
    return namespace


@pytest.fixture(scope="module")
def appendix():
    """Run the appendix with units once, recording every check() it makes."""
    calls = []
    namespace = run(with_units("\n\n".join(appendix_cells())), calls)
    return namespace, calls


@pytest.mark.parametrize("left_bare", range(len(QUANTITIES)))
def test_each_bare_call_of_the_contract_is_an_error_naming_its_parameter(left_bare):
    source = with_units("\n\n".join(appendix_cells()), skip=left_bare)
    parameter = QUANTITIES[left_bare][3]
    with pytest.raises(UnitError, match=rf"^{parameter} must be .*bare number"):
        run(source, [])


def test_cells_are_found():
    cells = appendix_cells()
    assert len(cells) >= 5
    assert "from mlsys.constants import *" in cells[0]


def test_three_invariants_hold(appendix):
    _, calls = appendix
    assert len(calls) == 3
    assert all(held for held, _ in calls), calls


def test_key_values(appendix):
    namespace, _ = appendix
    R = namespace["R"]
    assert R.node_mtbf.m_as("hour") == pytest.approx(5172.4, abs=0.05)
    assert R.cluster_mtbf_10k.m_as("hour") == pytest.approx(4.14, abs=0.005)
    assert R.ckpt_175b_gb == pytest.approx(2800)
    assert R.ckpt_write_time_s == pytest.approx(28.0)
    assert R.tau_opt_min == pytest.approx(15.2, abs=0.05)
    assert R.t_recovery_total_s == pytest.approx(9.6, abs=0.05)  # minutes, despite the name
    assert R.avail_stacked(2) == pytest.approx(0.9999)
    assert R.gpu_fit == 20_000 and R.tor_fit == 3_333


def test_published_strings(appendix):
    namespace, _ = appendix
    assert namespace["gpu_mttf_str"] == "50,000"
    assert namespace["node_mtbf_str"] == "5,172"
    assert namespace["cluster_mtbf_10k_str"] == "4.14"
    assert namespace["tau_opt_min_str"] == "15.2"
    assert namespace["ckpt_175b_gb_str"] == "2,800"
    assert namespace["t_recovery_str"] == "9.6"
    assert namespace["gpu_mttf_yr"] == "5.7"
    assert namespace["ckpt_data"][2] == {"label": "175B", "ckpt_gb": "2,800", "write_time": "28.0 s"}
    assert namespace["mtbf_data"][4]["mtbf"] == "4.1 hours"
    assert namespace["mtbf_data"][5]["mtbf"] == "25 minutes"
    assert namespace["fp_data"][10_000][0] == "99.7%"
    worked = namespace["WorkedExampleYoungDaly"]
    assert worked.yd_overhead_str == "3.1" and worked.tau_20k_min_str == "10.8"
