"""The reliability appendix written against the mlsys contract runs unchanged.

Its ```{python} cells are read from the reference document at test time,
concatenated in order and executed; every check() it makes must hold.
"""

import os
import re
import warnings
from pathlib import Path

import pytest

from mlsys import formatting
from mlsys.units import ContractFormWarning

REPO = Path(__file__).resolve().parents[2]
SEEDS = Path(os.environ.get("MLSYS_SEEDS_DIR", REPO.parent / "shared" / "seeds"))
APPENDIX = SEEDS / "000_29f3eea53790adb1.txt"
CELL = re.compile(r"^```\{python\}[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def appendix_cells():
    if not APPENDIX.is_file():
        pytest.skip(f"reference appendix not found at {APPENDIX} (set MLSYS_SEEDS_DIR)")
    return CELL.findall(APPENDIX.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def appendix():
    """Run the appendix once, recording every check() it makes."""
    calls = []
    real_check = formatting.check

    def recording_check(condition, message):
        calls.append((bool(condition), message))
        real_check(condition, message)

    formatting.check = recording_check  # the cells import check from mlsys.formatting
    try:
        namespace = {"__name__": "appendix"}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(compile("\n\n".join(appendix_cells()), str(APPENDIX), "exec"), namespace)
    finally:
        formatting.check = real_check
    namespace["__warnings__"] = caught
    return namespace, calls


def test_bare_numbers_pass_only_through_the_contract_form(appendix):
    """The appendix passes bare numbers to three functions: the contract form of
    mlsys.units accepts exactly those, in the contract's units, with a warning each."""
    namespace, _ = appendix
    warned = {str(w.message).split(":")[0] for w in namespace["__warnings__"]
              if issubclass(w.category, ContractFormWarning)}
    assert warned == {"calc_mtbf_node", "calc_checkpoint_size", "calc_young_daly_interval"}
    assert all(issubclass(w.category, ContractFormWarning) for w in namespace["__warnings__"])


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
