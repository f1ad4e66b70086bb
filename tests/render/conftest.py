"""Fixtures for the renderer tests.

Fixture books are copied to temporary directories and checked with the
real checker (scripts.verify.check.check_book); the renderer then works from that
BookResult, as `make html` / `make pdf` do.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest
from skip_policy import require_path

FIXTURES = Path(__file__).with_name("fixtures")
REPO = Path(__file__).resolve().parents[2]


def run_check(root: Path):
    """check_book(root, update_ledger=True) in a worker thread.

    The checker drives its kernels with asyncio; playwright's sync API keeps
    an event loop running in the main thread, so a check started while the
    browser fixture is alive must not run there.
    """
    from scripts.verify.check import check_book
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(check_book, root, update_ledger=True).result()


def checked(root: Path):
    """The checker's result for the book at `root` (a copy: the ledger is written)."""
    result = run_check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings]
    return result


def quarto_stub(bindir: Path, script: str = "#!/bin/sh\necho 1.7.34\n") -> Path:
    """A stand-in `quarto` (the shell `script`) written into `bindir`."""
    bindir.mkdir(parents=True, exist_ok=True)
    exe = bindir / "quarto"
    exe.write_text(script)
    exe.chmod(0o755)
    return exe


def quarto_stub_on_path(folder: Path, script: str, monkeypatch) -> Path:
    """quarto_stub in `folder`/bin, first on PATH."""
    exe = quarto_stub(folder / "bin", script)
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    return exe


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
    require_path(REPO / "_quarto.yml", "the book's _quarto.yml")
    root = tmp_path_factory.mktemp("realbook") / "book"
    root.mkdir()
    for name in BOOK_FILES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.is_file():
            shutil.copy2(src, root / name)
    result = run_check(root)
    problems = [f"{f.location()}: {f.reason}" for f in result.findings if f.kind != "ledger"]
    assert not problems, "the book does not check cleanly:\n" + "\n".join(problems[:20])
    if not result.ok:
        result = run_check(root)
    assert result.ok, [f.reason for f in result.findings]
    return result


@pytest.fixture(scope="session")
def real_book_html(real_book_result):
    """The real book rendered to HTML once per session: (result, _book dir)."""
    from scripts.render import render_book
    render_book(real_book_result, "html", use_quarto=False)
    return real_book_result, Path(real_book_result.project.root) / "_book"
