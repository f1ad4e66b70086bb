"""A copy of this repository as a fresh clone has it: its git-tracked files, as they are
in the work tree (no .venv, _bookcheck, _book or caches). Tests that run the book's own
workflow or recipe on a copy start here."""
from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_repository(dest: Path) -> Path:
    """The git-tracked files of the repository, as they are in the work tree, under `dest`."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():                     # skip files deleted but not yet committed
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return dest
