"""A real author's book publishes (issue 33's acceptance), local-only.

The upstream textbook excerpt, unchanged, is checked: its real defects are reported at
their lines, before anything is rendered. Fixed on a copy the way the findings say, it
publishes with zero findings, on the built-in path and through real Quarto 1.7.34 with
Quarto's default math, as a book and as a website.
"""
from __future__ import annotations

import pytest

from tests.adoption.upstream import check, copy_project, fix_real_defects, run
from tests.quarto.quartokit import quarto_environ
from tests.skip_policy import real_quarto

pytestmark = pytest.mark.slow

# What the excerpt really gets wrong, by kind (every one at a line of a listed chapter).
REAL_DEFECT_KINDS = {"unknown-ref", "unknown-citation", "missing-image"}


@pytest.fixture(scope="module", params=["book", "website"])
def fixed_copy(request, tmp_path_factory):
    """(root, findings of the unchanged copy) for a copy fixed and numbered."""
    root = copy_project(request.param, tmp_path_factory.mktemp(request.param))
    findings = check(root)
    fix_real_defects(root, findings)
    numbered = run(root, "numbers")
    assert numbered.returncode == 0, numbered.stdout[-3000:] + numbered.stderr[-3000:]
    return root, findings


def test_real_defects_are_reported_at_their_lines(fixed_copy):
    root, findings = fixed_copy
    kinds = {f["kind"] for f in findings} - {"ledger"}
    assert kinds <= REAL_DEFECT_KINDS | {"website-ref", "inline-math"}, kinds
    for finding in findings:
        if finding["kind"] == "ledger":
            continue
        assert finding["path"].endswith(".qmd") and finding["line"] > 0, finding


def test_fixed_copy_checks_clean(fixed_copy):
    root, _ = fixed_copy
    assert check(root) == []


def test_builtin_html_publishes_with_zero_findings(fixed_copy):
    root, _ = fixed_copy
    done = run(root, "html")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def test_quarto_html_publishes_with_zero_findings(fixed_copy):
    root, _ = fixed_copy
    exe = real_quarto()
    done = run(root, "html", env=quarto_environ(exe))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
