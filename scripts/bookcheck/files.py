"""The one atomic file write, shared by every stage (cache, ledger, render).

Readers see the old file or the new one, never a mix: the bytes go to a temp
file beside the target (`.NAME.*.tmp`), then os.replace. A failure (or Ctrl-C)
removes the temp file and leaves the target untouched.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def umask() -> int:
    """The process's file-creation mask (read without changing it where /proc says it;
    else set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The bits a plain `open(path, "w")` gives a new file: 0o666 less the umask."""
    return 0o666 & ~umask()


def new_dir_mode() -> int:
    """The bits `mkdir` gives a new folder: 0o777 less the umask (as Quarto's output
    folder gets; tempfile.mkdtemp alone would give 0o700)."""
    return 0o777 & ~umask()


def atomic_write(path: Path, data: bytes | str, mode: int | None = None) -> None:
    """Write `data` (str: UTF-8, LF newlines) to `path` atomically.

    mode: permission bits of the new file; default keeps those of the file it
    replaces, else those a plain write gives (new_file_mode; mkstemp alone would
    give 0o600).
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = new_file_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
