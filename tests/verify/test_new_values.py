"""A new chapter's values not yet in numbers.lock (issue 31): one line with its fix,
apart from the real findings and not counted among them; the check still fails, so
CI notices an unrecorded ledger. Text, JSON and GitHub annotations agree."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bookcheck.verify import github
from bookcheck.verify.check import check_book
from bookcheck.verify.report import print_report

from tests.bookkit import write_book

PROJECT = Path(__file__).resolve().parents[2]
ONE = "# One\n\n```{python}\nx = 7\n```\n\nValue `{python} x`.\n"
TWO = ("# Two\n\n```{python}\ny = 2\n```\n\n"
       "Values `{python} y`, `{python} y + 1` and `{python} y + 2`, as @fig-nowhere shows.\n")


@pytest.fixture(scope="module")
def new_chapter(tmp_path_factory):
    """A book whose numbers.lock predates its second chapter (three values, one unknown reference)."""
    root = write_book(tmp_path_factory.mktemp("book"), {"one.qmd": ONE})
    assert check_book(root, update_ledger=True).ok
    write_book(root, {"one.qmd": ONE, "two.qmd": TWO})
    return root


def test_new_values_are_one_line_after_the_real_findings(new_chapter):
    out = io.StringIO()
    print_report(check_book(new_chapter), out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("two.qmd:7:") and " unknown-ref: " in lines[0]
    assert "3 new published values: `bookcheck numbers` records them" in lines
    assert not [line for line in lines if "(new)" in line]
    assert lines[-1].startswith("FAILED: 2 chapters checked")
    assert ", 1 finding, 3 new published values, " in lines[-1]


def test_json_lists_new_values_apart_and_the_check_fails(new_chapter):
    done = subprocess.run([sys.executable, "-m", "bookcheck", "check", "--json",
                           "--root", str(new_chapter)],
                          cwd=PROJECT, capture_output=True, text=True, timeout=300)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["ok"] is False
    assert [f["kind"] for f in report["findings"]] == ["unknown-ref"]
    assert sorted(v["value"] for v in report["new_values"]) == ["2", "3", "4"]
    assert {v["chapter"] for v in report["new_values"]} == {"two.qmd"}
    assert (report["summary"]["findings"], report["summary"]["new_values"]) == (1, 3)


def test_github_annotates_new_values_once(new_chapter):
    out = io.StringIO()
    github.report(check_book(new_chapter), "FAILED", env={"GITHUB_ACTIONS": "true"}, out=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "title=unknown-ref" in lines[0]
    assert lines[1] == ("::error file=numbers.lock,title=ledger::"
                        "3 new published values: `bookcheck numbers` records them")


@pytest.mark.kernel
@pytest.mark.slow
def test_only_new_values_still_fail_until_recorded(tmp_path):
    root = write_book(tmp_path / "book", {"one.qmd": ONE})
    assert check_book(root, update_ledger=True).ok
    write_book(root, {"one.qmd": ONE, "two.qmd": "# Two\n\nValue `{python} 6 * 7`.\n"})
    out = io.StringIO()
    result = check_book(root)
    print_report(result, out)
    assert not result.ok                          # `make check` exits non-zero: CI fails
    assert out.getvalue().splitlines()[0] == "1 new published value: `bookcheck numbers` records it"
    assert ", 0 findings, 1 new published value, " in out.getvalue().splitlines()[-1]
    assert check_book(root, update_ledger=True).ok and check_book(root).ok


def test_preview_says_new_values_in_one_line_too(capsys):
    from bookcheck.tools.preview import announce
    from bookcheck.tools.preview.session import Outcome
    from bookcheck.verify import ledger
    moved = ledger.diff({"a · k": "1"}, {"a · k": "2", "b · x": "3", "b · y": "4"})
    announce(Outcome(ok=True, moved=moved))
    assert capsys.readouterr().out.splitlines()[:3] == [
        "1 published number differs from numbers.lock (`bookcheck numbers` accepts it):",
        "  a · k: 1 → 2",
        "2 new published values: `bookcheck numbers` records them"]
