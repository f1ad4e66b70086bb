"""A copy of this repository as its author has it: every file of the work tree that git
does not ignore, tracked or not yet added (a new chapter an author has not committed
is part of the book they test), as it is on disk (no .venv, _bookcheck, _book or
caches). Tests that run the book's own workflow or recipe on a copy start here."""
from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def working_files(root: Path = ROOT, *under: str) -> list[str]:
    """Relative paths of the files of the work tree git does not ignore (tracked or
    untracked; not those deleted but not yet committed), optionally only `under` folders."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                             "--", *under], cwd=root, capture_output=True, check=True)
    return sorted({rel for rel in listed.stdout.decode().split("\0")
                   if rel and (Path(root) / rel).is_file()})


def copy_repository(dest: Path, root: Path = ROOT) -> Path:
    """The work tree's files (`working_files`) of the repository at `root`, under `dest`."""
    for rel in working_files(root):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((Path(root) / rel).read_bytes())
    return dest
