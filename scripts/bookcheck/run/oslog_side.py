"""Runs inside each kernel and the fork server: the interposer's logs, as touches.

The interposer (interpose.c, loaded through LD_PRELOAD: bookcheck.run.interpose)
sees every libc file call of this process and of its children, whatever library
makes it, and appends one line per call to ``$QMD_OBSERVE_DIR/<pid>.log``. This
module switches it on and off (`Log.active`, through ctypes: the library's
``qmd_observe_active``), pauses it around the import system's own scans
(`Log.paused`), and reads the logs back as `Touch` tuples, oldest first: this
process's own records (but those of the threads that existed before `Log` was
made: the kernel's own), then each child's in pid order.

`attach` returns None when the interposer is not loaded (it could not be built):
observe_side then falls back to its Python-level hooks. Stdlib only.
"""
import os
import shutil
import tempfile
from collections import namedtuple

LIB_ENV = "QMD_OBSERVE_LIB"     # the library's path (set by the checker beside LD_PRELOAD)
ID_ENV = "QMD_OBSERVE_ID"       # the digest of its source (a fact of every run)
DIR_ENV = "QMD_OBSERVE_DIR"     # where this process and its children write their logs
SKIP_ENV = "QMD_OBSERVE_SKIP"   # colon-separated prefixes the library does not write

Touch = namedtuple("Touch", "op flags errno mode size mtime_ns path")


def attach(folder, skip=()):
    """A Log writing under `folder` (created; a private temporary folder when it cannot
    be), or None when the interposer is not loaded in this process."""
    lib_path = os.environ.get(LIB_ENV)
    if not lib_path or lib_path not in os.environ.get("LD_PRELOAD", ""):
        return None
    try:
        import ctypes
        lib = ctypes.CDLL(lib_path)
        flag = ctypes.c_int.in_dll(lib, "qmd_observe_active")
    except (OSError, ValueError):
        return None
    return Log(lib, flag, folder, skip)


class Log:
    def __init__(self, lib, flag, folder, skip):
        self.lib, self.flag = lib, flag
        self.flag.value = 0
        try:
            os.makedirs(folder, exist_ok=True)
            self.dir = folder
        except OSError:
            self.dir = tempfile.mkdtemp(prefix="qmd-observe-")
        os.environ[DIR_ENV] = self.dir
        os.environ[SKIP_ENV] = ":".join(p for p in skip if ":" not in p)
        self.pid = os.getpid()
        self.ignored = _threads() - {str(_native_id())}
        self.read = {}           # log file -> bytes already read (touches)

    def active(self, on):
        self.flag.value = 1 if on else 0

    def paused(self, delta):
        self.lib.qmd_observe_pause(delta)

    def touches(self):
        """The Touches recorded since the last call (see the module docstring). The
        logs stay where they are (the library keeps writing to them): each is read
        from where the last call stopped, up to its last complete record."""
        try:
            names = [n for n in os.listdir(self.dir) if n.endswith(".log")]
        except OSError:
            names = []
        own = f"{self.pid}.log"
        names.sort(key=lambda n: (n != own, int(n[:-4]) if n[:-4].isdigit() else 0, n))
        found = []
        for name in names:
            start = self.read.get(name, 0)
            try:
                with open(os.path.join(self.dir, name), "rb") as handle:
                    handle.seek(start)
                    data = handle.read()
            except OSError:
                continue
            complete = data.rfind(b"\n") + 1
            self.read[name] = start + complete
            found.extend(_parse(data[:complete], self.ignored if name == own else ()))
        return found

    def close(self):
        """Stop recording and remove the folder (the last call)."""
        self.active(False)
        shutil.rmtree(self.dir, ignore_errors=True)


def _parse(data, ignored):
    touches = []
    for line in data.split(b"\n"):
        parts = line.split(b" ", 8)
        if len(parts) != 9 or parts[1].decode() in ignored:
            continue
        try:
            op, flags, err, mode, size = (parts[0].decode(), int(parts[2]), int(parts[3]),
                                          int(parts[4]), int(parts[5]))
            mtime_ns = int(parts[6]) * 1_000_000_000 + int(parts[7])
        except ValueError:
            continue
        touches.append(Touch(op, flags, err, mode, size, mtime_ns, os.fsdecode(parts[8])))
    return touches


def _threads():
    try:
        return set(os.listdir("/proc/self/task"))
    except OSError:
        return set()


def _native_id():
    import threading
    return threading.get_native_id()


def clear_dead(folder):
    """Remove the log folders under `folder` of processes that are gone (a kernel killed
    before it reported)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        pid = name.rpartition("-")[2]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
        except OSError:
            pass


_PROC_ROOTS = ("/proc/self/root", "/proc/thread-self/root")


def unrooted(path):
    """`path` without a /proc/<pid>/root prefix (the same file by another name)."""
    if path.startswith("/proc/"):
        for prefix in _PROC_ROOTS:
            if path == prefix or path.startswith(prefix + "/"):
                return path[len(prefix):] or "/"
        parts = path.split("/", 4)
        if len(parts) > 3 and parts[2].isdigit() and parts[3] == "root":
            return "/" + (parts[4] if len(parts) > 4 else "")
    return path


def stat_touched(touch, path, stat_value):
    """The stat fact of what the interposer's stat call saw."""
    if touch.errno in (2, 20):              # ENOENT, ENOTDIR
        return None
    if touch.errno:
        return "error"
    target = None
    if touch.op == "lstat" and (touch.mode & 0o170000) == 0o120000:
        try:
            target = os.readlink(path)
        except OSError:
            return "error"
    return stat_value(touch.mode, touch.size, touch.mtime_ns, target)


def moved(touch, path):
    """True when the file opened at `touch` is not the file there now (written since)."""
    try:
        now = os.stat(path)
    except OSError:
        return not touch.errno
    if touch.errno:
        return True
    if (now.st_mode & 0o170000) != (touch.mode & 0o170000):
        return True
    return (now.st_mode & 0o170000) == 0o100000 and (now.st_size, now.st_mtime_ns) != (touch.size, touch.mtime_ns)
