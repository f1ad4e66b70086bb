"""Build somewhere else, then move into place only on success.

Every build goes to a fresh directory next to the final one (same
filesystem, so renames are atomic); `_book/` is replaced by two renames, and
a single file (the PDF) by os.replace. A failed build leaves `_book/` as it
was. The new folder gets the umask's bits (new_dir_mode), as a folder `mkdir` or
Quarto makes: a web server or another user can read the book.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from bookcheck.files import atomic_write, new_dir_mode


@contextmanager
def staging_dir(final: Path):
    """A new empty directory beside `final`; removed afterwards unless moved."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{final.name}.tmp-", dir=final.parent))
    try:
        tmp.chmod(new_dir_mode())           # mkdtemp's 0o700 would hide the book
        yield tmp
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def swap_in(new: Path, final: Path) -> None:
    """Make directory `new` become `final`, discarding the old `final`."""
    old = None
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f"{final.name}.old-", dir=final.parent))
        old.rmdir()
        final.rename(old)
    try:
        new.rename(final)
    except OSError:
        if old is not None:
            old.rename(final)
        raise
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:                       # `final` was a file (or a link): rmtree would skip it
            old.unlink(missing_ok=True)


def replace_file(src: Path, dst: Path) -> None:
    """Copy `src` over `dst` atomically (readers see the old or the new file)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(dst, Path(src).read_bytes())


def carry_over(old: Path, new: Path, pattern: str) -> None:
    """Copy top-level files of `old` matching `pattern` into `new` if absent there.

    Keeps the PDF of an earlier `make pdf` when `make html` rebuilds `_book/`.
    """
    if not old.is_dir():
        return
    for path in old.glob(pattern):
        if path.is_file() and not (new / path.name).exists():
            shutil.copy2(path, new / path.name)


def disk_full(path: Path) -> bool:
    """No block left for this process on the file system of `path`: after a write that
    failed for space there is none, so a build that leaves the disk full is not trusted
    whole (a program that ignores its failed writes, such as Pagefind, still exits 0)."""
    try:
        stats = os.statvfs(path)
    except OSError:
        return False
    return (stats.f_bfree if os.geteuid() == 0 else stats.f_bavail) == 0
