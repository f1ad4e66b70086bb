"""Throwaway books: write one (`make_book`), copy the real one (`copy_book`), check one
(`check`), and find where things are in it. Every test that needs a book on disk starts here."""
from __future__ import annotations

import dataclasses
import shutil
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

from tests import REPO

# The real book's sources a copy needs to check and render it (its profiles are extra).
BOOK_SOURCES = ("_quarto.yml", "index.qmd", "contents", "references.bib", "numbers.lock", "mlsys")

# Fixture books kept in the repository (copied, never checked in place).
FIXTURES = REPO / "tests" / "render" / "fixtures"

# A chapter-local invariant helper, so fixtures do not depend on mlsys.
LOCAL_CHECK = '''class InvariantError(ValueError):
    pass
def check(cond, msg):
    if not cond:
        raise InvariantError(msg)'''


def make_book(root: Path, files: dict[str, str | bytes] | None = None,
              quarto_yml: str | None = None) -> Path:
    """Write `files` (relative path -> text, or bytes as they are) under `root`, and
    `quarto_yml` as its `_quarto.yml` when given (it wins over one in `files`)."""
    root.mkdir(parents=True, exist_ok=True)
    if quarto_yml is not None:
        files = {**(files or {}), "_quarto.yml": quarto_yml}
    for rel, text in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


def write_book(root: Path, chapters: dict[str, str], *, appendices: dict[str, str] | None = None,
               extra: str = "") -> Path:
    """A book listing `chapters` (then `appendices`), their texts dedented."""
    lines = ["book:", "  title: Fixture", "  chapters:"]
    lines += [f"    - {rel}" for rel in chapters]
    if appendices:
        lines += ["  appendices:"] + [f"    - {rel}" for rel in appendices]
    texts = {rel: textwrap.dedent(text).lstrip("\n")
             for rel, text in {**chapters, **(appendices or {})}.items()}
    return make_book(root, texts, "\n".join(lines) + "\n" + textwrap.dedent(extra))


def copy_book(dest: Path, names=BOOK_SOURCES) -> Path:
    """A copy of the real book's sources `names` (no _bookcheck, _book or caches) at `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        item = REPO / name
        if item.is_dir():
            shutil.copytree(item, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif item.is_file():
            shutil.copy2(item, dest / name)
    return dest


def check(root: Path):
    """check_book(root, update_ledger=True) in a worker thread.

    The checker drives its kernels with asyncio; playwright's sync API keeps an event
    loop running in the main thread, so a check started while a browser is alive must
    not run there."""
    from bookcheck.verify.check import check_book
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(check_book, root, update_ledger=True).result()


def checked(root: Path):
    """The checker's result for the book at `root` (a copy: the ledger is written)."""
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings]
    return result


def copy_fixture(name: str, dest: Path) -> Path:
    """A copy of the fixture book FIXTURES/`name` at `dest`/`name`."""
    target = dest / name
    shutil.copytree(FIXTURES / name, target)
    return target


def moved(result, root: Path):
    """The same checked result for a copy of its project at `root`."""
    project = dataclasses.replace(result.project, root=root)
    return SimpleNamespace(project=project, parsed=result.parsed, runs=result.runs,
                           findings=list(result.findings), ok=result.ok)


def line_of(root: Path, rel: str, needle: str) -> int:
    """1-based line of the first line of `rel` containing `needle`."""
    for number, line in enumerate((root / rel).read_text().split("\n"), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {rel}")


def col_of(root: Path, rel: str, needle: str) -> int:
    line = (root / rel).read_text().split("\n")[line_of(root, rel, needle) - 1]
    return line.index(needle) + 1


def findings_of(result, path: str, kind: str | None = None):
    return [f for f in result.findings if f.path == path and (kind is None or f.kind == kind)]
