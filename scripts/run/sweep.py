"""No process started by a run outlives it, whatever session it moved to.

Killing a kernel's process group ends what the chapter started in that group,
but a cell can move a child to another group or session
(`subprocess.Popen(..., start_new_session=True)`, `setsid`, a daemon's double
fork) and even empty its environment (`env={}`, `env -i`). Two nets catch it:

* Ancestry. For the run, the checker is a child subreaper
  (`prctl(PR_SET_CHILD_SUBREAPER)`): an orphan of any of its descendants is
  re-parented to the checker, not to PID 1, so it stays a descendant. At the
  end every descendant that did not exist before the run is killed (the
  subtrees of processes that did are left alone) and the dead are reaped.
* The marker. Every run puts a fresh marker in the environment of its fork
  server and kernels (`RUN_MARKER_VAR=<uuid>`), which everything they start
  inherits unless it drops its environment; `kill_marked` ends every live
  process that carries it (this also finds a process that escaped a checker
  which is not a subreaper, e.g. one that left while the checker had died).

Linux: processes are found through /proc (where /proc is missing the sweep
finds nothing and process groups remain the only cleanup). Stdlib only.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from contextlib import contextmanager

RUN_MARKER_VAR = "QMD_CHECK_RUN"
PR_SET_CHILD_SUBREAPER = 36       # <linux/prctl.h>
PR_GET_CHILD_SUBREAPER = 37


def new_marker() -> str:
    return os.urandom(16).hex()       # 128 random bits, as uuid4 (whose import costs ~8 ms)


def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _stat_fields(pid: int) -> list[bytes] | None:
    """Fields of /proc/<pid>/stat after the command name (state, ppid, ...)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return None
    return text[text.rfind(b")") + 2:].split()


def _state(pid: int) -> str | None:
    fields = _stat_fields(pid)
    return fields[0].decode() if fields else None


# ---------------------------------------------------------------- ancestry

def _prctl(option: int, value: int) -> bool:
    """prctl(option, value) through libc; False where it is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def is_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        flag = ctypes.c_int(0)
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0 \
            and flag.value != 0
    except (OSError, AttributeError):
        return False


def descendants(pid: int, skip: frozenset[int] = frozenset()) -> list[int]:
    """Live or zombie descendants of `pid` by ppid chains, not entering `skip`'s subtrees."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    children: dict[int, list[int]] = {}
    for name in names:
        if name.isdigit():
            fields = _stat_fields(int(name))
            if fields and len(fields) > 1:
                children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in skip:
                found.append(child)
                todo.append(child)
    return sorted(found)


def kill_descendants(before: frozenset[int], rounds: int = 5) -> list[int]:
    """SIGKILL every descendant of this process that is not in `before` (nor under
    one that is), a few rounds (a dying parent's orphans come back to us), then
    reap those that are our children and dead. Returns the pids signalled."""
    me = os.getpid()
    killed = _kill_in_rounds(
        lambda: [p for p in descendants(me, before) if _state(p) not in (None, "Z", "X")], rounds)
    _reap(before)
    return killed


def _kill_in_rounds(live_pids, rounds: int) -> list[int]:
    """SIGKILL what `live_pids()` lists, again while it lists any (at most `rounds`
    times: a dying parent may still fork); returns the pids signalled."""
    killed: list[int] = []
    for _ in range(rounds):
        pids = live_pids()
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
        time.sleep(0.01)
    return killed


def _reap(before: frozenset[int]) -> None:
    """waitpid the zombies among our own children that the run left (orphans taken in)."""
    me = os.getpid()
    for _ in range(50):
        zombies = [p for p in descendants(me, before)
                   if _state(p) == "Z" and (_stat_fields(p) or [b"", b"0"])[1] == str(me).encode()]
        if not zombies:
            return
        for pid in zombies:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        time.sleep(0.002)


# ------------------------------------------------------------------ marker


def marked_processes(marker: str) -> list[int]:
    """Live (non-zombie) processes, other than this one, whose environment carries `marker`."""
    if not marker:
        return []
    needle = f"{RUN_MARKER_VAR}={marker}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    found = []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        pid = int(name)
        if needle in _environ(pid).split(b"\0") and _state(pid) not in (None, "Z", "X"):
            found.append(pid)
    return sorted(found)


def kill_marked(marker: str, rounds: int = 3) -> list[int]:
    """SIGKILL every live process carrying `marker` (a few rounds: a dying parent may
    still fork); returns the pids signalled."""
    return _kill_in_rounds(lambda: marked_processes(marker), rounds)


@contextmanager
def marked_run():
    """For the duration of a run: a fresh marker in os.environ (children inherit it)
    and this process a child subreaper. Afterwards kill every descendant the run
    left (by ancestry) and whatever still carries the marker; restore both."""
    marker = new_marker()
    previous = os.environ.get(RUN_MARKER_VAR)
    os.environ[RUN_MARKER_VAR] = marker
    was_subreaper = is_subreaper()
    became = not was_subreaper and _prctl(PR_SET_CHILD_SUBREAPER, 1)
    before = frozenset(descendants(os.getpid()))
    try:
        yield marker
    finally:
        if previous is None:
            os.environ.pop(RUN_MARKER_VAR, None)
        else:
            os.environ[RUN_MARKER_VAR] = previous
        kill_descendants(before)
        kill_marked(marker)
        if became:
            _prctl(PR_SET_CHILD_SUBREAPER, 0)
