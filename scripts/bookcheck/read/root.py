"""The project root as every stage takes it: absolute, resolved once where it enters
(read/project.py), so nothing depends on the working folder again (a kernel starts in
the root and then changes into a chapter's folder: a relative root would be taken
twice); and why a folder cannot be worked in (the `--root` usage error, a chapter's
folder gone by the time it runs)."""
from __future__ import annotations

import os
import stat
from pathlib import Path


def absolute_root(root) -> Path:
    """`root` (relative: to the working folder) as an absolute path, symlinks resolved."""
    return Path(root).resolve()


def folder_problem(path) -> str | None:
    """Why `path` cannot be worked in as a folder, in words ("it does not exist"), or None."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "it does not exist"
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    if not stat.S_ISDIR(mode):
        return "it is not a folder"
    if not os.access(path, os.R_OK | os.X_OK):
        return "it cannot be read (permission denied)"
    return None
