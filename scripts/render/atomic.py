"""Build somewhere else, then move into place only on success.

Every build goes to a fresh directory next to the final one (same
filesystem, so renames are atomic); `_book/` is replaced by two renames, and
a single file (the PDF) by os.replace. A failed build leaves `_book/` as it
was.
"""
from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from scripts.files import atomic_write


@contextmanager
def staging_dir(final: Path):
    """A new empty directory beside `final`; removed afterwards unless moved."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{final.name}.tmp-", dir=final.parent))
    try:
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
