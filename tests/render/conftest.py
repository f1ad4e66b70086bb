"""Fixtures for the renderer tests.

`checked(root)` gives the BookResult of a fixture book: from the real
checker (scripts.check.check_book) when it is importable, else from a small
in-process stand-in that executes the same cells (used only while the
checker did not exist yet; it honours the same data model).
"""
from __future__ import annotations

import base64
import contextlib
import dataclasses
import io
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from scripts.model import CellRun, ChapterRun, InlineRun, Output

FIXTURES = Path(__file__).with_name("fixtures")
REPO = Path(__file__).resolve().parents[2]


def _stand_in_run(parsed) -> ChapterRun:
    import IPython.display as ipd

    shown: list = []
    original = ipd.display
    ipd.display = lambda *objs, **_: shown.extend(objs)
    ns: dict = {}
    run = ChapterRun(path=parsed.path)
    try:
        pending = sorted(parsed.inlines, key=lambda e: e.cells_before)

        def inline_upto(n_cells: int) -> None:
            while pending and pending[0].cells_before <= n_cells:
                expr = pending.pop(0)
                value = eval(expr.expr, ns)
                if isinstance(value, ipd.Markdown):
                    run.inlines.append(InlineRun(expr.index, "markdown", value.data))
                else:
                    run.inlines.append(InlineRun(expr.index, "text", str(value)))

        for n, cell in enumerate(parsed.cells):
            inline_upto(n)
            shown.clear()
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(cell.source, parsed.path, "exec"), ns)
            outputs = [Output("text", out.getvalue())] if out.getvalue() else []
            for obj in shown:
                if isinstance(obj, ipd.Markdown):
                    outputs.append(Output("markdown", obj.data))
                elif isinstance(obj, ipd.Image):
                    outputs.append(Output("image/png", base64.b64encode(obj.data).decode()))
            run.cells.append(CellRun(cell.index, outputs))
        inline_upto(len(parsed.cells))
    finally:
        ipd.display = original
    run.inlines.sort(key=lambda i: i.index)
    return run


def checked(root: Path):
    """The checker's result for the book at `root`."""
    try:
        from scripts.check import check_book
    except ImportError:
        check_book = None
    if check_book is not None:
        result = check_book(root, update_ledger=True)
        assert result.ok, [f.reason for f in result.findings]
        return result
    from scripts.project import load_project
    from scripts.qmd import parse_chapter
    project = load_project(root)
    parsed = {p: parse_chapter(p, (root / p).read_text(encoding="utf-8")) for p in project.documents}
    runs = {p: _stand_in_run(c) for p, c in parsed.items()}
    return SimpleNamespace(project=project, parsed=parsed, runs=runs, findings=[], ok=True)


def copy_fixture(name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copytree(FIXTURES / name, target)
    return target


def moved(result, root: Path):
    """The same checked result for a copy of its project at `root`."""
    project = dataclasses.replace(result.project, root=root)
    return SimpleNamespace(project=project, parsed=result.parsed, runs=result.runs,
                           findings=list(result.findings), ok=result.ok)


@pytest.fixture(scope="session")
def minibook_result(tmp_path_factory):
    """The fixture book checked once per test session."""
    root = copy_fixture("minibook", tmp_path_factory.mktemp("checked"))
    return checked(root)


@pytest.fixture()
def fresh_minibook(tmp_path, minibook_result):
    """A private copy of the fixture book and its checked result."""
    root = copy_fixture("minibook", tmp_path)
    return root, moved(minibook_result, root)


@pytest.fixture(scope="module")
def minibook(tmp_path_factory, minibook_result):
    """A module-wide copy of the fixture book and its checked result."""
    root = copy_fixture("minibook", tmp_path_factory.mktemp("render"))
    return root, moved(minibook_result, root)


BOOK_FILES = ["_quarto.yml", "index.qmd", "contents", "references.bib", "numbers.lock", "mlsys"]


@pytest.fixture(scope="session")
def real_book_result(tmp_path_factory):
    """The project's own book, copied to a temporary directory and checked.

    The copy keeps the repository clean (no _book/, _build/ or ledger
    writes). Ledger differences are accepted in the copy (they do not
    matter for rendering); any other finding fails the test.
    """
    if not (REPO / "_quarto.yml").is_file():
        pytest.skip("the repository has no _quarto.yml yet")
    from scripts.check import check_book
    root = tmp_path_factory.mktemp("realbook") / "book"
    root.mkdir()
    for name in BOOK_FILES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.is_file():
            shutil.copy2(src, root / name)
    result = check_book(root, update_ledger=True)
    problems = [f"{f.location()}: {f.reason}" for f in result.findings if f.kind != "ledger"]
    assert not problems, "the book does not check cleanly:\n" + "\n".join(problems[:20])
    if not result.ok:
        result = check_book(root, update_ledger=True)
    assert result.ok, [f.reason for f in result.findings]
    return result
