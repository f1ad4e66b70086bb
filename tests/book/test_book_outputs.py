"""The executed book: every figure cell emits one image, every table cell one
Markdown pipe table, and nothing but the ledger is reported.

Runs the real checker (cached by `make check`, so cheap after it)."""
from __future__ import annotations

import pytest

from bookcheck.model import Kind
from tests.book import book_rules as br
from bookcheck.verify.check import check_book

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def result():
    return check_book(br.ROOT)


def test_no_findings_other_than_the_ledger(result):
    # numbers.lock is generated at integration (`make numbers`); `make check` enforces it.
    problems = [f"{f.location()} {f.kind}: {f.reason}" for f in result.findings if f.kind != Kind.LEDGER]
    assert problems == []


def test_every_chapter_ran(result):
    assert set(result.runs) == set(br.BOOK_FILES)


def test_figures_emit_exactly_one_image(result):
    for rel, run in result.runs.items():
        for cell, cell_run in zip(result.parsed[rel].cells, run.cells):
            if (cell.label or "").startswith("fig-"):
                kinds = [o.kind for o in cell_run.outputs]
                assert len(kinds) == 1 and kinds[0].startswith("image/"), (rel, cell.label, kinds)


def test_tables_emit_one_pipe_table(result):
    for rel, run in result.runs.items():
        for cell, cell_run in zip(result.parsed[rel].cells, run.cells):
            if (cell.label or "").startswith("tbl-"):
                assert [o.kind for o in cell_run.outputs] == ["markdown"], (rel, cell.label)
                lines = cell_run.outputs[0].data.strip().splitlines()
                assert lines[0].startswith("|") and set(lines[1]) <= set("|:- "), (rel, cell.label)
                assert len(lines) >= 3, (rel, cell.label)


def test_other_cells_print_nothing(result):
    for rel, run in result.runs.items():
        for cell, cell_run in zip(result.parsed[rel].cells, run.cells):
            explorer = [o for o in cell_run.outputs if o.data.startswith("::: {.bookcheck-explorer}")]
            if not (cell.label or "").startswith(("fig-", "tbl-")):
                assert cell_run.outputs == explorer, (rel, cell.label, cell_run.outputs)


def test_invariants_ran(result):
    assert sum(run.invariants for run in result.runs.values()) >= 60


def inline_values(result, chapter: str) -> dict[str, str]:
    """Each inline expression of `chapter` -> the text the reader sees."""
    run, parsed = result.runs[chapter], result.parsed[chapter]
    return {parsed.inlines[i.index].expr: i.text for i in run.inlines}


def test_appendix_a_published_values(result):
    """The values the spec fixes, as the reader sees them."""
    shown = inline_values(result, "contents/appendix-foundations.qmd")
    assert shown["node_mtbf_str"] == "5,170"       # 5,172.4 h to the three figures the inputs support
    assert shown["mtbf_10k_str"] == "4.14"
    # Issue 13: a checkpoint stores 14 B/param (no gradients), not the upstream 16,
    # so delta = 24.5 s and every interval downstream moves.
    assert shown["delta_str"] == "24.5"
    assert shown["tau_young_min_str"] == "14.2"
    assert shown["t_recovery_str"] == "9 minutes"
    assert shown["tau_doubled_min_str"] == "10.1"
    assert shown["ckpt_overhead_str"] == "2.9%"
    # stretch is 1/(1 - f): 30 days at 13 % overhead -> 34.5 days (not 33.9)
    assert shown["stretched_days_str"] == "34.5 days"
    assert shown["llama_days_str"] == "33.3 days"
    # the total includes (D + R)/M; doubling grows ckpt + loss by sqrt(2)
    assert shown["ckpt_and_loss_str"] == "5.7%" and shown["ckpt_and_loss_20k_str"] == "8.1%"
    assert shown["total_overhead_10k_str"] == "6.5%"
    assert shown["failures_per_shift_10k_str"] == "1.9"
    assert shown["failures_per_day_small_str"] == "0.15"
    assert shown["hasty_write_share_str"] == "29%"     # delta / (tau + delta), not delta / tau
    assert shown["pair_str"] == "99.99%"
    assert shown["serial_availability_str"] == "0.37"


def test_failure_at_scale_published_values(result):
    """The Llama 3 ledger and the failure-budget example, as the spec gives them."""
    shown = inline_values(result, "contents/failure-at-scale.qmd")
    assert shown["mean_interval_str"] == "3.1"
    assert shown["projected_str"] == "30"
    assert shown["tau_star_str"] == "19"
    assert shown["useful_star_str"] == "88.5%"


