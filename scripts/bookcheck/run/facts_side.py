"""Facts about the world a chapter's run depended on, computed the same way in the
kernel (at the first touch, `_qmd_facts`) and in the checker (before reuse).

A fact has a key ``"<kind> <path>"`` and a JSON value; the cache reuses a run
while every fact it recorded still has the recorded value. Kinds:

- ``path P``: what opening or stat-ing P (following links) finds: None (absent),
  "dir", "other" (fifo, device), "big <bytes>" (a file over MAX_FILE_BYTES), or
  the sha256 of the file's bytes;
- ``link P``: P itself, not followed (readlink, islink): "link <target>"
  for a symbolic link, else the ``path`` fact;
- ``stat P``: what a stat (or access) of P asked for, following links: None
  (absent), "d <perm>" for a directory, "f <perm> <size> <mtime_ns>" for a file,
  "o <perm>" for anything else, "error" when it cannot be stat-ed. Not the content:
  a run that only opened and read P does not record it (a `touch` re-runs only the
  runs that asked for the mtime), a run that only stat-ed P does not hash it;
- ``lstat P``: the same of P itself, "l <target>" for a symbolic link;
- ``tree P``: [digest, files]: size and mtime of the installed module files under
  P (a package folder in site-packages, or one loose module) a run imported: an
  installed package edited in place re-runs what imported it;
- ``list P``: the sorted names and types (d, f, l, o) of directory P (None: not one),
  leaving out SKIP_NAMES (``_bookcheck``, bookcheck.store.BUILD, appears when the checker
  first writes its cache);
- ``find P``: [digest, names]: the entries of directory P a lookup of any of
  `names` as a module would find (`name`, `name.*`), None when P is no directory;
- ``meta P``: the package metadata folders (``*.dist-info``, ``*.egg-info``) in P:
  what importlib.metadata's scan of a sys.path folder can see;
- ``env NAME``: the variable's value in the kernel's environment (None: unset);
- ``environ *``: the sorted names of every variable (a run that listed them all);
- ``dist NAME``: "dist version" of the installed distribution that provides
  top-level module NAME (computed by the checker: `bookcheck.run.deps`).

Paths under the root are stored root-relative (POSIX), others absolute.
Stdlib only: it runs inside every kernel, and a fully cached check evaluates it.
"""
import hashlib
import os
import stat as _stat

MAX_FILE_BYTES = 64 << 20       # a larger input makes its run opaque (never reused)
# Not inputs: the checker's state (bookcheck.store.BUILD,
# spelled here: this runs in the kernel), build and output folders.
BUILD_NAME = "_bookcheck"
SKIP_NAMES = (BUILD_NAME, "_build", "_book", ".git", ".venv")
# Set by the shell, the kernel or this checker, and different from run to run by design:
# never facts (a chapter may read them; they never make its entry unusable).
VOLATILE_ENV = frozenset({"PWD", "OLDPWD", "_", "SHLVL", "TERM", "PAGER", "GIT_PAGER",
                          "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "COLUMNS", "LINES",
                          "MPLBACKEND", "PYDEVD_DISABLE_FILE_VALIDATION", "QMD_CHECK_RUN",
                          "PYTHONPATH", "LD_PRELOAD"})
VOLATILE_ENV_PREFIXES = ("JPY_", "QMD_OBSERVE_")
HARMLESS_DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/tty",
                    "/dev/stdin", "/dev/stdout", "/dev/stderr")
SYSTEM_DIRS = ("/proc", "/sys", "/dev")     # the machine's live state: a run reading it is opaque
# ... except where libraries size their thread pools and caches (CPU count and limits,
# memory, this process): not inputs of what a chapter computes.
RESOURCE_PROBES = ("/sys/fs/cgroup", "/sys/devices/system/cpu", "/sys/devices/system/node",
                   "/proc/self", "/proc/thread-self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat")


def book_packages(root):
    """The book's own packages: the folders beside _quarto.yml holding an __init__.py
    (this book's `mlsys`; another book's, whatever its name). The fork server imports
    them before any chapter runs, so they are not observed but keyed whole
    (`bookcheck.run.cache.packages_digest`)."""
    try:
        names = os.listdir(root)
    except OSError:
        return []
    return sorted(n for n in names if n not in SKIP_NAMES and not n.startswith(".")
                  and os.path.isfile(os.path.join(root, n, "__init__.py")))


def resource_probe(path):
    if any(path == p or path.startswith(p + "/") for p in RESOURCE_PROBES):
        return True
    parts = path.split("/")
    return len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit()


