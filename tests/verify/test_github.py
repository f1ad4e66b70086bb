"""GitHub reporting: workflow commands and the step summary's moved-numbers table."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bookcheck.verify import ledger
from bookcheck.model import Finding, Kind
from bookcheck.verify import github
from tests.bookkit import make_book

ROOT = Path(__file__).resolve().parents[2]


def test_workflow_command_escapes_data_and_properties():
    f = Finding("contents/a,b.qmd", 12, Kind.INVARIANT, "50% of: x\ny", col=5, label="tbl-x")
    assert github.workflow_command(f) == (
        "::error file=contents/a%2Cb.qmd,line=12,col=5,title=invariant [tbl-x]::50%25 of: x%0Ay")


def test_workflow_command_leaves_out_unknown_positions_and_keeps_detail():
    f = Finding("_quarto.yml", 0, Kind.YAML, "bad", col=3, detail="first\nsecond\n")
    assert github.workflow_command(f) == "::error file=_quarto.yml,title=yaml::bad%0Afirst%0Asecond"
    g = Finding("x.qmd", 4, Kind.CELL_ERROR, "boom")
    assert github.workflow_command(g) == "::error file=x.qmd,line=4,title=cell-error::boom"


def test_moved_numbers_come_from_the_ledger_comparison():
    old = {"ch · a": "1", "ch · b": "2", "ch2 · gone": "9"}
    new = {"ch · a": "1", "ch · b": "3", "ch2 · added": "7"}
    findings = [Finding("x.qmd", 3, Kind.INVARIANT, "no"),
                Finding("numbers.lock", 0, Kind.LEDGER, "numbers.lock is missing")]
    findings += ledger.diff(old, new)
    assert github.moved_numbers(findings) == [
        github.Moved("ch", "b", "2", "3"),
        github.Moved("ch2", "added", "(new)", "7"),
        github.Moved("ch2", "gone", "9", "(removed)"),
    ]


def test_step_summary_tables_escape_pipes():
    moved = [github.Moved("ch", "tbl-x · a|b · Col", "1", "2")]
    findings = [Finding("contents/c.qmd", 3, Kind.INVARIANT, "x | y", col=2),
                Finding("numbers.lock", 5, Kind.LEDGER, "ch · tbl-x · a|b · Col: 1 → 2",
                        key="ch · tbl-x · a|b · Col", old="1", new="2")]
    text = github.step_summary(findings, moved, "FAILED: …")
    assert "| ch | tbl-x · a\\|b · Col | 1 → 2 |" in text
    assert "| `contents/c.qmd:3:2` | invariant | x \\| y |" in text
    assert "### Findings (1)" in text          # the ledger line is in the moved table


class _Result:
    def __init__(self, findings):
        self.findings = findings


def test_report_only_on_github(tmp_path):
    summary = tmp_path / "summary.md"
    result = _Result([Finding("a.qmd", 1, Kind.INVARIANT, "no")] + ledger.diff({"a · k": "1"},
                                                                            {"a · k": "2"}))
    out = io.StringIO()
    github.report(result, "FAILED", env={"GITHUB_STEP_SUMMARY": str(summary)}, out=out)
    assert out.getvalue() == "" and not summary.exists()
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    summary.write_text("earlier step\n")
    github.report(result, "FAILED", env=env, out=out)
    assert out.getvalue().splitlines() == [
        "::error file=a.qmd,line=1,title=invariant::no",
        "::error file=numbers.lock,line=3,title=ledger::a · k: 1 → 2"]
    text = summary.read_text()
    assert text.startswith("earlier step\n## Book check")      # appended, not replaced
    assert "| a | k | 1 → 2 |" in text


@pytest.mark.kernel
@pytest.mark.slow
def test_failing_book_on_github(tmp_path):
    """`make check` with GITHUB_ACTIONS=true: ::error lines and the moved-numbers table."""
    book = make_book(tmp_path / "book", {
        "contents/one.qmd": "# One\n\n```{python}\nx = 6 * 7\n```\n\nThe answer is `{python} x`.\n",
        "contents/two.qmd": "# Two\n\nProse.\n\n```{python}\ny = 2\nassert y == 3, 'y is three'\n```\n",
    }, "project:\n  type: book\nbook:\n  title: T\n  chapters:\n"
       "    - contents/one.qmd\n    - contents/two.qmd\n")
    ledger.write(book / "numbers.lock", {"contents/one.qmd · x": "41"})
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bookcheck", "check", "--root", str(book)],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert any(line.startswith("::error file=contents/two.qmd,line=7,") for line in errors), errors
    text = summary.read_text()
    assert "| contents/one.qmd | x | 41 → 42 |" in text
    assert "`contents/two.qmd:7" in text
