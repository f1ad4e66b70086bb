"""Runs inside each chapter's kernel: observe everything the chapter's run touches.

The cache must not trust a result whose inputs changed, and the only reliable
list of a run's inputs is the one the run itself produces. While the chapter's
steps run (and, in the fork server, while packages are preloaded: `preload`)
this module records each of them as a fact of `facts_side`, with its value at the
first touch, and what cannot be observed as *opaque* reasons with the step and
line; the list of what is observed, and what is opaque, is docs/performance.md's
"What the cache observes" (the /proc, /sys, /dev probes allowed:
`facts_side.RESOURCE_PROBES`).

Files are observed at the operating-system boundary: the interposer's log
(oslog_side: every open, stat, access, readlink and listing of this process and
its children, whatever library made it) becomes facts in `note_touch`, with no
code per API. Python-level hooks remain where they add meaning: which module was
looked for (`_Finder`), which environment variable was read, a network
connection, a clock or unseeded random generator read by the chapter
(volatile_side). Where the interposer could not be built, the audit hook and
wrapped `os.stat`/`lstat`/`access`/`readlink` observe Python's own file calls
instead (`_install_file_hooks`: the fallback).

Not inputs: files of the interpreter (the stdlib: the Python version is part of
the key; site-packages: the distribution's version is a fact), the skipped
folders (the book's packages, keyed whole: ``facts_side.book_packages``;
``_bookcheck``, ``.git`` …), ``__pycache__``.
Events of threads that existed before observing began (the kernel's own) are
ignored. Stdlib only; paths are reported as facts_side stores them.
"""
import os
import sys
import threading

# An editable install's placeholder on sys.path (setuptools' `__editable__.NAME.finder
# .__path_hook__`): a path hook's key, not a folder; what it finds is keyed by `dist`.
EDITABLE_HOOK = "__editable__."

def _side(name, filename):
    module = sys.modules.get(name)
    if module is None:                   # imported from its folder (tests) or the package
        try:
            module = __import__(filename)
        except ImportError:
            import importlib
            module = importlib.import_module(f"bookcheck.run.{filename}")
    return module


_facts = _side("_qmd_facts", "facts_side")
_oslog = _side("_qmd_oslog", "oslog_side")
_pyhooks = _side("_qmd_pyhooks", "pyhooks_side")

_observer = None
_VOLATILE = ("reads the repository's .git",)