def test_calibration_and_rpo_published_values(result):
    """Issue 26: the model beside the Llama 3 data like for like; the RPO bounds work."""
    fas = inline_values(result, "contents/failure-at-scale.qmd")
    # the count column: GPU rows 148 + 72 + 19 + 17 + 6 (SDC) + 6 (thermal) = 268 of 419,
    # not 58.7 % x 419 = 246; node parts add NIC 7 + PSU 3 = 278; outside the model 141
    hours = 54 * 24
    assert fas["gpu_counted_str"] == "268" and fas["gpu_from_share_str"] == "246"
    assert fas["gpu_counted_share_str"] == f"{100 * 268 / 419:.1f}%" == "64.0%"
    assert fas["node_part_events_str"] == "278" and fas["outside_events_str"] == "141"
    assert fas["predicted_node_str"] == f"{5172.41 / 2048:.2f}" == "2.53"
    assert fas["measured_node_str"] == f"{hours / 278:.2f}" == "4.66"
    assert fas["node_ratio_str"] == f"{(hours / 278) / (1 / (8 / 50e3 + 2 / 150e3 + 2 / 100e3) / 2048):.2f}" == "1.85"
    assert fas["predicted_gpu_str"] == f"{50e3 / 16384:.2f}" == "3.05"
    assert fas["measured_gpu_str"] == f"{hours / 268:.2f}" == "4.84"
    assert fas["gpu_ratio_str"] == "1.58"
    assert fas["implied_gpu_mttf_str"] == f"{round(hours / 268 * 16384, -3):,.0f}" == "79,000"
    assert fas["implied_gpu_mttf_no_sdc_str"] == f"{round(hours / 262 * 16384, -3):,.0f}" == "81,000"
    # a = sqrt(M_model / M_data); (a + 1/a)/2 - 1 of extra checkpoint cost plus lost work
    a = (1 / (8 / 50e3 + 2 / 150e3 + 2 / 100e3) / 2048 / (hours / 419)) ** 0.5
    assert fas["interval_ratio_str"] == f"{a:.3f}" == "0.904"
    assert fas["schedule_excess_str"] == f"{100 * ((a + 1 / a) / 2 - 1):.1f}%" == "0.5%"
    ft = inline_values(result, "contents/fault-tolerance.qmd")
    # the RPO bounds work (tau = 14.2 min); tau + delta = 14.6 min is wall time
    assert ft["rpo_str"] == "14.2 minutes" and ft["rpo_wall_str"] == "14.6 minutes"
    assert ft["expected_loss_str"] == "7.1 minutes"


def test_checkpoint_levers_published_values(result):
    """Issue 26: cheaper checkpoints beat faster restarts; more frequent ones do not help."""
    ft = inline_values(result, "contents/fault-tolerance.qmd")
    node = 1 / (8 / 50e3 + 2 / 150e3 + 2 / 100e3)          # hours
    m = node / 1250 * 3600                                  # seconds, 10,000 GPUs
    delta = 175e9 * 14 / 100e9                              # 24.5 s
    tau = (2 * delta * m) ** 0.5
    assert ft["at_interval_str"] == f"{100 * (delta / tau + tau / (2 * m)):.2f}%" == "5.74%"
    assert ft["at_half_interval_str"] == f"{100 * (2 * delta / tau + tau / (4 * m)):.2f}%" == "7.17%"
    assert ft["at_half_write_str"] == f"{100 * (2 * (delta / 2) / m) ** 0.5:.2f}%" == "4.06%"
    # issue 36: faster storage halves the write and the reload (counted once);
    # the other lever halves detection and rescheduling only
    gain_storage = (delta / tau + tau / (2 * m)) - (2 * (delta / 2) / m) ** 0.5 + (delta / 2) / m
    assert ft["gain_half_write_str"] == f"{100 * gain_storage:.2f}" == "1.76"
    assert ft["gain_half_restart_str"] == f"{100 * (30 + 60) / m / 2:.2f}" == "0.30"


