"""The one store of every cache: entries under the build folder, keyed on their
inputs and on the code that produced them.

`BUILD` names the build folder once; `Store(root, name, code)` is one cache,
the folder `BUILD/name/`. An entry is a file named by its key (the `digest` of
its inputs, or a fixed name for a cache's single record) holding one header
line, ``code checksum``, then the payload. `code` is the `code_digest` of
the modules that produce the entries: their import closure within this package
(`bookcheck`), read from the source files, so an edit to any module an
entry could depend on makes every entry of that cache a miss, with no version
to bump and no list of files to keep. An entry of other code (the store's own included), or
whose payload fails its checksum (a torn or edited file) is deleted and is a
miss, never an error. Writes are atomic (bookcheck.files.atomic_write); a store
that cannot be written costs time, never correctness.

Stdlib only, imports nothing from the stages (any stage may use it), and cheap:
a fully cached `make check` computes every key (a code digest once per process).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from bookcheck.files import atomic_write

# The checker's state in a book's folder (caches, stamps, records; numbers.lock is the
# book's own file, beside _quarto.yml). A name of its own: a book's `output-dir` is
# often `_build/...` (the upstream book's `_build/html`), which Quarto empties on a full
# render; `_` keeps Quarto from rendering or publishing anything inside.
BUILD = "_bookcheck"
PROJECT = Path(__file__).resolve().parents[1]       # the folder holding the package
PACKAGES = ("bookcheck",)
IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)"
                    r"|import[ \t]+([^\n#]+))", re.M)


def build_dir(root: Path) -> Path:
    return Path(root) / BUILD


def _plain(value):
    return hashlib.sha256(value).hexdigest() if isinstance(value, bytes) else str(value)


def canonical(data) -> bytes:
    """Sorted compact JSON (bytes anywhere: by their sha256; other objects: str)."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), default=_plain).encode("utf-8")


def digest(*parts) -> str:
    """sha256 (hex) of the canonical JSON of parts."""
    return hashlib.sha256(canonical(parts if len(parts) != 1 else parts[0])).hexdigest()


def file_digest(path, missing: str = "missing") -> str:
    """sha256 (hex) of a regular file's bytes; `missing` when it is not one."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest() if Path(path).is_file() else missing
    except OSError:
        return missing


def stamp(path) -> str:
    """A version stamp of an installed tool (a directory or a binary): each file's
    size and mtime, not its bytes (binaries are large and read by nothing else)."""
    if not path:
        return "-"
    path = Path(path)
    rows = []
    for f in sorted(path.rglob("*")) if path.is_dir() else [path]:
        try:
            if "__pycache__" not in f.parts and (f.is_file() or not path.is_dir()):
                st = f.stat()
                rows.append(f"{f.name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            continue
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]


def write_json(path: Path, value) -> Path:
    """A JSON file that is not a cache entry (a shard's partial result), atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(value, ensure_ascii=False, sort_keys=True) + "\n")
    return path


# ------------------------------------------------------------------ code

_files: dict[tuple, list[Path]] = {}    # per process: (module, whole) -> its source files
_closure: dict[tuple, str] = {}
_parsed: dict[Path, tuple[str, set[str]]] = {}


def _sources(name: str, whole: bool) -> list[Path]:
    """The files of a project module ([] outside the project); of a package, its
    __init__.py, or when `whole`, every file under its folder (Lua filters too)."""
    if (name, whole) not in _files:
        base = PROJECT.joinpath(*name.split("."))
        if name.split(".")[0] not in PACKAGES:
            found = []
        elif base.is_dir() and whole:
            found = sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                           and not p.name.endswith((".pyc", ".tmp")))
        else:
            found = [p for p in (base / "__init__.py", base.with_suffix(".py")) if p.is_file()]
        _files[name, whole] = found
    return _files[name, whole]


def _imports(path: Path, text: str) -> set[str]:
    """Project modules a source file imports (at any depth of its code: lazy ones too)."""
    package = os.path.relpath(path.parent, PROJECT).split(os.sep)
    found = set()
    for source, names, plain in IMPORT.findall(text):
        if plain:
            found.update(n.split()[0] for n in plain.split(",") if n.strip())
            continue
        dots = len(source) - len(source.lstrip("."))
        if dots:                                    # relative: from its package up
            source = ".".join(package[:len(package) - dots + 1] + [source[dots:]]).rstrip(".")
        if source.partition(".")[0] in PACKAGES:
            found.add(source)
            found.update(f"{source}.{n.split()[0]}" for n in names.strip("()").split(",") if n.split())
    return found | {n[:i] for n in found for i, c in enumerate(n) if c == "."}  # and packages


