"""Runs inside each kernel and the fork server: observe_side's Python-level hooks.

They say what the interposer's log cannot: which module a run looked for (`_Finder`,
first on sys.meta_path: found or not), which environment variable it read (a
recording `os.environ`), a network use, the file of a library loaded through
ctypes (the dynamic loader opens it below libc), the folders importlib.metadata
scanned (a `meta` fact, not a listing). The import system's own scans pause the
interposer (`_pause_import_scans`). Where the interposer is not loaded they are
also the fallback for files (the `open`/`listdir`/`scandir` audit events,
wrapped `os.stat`/`lstat`/`access`/`readlink`), and every subprocess, database or
ctypes library is opaque. Stdlib only.
"""
import os
import sys
import threading

CURRENT = {"observer": None}     # the process's observe_side._Observer (install)

NETWORK_EVENTS = {"socket.connect": "opens a network connection", "socket.bind": "opens a socket",
                  "socket.getaddrinfo": "looks up a network name"}
OPAQUE_EVENTS = {
    "subprocess.Popen": "starts a subprocess", "os.system": "runs a shell command",
    "os.exec": "executes a program", "os.posix_spawn": "starts a program",
    "os.spawn": "starts a program", "os.fork": "forks", "os.forkpty": "forks",
    "socket.connect": "opens a network connection", "socket.bind": "opens a socket",
    "socket.getaddrinfo": "looks up a network name", "sqlite3.connect": "opens a database",
    "ctypes.dlopen": "loads native code through ctypes",
}
_PATH_EVENTS = ("open", "os.listdir", "os.scandir")
_WATCHED = frozenset(OPAQUE_EVENTS) | frozenset(_PATH_EVENTS)
_TRUNCATING = os.O_TRUNC
_IMPORT_SYSTEM = "<frozen importlib._bootstrap_external>"
_METADATA = os.path.join("importlib", "metadata", "__init__.py")    # its scans of sys.path


def audit(event, args):
    """The audit hook (of CURRENT["observer"])."""
    observer = CURRENT["observer"]
    if event not in _WATCHED or not observer.watching():
        return
    me = threading.get_ident()
    observer.busy.add(me)
    try:
        if observer.log is not None:            # files: the interposer's log
            _meaning(observer, event, args)
            return
        if event in OPAQUE_EVENTS:
            if not (event == "sqlite3.connect" and args and args[0] == ":memory:"):
                observer.note_opaque(f"{OPAQUE_EVENTS[event]} ({_short(args)})")
            return
        path = observer.absolute(args[0]) if args else None
        if path is None:
            return
        if event == "open":
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            observer.note("path", path, product=bool(flags & _TRUNCATING))
        else:
            caller = sys._getframe(1).f_code.co_filename
            if caller.endswith(_METADATA):
                observer.note("meta", path)
            elif caller != _IMPORT_SYSTEM:
                observer.note("list", path)     # (the import system's own scans: note_find)
    except Exception:
        pass
    finally:
        observer.busy.discard(me)

def _meaning(observer, event, args):
    """With the interposer: what its log cannot say (a network use; the file of a
    library loaded through ctypes, which the dynamic loader opens below libc)."""
    if event in NETWORK_EVENTS:
        observer.note_opaque(f"{NETWORK_EVENTS[event]} ({_short(args)})")
    elif event in ("os.listdir", "os.scandir"):
        path = observer.absolute(args[0]) if args else None
        if path is not None and sys._getframe(2).f_code.co_filename.endswith(_METADATA):
            observer.meta_lists[path] = observer.meta_lists.get(path, 0) + 1
    elif event == "ctypes.dlopen" and args and isinstance(args[0], (str, bytes)):
        name = os.fsdecode(args[0])
        if os.sep in name:
            observer.note("path", os.path.abspath(name))

