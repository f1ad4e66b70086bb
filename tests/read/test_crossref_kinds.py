"""The cross-reference kinds are one table (bookcheck/read/crossref_kinds.py): every
Python list of prefixes or names is made from it, and no module or Lua filter spells a
second one (what Quarto does with each kind: tests/render/test_crossref_kinds.py)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from bookcheck.read import crossref_kinds
from bookcheck.read.crossref_kinds import GROUPS, KINDS, NAMES, PREFIXES, prefixes

SCRIPTS = Path(crossref_kinds.__file__).resolve().parents[2]
TABLE = Path(crossref_kinds.__file__).resolve()
LUA_KEY = re.compile(r"\b([a-z]+)\s*=")


def test_the_table_is_well_formed():
    assert all(kind.group in GROUPS for kind in KINDS.values())
    assert all(kind.env for kind in KINDS.values() if kind.group in ("callout", "theorem", "proof"))
    assert len(set(NAMES.values())) == len(NAMES)


def test_the_python_users_read_the_table():
    from bookcheck.read.labels import CALLOUT_PREFIXES, CROSSREF_PREFIXES
    from bookcheck.render.numbering import KIND_NAMES
    from bookcheck.verify.audit_tokens import LABEL
    assert CROSSREF_PREFIXES == PREFIXES and CALLOUT_PREFIXES == prefixes("callout")
    assert KIND_NAMES == NAMES
    assert all(LABEL.fullmatch(f"{name} 1.2") for name in NAMES.values())


def _literals(node) -> list:
    """The string constants a collection literal lists (a dict: its keys and values)."""
    items = node.keys + node.values if isinstance(node, ast.Dict) else getattr(node, "elts", [])
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def second_spellings(root: Path = SCRIPTS) -> list[str]:
    """Collection literals of Python modules that list two kinds' prefixes or names
    (`("thm", "lem")`, `{"tbl": "Table"}`), and Lua table constructors keyed by two
    prefixes (`{ nte = true, tip = true }`), outside the table's own module."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        if path.resolve() == TABLE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                found = {v for v in _literals(node) if v in KINDS or v in NAMES.values()}
                if len(found) > 1:
                    bad.append(f"{path.relative_to(root)}:{node.lineno}: {sorted(found)}")
    for path in sorted(root.rglob("*.lua")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"\{[^{}]*\}", text):
            keys = {k for k in LUA_KEY.findall(m.group(0)) if k in KINDS}
            if len(keys) > 1:
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{path.relative_to(root)}:{line}: {sorted(keys)}")
    return bad


def test_no_second_spelling_of_the_kinds():
    assert second_spellings() == []


def test_a_second_spelling_is_caught(tmp_path):
    """A planted list of kinds, in Python and in a Lua filter, is found."""
    (tmp_path / "numbering.py").write_text('KIND_NAMES = {"tbl": "Table", "fig": "Figure"}\n')
    (tmp_path / "ok.py").write_text('CAPTIONS = ("fig-cap", "tbl-cap")\nONE = ("fig",)\n')
    (tmp_path / "theorems.lua").write_text(
        'local ENVS = { thm = "theorem", lem = "lemma" }\n'
        'local COLORS = { note = "#0758e5", tip = "#198754" }\n')
    assert second_spellings(tmp_path) == ["numbering.py:1: ['Figure', 'Table', 'fig', 'tbl']",
                                          "theorems.lua:1: ['lem', 'thm']"]
