"""A book with known findings adopts the checker (docs/adopting.md): the baseline and
the suppressions, through the command line, and the audit of a render held to the
same baseline."""
from __future__ import annotations

import json
import subprocess

import pytest
from tests import REPO
from tests.faults.faultkit import add_chapter, edit, line_of, write_book

from bookcheck.model import Kind
from bookcheck.render import AuditError, render_book
from bookcheck.verify.baseline import FILE
from bookcheck.verify.check import check_book

pytestmark = pytest.mark.slow

TWO = "# Two {#sec-two}\n\nSee @sec-nowhere for more.\n\nAnd @sec-elsewhere too.\n"


def _text(runner, root, *extra) -> subprocess.CompletedProcess:
    """The text report (the runner's `cli` asks for JSON)."""
    return subprocess.run(runner.argv(root, "check", *extra), cwd=REPO, env=runner.env("text"),
                          capture_output=True, text=True, timeout=240)


def test_known_findings_pass_new_ones_fail_gone_ones_are_listed(good_book, runner):
    path = add_chapter(good_book, TWO)
    assert runner.cli(good_book).code == 1
    wrote = _text(runner, good_book, "--write-baseline")
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    assert f"wrote {FILE}: 2 known findings (check)" in wrote.stdout
    entries = json.loads((good_book / FILE).read_text())["findings"]
    assert [(e["path"], e["line"], e["kind"]) for e in entries] == [
        ("contents/two.qmd", 3, "unknown-ref"), ("contents/two.qmd", 5, "unknown-ref")]

    edit(path, "See @sec-nowhere", "Added above.\n\nAnd @sec-new.\n\nSee @sec-nowhere")
    result = runner.cli(good_book)
    assert result.code == 1
    assert [(f.path, f.line, f.kind) for f in result.findings] == [
        ("contents/two.qmd", 5, "unknown-ref")]                  # only the new one
    assert [f["line"] for f in result.report["baselined"]] == [7, 9]   # moved, still known
    assert result.report["summary"]["findings"] == 1

    edit(path, "And @sec-new.", "<!-- bookcheck: ignore unknown-ref -- written before its chapter -->\n"
                                "And @sec-new.")
    edit(path, "And @sec-elsewhere too.", "And nothing else.")
    shown = _text(runner, good_book)
    assert shown.returncode == 0, shown.stdout
    lines = shown.stdout.splitlines()
    assert lines[0].startswith(f"baseline {FILE}: 1 known finding not shown (2 entries); 1 entry "
                               "gone (fixed, or the line edited): `bookcheck check "
                               "--prune-baseline --root ")
    assert lines[1:4] == [
        "  contents/two.qmd:5 unknown-ref: @sec-elsewhere refers to a label no chapter defines",
        "1 suppressed in the source:",
        "  contents/two.qmd:6:5 unknown-ref: @sec-new refers to a label no chapter defines; "
        "did you mean @sec-one? (suppressed at contents/two.qmd:5: written before its chapter)"]
    assert lines[4].endswith(", 0 findings (1 in the baseline, 1 suppressed), " +
                             lines[4].rsplit(", ", 1)[1])

    pruned = _text(runner, good_book, "--prune-baseline")
    assert pruned.returncode == 0 and f"pruned {FILE}: dropped 1 gone entry (check)" in pruned.stdout
    assert len(json.loads((good_book / FILE).read_text())["findings"]) == 1


def test_a_suppression_without_a_reason_is_a_finding_and_suppresses_nothing(good_book, runner):
    add_chapter(good_book, "# Two {#sec-two}\n\n<!-- bookcheck: ignore unknown-ref -->\n"
                           "See @sec-nowhere.\n")
    result = runner.cli(good_book)
    assert result.code == 1
    assert [(f.line, f.kind) for f in result.findings] == [(4, "unknown-ref"), (3, "suppression")]
    assert runner.cli(good_book, "check", "--write-baseline").code == 1   # never baselined


def test_the_old_spelling_suppresses_with_a_note_at_its_line(good_book, runner):
    """`mlsys: ignore` (before `bookcheck: ignore`) still works for one release: the report
    notes where, and nothing fails."""
    add_chapter(good_book, "# Two {#sec-two}\n\n<!-- mlsys: ignore unknown-ref -- later -->\n"
                           "See @sec-nowhere.\n")
    shown = _text(runner, good_book)
    assert shown.returncode == 0, shown.stdout
    assert ("note: contents/two.qmd:3: `mlsys: ignore` is deprecated: write `bookcheck: ignore`\n"
            "1 suppressed in the source:\n") in shown.stdout


def test_numbers_are_recorded_while_the_other_findings_are_known(good_book, runner):
    """`numbers` refuses a failing book; one whose findings are all known is not failing."""
    add_chapter(good_book, "# Two {#sec-two}\n\n```{python}\nspare = '7'\n```\n\n"
                           "Keep `{python} spare` spare nodes (@sec-nowhere).\n")
    assert runner.cli(good_book, "numbers").code == 1
    assert runner.cli(good_book, "check", "--write-baseline").code == 1    # the lock's finding
    assert runner.cli(good_book, "numbers").code == 0
    assert "contents/two.qmd · spare\t7\n" in (good_book / "numbers.lock").read_text()


RAW = "```{=html}\n<p>Planted: 777 spare nodes.</p>\n```\n"


def test_the_audit_holds_every_finding_not_in_the_baseline(good_book, capsys):
    """A number no value accounts for fails the render until it is baselined (or suppressed)
    and known; the render says so."""
    path = good_book / "contents" / "one.qmd"
    path.write_text(path.read_text().replace("Sixteen nodes", "The nodes") + "\n" + RAW)
    config = good_book / "_quarto.yml"
    config.write_text(config.read_text() + "verify:\n  literal-numbers: true\n")
    result = check_book(good_book)
    assert result.ok, result.findings
    with pytest.raises(AuditError) as caught:
        render_book(result, "html", use_quarto=False)
    assert [(f.line, f.kind) for f in caught.value.findings] == [
        (line_of(path, "Planted"), Kind.UNACCOUNTED_NUMBER)]

    result = check_book(good_book, baseline_mode="write")
    render_book(result, "html", use_quarto=False)                 # known: published
    entries = json.loads((good_book / FILE).read_text())["findings"]
    assert [(e["stage"], e["kind"]) for e in entries] == [("html", "unaccounted-number")]
    render_book(check_book(good_book), "html", use_quarto=False)
    assert f"audit: baseline {FILE}: 1 known finding not shown (1 entry)" in capsys.readouterr().out

    path.write_text(path.read_text().replace("Planted: 777", "Planted: 778"))
    with pytest.raises(AuditError):                               # a new number: not known
        render_book(check_book(good_book), "html", use_quarto=False)
    path.write_text(path.read_text().replace(
        "<p>Planted", "<!-- bookcheck: ignore unaccounted-number -- a demo value -->\n<p>Planted")
        + "\n<!-- bookcheck: ignore unknown-ref -- stale -->\nNo reference here.\n")
    render_book(check_book(good_book), "html", use_quarto=False)
    out = capsys.readouterr().out
    assert "audit: 1 suppressed in the source:" in out and "a demo value" in out
    stale = line_of(path, "-- stale")
    assert (f"audit: 1 suppression matched no finding (remove it):\n"
            f"audit:   contents/one.qmd:{stale} unknown-ref: stale\n") in out
