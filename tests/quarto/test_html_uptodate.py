"""`bookcheck html` with real Quarto on PATH and nothing changed: the up-to-date
stamp (scripts/bookcheck/render/uptodate.py) holds with Quarto too, so the second build neither
checks nor starts Quarto; an edit makes a full build whose page shows it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import REPO
from tests.bookkit import check, make_book

from .quartokit import quarto_environ

pytestmark = pytest.mark.slow

BOOK = {
    "_quarto.yml": (
        "project:\n  type: book\nbook:\n  title: \"Stamp\"\n  chapters:\n"
        "    - index.qmd\n    - ch.qmd\nformat: html\n"),
    "index.qmd": "# Preface {.unnumbered}\n\nPreface text.\n",
    "ch.qmd": "# Stamped\n\n```{python}\nvalue = 6 * 7\n```\n\nThe answer is `{python} value`.\n",
}
UNCHANGED = "nothing has changed since"


def html(root: Path, exe: Path, quarto_log: Path) -> subprocess.CompletedProcess:
    """The CLI with a `quarto` on PATH that records each start, then runs the real one."""
    shim = root.parent / "shim"
    if not shim.is_dir():                           # once: it is part of the digest
        shim.mkdir()
        (shim / "quarto").write_text(f'#!/bin/sh\necho "$@" >> "{quarto_log}"\nexec "{exe}" "$@"\n')
        (shim / "quarto").chmod(0o755)
    env = quarto_environ(exe)
    env.update(PATH=f"{shim}:{env['PATH']}", PYTHONPATH=str(REPO))
    env.pop("GITHUB_ACTIONS", None)
    done = subprocess.run([sys.executable, "-m", "bookcheck", "html"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.is_file() else 0


def test_nothing_changed_starts_no_quarto_and_an_edit_renders_again(quarto_exe, tmp_path):
    root = make_book(tmp_path / "book", BOOK)
    assert check(root).ok                           # numbers.lock written
    log = tmp_path / "quarto-starts.txt"
    first = html(root, quarto_exe, log)
    assert UNCHANGED not in first.stdout and starts(log) >= 1
    assert "The answer is 42." in (root / "_book" / "ch.html").read_text(encoding="utf-8")
    before, started = files(root / "_book"), starts(log)

    again = html(root, quarto_exe, log)
    assert UNCHANGED in again.stdout, again.stdout
    assert starts(log) == started                   # Quarto was not even asked its version
    assert files(root / "_book") == before

    chapter = root / "ch.qmd"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nA sentence added later.\n",
                       encoding="utf-8")
    edited = html(root, quarto_exe, log)
    assert UNCHANGED not in edited.stdout and starts(log) > started
    assert "A sentence added later." in (root / "_book" / "ch.html").read_text(encoding="utf-8")
