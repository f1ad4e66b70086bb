"""A chapter's observed inputs: snapshot them after a run, verify them before reuse.

The kernel reports what the run touched (`observe_side.observed`) as facts of
`facts_side` with their value at the first touch. `snapshot` turns that into
what a cache entry keeps:

    {"facts": {key: value},   every fact, as it must be found again to reuse the run
     "products": [key, ...],  files the run created or truncated (their final content)
     "opaque": [{"reason", "step", "line"}, ...],  what could not be observed
     "unstable": reason | None}   an input that changed while the run went on

plus a ``dist NAME`` fact for every top-level module the run had imported from
site-packages (the providing distribution and its version). A run is stored only
when it is not `unstable`; it is reused only when it is not opaque (or the
chapter declares its inputs: `declared`) and `changed` finds every fact as
recorded. Stdlib only: a fully cached check verifies every chapter's inputs.
"""
from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

from bookcheck.run import facts_side
from bookcheck.run.facts_side import Facts

EMPTY = {"facts": {}, "products": [], "opaque": [], "unstable": None}


def _normalise(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


_dists: dict[str, str] | None = None       # per process: top-level module -> "dist version"
_dist_infos: list[tuple[str, str, str]] = []
_installed: set[str] = set()                # "dist version" of every distribution found


def _scan() -> None:
    global _dists
    _dists = {}
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as listing:
                for item in listing:
                    stem, _, suffix = item.name.rpartition(".")
                    if suffix == "dist-info" and "-" in stem:
                        dist, _, version = stem.partition("-")
                        _dist_infos.append((dist, version, item.path))
                        _installed.add(f"{dist} {version}")
                        _dists.setdefault(_normalise(dist), f"{dist} {version}")
        except OSError:
            continue


def distribution(top: str) -> str | None:
    """"dist version" of the installed distribution providing top-level module `top`."""
    if _dists is None:
        _scan()
    key = _normalise(top)
    if key in _dists:
        return _dists[key]
    for dist, version, path in _dist_infos:         # names that differ (yaml: PyYAML)
        for listing in ("top_level.txt", "RECORD"):
            try:
                text = Path(path, listing).read_text(encoding="utf-8")
            except OSError:
                continue
            tops = {line.split("/")[0].split(",")[0].split(".")[0] for line in text.splitlines()}
            if top in tops:
                _dists[key] = f"{dist} {version}"
                return _dists[key]
    _dists[key] = None
    return None


def forget_distributions() -> None:
    """Drop the per-process distribution table (tests that fake an upgrade)."""
    global _dists
    _dists = None
    _dist_infos.clear()
    _installed.clear()


def _still_installed(recorded) -> bool:
    """True when the recorded "dist version" is still installed (no mapping needed)."""
    if _dists is None:
        _scan()
    return isinstance(recorded, str) and recorded in _installed


def _what(key: str, old, new) -> str:
    kind, _, where = key.partition(" ")
    if kind == "env":
        return f"environment variable {where} changed"
    if kind == "environ":
        return "the set of environment variables changed"
    if kind == "dist":
        return f"the package providing {where} changed ({old} → {new})"
    if kind == "list":
        return f"the listing of {where}/ changed"
    if kind == "meta":
        return f"the installed packages in {where}/ changed"
    if kind == "find":
        return f"a module looked for in {where}/ appeared or changed ({', '.join(old[1][:3])})"
    if kind == "link":
        return f"the link {where} changed"
    if kind in ("stat", "lstat"):
        return f"{where} " + ("appeared" if old is None else "was removed" if new is None
                              else "changed (its mode, size or time)")
    if kind == "tree":
        return f"an installed module under {where} changed"
    return f"{where} " + ("appeared" if old is None else "was removed" if new is None else "changed")


def snapshot(root: Path, observed: dict | None, env: dict | None = None) -> dict:
    """What a cache entry keeps of a run's observation (see the module docstring)."""
    observed = observed or {}
    facts = Facts(str(Path(root).resolve()), env if env is not None else {})
    first = dict(observed.get("facts") or {})
    products = set(observed.get("products") or [])
    out: dict = {}
    unstable = None
    for key, value in first.items():
        if key.startswith(("env ", "environ ")):
            out[key] = value
            continue
        now = facts.value(key, value)
        if key not in products and now != value and unstable is None:
            unstable = f"{_what(key, value, now).rsplit(' ', 1)[0]} changed while the chapter ran"
        out[key] = now
    for top in observed.get("dists") or []:
        out[f"dist {top}"] = distribution(top)
    return {"facts": dict(sorted(out.items())), "products": sorted(products),
            "opaque": list(observed.get("opaque") or []), "unstable": unstable}


def declared(root: Path, folder: str, patterns: list[str]) -> dict:
    """Facts for the inputs a chapter declares (paths or globs, relative to its folder):
    each glob's matches (a `list`-like fact of the pattern) and each match's content;
    a match that is a folder stands for everything under it: the listing of it and of
    every folder below (a file added or removed anywhere) and each file's content.
    Links to folders are followed (each real folder once); the checker's own state
    (`facts_side.SKIP_NAMES`) is left out, as in every listing."""
    root = Path(root).resolve()
    facts: dict = {}
    base = root / folder
    now = Facts(str(root), {})

    def fact(kind: str, path: str) -> None:
        key = f"{kind} {facts_side.stored(str(root), path)}"
        facts[key] = now.value(key)

    for pattern in patterns:
        full = pattern if os.path.isabs(pattern) else str(base / pattern)
        matches = sorted(glob.glob(full, recursive=True))
        facts[f"glob {facts_side.stored(str(root), os.path.normpath(full))}"] = [
            facts_side.stored(str(root), os.path.normpath(m)) for m in matches]
        for match in matches:
            path = os.path.normpath(match)
            fact("path", path)
            seen: set[str] = set()
            for where, dirs, names in os.walk(path, followlinks=True) if os.path.isdir(path) else ():
                real = os.path.realpath(where)
                dirs[:] = [] if real in seen else sorted(d for d in dirs if d not in facts_side.SKIP_NAMES)
                if real not in seen:
                    seen.add(real)
                    fact("list", where)
                    for name in sorted(names):
                        fact("path", os.path.join(where, name))
    return facts


def changed(root: Path, deps: dict | None, env: dict | None = None,
            facts: Facts | None = None) -> str | None:
    """The first recorded input that differs now, as a short reason; None when all agree.

    `env` is the environment a kernel would get now (default: os.environ); `facts`
    a Facts table shared by the chapters of one check (one listing per directory).
    """
    if not deps:
        return None
    env = os.environ if env is None else env
    facts = facts or Facts(str(Path(root).resolve()), env)
    for key, value in (deps.get("facts") or {}).items():
        kind, _, where = key.partition(" ")
        if kind == "dist":
            now = value if _still_installed(value) else distribution(where)
        elif kind == "glob":
            now = [facts_side.stored(facts.root, os.path.normpath(m))
                   for m in sorted(glob.glob(facts_side.absolute(facts.root, where), recursive=True))]
        else:
            now = facts.value(key, value)
        if now != value:
            return _what(key, value, now)
    return None


def paths(deps: dict | None) -> set[str]:
    """The stored paths a run's facts are about (files, listed folders, lookups)."""
    found = set()
    for key in (deps or {}).get("facts") or {}:
        kind, _, where = key.partition(" ")
        if kind in ("path", "link", "stat", "lstat", "list", "find", "meta"):
            found.add(where)
    return found
