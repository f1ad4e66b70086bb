"""The executed book: every figure cell emits one image, every table cell one
Markdown pipe table, and nothing but the ledger is reported.

Runs the real checker (cached by `make check`, so cheap after it)."""
from __future__ import annotations

import pytest

import book_rules as br
from scripts.verify.check import check_book


@pytest.fixture(scope="module")
def result():
    return check_book(br.ROOT)


def test_no_findings_other_than_the_ledger(result):
    # numbers.lock is generated at integration (`make numbers`); `make check` enforces it.
    problems = [f"{f.location()} {f.kind}: {f.reason}" for f in result.findings if f.kind != "ledger"]
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
            if not (cell.label or "").startswith(("fig-", "tbl-")):
                assert cell_run.outputs == [], (rel, cell.label, cell_run.outputs)


def test_invariants_ran(result):
    assert sum(run.invariants for run in result.runs.values()) >= 60


def inline_values(result, chapter: str) -> dict[str, str]:
    """Each inline expression of `chapter` -> the text the reader sees."""
    run, parsed = result.runs[chapter], result.parsed[chapter]
    return {parsed.inlines[i.index].expr: i.text for i in run.inlines}


def test_appendix_a_published_values(result):
    """The values the spec fixes, as the reader sees them."""
    shown = inline_values(result, "contents/appendix-foundations.qmd")
    assert shown["node_mtbf_str"] == "5,172"
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
    """Issue 13: the model beside the Llama 3 data; the RPO is a bound, not the mean loss."""
    fas = inline_values(result, "contents/failure-at-scale.qmd")
    assert fas["predicted_all_str"] == "2.53" and fas["measured_all_str"] == "3.09"
    assert fas["predicted_gpu_str"] == "3.05" and fas["measured_gpu_str"] == "5.27"
    assert fas["implied_gpu_mttf_str"] == "86,000"
    ft = inline_values(result, "contents/fault-tolerance.qmd")
    assert ft["rpo_str"] == "14.6 minutes" and ft["expected_loss_str"] == "7.1 minutes"


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
    "WORKED_EXAMPLE_MODEL_PARAMS": ("175,000,000,000", "–"),
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
