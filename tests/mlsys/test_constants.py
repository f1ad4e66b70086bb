"""Constants: contract values, plain-number behaviour, units and provenance."""

import math
from pathlib import Path

import pandas as pd
import pint
import pytest

import mlsys
from mlsys import constants
from mlsys.constants import (
    CITATION_KEYS, GB, SOURCE_MARKERS, TB, Q_, byte, constant_info, day, hour,
    list_constants, minute, second, ureg,
)
from bookcheck.read.project import load_project
from bookcheck.verify.refs import BIB_KEY

ROOT = Path(__file__).resolve().parents[2]

CONTRACT = {
    "GPU_MTTF_HOURS": 50_000, "HBM_MTTF_HOURS": 200_000, "NIC_MTTF_HOURS": 150_000,
    "PSU_MTTF_HOURS": 100_000, "PCIE_SWITCH_MTTF_HOURS": 200_000,
    "CABLE_MTTF_HOURS": 500_000, "TOR_SWITCH_MTTF_HOURS": 300_000, "GPUS_PER_HOST": 8,
    "HEARTBEAT_TIMEOUT_S": 30, "RESCHEDULE_TIME_S": 60, "CHECKPOINT_WRITE_BW_GBS": 100,
    "CLUSTER_SMALL_GPUS": 256, "CLUSTER_MEDIUM_GPUS": 2_048, "CLUSTER_LARGE_GPUS": 8_192,
    "CLUSTER_MEGA_GPUS": 100_000, "OVERHEAD_CHECKPOINT": 0.03,
    "OVERHEAD_FAILURE_RECOVERY": 0.10, "HOURS_PER_YEAR": 8_760, "SECONDS_PER_MINUTE": 60,
}


@pytest.mark.parametrize("name, value", sorted(CONTRACT.items()))
def test_contract_values_are_plain_numbers(name, value):
    constant = getattr(constants, name)
    assert constant == value
    assert type(constant) in (int, float)
    assert getattr(mlsys, name) == value


def test_plain_numbers_behave_like_numbers():
    assert f"{constants.GPU_MTTF_HOURS:,}" == "50,000"
    assert int(1e9 / constants.GPU_MTTF_HOURS) == 20000
    assert constants.GPU_MTTF_HOURS / constants.HOURS_PER_YEAR == pytest.approx(5.7077, rel=1e-4)


def test_mttf_rows_are_marked_as_design_values():
    # Issue 26: no cited source has a per-row MTTF table, so the rows are assumptions.
    for name in CONTRACT:
        if name.endswith("_MTTF_HOURS"):
            assert constant_info(name).source == "assumption"
            assert "design value" in constant_info(name).description
            assert constant_info(name).unit == "hour"


def test_llama3_root_causes_add_up_to_the_unexpected_interruptions():
    causes = {row.name: row.value for row in list_constants() if row.name.startswith("LLAMA3_CAUSE_")}
    assert len(causes) == 18
    assert sum(causes.values()) == constants.LLAMA3_INTERRUPTIONS_UNEXPECTED == 419
    gpu = ["FAULTY_GPU", "GPU_HBM3", "GPU_SRAM", "GPU_SYSTEM_PROCESSOR", "SDC", "GPU_THERMAL"]
    assert sum(causes[f"LLAMA3_CAUSE_{c}"] for c in gpu) == 148 + 72 + 19 + 17 + 6 + 6 == 268
    assert all(constant_info(name).source == "grattafiori2024" for name in causes)


def test_registry_matches_module_attributes():
    rows = list_constants()
    names = [row.name for row in rows]
    assert len(names) == len(set(names))
    for row in rows:
        assert getattr(constants, row.name) == row.value
        assert type(getattr(constants, row.name)) is type(row.value)
    upper = {n for n in vars(constants) if n.isupper() and not n.startswith("_")}
    undeclared = upper - set(names) - {"GB", "TB", "FIT", "Q_", "CITATION_KEYS", "SOURCE_MARKERS"}
    assert not undeclared, (f"constants without provenance: {sorted(undeclared)}; declare each "
                            "with _declare(name, value, unit, description, source) in mlsys/constants.py")


def test_every_constant_has_description_source_and_unit():
    for row in list_constants():
        assert row.description.strip() and "\n" not in row.description, row.name
        assert row.source in CITATION_KEYS | SOURCE_MARKERS, row.name
        ureg.parse_units(row.unit)  # raises if pint cannot read it
        assert math.isfinite(row.value)


def bibliography_keys() -> set[str]:
    """The keys of the book's bibliography files, read as the checker reads them."""
    project = load_project(ROOT)
    return {key for bib in project.bibliography
            for key in BIB_KEY.findall((ROOT / bib).read_text(encoding="utf-8"))}


def test_sources_are_the_books_keys():
    assert "barroso2018" in CITATION_KEYS and "grattafiori2024" in CITATION_KEYS
    unknown = sorted(CITATION_KEYS - bibliography_keys())
    assert unknown == [], (f"CITATION_KEYS in mlsys/constants.py holds {unknown}, which "
                           "references.bib lacks: add their entries to references.bib")
    assert SOURCE_MARKERS == {"assumption", "convention"}
    used = {row.source for row in list_constants()}
    assert {"grattafiori2024", "wan2025", "ma2025", "tung2026", "si2025",
            "douillard2026", "zhong2024"} <= used


def test_list_constants_in_declaration_order_and_tabular():
    rows = list_constants()
    assert rows[0].name == "GPU_MTTF_HOURS"
    frame = pd.DataFrame(rows)
    assert list(frame.columns) == ["name", "value", "unit", "description", "source"]
    assert len(frame) == len(rows)