def code_digest(*modules: str) -> str:
    """Digest of the source of `modules` (a package: all its files) and of every
    project module they import, transitively (memoised per process). A module named
    outside the package is an error: its digest would be empty, and the cache blind to
    every edit of the code it names."""
    outside = [m for m in modules if m.split(".")[0] not in PACKAGES]
    if outside:
        raise ValueError(f"code_digest: {', '.join(outside)} is not a module of {', '.join(PACKAGES)}")
    if modules not in _closure:
        todo, seen, files = [(m, True) for m in modules], set(), {}
        while todo:
            name, whole = todo.pop()
            if (name, whole) in seen:
                continue
            seen.add((name, whole))
            for path in _sources(name, whole):
                if path not in files:
                    files[path], imports = _read(path)
                    todo.extend((n, False) for n in imports)
        _closure[modules] = digest(sorted((p.relative_to(PROJECT).as_posix(), h)
                                          for p, h in files.items()))
    return _closure[modules]


def _read(path: Path) -> tuple[str, set[str]]:
    """(sha256, project modules imported) of one source file, once per process."""
    if path not in _parsed:
        data = path.read_bytes()
        imports = _imports(path, data.decode("utf-8", errors="replace")) if path.suffix == ".py" else set()
        _parsed[path] = (hashlib.sha256(data).hexdigest(), imports)
    return _parsed[path]


def forget_code() -> None:
    """Drop the per-process code digests (tests that edit a module)."""
    _files.clear()
    _closure.clear()
    _parsed.clear()


# ------------------------------------------------------------------ entries

class Store:
    """One cache: the entries under `root/BUILD/name/`, made by the code of `code`."""

    def __init__(self, root: Path, name: str, code: tuple[str, ...] = (), *extra):
        self.dir = build_dir(root) / name
        self.code = digest(code_digest(__name__, *code), *extra)    # this layout too
        self.used: set[str] = set()

    def key(self, *parts) -> str:
        """The key of an entry of these inputs (and this code)."""
        return digest(self.code, *parts)

    def path(self, key: str) -> Path:
        return self.dir / key

    def get(self, key: str) -> bytes | None:
        """The payload stored under `key`; None (and the entry deleted) when it is
        missing, of other code, or fails its checksum."""
        try:
            raw = self.path(key).read_bytes()
        except OSError:
            return None
        header, _, payload = raw.partition(b"\n")
        if header != self._header(payload):
            self.discard(key)
            return None
        self.used.add(key)
        return payload

    def put(self, key: str, data: bytes | str) -> None:
        payload = data.encode("utf-8") if isinstance(data, str) else data
        self.used.add(key)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path(key), self._header(payload) + b"\n" + payload)
        except OSError:
            pass

    def get_json(self, key: str, default=None):
        data = self.get(key)
        try:
            return default if data is None else json.loads(data)
        except ValueError:
            return default

    def put_json(self, key: str, value) -> None:
        self.put(key, json.dumps(value, ensure_ascii=False, default=_plain))

    def keep(self, key: str) -> None:
        """Keep an entry this run did not read (`prune` forgets the others)."""
        self.used.add(key)

    def prune(self, keep: set[str] | None = None) -> int:
        """Delete the entries not in `keep` (default: those used) but records (names
        starting with "."), and stray temp files; the count removed."""
        keep = self.used if keep is None else keep
        removed = 0
        try:
            names = [p.name for p in self.dir.iterdir()]
        except OSError:
            return 0
        for name in names:
            if name.endswith(".tmp") or (name not in keep and not name.startswith(".")):
                removed += self.discard(name)
        return removed

    def clear(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def _header(self, payload: bytes) -> bytes:
        return b" ".join((self.code.encode(), hashlib.sha256(payload).hexdigest().encode()))

    def discard(self, name: str) -> int:
        """Delete one entry (1 when there was one)."""
        try:
            os.unlink(self.path(name))
            return 1
        except OSError:
            return 0
