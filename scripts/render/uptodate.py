"""`make html` with nothing changed: recognised without checking or rendering again.

A successful `python -m scripts html` leaves a stamp (a record of the store's
`html-uptodate` cache) holding a digest of everything the build could have
depended on, taken when the build *started* (a file saved while it ran makes the
next build a full one), and a listing of the output directory as the build left
it; what the digest holds, and why it is never weaker than the per-chapter cache,
is docs/performance.md (item 6). Any build first deletes the stamp, and only a
build that checked and rendered without a finding writes one; `--force`, `--json`
and GitHub Actions never use it.

Stdlib and cheap modules only: the check's imports (YAML, Jupyter) are what
this avoids.
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from scripts import store

SKIPPED_NAMES = frozenset({".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis"})
SHELL_BOOKKEEPING = frozenset({"_", "OLDPWD"})    # set by the shell per command, read by nothing
BUILD_STATE = frozenset({store.BUILD, ".quarto", "_freeze"})  # written at the root by builds
MAX_FILES = 20_000          # a project this large is walked by the full build instead
RECORD = ".stamp"


@dataclass(frozen=True)
class Start:
    """What a build found when it started: its inputs' digest, with the output
    directory it left out of them (None: too many files to stamp)."""
    root: Path
    output_dir: str
    digest: str | None


def usable(options: dict) -> bool:
    """The stamp may stand in for this build (see the module docstring)."""
    return (not options.get("force") and not options.get("json")
            and os.environ.get("GITHUB_ACTIONS") != "true")


def _tree(base: Path, names_skipped: frozenset = frozenset(),
          paths_skipped: frozenset = frozenset()) -> list | None:
    """(relative path, size, mtime_ns, ctime_ns, inode) of every file under `base`,
    and the path of every folder; symlinked folders followed once, folders with a
    skipped name (anywhere) or relative path left out; None past MAX_FILES."""
    rows, seen = [], set()
    base = str(base)
    for folder, dirs, names in os.walk(base, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        here = folder[len(base) + 1:]           # os.walk joins names onto `base`
        dirs[:] = sorted(d for d in dirs if d not in names_skipped
                         and os.path.join(here, d) not in paths_skipped)
        rows.append([here + "/"])               # (an empty folder changes a listing too)
        for name in sorted(names):
            try:
                st = os.stat(os.path.join(folder, name))
            except OSError:
                st = None
            rel = os.path.join(here, name)
            rows.append([rel] + ([st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino] if st else []))
            if len(rows) > MAX_FILES:
                return None
    return rows


def _installed() -> list:
    """(folder, name, inode, ctime_ns) of every entry of each site-packages (or
    dist-packages) folder on the import path."""
    rows = []
    for folder in sys.path:
        if not folder.endswith(("site-packages", "dist-packages")):
            continue
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            try:
                st = os.stat(os.path.join(folder, name))
                rows.append([folder, name, st.st_ino, st.st_ctime_ns])
            except OSError:
                rows.append([folder, name])
    return rows


def _quarto() -> list:
    """The Quarto on PATH ([] without one): its resolved launcher, every file in the
    launcher's folder (its bundled tools), and its version file, with their sizes
    and mtimes: what a reinstall or another Quarto changes."""
    exe = shutil.which("quarto")
    if exe is None:
        return []
    launcher = Path(exe).resolve()
    install = launcher.parent.parent
    versions = [install / "share" / "version",                  # a release's layout
                install / "src" / "resources" / "version"]      # a build from the sources
    return [str(launcher), store.stamp(launcher), store.stamp(launcher.parent)] + \
        [[str(v), v.read_text(encoding="utf-8", errors="replace").strip(), store.stamp(v)]
         for v in versions if v.is_file()]


def inputs_digest(root: Path, output_dir: str, options: dict) -> str | None:
    """The digest of everything a build at `root` depends on (docs/performance.md, item 6)."""
    from scripts.render.incremental import package_dir, tools
    from scripts.run.kernelspec import kernel_spec
    root = Path(root).resolve()
    files = _tree(root, SKIPPED_NAMES, BUILD_STATE | {os.path.normpath(output_dir)})
    if files is None:
        return None
    return _stamps(root).key(
        options, files, [sys.executable, sys.version], _installed(),
        [tools(), store.stamp(package_dir("pagefind_bin"))], _quarto(), kernel_spec(),
        sorted((k, v) for k, v in os.environ.items() if k not in SHELL_BOOKKEEPING))


def output_listing(out: Path) -> str | None:
    """A digest of the output directory's files as they are now (None: too many)."""
    rows = _tree(Path(out)) if Path(out).is_dir() else []
    return None if rows is None else store.digest(rows)


def _stamps(root: Path) -> store.Store:
    return store.Store(root, "html-uptodate", ("scripts",))


def stamp_path(root: Path) -> Path:
    return _stamps(root).path(RECORD)


def _read(root: Path) -> dict:
    stamp = _stamps(root).get_json(RECORD, {})
    return stamp if isinstance(stamp, dict) else {}


def begin(root: Path, options: dict) -> tuple[dict | None, Start]:
    """(stamp, start): the stamp (its "summary" and "produced") when nothing changed
    since it was written, else None, the stamp forgotten and a build due; `start`
    holds the inputs as they are now, for `record` after that build."""
    stamp = _read(root)
    output_dir = stamp.get("output_dir")
    output_dir = output_dir if isinstance(output_dir, str) else "_book"
    start = Start(Path(root), output_dir, inputs_digest(root, output_dir, options))
    written = all(isinstance(stamp.get(k), str) for k in ("digest", "output", "summary", "produced"))
    if written and start.digest == stamp["digest"] \
            and output_listing(Path(root) / output_dir) == stamp["output"]:
        return stamp, start
    forget(root)
    return None, start


def record(start: Start, output_dir: str, summary: str, produced: str) -> None:
    """After a successful build: write the stamp. Built into another output directory
    than `start` left out of its digest (the config changed it), only that directory
    is recorded, for the next build to leave out."""
    digest = start.digest if output_dir == start.output_dir else None
    _stamps(start.root).put_json(RECORD, {
        "output_dir": output_dir, "digest": digest, "output": output_listing(start.root / output_dir),
        "summary": summary, "produced": produced})


def forget(root: Path) -> None:
    _stamps(root).discard(RECORD)