def stat_hook(observer, kind, path, dir_fd=None):
    if not observer.watching():
        return
    me = threading.get_ident()
    observer.busy.add(me)
    try:
        path = observer.absolute(path, dir_fd)
        if path is not None:
            observer.note(kind, path)
    except Exception:
        pass
    finally:
        observer.busy.discard(me)


def _short(args):
    text = " ".join(str(a) for a in args[:2] if a is not None)
    return text if len(text) <= 80 else text[:77] + "..."


class _Finder:
    """First on sys.meta_path: records each module looked for, finds nothing itself."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        observer = CURRENT["observer"]
        if observer is not None and observer.watching():
            me = threading.get_ident()
            observer.busy.add(me)
            try:
                observer.note_find(name, path)
            except Exception:
                pass
            finally:
                observer.busy.discard(me)
        return None


def _recording(observer, base):
    class RecordingEnviron(base):
        def __getitem__(self, key):
            if observer.watching():
                observer.note_env(key)
            return base.__getitem__(self, key)

        def __iter__(self):
            if observer.watching():
                observer.note_environ()
            return base.__iter__(self)

        def __len__(self):
            if observer.watching():
                observer.note_environ()
            return base.__len__(self)

    return RecordingEnviron


def _wrap_stat(observer, real, kind_of):
    def wrapper(path, *args, **kwargs):
        stat_hook(observer, kind_of(kwargs), path, kwargs.get("dir_fd"))
        return real(path, *args, **kwargs)
    wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__ = real.__name__, real.__doc__, real
    return wrapper


def _install_file_hooks(observer):
    """The fallback without the interposer: Python's own stat calls (its opens and
    listings: the audit hook)."""
    follow = lambda kw: "path" if kw.get("follow_symlinks", True) else "link"   # noqa: E731
    os.stat = _wrap_stat(observer, os.stat, follow)
    os.lstat = _wrap_stat(observer, os.lstat, lambda kw: "link")
    os.readlink = _wrap_stat(observer, os.readlink, lambda kw: "link")
    os.access = _wrap_stat(observer, os.access, follow)


def _paused(search):
    """`search` with the interposer paused while it runs."""
    def paused(*args, **kwargs):
        observer = CURRENT["observer"]
        log = observer.log if observer is not None else None
        if log is None:
            return search(*args, **kwargs)
        log.paused(1)
        try:
            return search(*args, **kwargs)
        finally:
            log.paused(-1)
    paused.__wrapped__ = search
    return paused


def _pause_import_scans():
    """The import system's own scans of sys.path folders (and pkgutil's, through the
    same finders) are not the run's reads (the modules looked for are: `_Finder`):
    the interposer is paused while they search."""
    from importlib.machinery import FileFinder, PathFinder
    PathFinder.find_spec = classmethod(_paused(PathFinder.find_spec.__func__))
    FileFinder.find_spec = _paused(FileFinder.find_spec)


def install(observer):
    """Install every hook, once per process (they report to CURRENT["observer"])."""
    CURRENT["observer"] = observer
    sys.addaudithook(audit)
    sys.meta_path.insert(0, _Finder)
    if observer.log is None:
        _install_file_hooks(observer)
    else:
        _pause_import_scans()
    for environ in (os.environ, getattr(os, "environb", None)):
        if environ is not None:
            try:
                environ.__class__ = _recording(observer, type(environ))
            except TypeError:
                pass


# -- what makes a run differ from run to run (issue 34): the clock, unseeded generators

CLOCKS = ("time", "time_ns")                    # time.*: the current time
CLOCK_WITHOUT_ARGUMENT = ("localtime", "gmtime", "ctime", "strftime")   # now, unless given a time
DATETIME_NOW = ("now", "utcnow", "today")       # datetime.datetime.* and datetime.date.today


def _from_book(observer, frame):
    """True when `frame` is the chapter's own code: a cell, an inline expression, or a
    module of the book (not the interpreter's, not the checker's)."""
    name = frame.f_code.co_filename if frame is not None else ""
    if name == "<inline>" or name.startswith("<ipython-input") or "/ipykernel_" in name:
        return True
    return (name.startswith(observer.root + os.sep)
            and not any(name.startswith(c + os.sep) for c in observer.checker))


def _volatile(reason, real, takes_time_at=None):
    def wrapper(*args, **kwargs):
        observer = CURRENT["observer"]
        if observer is not None and observer.watching() and (
                takes_time_at is None or len(args) <= takes_time_at) and _from_book(observer, sys._getframe(1)):
            observer.note_opaque(reason, volatile=True)
        return real(*args, **kwargs)
    wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__ = real.__name__, real.__doc__, real
    return wrapper


_CLOCK_WATCHED = []


def watch_clock():
    """Once per process: the clock functions note a read by the book's code."""
    if _CLOCK_WATCHED:
        return
    _CLOCK_WATCHED.append(True)
    import time
    for name in CLOCKS:
        setattr(time, name, _volatile(f"reads the clock (time.{name}())", getattr(time, name)))
    for name in CLOCK_WITHOUT_ARGUMENT:
        at = 1 if name == "strftime" else 0
        setattr(time, name, _volatile(f"reads the clock (time.{name}())", getattr(time, name), at))
    import datetime as module
    module.datetime = _clocked(module.datetime, "datetime")
    module.date = _clocked(module.date, "date")


