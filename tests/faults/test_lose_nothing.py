"""Lose nothing (issue 34 §2): an output folder that is someone else's is refused, the
published book is readable by others (the umask's bits), and a render that could not
write everything (a full disk) fails and keeps the previous book."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import uuid

import pytest

from tests.faults.faultkit import REPO, disk_state, edit, line_of
from tests.faults.namespace import require_unshare
from tests.skip_policy import require_tool

pytestmark = pytest.mark.slow


def set_output_dir(book, value: str) -> None:
    edit(book / "_quarto.yml", "project:\n  type: book", f"project:\n  type: book\n  output-dir: {value}")


def refused(runner, book, command: str):
    result = runner.cli(book, command)
    assert result.code == 1, result.output
    f = result.only("output-dir")
    assert (f.path, f.line) == ("_quarto.yml", line_of(book / "_quarto.yml", "output-dir:"))
    return f


def test_an_output_dir_outside_the_project_is_refused_and_kept(good_book, runner):
    """`output-dir: ../other` once replaced a folder beside the project with the book."""
    other = good_book.parent / "other"
    other.mkdir()
    (other / "precious.txt").write_text("not the book's\n")
    set_output_dir(good_book, "../other")
    for command in ("check", "html"):
        f = refused(runner, good_book, command)
        assert "is outside the project folder" in f.reason and "`_book`" in f.reason
    assert sorted(p.name for p in other.iterdir()) == ["precious.txt"]


def test_an_output_dir_holding_files_the_pipeline_did_not_write_is_refused(good_book, runner):
    """An existing folder is replaced whole only when its manifest lists every file in it:
    someone's `site/notes.txt`, or a CNAME added to a rendered `_book/`, is kept."""
    site = good_book / "site"
    site.mkdir()
    (site / "notes.txt").write_text("mine\n")
    set_output_dir(good_book, "site")
    f = refused(runner, good_book, "html")
    assert "holds files this pipeline did not write (notes.txt; move them out first)" in f.reason
    assert (site / "notes.txt").read_text() == "mine\n"
    (site / "notes.txt").unlink()
    assert runner.cli(good_book, "html").code == 0
    manifest = json.loads((site / ".bookcheck-output.json").read_text())
    assert "index.html" in manifest["files"] and ".bookcheck-output.json" not in manifest["files"]
    assert runner.cli(good_book, "html", "--force").code == 0          # its own output: replaced
    (site / "contents" / "CNAME").write_text("book.example.org\n")
    f = refused(runner, good_book, "check")
    assert "(contents/CNAME; move them out first)" in f.reason
    assert (site / "contents" / "CNAME").is_file()


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_the_published_book_has_the_umask_bits(good_book, runner, mask):
    """The built-in `_book/` was made by mkdtemp, 0700: no web server could read it."""
    old = os.umask(mask)
    try:
        assert runner.cli(good_book, "html").code == 0
    finally:
        os.umask(old)
    book = good_book / "_book"
    modes = {p.relative_to(good_book).as_posix(): stat.S_IMODE(p.stat().st_mode)
             for p in [book, *book.rglob("*")]}
    assert modes["_book"] == 0o777 & ~mask
    wrong = {rel: oct(m) for rel, m in modes.items()
             if m != (0o777 if (good_book / rel).is_dir() else 0o666) & ~mask}
    assert wrong == {}


