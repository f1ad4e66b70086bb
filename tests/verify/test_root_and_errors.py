"""`--root` as given on the command line (relative to another folder; missing or not a
folder: a usage error saying why), and the pipeline's own errors (bookcheck.errors)
reported as their own finding kinds instead of `kernel-died`."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests import REPO
from tests.bookkit import write_book
from bookcheck import cli
from bookcheck.errors import BookcheckError
from bookcheck.model import Kind
from bookcheck.read.book import read_book
from bookcheck.run import kernel
from bookcheck.run.execute import run_chapter

ANSWER = """\
# Answer

```{python}
answer = 6 * 7
```

The answer is `{python} answer`.
"""


def tiny_book(root):
    """A one-chapter book whose numbers.lock holds its inline value, 42."""
    write_book(root, {"index.qmd": ANSWER})
    (root / "numbers.lock").write_text("index.qmd · answer\t42\n", encoding="utf-8")
    return root


@pytest.mark.slow
@pytest.mark.kernel
def test_a_relative_root_from_another_folder_is_checked_with_its_inline_value(tmp_path):
    """The kernel starts in the root and changes into the chapter's folder: a root left
    relative was taken twice (`No such file or directory: '../books/book'`, kernel-died)."""
    tiny_book(tmp_path / "books" / "book")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([sys.executable, "-m", "bookcheck", "check", "--force",
                           "--root", os.path.join("..", "books", "book")],
                          cwd=elsewhere, capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONPATH": str(REPO / "scripts")})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 inline expressions" in done.stdout and "0 findings" in done.stdout


@pytest.mark.parametrize("make, why", [(lambda p: None, "it does not exist"),
                                       (lambda p: p.write_text("x"), "it is not a folder")])
def test_a_root_that_is_no_folder_is_a_one_line_usage_error(tmp_path, capsys, make, why):
    root = tmp_path / "book"
    make(root)
    assert cli.main(["check", "--root", str(root)]) == cli.EXIT_USAGE
    assert capsys.readouterr().err == f"error: --root {root}: {why}\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root enters any folder")
def test_an_unreadable_root_is_a_usage_error(tmp_path, capsys):
    root = tiny_book(tmp_path / "book")
    root.chmod(0)
    try:
        assert cli.main(["check", "--root", str(root)]) == cli.EXIT_USAGE
    finally:
        root.chmod(0o755)
    assert capsys.readouterr().err == f"error: --root {root}: it cannot be read (permission denied)\n"


def test_each_error_of_the_pipeline_names_one_kind():
    errors = BookcheckError.__subclasses__()
    assert errors and all(isinstance(e.kind, Kind) for e in errors)


@pytest.mark.slow
@pytest.mark.kernel
def test_a_chapter_whose_folder_is_gone_says_so(tmp_path):
    book = read_book(tiny_book(tmp_path / "book"))
    parsed = book.parsed["index.qmd"]
    parsed.exec_dir = "gone"                    # removed after the chapter was read
    [finding] = run_chapter(book.project.root, parsed).findings
    assert (finding.kind, finding.line) == (Kind.MISSING_CHAPTER, 0)
    assert finding.reason.endswith(f"{book.project.root / 'gone'}: it does not exist")


@pytest.mark.slow
@pytest.mark.kernel
def test_a_kernel_the_checker_cannot_set_up_is_a_kernel_finding(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel, "_setup_code", lambda *a: "raise ImportError('no figures here')")
    book = read_book(tiny_book(tmp_path / "book"))
    [finding] = run_chapter(book.project.root, book.parsed["index.qmd"]).findings
    assert finding.kind == Kind.KERNEL
    assert "setup failed in the kernel: ImportError: no figures here" in finding.reason