class _Observer:
    def __init__(self, root, skip=()):
        self.root = os.path.realpath(root)
        prefixes = (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix)
        self.prefixes = sorted({f(p) for p in prefixes for f in (os.path.realpath, os.path.abspath)})
        names = [os.path.join(self.root, n)
                 for n in (*_facts.SKIP_NAMES, *_facts.book_packages(self.root))]
        self.skip = sorted({os.path.realpath(p) for p in [*names, *skip]})
        self.site = sorted({os.path.realpath(p) for p in sys.path if p and "-packages" in p})
        self.facts = {}          # key -> value at the first touch
        self.products = set()    # keys of files whose first open truncated them
        self.opaque = []         # {"reason", "step", "line"}
        self.finds = {}          # absolute dir -> names looked up there
        self.initial = dict(os.environ)
        self.threads = {t.ident for t in threading.enumerate()} - {threading.get_ident()}
        self.busy = set()        # thread idents inside the observer
        self.active = False
        self.step = None         # index of the running step (steps_side sets it)
        self.keep = set()        # the checker's own modules in the kernel
        self.log = None          # the interposer's log (oslog_side.Log), None: the fallback
        self.meta_lists = {}     # folder -> listings importlib.metadata made of it (hook)
        self.checker = sorted(os.path.realpath(p) for p in skip)   # code that is not the book's
        self.git = os.path.join(self.root, ".git")
        self.generators = None   # pyhooks_side.Generators: the global generators' states
        self.observe_dir = os.path.join(self.root, _facts.BUILD_NAME, "observe")

    # -- what is an input -----------------------------------------------------
    def where(self, path):
        """(stored path, None), (None, opaque reason) or (None, None) when not an input."""
        path = _oslog.unrooted(path)
        if self.log is not None and (path == self.log.dir or path.startswith(self.log.dir + os.sep)):
            return None, None
        if path == self.git or path.startswith(self.git + os.sep):
            return None, "reads the repository's .git"
        if path in _facts.HARMLESS_DEVICES or _facts.resource_probe(path):
            return None, None
        for system in _facts.SYSTEM_DIRS:
            if path == system or path.startswith(system + "/"):
                return None, f"reads the machine's state ({path})"
        if "__pycache__" in path.split(os.sep) or "\n" in path:
            return None, None       # (IPython's Markdown() asks whether its text is a file)
        for prefix in (*self.skip, *self.prefixes):
            if path == prefix or path.startswith(prefix + os.sep):
                return None, None
        return _facts.stored(self.root, path), None

    def absolute(self, path, dir_fd=None):
        if isinstance(path, int) or dir_fd is not None:
            return None
        try:
            return os.path.abspath(os.fsdecode(path))
        except (TypeError, ValueError):
            return None

    def note(self, kind, path, product=False, touch=None):
        """Record the fact `kind` of `path` (an absolute, normalised path); `touch`: what
        the interposer saw at that moment (oslog_side.Touch), else the value is now."""
        rel, opaque = self.where(path)
        if opaque:
            self.note_opaque(opaque, frames=touch is None)
        if rel is None:
            return
        key = f"{kind} {rel}"
        if key in self.facts:
            return
        path = _oslog.unrooted(path)
        if product:
            self.products.add(key)
            self.facts[key] = None
            return
        if touch is not None and kind in ("stat", "lstat"):
            value = _oslog.stat_touched(touch, path, _facts.stat_value)
        else:
            value = {"path": _facts.path_fact, "link": _facts.link_fact, "list": _facts.list_fact,
                     "meta": _facts.meta_fact, "stat": _facts.stat_fact}[kind](path)
            if touch is not None and kind == "path" and _oslog.moved(touch, path):
                value = "changed after it was opened"
        self.facts[key] = value
        if isinstance(value, str) and value.startswith("big "):
            self.note_opaque(f"reads {rel}, larger than {_facts.MAX_FILE_BYTES >> 20} MiB")

    def note_touch(self, touch):
        """One record of the interposer's log as a fact (the only place an OS call maps
        to a fact kind: see oslog_side)."""
        path = os.path.normpath(touch.path)
        op = touch.op
        if op == "open":
            # truncated, created new, or opened write-only (appended to): the run's own
            # output, not something it read
            creates = not touch.errno and (touch.flags & (os.O_TRUNC | os.O_EXCL)
                                           or touch.flags & os.O_ACCMODE == os.O_WRONLY)
            self.note("path", path, product=bool(creates), touch=touch)
        elif op in ("stat", "lstat"):
            self.note(op, path, touch=touch)
        elif op == "access":
            self.note("stat", path)
        elif op == "readlink":
            self.note("link", path)
        elif op == "list":
            if self.meta_lists.get(path):       # importlib.metadata's scan: what it can see
                self.meta_lists[path] -= 1
                self.note("meta", path)
            else:
                self.note("list", path)

    def note_opaque(self, reason, frames=True, volatile=False):
        """What cannot be observed (`volatile`: what changes from run to run by itself,
        never stored), at the line of the call when `frames` are the caller's."""
        if len(self.opaque) >= 5 or reason in (o["reason"] for o in self.opaque):
            return
        if frames and self.importing_installed(sys._getframe(2)):
            return          # an installed package probing at import: its version decides
        line = _cell_line(sys._getframe(2)) if frames else None
        entry = {"reason": reason, "step": self.step, "line": line}
        if volatile or reason in _VOLATILE:
            entry["volatile"] = True
        self.opaque.append(entry)

    def drain(self):
        """The interposer's records so far, as facts (at the end of each step, so a fact's
        opaque reason names its step)."""
        if self.log is not None:
            for touch in self.log.touches():
                self.note_touch(touch)

    def importing_installed(self, frame):
        """True inside the module-level code of a module of the interpreter's (its import)."""
        while frame is not None:
            code = frame.f_code
            if code.co_name == "<module>" and os.path.isabs(code.co_filename) and any(
                    code.co_filename.startswith(p + os.sep) for p in self.prefixes):
                return True
            frame = frame.f_back
        return False

    def note_env(self, name):
        if isinstance(name, bytes):
            name = os.fsdecode(name)
        if isinstance(name, str) and not _facts.volatile_env(name):
            self.facts.setdefault(f"env {name}", self.initial.get(name))

    def note_environ(self):
        self.facts.setdefault("environ *", _facts.environ_fact(self.initial))

    def note_find(self, name, path):
        if name in sys.builtin_module_names:
            return                   # found before any folder is searched
        last = name.rpartition(".")[2]
        for entry in (sys.path if path is None else path):
            if not isinstance(entry, str) or entry.startswith(EDITABLE_HOOK):
                continue
            folder = os.path.abspath(entry or ".")
            if path is not None and self.where(folder)[0] is None:
                continue             # inside a package of the interpreter's: its version decides
            if path is None and self.where(folder)[0] is None and folder not in self.site:
                continue             # the stdlib: the Python version decides
            self.finds.setdefault(folder, set()).add(last)

    def watching(self):
        me = threading.get_ident()
        return self.active and me not in self.busy and me not in self.threads

    # -- the report -----------------------------------------------------------
    def report(self):
        self.drain()
        facts = dict(self.facts)
        dists = set()
        trees = {}
        for name, module in list(sys.modules.items()):
            if name in self.keep:
                continue
            file = _module_file(module)
            if not file:
                continue
            path = os.path.abspath(file)
            site = next((s for s in self.site if path.startswith(s + os.sep)), None)
            if site is not None:
                top, _, inside = os.path.relpath(path, site).partition(os.sep)
                dists.add(top.split(".")[0])
                trees.setdefault(os.path.join(site, top), set()).add(inside.replace(os.sep, "/"))
                continue
            rel, _ = self.where(path)
            if rel is not None:
                facts.setdefault(f"path {rel}", _facts.path_fact(path))
        loaded = {name.partition(".")[0] for name in sys.modules}
        for folder, names in self.finds.items():
            if folder in self.site:
                names = {n for n in names if n not in loaded}     # found: its dist decides
            if names:
                rel = _facts.stored(self.root, folder)
                facts[f"find {rel}"] = _facts.find_fact(folder, names)
        # the interposer that observed (its source digest, not its path: a copied or
        # moved book keeps its cache): another one, or none, is another observation
        facts[f"env {_oslog.ID_ENV}"] = self.initial.get(_oslog.ID_ENV)
        for top, files in trees.items():        # installed modules edited in place
            if not top.endswith(("-info", "__pycache__")):
                facts[f"tree {top}"] = _facts.tree_fact(top, sorted(files))
        return {"facts": dict(sorted(facts.items())), "products": sorted(self.products),
                "dists": sorted(d for d in dists if d and not d.endswith("-info")),
                "opaque": list(self.opaque)}


