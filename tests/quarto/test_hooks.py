"""An author's own `quarto render`, with the pipeline as its project scripts (real Quarto 1.7.34).

The book's `_quarto.yml` carries the lines docs/quarto-compat.md tells an author to
add (`pre-render:`/`post-render:` running `.venv/bin/bookcheck`, the Makefile's
launcher, and `execute: freeze: auto`) and an `output-dir: _build/html`, as the
upstream book has. Its cell appends a line to `runs.txt` each time it runs.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bookkit import check, line_of, make_book

from .quartokit import RENDER_TIMEOUT_S, quarto_environ

pytestmark = pytest.mark.slow

LAUNCHER = Path(sys.executable).parent / "bookcheck"      # `make venv` writes it
CHAPTER = ("# Chapter {#sec-ch}\n\n"
           "```{python}\n#| echo: false\n"
           "with open(\"runs.txt\", \"a\") as handle:\n    handle.write(\"ran\\n\")\n"
           "answer = str(6 * 7)\n```\n\n"
           "The answer is `{python} answer`.\n")


def quarto_yml(pre_render: list[str]) -> str:
    scripts = "".join(f"    - {s}\n" for s in pre_render)
    return ("project:\n  type: book\n  output-dir: _build/html\n"
            f"  pre-render:\n{scripts}"
            f"  post-render: {LAUNCHER} post-render\n"
            "execute:\n  freeze: auto\n"
            "book:\n  title: Hooks\n  chapters:\n    - index.qmd\n    - ch.qmd\n")


def write(root: Path, extra_pre_render: list[str] = (), files: dict | None = None) -> Path:
    assert LAUNCHER.is_file(), "run `make venv`: it installs .venv/bin/bookcheck"
    make_book(root, {"index.qmd": "# Preface {.unnumbered}\n\nPreface text.\n", "ch.qmd": CHAPTER,
                     **(files or {})},
              quarto_yml([f"{LAUNCHER} pre-render", *extra_pre_render]))
    assert check(root).ok           # numbers.lock written: the book is clean
    return root


def runs(root: Path) -> int:
    return (root / "runs.txt").read_text().count("ran")


def quarto(exe: Path, root: Path) -> tuple[int, str]:
    """The author's command, plain `quarto render`: (exit status, its log uncoloured)."""
    done = subprocess.run([str(exe), "render"], cwd=root, env=quarto_environ(exe),
                          capture_output=True, text=True, timeout=RENDER_TIMEOUT_S)
    return done.returncode, re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, quarto_exe):
    root = write(tmp_path_factory.mktemp("hooks") / "book")
    before = runs(root)
    return root, before, quarto(quarto_exe, root)


def test_quarto_render_publishes_the_checked_run(rendered):
    """pre-render checked (one run) and handed the run over; Quarto executed nothing,
    post-render audited the pages and took pre-render's result (no further run)."""
    root, before, (status, log) = rendered
    assert status == 0, log[-3000:]
    assert runs(root) == before + 1
    assert "pre-render: 1 checked run(s) handed to Quarto's freezer" in log
    assert "audited, no finding" in log
    assert "The answer is 42." in (root / "_build" / "html" / "ch.html").read_text(encoding="utf-8")


def test_the_checker_state_stays_out_of_the_output_dir(rendered):
    """`output-dir: _build/html`: the checker's state is in its own folder, not inside
    or above the site Quarto publishes."""
    from bookcheck import store
    root = rendered[0]
    assert (root / store.BUILD / "hooks").is_dir()
    assert sorted(p.name for p in (root / "_build").iterdir()) == ["html"]
    assert not list((root / "_build" / "html").rglob(store.BUILD))


def test_a_check_finding_fails_quarto_render(rendered, tmp_path, quarto_exe):
    """A number that moved since numbers.lock: Quarto stops before rendering a page
    (and exits 1); the check's report is in its log."""
    root = write(tmp_path / "book")
    (root / "ch.qmd").write_text(CHAPTER.replace("6 * 7", "6 * 8"))
    status, log = quarto(quarto_exe, root)
    assert status == 1
    assert "ch.qmd · answer: 42 → 48" in log and "[1/2]" not in log
    assert not (root / "_build" / "html" / "ch.html").exists()


def test_an_audit_finding_fails_quarto_render(rendered, tmp_path, quarto_exe):
    """A page that shows what the check did not verify (here: a later pre-render script
    of the author's edits the handed-over entry): post-render's audit names it at its
    line and Quarto exits 1. The page is in the output folder all the same (Quarto
    wrote it there; docs/quarto-compat.md)."""
    tamper = ("from pathlib import Path\n"
              "p = Path('_freeze/ch/execute-results/html.json')\n"
              "p.write_text(p.read_text().replace('The answer is 42', 'The answer is 43'))\n")
    root = write(tmp_path / "book", ["tamper.py"], {"tamper.py": tamper})
    status, log = quarto(quarto_exe, root)
    assert status == 1, log[-3000:]
    line = line_of(root, "ch.qmd", "The answer is")
    assert f"ch.qmd:{line}: missing-value: ch.html does not show '42'" in log
    assert "shows '43'" in log
    assert "The answer is 43." in (root / "_build" / "html" / "ch.html").read_text(encoding="utf-8")


def test_make_html_on_a_hooked_book_checks_and_audits_once(tmp_path, quarto_exe):
    """`bookcheck html` runs Quarto itself: the book's own pre-render/post-render
    lines then skip (quarto.BUILDING), so the chapter runs once, not twice."""
    from bookcheck.cli import main
    from .quartokit import quarto_on_path
    root = write(tmp_path / "book")
    before = runs(root)
    with quarto_on_path(quarto_exe):
        assert main(["html", "--root", str(root)]) == 0
    assert runs(root) == before + 1
    assert "The answer is 42." in (root / "_build" / "html" / "ch.html").read_text(encoding="utf-8")
