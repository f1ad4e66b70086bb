"""A chapter's observed inputs: snapshot them after a run, verify them before reuse.

The kernel reports what the chapter's code read (`observe_side.observed`):
files and directories under the project root, and environment variables. A
snapshot stores, for each, what the cache must find again to trust the result:

    {"files": {rel: sha256 hex | None},        None: the file did not exist
     "dirs":  {rel: sha256 of the sorted names | None},
     "env":   {name: value | None}}             None: the variable was unset

`changed(root, deps, env)` names the first input that differs now (a changed,
removed or newly present file; a directory with other entries; a variable
with another value), or returns None when every input is as recorded.

Stdlib only: a fully cached check verifies every chapter's inputs.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

EMPTY = {"files": {}, "dirs": {}, "env": {}}


def file_digest(path: Path) -> str | None:
    """sha256 of a regular file's bytes; None when it does not exist (or is not a file)."""
    try:
        with open(path, "rb") as handle:
            digest = hashlib.sha256()
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def dir_digest(path: Path) -> str | None:
    """sha256 of a directory's sorted entry names; None when it is not a directory."""
    try:
        names = sorted(os.listdir(path))
    except (FileNotFoundError, NotADirectoryError):
        return None
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def _inside(root: Path, rel: str) -> Path | None:
    """root/rel, refusing paths that leave the root."""
    path = (root / rel)
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return None
    return path


def snapshot(root: Path, observed: dict | None) -> dict:
    """Hash what the kernel reported the chapter read (see module docstring)."""
    root = Path(root)
    observed = observed or {}
    files, dirs = {}, {}
    for rel in observed.get("files") or []:
        path = _inside(root, rel)
        if path is not None:
            files[rel] = file_digest(path)
    for rel in observed.get("dirs") or []:
        path = _inside(root, rel)
        if path is not None:
            dirs[rel] = dir_digest(path)
    env = {str(k): (None if v is None else str(v)) for k, v in (observed.get("env") or {}).items()}
    return {"files": dict(sorted(files.items())), "dirs": dict(sorted(dirs.items())),
            "env": dict(sorted(env.items()))}


def changed(root: Path, deps: dict | None, env: dict | None = None) -> str | None:
    """The first recorded input that differs now, as a short reason; None when all agree.

    `env` is the environment a kernel would get now (default: os.environ).
    """
    if not deps:
        return None
    root = Path(root)
    env = os.environ if env is None else env
    for rel, digest in (deps.get("files") or {}).items():
        path = _inside(root, rel)
        now = file_digest(path) if path is not None else None
        if now != digest:
            what = "appeared" if digest is None else "was removed" if now is None else "changed"
            return f"{rel} {what}"
    for rel, digest in (deps.get("dirs") or {}).items():
        path = _inside(root, rel)
        if (dir_digest(path) if path is not None else None) != digest:
            return f"the listing of {rel}/ changed"
    for name, value in (deps.get("env") or {}).items():
        if env.get(name) != value:
            return f"environment variable {name} changed"
    return None