@pytest.mark.parametrize("free_kb", [300, 500, 800])
def test_a_full_disk_fails_the_render_and_keeps_the_previous_book(good_book, runner, tmp_path, free_kb):
    """On a disk with less room than the new book needs (about 1 MB: a 64 MiB tmpfs,
    filled), `make html` exited 0 and published 0-byte Pagefind files (Pagefind ignores
    a failed write): with the render cache warm, the pages fit and Pagefind's files not."""
    unshare = require_unshare()
    assert runner.cli(good_book, "html").code == 0        # the previous book, a warm render cache
    edit(good_book / "index.qmd", "This fixture book has", "This fixture book, edited, has")
    before = disk_state(good_book)
    out = tmp_path / "after" / "book"
    out.parent.mkdir()
    argv = [sys.executable, "-m", "bookcheck", "html", "--root", "{root}"]
    subprocess.run([*unshare, sys.executable, "-m", "tests.faults.namespace", "full-disk",
                    str(good_book), str(out), str(free_kb), *argv],
                   check=True, env=runner.env("full-disk"), cwd=os.getcwd(), timeout=240)
    ran = json.loads((out.parent / "out.json").read_text())
    assert ran["code"] == 1, ran
    assert "render failed" in ran["stderr"] and "Traceback" not in ran["stderr"], ran["stderr"]
    after = disk_state(out)
    assert after["_book"] == before["_book"], "the previous _book/ changed"
    assert after["strays"] == [] and [p.name for p in out.iterdir() if p.name.startswith("_book.")] == []


def test_merge_refuses_partials_checked_under_other_profiles(good_book, runner, tmp_path):
    """Two shards of one tree under two Quarto profiles are not one run: the merge took them."""
    (good_book / "_quarto-wide.yml").write_text("execute:\n  echo: true\n")
    partials = [tmp_path / "shard-1.json", tmp_path / "shard-2.json"]

    def shard(index: int, *profile: str):
        result = runner.cli(good_book, "check", "--shard", f"{index}/2", "--out",
                            str(partials[index - 1]), *profile)
        assert result.code == 0, result.output
    shard(1, "--profile", "wide")
    shard(2)

    def merge(*args: str):
        return subprocess.run(runner.argv(good_book, "merge", *args), cwd=REPO, capture_output=True,
                              env=runner.env(uuid.uuid4().hex), text=True, timeout=240)
    merged = merge(*map(str, partials))
    assert merged.returncode == 2, merged.stdout + merged.stderr
    assert merged.stderr.strip() == (
        f"error: {partials[0]}: checked under profile wide, this merge reads the project under "
        "no profile: merge with `--profile wide`, or rerun every shard under one")
    shard(2, "--profile", "wide")
    merged = merge("--profile", "wide", *map(str, partials))
    assert merged.returncode == 0, merged.stdout + merged.stderr


@pytest.mark.kernel
def test_a_removed_chapters_page_leaves_the_preview(tmp_path):
    """The preview wrote a full render over the old `_book/`: a chapter taken out of the
    book kept its page, served and found by search."""
    from bookcheck.tools.preview.pages import PageRenderer
    from bookcheck.verify.check import check_book
    from tests.bookkit import make_book
    config = "project:\n  type: book\nbook:\n  title: Tiny\n  chapters:\n    - index.qmd\n{}"
    book = make_book(tmp_path / "book", {"index.qmd": "# Preface {.unnumbered}\n\nHello.\n",
                                         "two.qmd": "# Two\n\nGone soon.\n"},
                     config.format("    - two.qmd\n"))
    renderer = PageRenderer()
    try:
        assert sorted(renderer.render(check_book(book))) == ["index.html", "two.html"]
        assert (book / "_book" / "two.html").is_file()
        (book / "_quarto.yml").write_text(config.format(""))
        assert renderer.render(check_book(book)) == ["index.html"]
    finally:
        renderer.close()
    assert not (book / "_book" / "two.html").exists()
    assert "Gone soon" not in (book / "_book" / "search-index.js").read_text()
    listed = json.loads((book / "_book" / ".bookcheck-output.json").read_text())["files"]
    assert "index.html" in listed and "two.html" not in listed


