"""Runs inside each chapter's kernel: observe what the chapter's code reads.

The cache must not trust a result whose inputs changed, and the only reliable
list of a chapter's inputs is the one its run produces. While the chapter runs
this module records:

- every file under the project root that is opened for reading (the audit
  event ``open``, raised by ``open``, ``io.open``, ``os.open``, pathlib, pandas,
  numpy …), whether or not it exists (a file that appears later changes the
  result too);
- every directory under the root that is listed (``os.listdir``,
  ``os.scandir``, so ``glob`` too): a file added to it changes the listing;
- every module imported from under the root (``sys.modules`` at the end; root
  modules a fork server preloaded are evicted by ``install`` so each one found
  at the end was imported by this chapter);
- every environment variable that the chapter's own code reads through
  ``os.environ`` / ``os.getenv`` (the caller is a cell, an inline expression or
  a module under the root, not a library), with the value it saw (None: unset).

Not dependencies: paths under the interpreter's prefixes (a virtualenv inside
the root), under ``skip`` (``mlsys/``, keyed as a whole; ``_build``, ``_book``,
``.git``), ``__pycache__`` files, and files the chapter itself wrote.
Variables that differ on every run by design (``JPY_*``, the run marker) are
not recorded.

Stdlib only; ``prefork`` runs once in the fork server, ``install`` once per
kernel, ``observed`` once at the end of the chapter (steps_side returns it with
the chapter's reply). Paths are returned relative to the root, POSIX style.
"""
import os
import sys

VOLATILE_ENV_PREFIXES = ("JPY_",)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_LIBRARY_FILES = ("/os.py", "/_collections_abc.py", "<frozen os>", "<frozen _collections_abc>")

_observer = None


def _real(path):
    try:
        return os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError, OSError):
        return None


class _Observer:
    def __init__(self, root, skip, volatile):
        self.root = _real(root)
        prefixes = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
        self.prefixes = [p for p in (_real(x) for x in prefixes) if p]
        self.skip = [p for p in (_real(x) for x in [*prefixes, *skip]) if p]
        self.volatile = set(volatile)
        self.reads = set()       # real paths opened for reading
        self.writes = set()      # real paths opened for writing (the chapter's products)
        self.dirs = set()        # real paths of listed directories
        self.env = {}            # name -> value seen (None: unset)
        self.preloaded = {}      # module name -> module, present (and not ours) at install
        self.code_files = {}     # absolute code file name -> is_book_code(its real path)
        self.busy = False

    def rel(self, real):
        """Root-relative POSIX path of a real path, or None when it is not a dependency."""
        if not real or not self.root:
            return None
        if real != self.root and not real.startswith(self.root + os.sep):
            return None
        for skipped in self.skip:
            if real == skipped or real.startswith(skipped + os.sep):
                return None
        rel = os.path.relpath(real, self.root).replace(os.sep, "/")
        if "__pycache__" in rel.split("/"):
            return None
        return rel

    def is_book_code(self, real):
        """Under the root but not the interpreter's (a venv inside the root): the
        chapter's own modules and the book's package (mlsys) alike."""
        if not real or not self.root or not real.startswith(self.root + os.sep):
            return False
        return not any(real == p or real.startswith(p + os.sep) for p in self.prefixes)

    def hook(self, event, args):
        if self.busy or event not in ("open", "os.listdir", "os.scandir"):
            return
        self.busy = True
        try:
            path = args[0] if args else None
            if path is None or isinstance(path, int):
                return
            if event != "open":
                real = _real(path)
                if self.rel(real) is not None and not _importing(sys._getframe(1)):
                    self.dirs.add(real)
                return
            mode, flags = (args[1], args[2]) if len(args) >= 3 else ("r", 0)
            if isinstance(mode, str):
                writing = any(c in mode for c in "wax+")
            else:
                writing = bool((flags or 0) & _WRITE_FLAGS)
            real = _real(path)
            if self.rel(real) is not None:
                (self.writes if writing else self.reads).add(real)
        except Exception:
            pass
        finally:
            self.busy = False

    def note_env(self, name, value):
        if not isinstance(name, str) or name in self.env:
            return
        if name in self.volatile or name.startswith(VOLATILE_ENV_PREFIXES):
            return
        if _called_by_chapter(self, sys._getframe(2)):
            self.env[name] = value