def volatile_env(name):
    return name in VOLATILE_ENV or name.startswith(VOLATILE_ENV_PREFIXES)


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def path_fact(path):
    """What following `path` finds (see the module docstring)."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError):
        return "other"
    if _stat.S_ISDIR(info.st_mode):
        return "dir"
    if not _stat.S_ISREG(info.st_mode):
        return "other"
    if info.st_size > MAX_FILE_BYTES:
        return f"big {info.st_size}"
    try:
        return sha256_file(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return "other"


def stat_value(mode, size, mtime_ns, target=None):
    """The `stat`/`lstat` value of what a stat call returned (see the module docstring)."""
    perm = format(_stat.S_IMODE(mode), "o")
    if _stat.S_ISDIR(mode):
        return f"d {perm}"            # (its mtime moves with every file made inside)
    if _stat.S_ISREG(mode):
        return f"f {perm} {size} {mtime_ns}"
    if _stat.S_ISLNK(mode):
        return f"l {target}"
    return f"o {perm}"


def stat_fact(path, follow=True):
    try:
        info = os.stat(path) if follow else os.lstat(path)
        target = os.readlink(path) if _stat.S_ISLNK(info.st_mode) else None
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError):
        return "error"
    return stat_value(info.st_mode, info.st_size, info.st_mtime_ns, target)


def tree_fact(root, files, memo=None):
    """[digest of (file, size, mtime_ns) of `files` (relative to `root`), files]."""
    digest = hashlib.sha256()
    for name in files:
        path = os.path.join(root, name) if name else root
        seen = memo.get(path) if memo is not None else None
        if seen is None:
            try:
                info = os.stat(path)
                seen = f"{info.st_size} {info.st_mtime_ns}"
            except OSError:
                seen = "-"
            if memo is not None:
                memo[path] = seen
        digest.update(f"{name}\0{seen}\0".encode("utf-8", "surrogateescape"))
    return [digest.hexdigest(), list(files)]


def link_fact(path):
    try:
        if os.path.islink(path):
            return "link " + os.readlink(path)
    except OSError:
        return None
    return path_fact(path)


def _entries(path):
    """[(name, type)] of a directory, sorted; None when it is not one."""
    try:
        with os.scandir(path) as listing:
            found = []
            for entry in listing:
                if entry.name in SKIP_NAMES:
                    continue
                try:
                    kind = ("l" if entry.is_symlink() else "d" if entry.is_dir()
                            else "f" if entry.is_file() else "o")
                except OSError:
                    kind = "o"
                found.append((entry.name, kind))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return None
    return sorted(found)


def _digest(items):
    text = "\0".join(f"{name}/{kind}" for name, kind in items)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def list_fact(path, entries=None):
    entries = _entries(path) if entries is None else entries
    return None if entries is None else _digest(entries)


def find_fact(path, names, entries=None):
    """[digest of the entries a lookup of `names` would see, sorted names]."""
    entries = _entries(path) if entries is None else entries
    names = sorted(set(names))
    if entries is None:
        return [None, names]
    wanted = set(names)
    hits = [(n, k) for n, k in entries if n in wanted or n.split(".", 1)[0] in wanted]
    return [_digest(hits), names]


METADATA_SUFFIXES = (".dist-info", ".egg-info", ".egg")


def meta_fact(path, entries=None):
    entries = _entries(path) if entries is None else entries
    return None if entries is None else _digest([e for e in entries if e[0].endswith(METADATA_SUFFIXES)])


def environ_fact(env):
    names = sorted(n for n in env if not volatile_env(n))
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def absolute(root, stored):
    """The absolute path of a stored (root-relative or absolute) path."""
    return stored if os.path.isabs(stored) else os.path.join(root, *stored.split("/"))


def stored(root, path):
    """How `path` (absolute, normalised) is stored: root-relative POSIX under root."""
    if path == root:
        return "."
    if path.startswith(root + os.sep):
        return os.path.relpath(path, root).replace(os.sep, "/")
    return path


class Facts:
    """Fact values now, each computed once (one listing per directory, one hash per file)."""

    def __init__(self, root, env):
        self.root, self.env = root, env
        self.memo, self.listings, self.stats = {}, {}, {}

    def entries(self, path):
        if path not in self.listings:
            self.listings[path] = _entries(path)
        return self.listings[path]

    def value(self, key, recorded=None):
        if key in self.memo and not key.startswith(("find ", "tree ")):
            return self.memo[key]
        kind, _, where = key.partition(" ")
        if kind == "env":
            value = self.env.get(where)
        elif kind == "environ":
            value = environ_fact(self.env)
        else:
            path = absolute(self.root, where)
            if kind == "path":
                value = path_fact(path)
            elif kind == "link":
                value = link_fact(path)
            elif kind in ("stat", "lstat"):
                value = stat_fact(path, follow=kind == "stat")
            elif kind == "tree":
                files = recorded[1] if isinstance(recorded, list) and len(recorded) == 2 else []
                return tree_fact(path, files, self.stats)
            elif kind == "list":
                value = list_fact(path, self.entries(path))
            elif kind == "meta":
                value = meta_fact(path, self.entries(path))
            elif kind == "find":
                names = recorded[1] if isinstance(recorded, list) and len(recorded) == 2 else []
                return find_fact(path, names, self.entries(path))
            else:
                value = ["unknown fact", key]
        self.memo[key] = value
        return value
