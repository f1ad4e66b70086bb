"""Fixtures of the fault-injection suite; the helpers live in faultkit.py.

* `good_book`: a copy of a small passing book (two chapters, a copy of `mlsys/`,
  a `numbers.lock` accepted by `numbers`, a warm cache). Tests break one thing.
* `runner`: runs the CLI with a private JUPYTER_RUNTIME_DIR and TMPDIR and a
  marker in its environment (see faultkit.Runner).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults.faultkit import CHAPTER_QMD, INDEX_QMD, Runner, write_book


@pytest.fixture(scope="session")
def good_book_template(tmp_path_factory) -> Path:
    """A passing book with its numbers.lock and a warm cache (built once)."""
    root = write_book(tmp_path_factory.mktemp("template") / "book",
                      {"index.qmd": INDEX_QMD, "contents/one.qmd": CHAPTER_QMD})
    runner = Runner(tmp_path_factory.mktemp("template-run"))
    result = runner.cli(root, "numbers")
    runner.reap()
    assert result.code == 0, result.output
    assert (root / "numbers.lock").is_file()
    (root / "_book").mkdir()            # an earlier render, which failing runs must not touch
    (root / "_book" / "index.html").write_text("<p>the previous, good render</p>\n")
    return root


@pytest.fixture
def good_book(good_book_template, tmp_path) -> Path:
    root = tmp_path / "book"
    shutil.copytree(good_book_template, root, symlinks=True)
    return root


@pytest.fixture
def runner(tmp_path):
    runner = Runner(tmp_path / "scratch")
    yield runner
    runner.reap()               # the test has asserted what it wanted; never leak a kernel


