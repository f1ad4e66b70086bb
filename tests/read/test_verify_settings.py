"""`verify:` in _quarto.yml checked against read/verify_schema.json (a typo or a wrong type
is a finding at its line and switches nothing on), and docs/verify-settings.md: its table
of keys is the schema, its environment table the `CHECKER_*`/`BOOKCHECK_*` names the
pipeline reads."""
from __future__ import annotations

import ast
import re

import pytest

from tests import REPO
from tests.bookkit import write_book
from booktools import verify_settings
from bookcheck.read.project import load_project

SWITCHES = ("literal_numbers", "fig_alt", "quarto_look")


@pytest.fixture(autouse=True)
def no_profile(monkeypatch):
    monkeypatch.delenv("QUARTO_PROFILE", raising=False)


def settings(tmp_path, verify: str):
    """The project of a one-chapter book whose _quarto.yml ends with `verify`."""
    return load_project(write_book(tmp_path, {"index.qmd": "# I\n"}, extra=verify))


def line_of(root, needle: str) -> int:
    return next(n for n, line in enumerate((root / "_quarto.yml").read_text().splitlines(), 1)
                if needle in line)


def test_a_near_miss_or_a_wrong_type_is_a_finding_at_its_line_and_switches_nothing_on(tmp_path):
    project = settings(tmp_path, 'verify: {literal-number: true, fig_alt: "yes", quarto-look: maybe}\n')
    line = line_of(tmp_path, "verify:")
    assert [(f.path, f.line, f.kind) for f in project.findings] == [("_quarto.yml", line, "yaml")] * 3
    typo, underscore, maybe = (f.reason for f in project.findings)
    assert "`literal-number`; did you mean `literal-numbers`?" in typo
    assert "`fig_alt`; did you mean `fig-alt`?" in underscore
    assert "`quarto-look` has value \"maybe\"" in maybe and "`true` or `false`" in maybe
    assert [getattr(project, s) for s in SWITCHES] == [False, False, False]


def test_each_bad_key_is_found_at_its_own_line(tmp_path):
    project = settings(tmp_path, 'verify:\n  literal-numbers: true\n  fig-alt: "true"\n  colour: 1\n')
    assert [(f.line, f.kind) for f in project.findings] == [
        (line_of(tmp_path, "fig-alt:"), "yaml"), (line_of(tmp_path, "colour:"), "yaml")]
    assert "write `fig-alt: true`, without quotes" in project.findings[0].reason
    assert "did you mean" not in project.findings[1].reason      # nothing near `colour`
    assert [getattr(project, s) for s in SWITCHES] == [True, False, False]


def test_settings_as_the_schema_says_switch_their_checks_on(tmp_path):
    project = settings(tmp_path, "verify:\n  literal-numbers: true\n  fig-alt: true\n"
                                 "  quarto-look: true\n")
    assert project.findings == []
    assert [getattr(project, s) for s in SWITCHES] == [True, True, True]


def test_the_settings_page_is_the_schema():
    """docs/verify-settings.md's table is what `python -m booktools.verify_settings` writes."""
    assert verify_settings.DOC == REPO / "docs" / "verify-settings.md"
    text = verify_settings.DOC.read_text(encoding="utf-8")
    assert text == verify_settings.updated(text), "run `python -m booktools.verify_settings`"
    assert all(f"| `{name}` |" in text for name in ("literal-numbers", "fig-alt", "quarto-look"))


def switches_read(root=REPO / "scripts" / "bookcheck") -> set[str]:
    """The `CHECKER_*`/`BOOKCHECK_*` names in the pipeline's strings (what it reads or sets)."""
    found = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found |= set(re.findall(r"\b((?:CHECKER|BOOKCHECK)_[A-Z]+(?:_[A-Z]+)*)\b", node.value))
    return found


def test_every_environment_switch_is_documented_once():
    text = verify_settings.DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `((?:CHECKER|BOOKCHECK)_[A-Z_]+)", text, re.MULTILINE)
    assert sorted(rows) == sorted(set(rows)) == sorted(switches_read())
