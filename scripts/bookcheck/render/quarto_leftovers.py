"""What an interrupted or failed `quarto render` leaves beside the sources, removed.

Quarto renders each document in place and moves the results to the output folder
at the end: stopped half-way (Ctrl-C, a failure, the timeout) it leaves `index.html`
and other pages, `site_libs/`, `<name>_files/` and the Jupyter engine's
`<name>.quarto_ipynb` in the project. `snapshot` lists such paths before the render;
`clean` afterwards removes those that are new, only those: a page or folder of the
same kind that was there before is the author's.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from bookcheck import store

FILE_SUFFIXES = (".html", ".quarto_ipynb")
FOLDER_NAMES = ("site_libs",)
FOLDER_SUFFIXES = ("_files",)
SKIPPED = {store.BUILD, "node_modules", "venv", "env", "renv", "__pycache__", "_freeze"}


def snapshot(root: Path, output_dir: str) -> set[str]:
    """Project-relative paths shaped like Quarto's scratch, now (not inside hidden
    folders, the checker's state, the output folder or a staging folder beside it)."""
    root = Path(root)
    out = Path(output_dir).parts[0] if output_dir else "_book"
    found: set[str] = set()
    for here, dirs, names in os.walk(root):
        rel = Path(here).relative_to(root)
        keep = []
        for d in dirs:
            if d.startswith(".") or d in SKIPPED or (rel == Path(".") and d.startswith(out)):
                continue
            if d in FOLDER_NAMES or d.endswith(FOLDER_SUFFIXES):
                found.add((rel / d).as_posix())
            else:
                keep.append(d)
        dirs[:] = keep
        found.update((rel / n).as_posix() for n in names if n.endswith(FILE_SUFFIXES))
    return found


def clean(root: Path, output_dir: str, before: set[str]) -> list[str]:
    """Remove what Quarto left since `snapshot` (returns the paths removed)."""
    removed = []
    for rel in sorted(snapshot(root, output_dir) - before):
        path = Path(root) / rel
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            removed.append(rel)
        except OSError:
            pass
    return removed