def _clocked(real, name):
    """`real` (datetime.datetime or .date) whose now/today note the read; instances and
    isinstance checks are those of the real class."""
    class Same(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, real)

    def classmethod_of(attr):
        method = getattr(real, attr)

        def call(cls, *args, **kwargs):
            observer = CURRENT["observer"]
            if observer is not None and observer.watching() and _from_book(observer, sys._getframe(1)):
                observer.note_opaque(f"reads the clock ({name}.{attr}())", volatile=True)
            return method(*args, **kwargs)
        return classmethod(call)

    attrs = {a: classmethod_of(a) for a in DATETIME_NOW if hasattr(real, a)}
    attrs.update(__module__=real.__module__, __qualname__=real.__qualname__, __slots__=())
    return Same(name, (real,), attrs)


class Generators:
    """The global generators' states when observing began: a run that moved one without
    seeding it first (`random.seed(x)`, `numpy.random.seed(x)`) used an unseeded
    generator (`report`)."""

    def __init__(self):
        import random
        self.seeded = set()
        self.states = {}
        self.mark()
        random.seed = self._seeding("random", random.seed)
        if "numpy" in sys.modules:          # (preloaded by the fork server: no cost there)
            try:
                import numpy.random  # noqa: F401
            except Exception:
                pass
        numpy_random = sys.modules.get("numpy.random")
        if numpy_random is not None:
            numpy_random.seed = self._seeding("numpy.random", numpy_random.seed)
            rng = numpy_random.default_rng
            numpy_random.default_rng = _volatile("uses an unseeded generator (numpy.random.default_rng())",
                                                 rng, takes_time_at=0)

    def _seeding(self, name, real):
        def seed(a=None, *args, **kwargs):
            if a is not None:
                self.seeded.add(name)
            return real(a, *args, **kwargs)
        seed.__wrapped__ = real
        return seed

    @staticmethod
    def _now():
        import random
        states = {"random": random.getstate()}
        if "numpy.random" in sys.modules:
            states["numpy.random"] = _numpy_state(sys.modules["numpy.random"])
        return states

    def mark(self):
        """A step begins: the states to compare with at its end (`unseeded`)."""
        self.states = self._now()

    def unseeded(self):
        """Names of the generators the step moved, not seeded by the run."""
        now = self._now()
        return [n for n, state in self.states.items() if n not in self.seeded and now.get(n) != state]


def _numpy_state(module):
    try:
        kind, keys, pos, has_gauss, gauss = module.get_state()
        return (kind, keys.tobytes(), pos, has_gauss, gauss)
    except Exception:
        return None