def _cell_line(frame):
    """(cell file or "<inline>", line) of the innermost chapter frame, else None."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
        cells = getattr(getattr(shell, "compile", None), "_filename_map", {}) if shell else {}
    except Exception:
        cells = {}
    while frame is not None:
        name = frame.f_code.co_filename
        if name in cells or name == "<inline>":
            return frame.f_lineno
        frame = frame.f_back
    return None


def _module_file(module):
    try:
        file = getattr(module, "__file__", None)
        return file if isinstance(file, str) else None
    except Exception:
        return None


_preloaded = {"facts": {}, "products": set(), "opaque": []}   # what the fork server's preload touched


def preload(root, skip=()):
    """In the fork server, before it imports the kernels' packages: observe the imports,
    so every kernel forked from it reports what they read (`observed`)."""
    global _observer
    if _observer is None:
        _observer = _Observer(root, skip)
        _attach(_observer, "server")
        _pyhooks.install(_observer)
    _set_active(_observer, True)


def prefork():
    """In the fork server, after preloading: keep what the preload touched for the kernels."""
    observer = _observer
    if observer is not None:
        _set_active(observer, False)
        report = observer.report()
        if observer.log is not None:
            observer.log.close()
            observer.log = None
        _preloaded.update(facts=report["facts"], products=set(report["products"]),
                          opaque=report["opaque"])


def _attach(observer, role):
    """Observe files through the interposer when it is loaded (oslog_side)."""
    _oslog.clear_dead(observer.observe_dir)
    folder = os.path.join(observer.observe_dir, f"{role}-{os.getpid()}")
    unread = [p for p in observer.skip if p != observer.git]      # (.git is opaque: where)
    observer.log = _oslog.attach(folder, [*observer.prefixes, *unread])


def _set_active(observer, on):
    observer.active = on
    if observer.log is not None:
        observer.log.active(on)


def install(root, skip=(), keep=()):
    """Start observing in this kernel (once); evict modules of the book preloaded before
    (except `keep`, the checker's own helpers) so that their import is this run's."""
    global _observer
    observer = _Observer(root, skip)
    observer.keep = set(keep)
    _attach(observer, "kernel")
    for name, module in list(sys.modules.items()):
        file = _module_file(module)
        if name == "__main__" or name in keep or not file:
            continue
        if os.path.abspath(file).startswith(observer.root + os.sep) and observer.where(os.path.abspath(file))[0]:
            del sys.modules[name]
    if _observer is None:
        _pyhooks.install(observer)
    else:                        # forked from a preloading server: its hooks call this one
        old = _observer
        old.__dict__.update(observer.__dict__)
        observer = old
    if observer.generators is None:
        _pyhooks.watch_clock()
        observer.generators = _pyhooks.Generators()
    observer.facts.update(_preloaded["facts"])
    observer.products |= _preloaded["products"]
    observer.opaque += [dict(o, step=None, line=None, preload=True) for o in _preloaded["opaque"]]
    _observer = observer
    return observer


def start(step=None):
    """A step begins (steps_side): watch it."""
    if _observer is not None:
        _observer.step = step
        if _observer.generators is not None:
            _observer.generators.mark()
        _set_active(_observer, True)


def stop():
    observer = _observer
    if observer is not None:
        _set_active(observer, False)
        if observer.generators is not None:
            for name in observer.generators.unseeded():
                observer.note_opaque(f"uses {name} without a seed", frames=False, volatile=True)
        observer.drain()


def observed():
    """What the run touched so far (see the module docstring), as facts_side keys."""
    observer = _observer
    if observer is None:
        return {"facts": {}, "products": [], "dists": [], "opaque": []}
    was = observer.active
    _set_active(observer, False)
    try:
        return observer.report()
    finally:
        _set_active(observer, was)
        if not was and observer.log is not None:
            observer.log.close()     # the run's last report: its logs are read
            observer.log = None
