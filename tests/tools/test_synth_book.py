"""The synthetic benchmark book: its shape, and that the checker accepts it."""
from __future__ import annotations

import subprocess
import sys

import pytest

from booktools import synth_book
from bookcheck.read.project import load_project
from bookcheck.read.qmd import parse_chapter


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    root = tmp_path_factory.mktemp("synth")
    synth_book.write_book(root, chapters=3)
    return root


def test_book_lists_index_then_the_chapters(book):
    project = load_project(book)
    assert project.findings == []
    assert project.chapters == ["index.qmd", "contents/ch01.qmd", "contents/ch02.qmd",
                                "contents/ch03.qmd"]
    assert (book / "mlsys" / "__init__.py").is_file()


@pytest.mark.parametrize("n", [1, 2, 3])
def test_each_chapter_has_the_promised_shape(book, n):
    rel = f"contents/ch{n:02d}.qmd"
    parsed = parse_chapter(rel, (book / rel).read_text(encoding="utf-8"))
    assert parsed.findings == []
    assert len(parsed.cells) == synth_book.CELLS_PER_CHAPTER
    assert len(parsed.inlines) == synth_book.INLINES_PER_CHAPTER
    labels = [c.label for c in parsed.cells if c.label]
    assert [l for l in labels if l.startswith("tbl-")] == [f"tbl-ch{n}-mtbf", f"tbl-ch{n}-waste"]
    assert [l for l in labels if l.startswith("fig-")] == [f"fig-ch{n}-waste"]
    sources = "\n".join(c.source for c in parsed.cells)
    assert "md_table(" in sources and "check(" in sources and "from mlsys." in sources
    defined = {label for label, _ in parsed.labels}
    assert {ref for ref, _, _ in parsed.references} <= defined | {"sec-ch1"}


def test_chapters_differ_in_their_parameters():
    assert synth_book.chapter_text(1) != synth_book.chapter_text(2)


def test_link_mode_symlinks_mlsys(tmp_path):
    synth_book.write_book(tmp_path, chapters=1, mlsys="link")
    assert (tmp_path / "mlsys").is_symlink()
    assert (tmp_path / "mlsys" / "formulas.py").is_file()


def test_command_line(tmp_path):
    out = tmp_path / "book"
    assert synth_book.main([str(out), "--chapters", "2", "--no-mlsys"]) == 0
    assert sorted(p.name for p in (out / "contents").iterdir()) == ["ch01.qmd", "ch02.qmd"]
    assert not (out / "mlsys").exists()


def test_every_cell_and_inline_runs_in_plain_python(book, project_root):
    """The floor runner executes the whole book without a single error."""
    done = subprocess.run([sys.executable, "-m", "booktools.bench", "--floor-of", str(book)],
                          cwd=book, env={**_env(project_root), "MPLBACKEND": "Agg"},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == (
        '{"chapters": 4, "cells": 60, "inlines": 150, "errors": 0, "explorer_seconds": 0.0}'), done.stderr


@pytest.mark.kernel
@pytest.mark.slow
def test_checker_accepts_the_synthetic_book(book, project_root):
    """`numbers` records the values, then `check` passes (exit 0, no finding)."""
    for command in ("numbers", "check"):
        done = subprocess.run([sys.executable, "-m", "bookcheck", command, "--root", str(book)],
                              cwd=project_root, env=_env(project_root),
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 findings" in done.stdout
    lock = (book / "numbers.lock").read_text(encoding="utf-8")
    assert "contents/ch02.qmd · tbl-ch2-mtbf · " in lock


@pytest.mark.kernel
@pytest.mark.slow
def test_checker_recomputes_a_corrupt_cache_entry(book, project_root):
    """A truncated cache entry is not trusted: that chapter runs again and is stored afresh."""
    from bookcheck.run import cache

    def check():
        return subprocess.run([sys.executable, "-m", "bookcheck", "check", "--root", str(book)],
                              cwd=project_root, env=_env(project_root),
                              capture_output=True, text=True, timeout=600)

    assert check().returncode in (0, 1)           # fills the cache (findings do not matter here)
    entries = sorted(p for p in cache.cache_dir(book).iterdir() if not p.name.startswith("."))
    assert len(entries) == 4
    victim = next(p for p in entries if '"contents/ch02.qmd"' in p.read_text(encoding="utf-8"))
    victim.write_bytes(victim.read_bytes()[:200])
    done = check()
    assert "(3 from cache)" in done.stdout, done.stdout + done.stderr
    assert cache.load(book, victim.name) is not None      # rewritten, intact


def _env(project_root):
    import os
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(project_root), str(project_root / "scripts")])}
