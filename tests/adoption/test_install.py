"""bookcheck as another author installs it: its wheel, in an environment of its own, on
a book with its own package named `mlsys` (docs/adopting.md).

The wheel is built from a copy of scripts/ (a build writes build/ and *.egg-info
beside its sources: not in the checkout) and must hold the `bookcheck` package with
every file of it (Lua filters, page assets, Quarto's schema, the interposer's C
source) and no other package. It is installed into a fresh venv whose dependencies
come from this environment (a .pth file: offline), where this repository's `mlsys`
is importable too; there `bookcheck numbers`, `check` and `html` publish a
three-chapter book whose cells import its own `mlsys`, which must win.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests import REPO

pytestmark = [pytest.mark.slow, pytest.mark.kernel]

TIMEOUT_S = 240
WHO = "the other book"           # what only the other book's mlsys says
BOOK = {
    "_quarto.yml": "project:\n  type: book\nbook:\n  title: Another book\n  chapters:\n"
                   "    - index.qmd\n    - contents/one.qmd\n    - contents/two.qmd\n",
    "mlsys/__init__.py": f'"""Another book\'s own package."""\nWHO = "{WHO}"\n\n\n'
                         "def pages(chapters):\n    return 12 * chapters\n",
    "index.qmd": "# Preface {.unnumbered}\n\n```{python}\nfrom mlsys import WHO\n```\n\n"
                 "This is `{python} WHO`.\n",
    "contents/one.qmd": "# One {#sec-one}\n\n```{python}\nfrom mlsys import pages\n```\n\n"
                        "Three chapters make `{python} pages(3)` pages.\n",
    "contents/two.qmd": "# Two {#sec-two}\n\nAs @sec-one says.\n",
}


def _run(argv, env, cwd) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    assert done.returncode == 0, (argv, done.stdout[-3000:], done.stderr[-3000:])
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the wheel, the sources built, the venv's python, its site-packages, the
    environment to run it in)."""
    tmp = tmp_path_factory.mktemp("install")
    source = tmp / "scripts"
    shutil.copytree(REPO / "scripts", source, ignore=shutil.ignore_patterns(
        "build", "dist", "*.egg-info", "__pycache__", "*.pyc"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # no checkout on the path
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "-w", str(tmp / "wheel"), str(source)], env, tmp)
    (wheel,) = (tmp / "wheel").glob("bookcheck-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], env, tmp)
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     env, tmp).stdout.strip())
    # this environment's packages (its editable installs too) and this repository's mlsys
    outer = sysconfig.get_paths()["purelib"]
    (site / "_outer.pth").write_text(f"import site; site.addsitedir({outer!r})\n{REPO}\n")
    env = {**env, "VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}"}
    _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
          str(wheel)], env, tmp)
    return wheel, source, python, site, env


def test_the_wheel_holds_bookcheck_with_its_files_and_no_other_package(installed):
    wheel, source, *_ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    info = "-".join(wheel.name.split("-")[:2]) + ".dist-info"
    assert {n.split("/")[0] for n in names} == {"bookcheck", info}     # no mlsys, no scripts
    files = {p.relative_to(source).as_posix() for p in (source / "bookcheck").rglob("*")
             if p.is_file() and not p.name.startswith(".") and "__pycache__" not in p.parts}
    assert {"bookcheck/render/filters/cells.lua", "bookcheck/read/quarto_schema.json",
            "bookcheck/run/interpose.c", "bookcheck/render/assets/book.css"} <= files
    assert sorted(files - names) == []                  # every file of the package, shipped


def test_another_book_publishes_with_its_own_mlsys(installed, tmp_path):
    _, _, python, site, env = installed
    where = _run([str(python), "-c", "import bookcheck, mlsys; print(bookcheck.__file__); "
                  "print(mlsys.__file__)"], env, tmp_path).stdout.split()
    assert Path(where[0]).is_relative_to(site)                 # the wheel's bookcheck
    assert Path(where[1]).is_relative_to(REPO)          # this book's mlsys is importable there
    book = tmp_path / "book"
    for rel, text in BOOK.items():
        (book / rel).parent.mkdir(parents=True, exist_ok=True)
        (book / rel).write_text(text, encoding="utf-8")
    for command in ("numbers", "check", "html"):
        _run([str(python.parent / "bookcheck"), command], env, book)
    assert WHO in (book / "_book" / "index.html").read_text(encoding="utf-8")
    assert "make 36" in (book / "_book" / "contents" / "one.html").read_text(encoding="utf-8")


HOOKED = ("project:\n  type: book\n  pre-render: bookcheck pre-render\n"
          "  post-render: bookcheck post-render\nexecute:\n  freeze: auto\n")


@pytest.mark.quarto
@pytest.mark.local_only
def test_plain_quarto_render_with_the_two_hooks(installed, tmp_path):
    """docs/adopting.md's two `_quarto.yml` lines, the installed `bookcheck` on PATH:
    the author's own `quarto render` checks, publishes the other book's values, audits."""
    from tests.skip_policy import real_quarto
    quarto = real_quarto()
    _, _, python, _, env = installed
    book = tmp_path / "book"
    for rel, text in BOOK.items():
        (book / rel).parent.mkdir(parents=True, exist_ok=True)
        (book / rel).write_text(text if rel != "_quarto.yml" else
                                text.replace("project:\n  type: book\n", HOOKED), encoding="utf-8")
    _run([str(python.parent / "bookcheck"), "numbers"], env, book)
    env = {**env, "QUARTO_PYTHON": str(python),
           "PATH": os.pathsep.join([str(quarto.parent), env["PATH"]])}
    done = _run([str(quarto), "render"], env, book)
    log = done.stdout + done.stderr
    assert "audited, no finding" in log, log[-3000:]
    assert WHO in (book / "_book" / "index.html").read_text(encoding="utf-8")
    assert "make 36" in (book / "_book" / "contents" / "one.html").read_text(encoding="utf-8")
