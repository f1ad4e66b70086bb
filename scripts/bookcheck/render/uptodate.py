"""`make html` with nothing changed: recognised without checking or rendering again.

A successful `bookcheck html` leaves a stamp (a record of the store's
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
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from bookcheck import store

SKIPPED_NAMES = frozenset({".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis"})
SHELL_BOOKKEEPING = frozenset({"_", "OLDPWD"})    # set by the shell per command, read by nothing
BUILD_STATE = frozenset({store.BUILD, ".quarto", "_freeze"})  # written at the root by builds
MAX_FILES = 20_000          # a project this large is walked by the full build instead
UPTODATE = "html-uptodate"  # the store folder of the stamp
RECORD = ".stamp"


@dataclass(frozen=True)
class Start:
    """What a build found when it started: its inputs' digest, with the output
    directory it left out of them (None: too many files to stamp), and the value of
    each input outside the project the last build named (`outside_inputs`)."""
    root: Path
    output_dir: str
    digest: str | None
    outside: dict = field(default_factory=dict)
    began_ns: int = field(default_factory=time.time_ns)


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
    from bookcheck.render.incremental import package_dir, tools
    from bookcheck.run.kernelspec import kernel_spec
    root = Path(root).resolve()
    files = _tree(root, SKIPPED_NAMES, BUILD_STATE | {os.path.normpath(output_dir)})
    if files is None:
        return None
    return _stamps(root).key(
        options, files, [sys.executable, sys.version], _installed(),
        [tools(), store.stamp(package_dir("pagefind_bin"))], _quarto(), kernel_spec(),
        sorted((k, v) for k, v in os.environ.items() if k not in SHELL_BOOKKEEPING))


FILE_FACTS = ("path", "link", "list", "find", "meta")   # facts about a file or folder
AT_START = "at the start"       # an input whose value the build's start must supply


def _untracked(stored: str) -> bool:
    """A fact's path the project walk (`_tree`) does not see: outside the project (stored
    absolute) or in a folder it skips (.git, .venv …)."""
    return stored.startswith("/") or any(part in SKIPPED_NAMES for part in stored.split("/"))


def outside_inputs(result) -> dict | None:
    """Every input of the build the project walk does not see, as the keys of the cache's
    facts (bookcheck.run.facts_side) with the value the build depended on: what each run
    recorded (a file a chapter read beside the book, a folder it listed), and the
    configuration, bibliography and CSL files outside the project (`metadata-files:
    ../shared.yml`), whose value the build's start supplies (AT_START). None when a run
    saw an input change while it ran: no stamp can say which version the pages show."""
    from bookcheck.run.facts_side import stored
    root = str(Path(result.project.root).resolve())
    found: dict = {}
    for run in result.runs.values():
        deps = run.deps or {}
        if deps.get("unstable"):
            return None
        for key, value in (deps.get("facts") or {}).items():
            kind, _, where = key.partition(" ")
            if kind in FILE_FACTS and _untracked(where):
                found[key] = value
    for rel in result.project.named_files():
        where = stored(root, os.path.normpath(os.path.join(root, rel)))
        if _untracked(where):
            found[f"path {where}"] = AT_START
    return found


def _outside_now(root: Path, recorded: dict) -> dict:
    """The value now of each recorded input outside the project walk."""
    from bookcheck.run.facts_side import Facts
    facts = Facts(str(Path(root).resolve()), {})
    return {key: facts.value(key, value) for key, value in recorded.items()}


def _unchanged_since(start: Start, key: str):
    """The value of a file input now if it has not changed since the build began (its
    ctime a second before that: file systems keep coarse times), else AT_START."""
    from bookcheck.run.facts_side import absolute
    try:
        changed = os.stat(absolute(str(Path(start.root).resolve()), key.partition(" ")[2])).st_ctime_ns
    except OSError:
        return AT_START
    if changed >= start.began_ns - 1_000_000_000:
        return AT_START
    return _outside_now(start.root, {key: None})[key]


def output_listing(out: Path) -> str | None:
    """A digest of the output directory's files as they are now (None: too many)."""
    rows = _tree(Path(out)) if Path(out).is_dir() else []
    return None if rows is None else store.digest(rows)


def _stamps(root: Path) -> store.Store:
    return store.Store(root, UPTODATE, ("bookcheck",))


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
    outside = stamp.get("outside") if isinstance(stamp.get("outside"), dict) else {}
    start = Start(Path(root), output_dir, inputs_digest(root, output_dir, options),
                  _outside_now(root, outside))
    written = all(isinstance(stamp.get(k), str) for k in ("digest", "output", "summary", "produced"))
    if written and start.digest == stamp["digest"] and start.outside == outside \
            and output_listing(Path(root) / output_dir) == stamp["output"]:
        return stamp, start
    forget(root)
    return None, start


def record(start: Start, output_dir: str, summary: str, produced: str,
           outside: Mapping | None = MappingProxyType({})) -> None:
    """After a successful build: write the stamp. Built into another output directory
    than `start` left out of its digest (the config changed it), only that directory
    is recorded, for the next build to leave out. `outside` (`outside_inputs`): the
    inputs beyond the project walk, each with the value the build depended on (a
    configuration file this build named first: its value now, when it has not changed
    since the build began). One whose value at the start cannot be known, or None,
    leaves a stamp the next build does not trust (it builds, and records again)."""
    digest = start.digest if output_dir == start.output_dir else None
    known = {}
    for key, value in (outside or {}).items():      # (None: not known, below)
        known[key] = start.outside[key] if value == AT_START and key in start.outside else value
        if known[key] == AT_START:
            known[key] = _unchanged_since(start, key)
            digest = None if known[key] == AT_START else digest
    if outside is None:
        digest = None
    _stamps(start.root).put_json(RECORD, {
        "output_dir": output_dir, "digest": digest, "output": output_listing(start.root / output_dir),
        "summary": summary, "produced": produced, "outside": known})


def forget(root: Path) -> None:
    _stamps(root).discard(RECORD)
