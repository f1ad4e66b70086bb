"""The copy tests make of the repository is what its author has (issue 47): a chapter
added the README's way but not yet committed is in it, ignored files are not, so
`make test` stays green before `git add`."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.bookkit import make_book
from tests.repo_copy import copy_repository, working_files

QUARTO_YML = ("project:\n  type: book\nbook:\n  title: T\n  chapters:\n"
              "    - index.qmd\n    - contents/probe.qmd\n")


def git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
                        "GIT_COMMITTER_EMAIL": "a@b", "HOME": str(root), "PATH": "/usr/bin:/bin"})


@pytest.mark.kernel
def test_an_uncommitted_chapter_is_copied_and_the_copy_checks(tmp_path):
    repo = make_book(tmp_path / "repo", {"index.qmd": "# Preface {.unnumbered}\n\nHello.\n",
                                         ".gitignore": "_book/\n"}, QUARTO_YML)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "book")
    # the author's new chapter, listed in _quarto.yml above but not added to git
    make_book(repo, {"contents/probe.qmd": "# Probe {#sec-probe}\n\nSee @sec-probe.\n",
                     "_book/old.html": "<p>published</p>\n"})
    assert working_files(repo) == [".gitignore", "_quarto.yml", "contents/probe.qmd", "index.qmd"]
    copy = copy_repository(tmp_path / "copy", repo)
    assert (copy / "contents" / "probe.qmd").is_file() and not (copy / "_book").exists()
    done = subprocess.run([sys.executable, "-m", "bookcheck", "check", "--root", str(copy)],
                          capture_output=True, text=True, timeout=120)
    assert "missing-chapter" not in done.stdout and "ok: 2 chapters checked" in done.stdout, \
        done.stdout + done.stderr