@pytest.mark.parametrize("name, value, source", [
    ("LLAMA3_SNAPSHOT_DAYS", 54, "grattafiori2024"),
    ("LLAMA3_MAX_GPUS", 16_384, "grattafiori2024"),
    ("LLAMA3_INTERRUPTIONS_TOTAL", 466, "grattafiori2024"),
    ("LLAMA3_INTERRUPTIONS_PLANNED", 47, "grattafiori2024"),
    ("LLAMA3_INTERRUPTIONS_UNEXPECTED", 419, "grattafiori2024"),
    ("LLAMA3_GPU_SHARE_OF_UNEXPECTED", 0.587, "grattafiori2024"),
    ("LLAMA3_EFFECTIVE_TRAINING_MIN", 0.90, "grattafiori2024"),
    ("PROJECTION_GPUS", 100_000, "assumption"),
    ("BYTEROBUST_ETTR_MAX", 0.97, "wan2025"),
    ("BYTEROBUST_GPUS", 9_600, "wan2025"),
    ("BYTEROBUST_DURATION_MONTHS", 3, "wan2025"),
    ("BYTEROBUST_CKPT_OVERHEAD_MAX", 0.009, "wan2025"),
    ("MA2025_FLAGGED_NODES", 15, "ma2025"),
    ("MA2025_HEALTHY_NODES", 15, "ma2025"),
    ("TUNG2026_MODEL_SMS", 2, "tung2026"),
    ("TUNG2026_MICROBENCHMARKS", 63, "tung2026"),
    ("TUNG2026_NAN_INF_SHARE", 0.0101, "tung2026"),
    ("TUNG2026_SINGLE_BIT_SHARE_MAX", 0.40, "tung2026"),
    ("NCCLX_LATENCY_RATIO_CROSS_RACK", 7, "si2025"),
    ("NCCLX_LATENCY_RATIO_CROSS_ZONE", 15, "si2025"),
    ("NCCLX_LATENCY_RATIO_CROSS_BUILDING", 30, "si2025"),
    ("NCCLX_FABRIC_GPUS_MIN", 100_000, "si2025"),
    ("DILOCO_SIMULATED_CHIPS", 1_200_000, "douillard2026"),
    ("DILOCO_CHIP_INTERRUPTION_YEARS", 1, "douillard2026"),
    ("DILOCO_LEARNERS", 8, "douillard2026"),
    ("DILOCO_GOODPUT", 0.88, "douillard2026"),
    ("DILOCO_ELASTIC_DP_GOODPUT", 0.58, "douillard2026"),
    ("DILOCO_CROSS_REGION_PARAMS", 12_000_000_000, "douillard2026"),
    ("DISTSERVE_REQUEST_RATE_GAIN_MAX", 7.4, "zhong2024"),
    ("DISTSERVE_SLO_TIGHTENING_MAX", 12.6, "zhong2024"),
    ("REPLICA_AVAILABILITY", 0.99, "assumption"),
    ("BYTES_PER_PARAM_MIXED_ADAM", 16, "rajbhandari2020"),
    ("EXAMPLE_CHECKPOINT_COST_MIN", 1, "assumption"),
])
def test_book_facts(name, value, source):
    assert getattr(constants, name) == value
    assert constant_info(name).source == source


def test_llama_ledger_adds_up():
    assert (constants.LLAMA3_INTERRUPTIONS_PLANNED + constants.LLAMA3_INTERRUPTIONS_UNEXPECTED
            == constants.LLAMA3_INTERRUPTIONS_TOTAL)


def test_unit_shortcuts_share_one_registry():
    assert (1 * GB).m_as(byte) == 1e9  # decimal gigabyte
    assert (1 * TB).m_as(GB) == pytest.approx(1000)
    assert (1 * day).m_as(hour) == 24 and (1 * hour).m_as(minute) == 60
    assert (1 * minute).m_as(second) == 60
    assert isinstance(Q_(1, "hour"), ureg.Quantity)
    assert (Q_(1, "hour") + 30 * minute).m_as(hour) == 1.5


def test_star_import_gives_what_chapters_use():
    namespace = {}
    exec("from mlsys.constants import *", namespace)
    for name in ["ureg", "Q_", "GB", "TB", "byte", "second", "minute", "hour", "day",
                 "HOURS_PER_YEAR", "GPUS_PER_HOST", "list_constants", *CONTRACT]:
        assert name in namespace, name
    assert "_declare" not in namespace and "pint" not in namespace


def test_declare_rejects_bad_provenance():
    with pytest.raises(ValueError, match="unknown source"):
        constants._declare("X_TEST", 1, "", "desc", "wikipedia")
    with pytest.raises(ValueError, match="declared twice"):
        constants._declare("GPU_MTTF_HOURS", 1, "hour", "desc", "assumption")
    with pytest.raises(pint.UndefinedUnitError):
        constants._declare("X_TEST2", 1, "furlongz", "desc", "assumption")
    assert "X_TEST" not in {row.name for row in list_constants()}


def test_a_misspelt_source_names_the_close_key():
    """Issue 31: a near miss is a typo (did you mean), not a new bib entry to add."""
    with pytest.raises(ValueError) as caught:
        constants._declare("X_TEST3", 1, "", "desc", "yung1974")
    assert str(caught.value) == "X_TEST3: unknown source 'yung1974': did you mean 'young1974'?"
    with pytest.raises(ValueError, match="add its entry to references.bib"):
        constants._declare("X_TEST4", 1, "", "desc", "smith2027")


def test_importing_mlsys_is_light():
    import subprocess
    import sys
    code = ("import sys, mlsys; "
            "print(sorted(m for m in ('matplotlib', 'pandas', 'IPython', 'tabulate') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