@pytest.mark.kernel
def test_an_editors_lock_link_in_mlsys_does_not_break_make(tmp_path):
    """Emacs' `.#formulas.py` lock is a dangling symlink: `make check` stopped with "No rule
    to make target 'mlsys/.#formulas.py'" (the bytecode rule listed every `*.py` name)."""
    make = require_tool("make")
    for rel in ("requirements.txt", "requirements.lock", "pyproject.toml", "scripts/pyproject.toml",
                "scripts/bookcheck/x.py",
                "mlsys/formulas.py", ".venv/.installed"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    os.utime(tmp_path / ".venv" / ".installed", (2e9, 2e9))      # newer than its inputs
    (tmp_path / "mlsys" / ".#formulas.py").symlink_to("root@host.4242:1700000000")
    os.mkfifo(tmp_path / "mlsys" / "pipe.py")
    done = subprocess.run([make, "-n", "-C", str(tmp_path), "-f", str(REPO / "Makefile"),
                           ".venv/.bytecode"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "compileall" in done.stdout


def test_a_lock_link_or_a_fifo_in_mlsys_keeps_the_cache(good_book, runner):
    """Not regular files, so not sources: a dangling link in the book's `mlsys/` made every
    chapter's key change (re-run whenever an editor holds a file open); a FIFO is never opened."""
    (good_book / "mlsys" / ".#formulas.py").symlink_to("root@host.4242:1700000000")
    os.mkfifo(good_book / "mlsys" / "pipe")
    result = runner.cli(good_book, "check", timeout=120)
    assert result.code == 0, result.output
    assert result.summary["cached"] == 2, result.output


@pytest.mark.parametrize("command", ["check", "html"])
def test_a_read_only_store_costs_time_not_a_traceback(good_book, runner, tmp_path, command):
    """`_bookcheck/` on a read-only mount (a CI cache restored read-only): the run works
    from what it holds and writes nothing there, with no traceback."""
    unshare = require_unshare()
    edit(good_book / "contents" / "one.qmd", "Sixteen nodes", "Sixteen such nodes")   # a miss
    out = tmp_path / "ran.json"
    argv = runner.argv(good_book, command)
    subprocess.run([*unshare, sys.executable, "-m", "tests.faults.namespace", "read-only",
                    str(good_book), "_bookcheck", str(out), *argv],
                   check=True, env=runner.env(uuid.uuid4().hex), cwd=REPO, timeout=240)
    ran = json.loads(out.read_text())
    assert ran["code"] == 0, ran
    assert "Traceback" not in ran["stderr"], ran["stderr"]
    if command == "html":
        assert "Sixteen such nodes" in (good_book / "_book" / "contents" / "one.html").read_text()


# a `quarto` that fails half-way, as Quarto stopped mid-render does: its pages, its
# site_libs/ and the Jupyter engine's notebook left beside the sources
HALF_QUARTO = """#!/bin/sh
if [ "$1" = "--version" ]; then echo 1.7.34; exit 0; fi
echo '<p>half</p>' > index.html
mkdir -p site_libs contents/one_files && echo x > site_libs/quarto.js
echo '{}' > contents/one.quarto_ipynb
echo "ERROR: stopped half-way" >&2
exit 1
"""


def test_what_a_failed_quarto_render_leaves_beside_the_sources_is_removed(good_book, runner, tmp_path):
    """Only what it created: an `.html` page and a `_files/` folder of the author's stay."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "quarto").write_text(HALF_QUARTO)
    (shim / "quarto").chmod(0o755)
    (good_book / "notes.html").write_text("<p>the author's</p>\n")
    (good_book / "contents" / "old_files").mkdir()
    before = disk_state(good_book)
    result = runner.cli(good_book, "html", env={"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"})
    assert result.code == 1, result.output
    assert "quarto render --to html failed: ERROR: stopped half-way" in result.stderr
    left = sorted(p.relative_to(good_book).as_posix() for p in good_book.rglob("*")
                  if p.name.endswith((".html", ".quarto_ipynb", "_files")) or p.name == "site_libs")
    assert left == ["_book/index.html", "contents/old_files", "notes.html"]
    assert disk_state(good_book) == before
