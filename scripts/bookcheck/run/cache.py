"""Per-chapter cache of executed results under `_bookcheck/cache/`.

A chapter's key is a sha256 over everything its results can depend on that is
known before it runs:

- what the chapter executes, not its prose (`bookcheck.run.fingerprint`): its
  path, front matter, code cells with their cascaded options, inline
  expressions and where they sit between the cells;
- every file of the book's own packages (`facts_side.book_packages`: the folders
  beside _quarto.yml holding an __init__.py; not observed, so keyed whole),
- the Python version, the versions of the checker-side packages that collect
  a kernel's outputs (nbclient, jupyter_client), the kernel (name and argv of
  the `python3` kernelspec),
- the checker's own code: `bookcheck.run` (the code run inside each kernel too)
  and every project module it imports (`bookcheck.store.code_digest`), so an edit
  to any of them runs every chapter again, with no version to bump;
- every execute option the checker passes in (the per-cell timeout, the
  project's `execute:` options, the figure format).

Everything else a chapter depends on is only known after it ran: the facts the
kernel observes (docs/performance.md, "What the cache observes"), kept in the
entry (`ChapterRun.deps`) and compared before reuse (`deps.changed`). A
prose-only edit keeps the key; the cached findings move to the new lines
(`fingerprint.remap_run`).

An entry `_bookcheck/cache/<key>` is a `bookcheck.store` entry holding the run's
canonical JSON: one that is damaged, of another key's run or not a run is
deleted and treated as missing, never trusted; writes are atomic. After a
complete run, entries no chapter used are pruned.

Stdlib only, and fast: a fully cached `make check` computes every key.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from bookcheck import store as _store
from bookcheck.model import ChapterRun, ParsedChapter
from bookcheck.run import deps, facts_side
from bookcheck.run.fingerprint import execution_digest
from bookcheck.run.kernelspec import kernel_spec

# Checker-side distributions that turn a kernel's replies into outputs (the packages
# a chapter imports are facts of its run: `dist NAME`, bookcheck.run.deps).
PACKAGES = ("nbclient", "jupyter_client")
CODE = ("bookcheck.run",)         # the code that produces a chapter's run
CACHE = "cache"                   # the store folder of the runs

_environment_digest: str | None = None   # per process: versions cannot change under us


# ------------------------------------------------------------------ the key

def package_versions(names=PACKAGES) -> dict[str, str]:
    """Installed version of each distribution ("" when not installed)."""
    return {name: (deps.distribution(name) or " ").partition(" ")[2] for name in names}


def environment_digest() -> str:
    """Digest of Python, package versions and kernelspec; computed once per process."""
    global _environment_digest
    if _environment_digest is None:
        _environment_digest = _store.digest(
            sys.version, sys.implementation.name, package_versions(), kernel_spec())
    return _environment_digest


def forget_environment() -> None:
    """Drop the per-process environment digest (tests that fake a version change)."""
    global _environment_digest
    _environment_digest = None


def packages_digest(root: Path) -> str:
    """Digest of the sorted relative paths and bytes of every regular file of the
    book's own packages (`facts_side.book_packages`: not observed, keyed whole)."""
    files = []
    for name in facts_side.book_packages(str(root)):
        base = Path(root) / name
        for folder, dirs, names in os.walk(base, followlinks=True):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            files += [Path(folder) / n for n in names if not n.endswith((".pyc", ".pyo"))
                      and (Path(folder) / n).is_file()]     # not an editor's dangling lock link, a FIFO
    return _store.digest(sorted((p.relative_to(root).as_posix(), _store.file_digest(p))
                                for p in files))


def chapter_key(root: Path, parsed: ParsedChapter, options: dict | None = None,
                *, packages: str | None = None) -> str:
    """The cache key of one chapter (hex sha256; its parts: the module docstring).
    `options`: the execute options that affect results (timeout, execute:, …);
    `packages`: `packages_digest(root)`, for a caller keying many chapters."""
    return entries(root).key(execution_digest(parsed), environment_digest(), options or {},
                            packages if packages is not None else packages_digest(root))


# ------------------------------------------------------------------ entries

def entries(root: Path) -> _store.Store:
    return _store.Store(root, CACHE, CODE)


def cache_dir(root: Path) -> Path:
    return entries(root).dir


def load(root: Path, key: str) -> ChapterRun | None:
    """The cached run for `key`, marked `cached=True`; None when missing or not intact
    (a damaged entry, or one holding another key's run or no run, is deleted)."""
    found = entries(root)
    payload = found.get_json(key)
    try:
        if payload is None or payload.get("cache_key") != key:
            raise ValueError("no entry, or the entry of another key")
        run = ChapterRun.from_dict(payload)
    except (ValueError, KeyError, TypeError, AttributeError):
        found.discard(key)
        return None
    run.cache_key = key
    run.cached = True
    return run


def store(root: Path, key: str, run: ChapterRun) -> None:
    """Write the entry for `key` (atomically)."""
    payload = run.to_dict()
    payload["cache_key"] = key
    payload["cached"] = False
    entries(root).put_json(key, payload)


def prune(root: Path, keep: set[str]) -> int:
    """Delete entries whose key is not in `keep` and stray temp files; returns the count."""
    return entries(root).prune(keep)


def clear(root: Path) -> None:
    """Remove the whole cache directory."""
    entries(root).clear()