def test_weaker_points_published_values(result):
    """Issue 26: node-composition sensitivity, exact-model days, the root-found crossing."""
    rf = inline_values(result, "contents/appendix-foundations.qmd")
    base = 8 / 50e3 + 2 / 150e3 + 2 / 100e3
    fabric = 4 / 200e3 + 1 / 300e3
    assert rf["few_cables_shortening_str"] == f"{100 * (1 - base / (base + fabric + 2 / 500e3)):.1f}%" == "12.4%"
    assert rf["many_cables_shortening_str"] == f"{100 * (1 - base / (base + fabric + 8 / 500e3)):.1f}%" == "16.9%"
    assert rf["nic_per_gpu_mtbf_str"] == f"{round(1 / (8 / 50e3 + 8 / 150e3 + 2 / 100e3), -1):,.0f}" == "4,290"
    assert rf["daly_at_m_str"] == f"{2 ** 0.5 * (1 + 0.5 ** 0.5 / 3 + 0.5 / 9) - 1:.2f}" == "0.83"
    import math
    m = 1 / base / 1250 * 3600
    delta = 24.5
    tau, restart = (2 * delta * m) ** 0.5, 30 + 60 + delta
    efficiency = tau / (m * math.exp(restart / m) * math.expm1((tau + delta) / m))
    assert rf["model_days_str"] == f"{30 / efficiency:.1f} days" == "32.0 days"  # first order: 32.1
    assert rf["fo_breaks_at_str"] == "47,100"         # the crossing, not the grid point 51,952
    assert rf["minimal_bytes_str"] == "12" and rf["cable_mttf_years_str"] == "57"


def test_issue36_science_published_values(result):
    """Issue 36: the calibration per part, the first-order breakdown, the Weibull section, the
    Llama budget's break-even cost; recomputed here with plain floats."""
    import math
    fas = inline_values(result, "contents/failure-at-scale.qmd")
    hours = 54 * 24
    assert fas["gpu_expected_str"] == f"{16_384 * hours / 50e3:.0f}" == "425"
    assert fas["nic_gpu_expected_str"] == f"{16_384 * hours / 150e3:.0f}" == "142"
    assert fas["psu_expected_str"] == f"{4_096 * hours / 100e3:.0f}" == "53"
    lam, mu = 1 / 100e3, 1 / 24
    assert fas["psu_pair_expected_str"] == f"{2_048 * hours * 2 * lam ** 2 / (3 * lam + mu):.3f}" == "0.013"
    node_nic_per_gpu = 16_384 * hours * (1 / 50e3 + 1 / 150e3) + 4_096 * hours / 100e3
    assert fas["node_ratio_nic_per_gpu_str"] == f"{node_nic_per_gpu / 278:.2f}" == "2.23"
    assert fas["gpu_interval_str"] == "237 to 302"              # Garwood, chi-square tables
    m_min = hours * 60 / 419                                    # Llama mean interval, minutes
    y = (-(2 ** 0.5) + (2 + 8 * 0.1) ** 0.5) / 4                 # sqrt(2) y + 2 y^2 = 1 - 0.9
    assert fas["floor_cost_str"] == f"{60 * m_min * y * y:.0f}" == "47"
    rf = inline_values(result, "contents/appendix-foundations.qmd")
    # where first order breaks (47,100 GPUs): delta/M small, tau*/M and W not
    assert rf["delta_ratio_break_str"] == "0.0077" and rf["tau_ratio_break_str"] == "0.12"
    assert rf["restart_ratio_break_str"] == "0.036" and rf["waste_at_break_str"] == "16%"
    # delta = M at the exact optimum tau = 0.84 M with free restarts
    assert rf["exact_tau_at_m_str"] == "0.84"
    assert rf["exact_eff_at_m_str"] == f"{100 * 0.84 / math.expm1(1.84):.1f}%" == "15.9%"
    # Weibull with mean M: P(T) = 1 - exp(-(Gamma(1 + 1/beta) T / M)^beta)
    assert rf["p_short_falling_str"] == f"{100 * -math.expm1(-(math.gamma(3) * 0.1) ** 0.5):.0f}%" == "36%"
    assert rf["p_long_rising_str"] == f"{100 * -math.expm1(-(math.gamma(1.5) * 3) ** 2):.1f}%" == "99.9%"
    assert rf["lost_rising_str"] == "0.67" and rf["lost_falling_str"] == "0.31"   # ~ beta/(beta+1)


def test_fault_tolerance_published_values(result):
    """The fault-tolerance timeline follows the worked example of Appendix A (spec: 10,000 GPUs,
    the Young–Daly interval of that example, pinned in test_appendix_a_published_values)."""
    shown = inline_values(result, "contents/fault-tolerance.qmd")
    appendix = inline_values(result, "contents/appendix-foundations.qmd")
    assert shown["gpus_str"] == "10,000"
    assert shown["interval_str"] == f"{appendix['tau_young_min_str']} minutes"