def _called_by_chapter(observer, frame):
    """True when the first frame outside os/_collections_abc is chapter code."""
    while frame is not None and frame.f_code.co_filename.endswith(_LIBRARY_FILES):
        frame = frame.f_back
    if frame is None:
        return False
    filename = frame.f_code.co_filename
    if filename in ("<inline>",) or filename.startswith("<ipython-input"):
        return True
    try:
        from IPython import get_ipython
        shell = get_ipython()
        cells = getattr(getattr(shell, "compile", None), "_filename_map", {}) if shell else {}
    except Exception:
        cells = {}
    if filename in cells:
        return True
    if filename.startswith("<") or not os.path.isabs(filename):
        return False            # <string>, <frozen …>: not a file under the root
    known = observer.code_files.get(filename)
    if known is None:           # a library asking again and again: one realpath per file
        known = observer.code_files[filename] = observer.is_book_code(_real(filename))
    return known


def _importing(frame):
    """True inside the import system (its directory scans are not the chapter's reads)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _recording_environ(observer):
    base = type(os.environ)

    class RecordingEnviron(base):
        def __getitem__(self, key):
            try:
                value = base.__getitem__(self, key)
            except KeyError:
                observer.note_env(key, None)
                raise
            observer.note_env(key, value)
            return value

    return RecordingEnviron


def _module_file(module):
    try:
        return getattr(module, "__file__", None)
    except Exception:
        return None


_module_files = {}       # module name -> (module, real path of its file): see prefork


def prefork():
    """In the fork server, before any kernel is forked: resolve the file of every module
    imported so far, so that each kernel's `install` need not (one realpath per module
    adds up to ~50 ms per kernel)."""
    for name, module in list(sys.modules.items()):
        _module_files[name] = (module, _real(_module_file(module)))


def _real_module_file(name, module):
    known = _module_files.get(name)
    if known is not None and known[0] is module:
        return known[1]
    return _real(_module_file(module))


def install(root, skip=(), volatile=(), keep=()):
    """Start observing (once per kernel); evict root-local modules preloaded before us,
    except `keep` (the checker's own helpers in this kernel, which live under the root
    when the book is this project itself)."""
    global _observer
    if _observer is not None:
        return _observer
    observer = _Observer(root, skip, volatile)
    for name, module in list(sys.modules.items()):
        if name == "__main__" or name in keep:
            continue
        if observer.rel(_real_module_file(name, module)) is not None:
            del sys.modules[name]
    observer.preloaded = dict(sys.modules)
    sys.addaudithook(observer.hook)
    try:
        os.environ.__class__ = _recording_environ(observer)
    except TypeError:
        pass
    _observer = observer
    return observer


def observed():
    """{"files": [...], "dirs": [...], "env": {name: value|None}} seen so far (root-relative)."""
    observer = _observer
    if observer is None:
        return {"files": [], "dirs": [], "env": {}}
    observer.busy = True
    try:
        files = set(observer.reads)
        for name, module in list(sys.modules.items()):
            if observer.preloaded.get(name) is module:
                continue        # imported before the chapter, not from under the root
            real = _real(_module_file(module) or "")
            if observer.rel(real) is not None:
                files.add(real)
        files -= observer.writes
        files = {p for p in files if not os.path.isdir(p)}
        rels = sorted({r for r in (observer.rel(p) for p in files) if r})
        dirs = sorted({r for r in (observer.rel(p) for p in observer.dirs) if r is not None})
        return {"files": rels, "dirs": dirs, "env": dict(sorted(observer.env.items()))}
    finally:
        observer.busy = False
