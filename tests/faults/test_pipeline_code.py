"""The pipeline's own code is an input of every cache (issue 34, section 1).

Each store namespace is keyed on the import closure of the code that produces its
entries (scripts/bookcheck/store.py, `code_digest`); no list of files is kept by hand. Here
the checker runs from a copy of its code on a small book, a pipeline module of the
copy is edited, and the next run must not be served what the old code made: the chapter cache misses after an edit to
scripts/bookcheck/run/inline_values.py (what Quarto inserts for an inline value), and the
audit's page cache misses after a stricter audit rule (a new `leak` pattern in
scripts/bookcheck/verify/audit_tokens.py), which then fails the build.
"""
from __future__ import annotations

import shutil
import subprocess
import uuid

import pytest

from tests import REPO
from tests.faults.faultkit import (CHAPTER_QMD, HANG_LIMIT_S, INDEX_QMD, PYTHON, Result,
                                   from_cache, line_of, parse_report, write_book)

pytestmark = pytest.mark.slow

INLINE_VALUES = "scripts/bookcheck/run/inline_values.py"
AUDIT_TOKENS = "scripts/bookcheck/verify/audit_tokens.py"


@pytest.fixture(scope="module")
def checker(tmp_path_factory):
    """A copy of the checker (scripts/bookcheck: no git needed, so the planted-bug copies
    run it too): the tests run it and edit it."""
    dest = tmp_path_factory.mktemp("checker") / "repo"
    shutil.copytree(REPO / "scripts" / "bookcheck", dest / "scripts" / "bookcheck",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


@pytest.fixture
def edit_checker(checker):
    """Edit one file of the copied checker (put back after the test)."""
    saved = {}

    def edit(rel: str, old: str, new: str) -> None:
        path = checker / rel
        text = path.read_text(encoding="utf-8")
        saved.setdefault(rel, text)
        assert text.count(old) == 1, f"{old!r} not once in {rel}"
        path.write_text(text.replace(old, new), encoding="utf-8")
    yield edit
    for rel, text in saved.items():
        (checker / rel).write_text(text, encoding="utf-8")


def run(runner, checker, book, command: str, *extra: str) -> Result:
    """The copied checker's CLI (`bookcheck` from the copy) on `book`."""
    marker = uuid.uuid4().hex
    proc = subprocess.run([PYTHON, "-m", "bookcheck", command, "--json", "--root", str(book), *extra],
                          cwd=checker, env=runner.env(marker, {"PYTHONPATH": str(checker / "scripts")}),
                          capture_output=True, text=True,
                          timeout=HANG_LIMIT_S)
    report, findings = parse_report(proc.stdout)
    return Result(proc.returncode, proc.stdout, proc.stderr, marker, findings, report)


@pytest.fixture
def book(tmp_path):
    return write_book(tmp_path / "book", {
        "index.qmd": INDEX_QMD,
        "contents/one.qmd": CHAPTER_QMD + "\nThe rack is called `{python} 'r-7'`.\n"})


def test_an_edited_pipeline_module_misses_the_chapter_cache(runner, checker, edit_checker, book):
    assert run(runner, checker, book, "numbers").code == 0
    cached = run(runner, checker, book, "check")
    assert (cached.code, from_cache(cached)) == (0, 2), cached.output
    # Quarto's escape of a str value, changed: `-` no longer backslashed
    edit_checker(INLINE_VALUES, 'MD_PUNCT = set("\\\\`*_{}[]()>#+,-.!")',
                 'MD_PUNCT = set("\\\\`*_{}[]()>#+,.!")')
    edited = run(runner, checker, book, "check")
    assert (edited.code, from_cache(edited)) == (0, 0), edited.output      # every chapter again
    again = run(runner, checker, book, "check")
    assert (again.code, from_cache(again)) == (0, 2), again.output


def test_a_stricter_audit_rule_misses_the_page_cache(runner, checker, edit_checker, book):
    assert run(runner, checker, book, "numbers").code == 0
    first = run(runner, checker, book, "html")
    assert (first.code, first.findings) == (0, []), first.output
    page = book / "_book" / "contents" / "one.html"
    published = page.read_bytes()
    # a new rule: "Sixteen" (in contents/one.qmd's prose) is text no reader should see
    edit_checker(AUDIT_TOKENS, "LEAKS = (\n", 'LEAKS = (\n    (re.compile(r"Sixteen"), "a planted rule"),\n')
    stricter = run(runner, checker, book, "html")
    assert stricter.code == 1, stricter.output
    line = line_of(book / "contents" / "one.qmd", "Sixteen nodes")
    assert f"contents/one.qmd:{line}: leak: contents/one.html shows 'Sixteen': a planted rule" \
        in stricter.stderr, stricter.output
    assert page.read_bytes() == published           # nothing unaudited was published
