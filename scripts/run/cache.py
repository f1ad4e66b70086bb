"""Per-chapter cache of executed results under `_build/cache/`.

A chapter's key is a sha256 over everything its results can depend on that is
known before it runs:

- what the chapter executes, not its prose (`scripts.run.fingerprint`): its
  path, front matter, code cells with their cascaded options, inline
  expressions and where they sit between the cells;
- every file under `mlsys/` (sorted relative paths and their bytes),
- the Python version, the versions of the checker-side packages that collect
  a kernel's outputs (nbclient, jupyter_client) and the bytes of the code the
  checker runs inside each kernel (`*_side.py`),
- the kernel: name and argv of the `python3` kernelspec,
- every execute option the checker passes in (the per-cell timeout, the
  project's `execute:` options, the figure format).

Everything else a chapter depends on is only known after it ran: the kernel
observes the run (files opened, stat-ed or listed, modules looked for,
environment variables, the distribution of every imported package: see
`scripts.run.observe_side`), the entry keeps those facts (`ChapterRun.deps`,
`scripts.run.deps`) and the scheduler re-executes the chapter when any of them
differs (`deps.changed`); a run that could not be observed completely is not
stored (`schedule.storable`). A prose-only edit keeps the key; the cached
findings are moved to the new line numbers (`fingerprint.remap_run` with the
stored `ChapterRun.anchors`).

An entry `_build/cache/<key>.json` holds ``{"key", "checksum", "run"}`` where
`checksum` is the sha256 of the canonical JSON of `run`. An entry that does not
parse, belongs to another key or fails its checksum is deleted and treated as
missing: never trusted. Writes go to a temp file in the same directory and are
moved into place with os.replace, so a reader sees a whole entry or none; a
torn write (power loss) fails its checksum and is recomputed. After a complete
run, entries no chapter used are pruned.

Stdlib only, and fast: a fully cached `make check` computes every key.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

from scripts.files import atomic_write
from scripts.model import ChapterRun, ParsedChapter
from scripts.run.fingerprint import execution_digest
from scripts.run.forkserver import MPL_BACKEND, REPRODUCIBLE_ENV, SIDE_MODULES
from scripts.run.kernelspec import kernel_spec

CACHE_DIR = Path("_build") / "cache"
FORMAT_VERSION = 4   # bump when the entry layout or the key recipe changes

# Checker-side distributions that turn a kernel's replies into outputs (the packages
# a chapter imports are facts of its run: `dist NAME`, scripts.run.deps).
PACKAGES = ("nbclient", "jupyter_client")
# What runs inside a kernel and what it is started with: every file of the kernel's
# side, and the environment the checker gives it besides the author's.
SIDE_FILES = (*SIDE_MODULES.values(), "forkserver_side.py")

_environment_digest: str | None = None   # per process: versions cannot change under us


# ------------------------------------------------------------------ the key

def _normalise(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def package_versions(names=PACKAGES) -> dict[str, str]:
    """Installed version of each distribution ("" when not installed).

    Reads the `<name>-<version>.dist-info` directory names on sys.path, which is
    what importlib.metadata consults, without its ~50 ms import; falls back to
    importlib.metadata for anything the scan did not find (e.g. egg installs).
    """
    wanted = {_normalise(n): n for n in names}
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as listing:
                for item in listing:
                    stem, dot, suffix = item.name.rpartition(".")
                    if suffix != "dist-info" or "-" not in stem:
                        continue
                    dist, _, version = stem.partition("-")
                    name = wanted.get(_normalise(dist))
                    if name and name not in found:
                        found[name] = version
        except OSError:
            continue
    missing = [n for n in names if n not in found]
    if missing:
        from importlib import metadata
        for name in missing:
            try:
                found[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                found[name] = ""
    return {name: found[name] for name in names}


def environment_digest() -> str:
    """Digest of Python, package versions and kernelspec; computed once per process."""
    global _environment_digest
    if _environment_digest is None:
        here = Path(__file__).parent
        side = hashlib.sha256(b"".join((here / name).read_bytes() for name in SIDE_FILES))
        facts = {"python": sys.version, "implementation": sys.implementation.name,
                 "packages": package_versions(), "kernel": kernel_spec(),
                 "side": side.hexdigest(), "kernel_env": [MPL_BACKEND, REPRODUCIBLE_ENV]}
        _environment_digest = _sha256_json(facts)
    return _environment_digest


def forget_environment() -> None:
    """Drop the per-process environment digest (tests that fake a version change)."""
    global _environment_digest
    _environment_digest = None


def mlsys_digest(root: Path) -> str:
    """sha256 over the sorted relative paths and bytes of every file under root/mlsys."""
    digest = hashlib.sha256()
    base = Path(root) / "mlsys"
    files = []
    for folder, dirs, names in os.walk(base, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files.extend(Path(folder) / n for n in names if not n.endswith((".pyc", ".pyo")))
    for path in sorted(files, key=lambda p: p.relative_to(base).as_posix()):
        data = path.read_bytes()
        rel = path.relative_to(base).as_posix().encode()
        digest.update(b"%d:%s%d:" % (len(rel), rel, len(data)))
        digest.update(data)
    return digest.hexdigest()


def chapter_key(root: Path, parsed: ParsedChapter, options: dict | None = None,
                *, mlsys: str | None = None) -> str:
    """The cache key of one chapter (hex sha256).

    `options` are the execute options that affect results (timeout, execute:, …);
    prose is not part of the key (see the module docstring).
    `mlsys` lets a caller keying many chapters pass `mlsys_digest(root)` once.
    """
    parts = {
        "format": FORMAT_VERSION,
        "execution": execution_digest(parsed),
        "mlsys": mlsys if mlsys is not None else mlsys_digest(root),
        "environment": environment_digest(),
        "options": options or {},
    }
    return _sha256_json(parts)


def _canonical(data) -> bytes:
    return json.dumps(data, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), default=str).encode("utf-8")


def _sha256_json(data) -> str:
    return hashlib.sha256(_canonical(data)).hexdigest()


# ------------------------------------------------------------------ entries

def cache_dir(root: Path) -> Path:
    return Path(root) / CACHE_DIR


def entry_path(root: Path, key: str) -> Path:
    return cache_dir(root) / f"{key}.json"


def _discard(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def load(root: Path, key: str) -> ChapterRun | None:
    """The cached run for `key`, marked `cached=True`; None when missing or not intact.

    A damaged entry (bad JSON, wrong key, checksum mismatch, wrong shape) is deleted.
    """
    path = entry_path(root, key)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        entry = json.loads(raw)
        payload = entry["run"]
        if entry.get("key") != key or entry.get("format") != FORMAT_VERSION:
            raise ValueError("entry for another key or format")
        if entry.get("checksum") != hashlib.sha256(_canonical(payload)).hexdigest():
            raise ValueError("checksum mismatch")
        run = ChapterRun.from_dict(payload)
    except (ValueError, KeyError, TypeError, AttributeError):
        _discard(path)
        return None
    run.cache_key = key
    run.cached = True
    return run


def store(root: Path, key: str, run: ChapterRun) -> None:
    """Write the entry for `key` atomically (temp file in the cache dir + os.replace)."""
    folder = cache_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    payload = run.to_dict()
    payload["cache_key"] = key
    payload["cached"] = False
    entry = {"format": FORMAT_VERSION, "key": key,
             "checksum": hashlib.sha256(_canonical(payload)).hexdigest(), "run": payload}
    atomic_write(folder / f"{key}.json", _canonical(entry))


def prune(root: Path, keep: set[str]) -> int:
    """Delete entries whose key is not in `keep` and stray temp files; returns the count."""
    folder = cache_dir(root)
    removed = 0
    if not folder.is_dir():
        return 0
    for path in folder.iterdir():
        stray = path.name.endswith(".tmp")
        stale = path.suffix == ".json" and path.stem not in keep
        if stray or stale:
            _discard(path)
            removed += 1
    return removed


def clear(root: Path) -> None:
    """Remove the whole cache directory."""
    shutil.rmtree(cache_dir(root), ignore_errors=True)
