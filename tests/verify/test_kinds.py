"""Finding kinds are bookcheck.model.Kind: no free string, spelled as before in every
report, listed in docs/findings.md by the generator, named by member in scripts/."""
from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

from bookcheck.model import Finding, Kind, finding_from_dict
from booktools import kinds
from bookcheck.verify.report import finding_record, format_finding

ROOT = Path(__file__).resolve().parents[2]


def test_an_unknown_kind_is_refused_and_a_known_slug_becomes_its_member():
    with pytest.raises(ValueError, match="'cell-eror' is not a valid Kind"):
        Finding("a.qmd", 1, "cell-eror", "typo")
    with pytest.raises(ValueError):
        dataclasses.replace(Finding("a.qmd", 1, Kind.YAML, "x"), kind="yml")
    with pytest.raises(ValueError):
        finding_from_dict({"path": "a.qmd", "line": 1, "kind": "no-such-kind", "reason": "x"})
    assert Finding("a.qmd", 1, "cell-error", "boom").kind is Kind.CELL_ERROR


def test_reports_spell_a_kind_as_its_slug():
    f = Finding("contents/a.qmd", 4, Kind.CELL_ERROR, "ValueError: boom", label="tbl-x")
    assert json.loads(json.dumps(finding_record(f, [])))["kind"] == "cell-error"
    assert format_finding(f) == "contents/a.qmd:4 [tbl-x] cell-error: ValueError: boom"
    assert f"{Kind.INLINE_MANGLED}" == str(Kind.INLINE_MANGLED) == "inline-mangled"


def test_the_findings_page_is_the_enum():
    """docs/findings.md is written by `python -m booktools.kinds`: run it after
    adding or changing a member."""
    assert kinds.DOC == ROOT / "docs" / "findings.md"
    assert kinds.DOC.read_text(encoding="utf-8") == kinds.markdown()
    rows = [line for line in kinds.markdown().splitlines() if line.startswith("| `")]
    assert len(rows) == len(Kind) and all(row.count(" | ") == 1 for row in rows)


def _kind_literals(tree: ast.AST) -> list[int]:
    """Lines where a string names a finding kind: Finding(…, "slug", …), kind="slug",
    or compared with something's `.kind`."""
    values = {k.value for k in Kind}
    slug = lambda node: isinstance(node, ast.Constant) and node.value in values  # noqa: E731
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Finding":
            args = [a for a in node.args if not isinstance(a, ast.Starred)]
            lines += [a.lineno for a in args if slug(a)]
            lines += [kw.value.lineno for kw in node.keywords if kw.arg == "kind" and slug(kw.value)]
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Attribute) and o.attr == "kind" for o in operands):
                lines += [c.lineno for o in operands for c in ast.walk(o) if slug(c)]
    return lines


def test_scripts_name_kinds_by_member():
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / "scripts").rglob("*.py"))
             for line in _kind_literals(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == [], "write Kind.NAME, not the slug"
    planted = ast.parse('Finding(p, 1, "yaml", "x")\nif f.kind in ("ledger", Kind.LEAK): pass\n')
    assert _kind_literals(planted) == [1, 2]