def constants_table(result) -> dict[str, tuple[str, str]]:
    """Appendix B as the reader sees it: constant name -> (value, unit)."""
    run = result.runs["contents/appendix-constants.qmd"]
    tables = [o.data for cell in run.cells for o in cell.outputs if o.kind == "markdown"]
    rows = {}
    for table in tables:
        for line in table.strip().splitlines()[2:]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


# (value, unit) for each constant whose value ../shared/spec/book.md states.
SPEC_CONSTANTS = {
    "GPUS_PER_HOST": ("8", "–"), "NICS_PER_HOST": ("2", "–"), "PSUS_PER_HOST": ("2", "–"),
    "CLUSTER_SMALL_GPUS": ("256", "–"), "CLUSTER_1K_GPUS": ("1,024", "–"),
    "CLUSTER_MEDIUM_GPUS": ("2,048", "–"), "CLUSTER_LARGE_GPUS": ("8,192", "–"),
    "CLUSTER_MEGA_GPUS": ("100,000", "–"),
    "WORKED_EXAMPLE_GPUS": ("10,000", "–"), "WORKED_EXAMPLE_DOUBLED_GPUS": ("20,000", "–"),
    "WORKED_EXAMPLE_MODEL_PARAMS": ("1.75 × 10¹¹", "–"),    # not 175,000,000,000: the precision rule
    "CHECKPOINT_WRITE_BW_GBS": ("100", "GB/s"),
    "OVERHEAD_CHECKPOINT": ("0.03", "–"), "OVERHEAD_FAILURE_RECOVERY": ("0.1", "–"),
    "EXAMPLE_CHECKPOINT_COST_MIN": ("1", "minute"), "EXAMPLE_DETECT_MIN": ("1", "minute"),
    "EXAMPLE_RECOVER_MIN": ("1", "minute"), "REPLICA_AVAILABILITY": ("0.99", "–"),
    "LLAMA3_SNAPSHOT_DAYS": ("54", "day"), "LLAMA3_MAX_GPUS": ("16,384", "–"),
    "LLAMA3_INTERRUPTIONS_TOTAL": ("466", "–"), "LLAMA3_INTERRUPTIONS_PLANNED": ("47", "–"),
    "LLAMA3_INTERRUPTIONS_UNEXPECTED": ("419", "–"),
    "LLAMA3_GPU_SHARE_OF_UNEXPECTED": ("0.587", "–"), "LLAMA3_EFFECTIVE_TRAINING_MIN": ("0.9", "–"),
    "PROJECTION_GPUS": ("100,000", "–"),
    "BYTEROBUST_ETTR_MAX": ("0.97", "–"), "BYTEROBUST_GPUS": ("9,600", "–"),
    "BYTEROBUST_DURATION_MONTHS": ("3", "month"), "BYTEROBUST_CKPT_OVERHEAD_MAX": ("0.009", "–"),
    "MA2025_FLAGGED_NODES": ("15", "–"), "MA2025_HEALTHY_NODES": ("15", "–"),
    "TUNG2026_MODEL_SMS": ("2", "–"), "TUNG2026_MICROBENCHMARKS": ("63", "–"),
    "TUNG2026_NAN_INF_SHARE": ("0.0101", "–"), "TUNG2026_SINGLE_BIT_SHARE_MAX": ("0.4", "–"),
    "NCCLX_LATENCY_RATIO_CROSS_RACK": ("7", "–"), "NCCLX_LATENCY_RATIO_CROSS_ZONE": ("15", "–"),
    "NCCLX_LATENCY_RATIO_CROSS_BUILDING": ("30", "–"),
    "DILOCO_SIMULATED_CHIPS": ("1,200,000", "–"), "DILOCO_LEARNERS": ("8", "–"),
    "DILOCO_GOODPUT": ("0.88", "–"), "DILOCO_ELASTIC_DP_GOODPUT": ("0.58", "–"),
    "DISTSERVE_REQUEST_RATE_GAIN_MAX": ("7.4", "–"), "DISTSERVE_SLO_TIGHTENING_MAX": ("12.6", "–"),
}


def test_appendix_b_published_values(result):
    """Appendix B shows each constant the spec fixes with the spec's value and unit."""
    shown = constants_table(result)
    assert {name: shown.get(name) for name in SPEC_CONSTANTS} == SPEC_CONSTANTS
