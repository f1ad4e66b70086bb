"""Fixtures for the renderer tests.

Fixture books are copied to temporary directories and checked with the
real checker (scripts.verify.check.check_book); the renderer then works from that
BookResult, as `make html` / `make pdf` do.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.bookkit import check

FIXTURES = Path(__file__).with_name("fixtures")


def checked(root: Path):
    """The checker's result for the book at `root` (a copy: the ledger is written)."""
    result = check(root)
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
