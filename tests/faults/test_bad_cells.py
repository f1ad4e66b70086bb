"""Bad code in a cell: each is reported at the .qmd line, and nothing is written half-way."""
from __future__ import annotations

import pytest

from tests.faults.faultkit import (assert_consistent_after_failure, disk_state, edit, line_of)

pytestmark = pytest.mark.slow


def chapter(book):
    return book / "contents" / "one.qmd"


def test_syntax_error_in_a_cell(good_book, runner):
    edit(chapter(good_book), "cluster_str = fmt(", "cluster_str = = fmt(")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    f = result.only("cell-error")
    assert (f.path, f.line) == ("contents/one.qmd", line_of(chapter(good_book), "cluster_str = = fmt("))
    assert f.reason.startswith("SyntaxError"), f.reason
    assert f.label == "one-setup"
    assert_consistent_after_failure(runner, good_book, before, result)


def test_exception_in_a_cell(good_book, runner):
    edit(chapter(good_book), "cluster_str = fmt(", "boom = {}['missing']\ncluster_str = fmt(")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    f = result.only("cell-error")
    assert (f.path, f.line) == ("contents/one.qmd", line_of(chapter(good_book), "boom = {}"))
    assert f.reason == "KeyError: 'missing'"
    assert_consistent_after_failure(runner, good_book, before, result)


def test_failing_check(good_book, runner):
    edit(chapter(good_book), "check(cluster < node_mtbf,", "check(cluster > node_mtbf,")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    f = result.only("invariant")
    assert (f.path, f.line) == ("contents/one.qmd", line_of(chapter(good_book), "check(cluster >"))
    assert f.reason == ("a cluster fails more often than one node "
                        "(`cluster > node_mtbf` was `390.6 hour > 6,250 hour`)")
    assert_consistent_after_failure(runner, good_book, before, result)


def test_wrong_unit_passed_to_a_formula(good_book, runner):
    """pint's DimensionalityError, at the line of the call, naming the parameter."""
    edit(chapter(good_book), "cluster = calc_mtbf_cluster(node_mtbf, 16 * node)",
         "from mlsys import GB\ncluster = calc_mtbf_cluster(GPU_MTTF_HOURS * GB, 16 * node)")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    f = result.only("cell-error")
    assert (f.path, f.line) == ("contents/one.qmd",
                                line_of(chapter(good_book), "calc_mtbf_cluster(GPU_MTTF_HOURS * GB"))
    assert f.reason.startswith("DimensionalityError"), f.reason
    assert "node_mtbf" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_error_in_a_later_cell_is_mapped_to_that_cell(good_book, runner):
    edit(chapter(good_book), "md_table([[n,", "1 / 0\nmd_table([[n,")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    f = result.only("cell-error")
    assert (f.line, f.label) == (line_of(chapter(good_book), "1 / 0"), "tbl-one")
    assert f.reason.startswith("ZeroDivisionError")
    assert_consistent_after_failure(runner, good_book, before, result)


def test_numbers_refuses_to_rewrite_the_ledger_on_a_failure(good_book, runner):
    edit(chapter(good_book), "check(cluster < node_mtbf,", "check(cluster > node_mtbf,")
    before = disk_state(good_book)
    result = runner.cli(good_book, "numbers")
    assert result.code == 1, result.output
    assert "invariant" in result.kinds()
    assert result.report["ok"] is False and result.summary["ledger_compared"] is False
    assert_consistent_after_failure(runner, good_book, before, result)
