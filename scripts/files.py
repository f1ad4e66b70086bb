"""The one atomic file write, shared by every stage (cache, ledger, render).

Readers see the old file or the new one, never a mix: the bytes go to a temp
file beside the target (`.NAME.*.tmp`), then os.replace. A failure (or Ctrl-C)
removes the temp file and leaves the target untouched.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes | str, mode: int | None = None) -> None:
    """Write `data` (str: UTF-8, LF newlines) to `path` atomically.

    mode: permission bits of the new file; default keeps those of the file it
    replaces, else 0o644 (mkstemp alone would give 0o600).
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
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
