"""Files of the project that are symlinks to outside it are not published.

Quarto copies a page's resources into the output folder following symlinks, so a
`contents/data.txt -> /etc/hostname` a page links to put that file in `_book/`
(the include reader refuses such links: read/includes.py). After a Quarto render
the copy of each such link is removed from the new output, with a line on stderr
naming it; the page's link to it is then left broken for the audit to see.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def links_out(root: Path, files: list[str]) -> dict[str, str]:
    """{project-relative path: its target} of `files` that resolve outside `root`."""
    root = Path(root).resolve()
    found = {}
    for rel in files:
        path = Path(root) / rel
        if path.is_symlink():
            target = path.resolve()
            if root != target and root not in target.parents:
                found[rel] = os.readlink(path)
    return found


def drop_copies(root: Path, files: list[str], dest: Path) -> list[str]:
    """Remove from `dest` the copy of every link out of the project (returns their paths)."""
    dropped = []
    for rel, target in sorted(links_out(root, files).items()):
        copy = Path(dest) / rel
        if copy.is_file() or copy.is_symlink():
            copy.unlink()
            dropped.append(rel)
            print(f"{rel} is a symlink out of the project (to {target}): not published",
                  file=sys.stderr)
    return dropped
