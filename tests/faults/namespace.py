"""A file system of a given state without root: a user and mount namespace.

`unshare -rm` (util-linux) gives an unprivileged process its own mounts, where it
may mount a tiny tmpfs (a disk that fills up) or bind a folder read-only. Each
case runs `python -m tests.faults.namespace ACTION ...` inside one; what the
checker left is copied out before the namespace (and its mounts) ends.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests import REPO
from tests.skip_policy import missing


def require_unshare() -> list[str]:
    """The command prefix that runs a program in a fresh user + mount namespace, or skip."""
    exe = shutil.which("unshare")
    if exe is None or subprocess.run([exe, "-rm", "true"], capture_output=True).returncode != 0:
        missing("`unshare -rm` (a user and mount namespace, util-linux) is not available here")
    return [exe, "-rm"]


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True)


def _fill(folder: Path, free_kb: int) -> None:
    """Leave about `free_kb` KiB free on the file system of `folder`."""
    stats = os.statvfs(folder)
    spare = stats.f_bavail * stats.f_frsize - free_kb * 1024
    with open(folder / "filler", "wb") as handle:
        handle.write(b"\0" * max(spare, 0))


def full_disk(book: Path, out: Path, free_kb: int, argv: list[str]) -> None:
    """Copy `book` onto a 64 MiB tmpfs, leave `free_kb` KiB free, run `argv` (`{root}`
    replaced) there; copy the book back out to `out` with the exit status in out.json."""
    mount_point = out.parent / "tmpfs"
    mount_point.mkdir()
    _mount("-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount_point))
    root = mount_point / "book"
    shutil.copytree(book, root, symlinks=True)
    _fill(mount_point, free_kb)
    proc = subprocess.run([a.replace("{root}", str(root)) for a in argv], cwd=REPO,
                          capture_output=True, text=True)
    (mount_point / "filler").unlink()
    shutil.copytree(root, out, symlinks=True)
    (out.parent / "out.json").write_text(json.dumps(
        {"code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}))


def read_only(book: Path, folder: str, argv: list[str], out: Path) -> None:
    """Bind `book/folder` read-only over itself, run `argv`; its exit status and output
    to `out` (the book stays where it is)."""
    target = book / folder
    _mount("--bind", str(target), str(target))
    _mount("-o", "remount,bind,ro", str(target))
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    out.write_text(json.dumps({"code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}))


if __name__ == "__main__":
    action, *rest = sys.argv[1:]
    if action == "full-disk":
        full_disk(Path(rest[0]), Path(rest[1]), int(rest[2]), rest[3:])
    elif action == "read-only":
        read_only(Path(rest[0]), rest[1], rest[3:], Path(rest[2]))
    else:
        raise SystemExit(f"unknown action {action}")
