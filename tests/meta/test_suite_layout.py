"""The suite's own shape: every folder holding tests is one docs/testing.md's map declares
(so a new test lands in a known place), each is a package, and no test file edits sys.path
(helpers are imported by module name: `from tests.bookkit import make_book`)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from tests import REPO

TESTS = REPO / "tests"
MAP = REPO / "docs" / "testing.md"
ROW = re.compile(r"^\| `tests/([\w/]+)/` \|", re.MULTILINE)


def declared_folders(text: str) -> set[str]:
    """The folders (relative to tests/) the map in docs/testing.md has a row for."""
    return set(ROW.findall(text))


def folder_problems(tests: Path, declared: set[str]) -> list[str]:
    """Folders holding test files that the map does not declare; declared folders that
    hold no test file; test folders that are not packages (no __init__.py)."""
    holding = {str(p.parent.relative_to(tests)) for p in tests.rglob("test_*.py")
               if "__pycache__" not in p.parts}
    problems = [f"tests/{f}/ holds tests but docs/testing.md's map has no row for it"
                for f in sorted(holding - declared)]
    problems += [f"tests/{f}/ is in docs/testing.md's map but holds no test file"
                 for f in sorted(declared - holding)]
    problems += [f"tests/{f}/ has no __init__.py (tests is a package)"
                 for f in sorted(holding) if not (tests / f / "__init__.py").is_file()]
    return problems


def path_edits(tests: Path) -> list[str]:
    """Calls that edit sys.path (`sys.path.insert(...)`, `.append`, `.extend`) in the
    suite's own code; a book's code in a string is not a call."""
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = getattr(node, "func", None)
            if (isinstance(node, ast.Call) and isinstance(func, ast.Attribute)
                    and func.attr in ("insert", "append", "extend")
                    and ast.unparse(func.value) == "sys.path"):
                found.append(f"{path.relative_to(tests.parent)}:{node.lineno}")
    return found


def test_every_test_folder_is_declared_in_the_map():
    assert folder_problems(TESTS, declared_folders(MAP.read_text(encoding="utf-8"))) == []


def test_the_folder_rule_bites(tmp_path):
    """A test in an undeclared folder, a declared folder without tests, a folder
    without __init__.py: each is named."""
    tests = tmp_path / "tests"
    for rel in ("read/__init__.py", "read/test_a.py", "stray/test_b.py"):
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).write_text("")
    declared = declared_folders("| `tests/read/` | reading | read |\n"
                                "| `tests/gone/` | nothing | - |\n")
    assert declared == {"read", "gone"}
    assert folder_problems(tests, declared) == [
        "tests/stray/ holds tests but docs/testing.md's map has no row for it",
        "tests/gone/ is in docs/testing.md's map but holds no test file",
        "tests/stray/ has no __init__.py (tests is a package)"]
    (tests / "stray" / "__init__.py").write_text("")
    assert folder_problems(tests, {"read", "stray"}) == []


def test_no_test_code_edits_sys_path():
    assert path_edits(TESTS) == []


def test_the_sys_path_rule_bites(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(
        "import sys\nsys.path.insert(0, 'here')\nBOOK = 'import sys\\nsys.path.insert(0, 1)'\n")
    assert path_edits(tmp_path / "tests") == ["tests/conftest.py:2"]
