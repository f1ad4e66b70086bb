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
  Frozen before killed: each is SIGSTOPped with its process group until none
  runs, then SIGKILLed, so a daemon that keeps re-forking (a new pid every few
  milliseconds) cannot outrun the sweep.
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
STOPPED = ("T", "t")                # /proc states of a stopped (or traced) process
DEAD = ("Z", "X")                   # ... of a zombie, of one being removed


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


def _table() -> dict[int, list[bytes]]:
    """Every process's /proc/<pid>/stat fields after its name, read once (a pid's
    state and group are taken from this one read: a short-lived pid is gone by a second)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    table = {}
    for name in names:
        if name.isdigit():
            fields = _stat_fields(int(name))
            if fields and len(fields) > 3:
                table[int(name)] = fields
    return table


def descendants(pid: int, skip: frozenset[int] = frozenset(), table: dict | None = None) -> list[int]:
    """Live or zombie descendants of `pid` by ppid chains, not entering `skip`'s subtrees."""
    table = _table() if table is None else table
    children: dict[int, list[int]] = {}
    for child, fields in table.items():
        children.setdefault(int(fields[1]), []).append(child)
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

    def listed() -> dict[int, tuple[str, int]]:      # zombies too: their group is the run's
        table = _table()
        return {p: (table[p][0].decode(), int(table[p][2])) for p in descendants(me, before, table)}
    killed = _kill_in_rounds(listed, rounds)
    _reap(before)
    return killed


def _kill_in_rounds(listing, rounds: int) -> list[int]:
    """End what `listing()` lists ({pid: (state, process group)}, zombies included):
    freeze first, then kill. Killing pid by pid loses to a process that keeps
    re-forking itself (the pid listed is gone, its child not listed yet: a listing may
    even miss it whole), so each round SIGSTOPs every process group seen (a zombie's
    too: an orphan of the run is the run's) and every listed process (a group signal
    reaches every member at once: a fork cannot slip past it), until a listing finds
    none still running (at most `rounds` + 20 times); then SIGKILLs the groups and
    every process seen. The checker's own group and its parent's are never signalled.
    Returns the pids signalled."""
    spared = {os.getpgrp(), _pgid(os.getppid())}
    seen: list[int] = []
    groups: set[int] = set()
    for _ in range(rounds + 20):
        listed = listing()
        groups |= {group for _, group in listed.values() if group not in spared}
        for group in groups:
            _signal(os.killpg, group, signal.SIGSTOP)
        running = [pid for pid, (state, _) in listed.items() if state not in DEAD + STOPPED]
        for pid in running:
            _signal(os.kill, pid, signal.SIGSTOP)
        seen += [p for p in running if p not in seen]
        if not running:
            break                       # frozen: nothing of the run can fork any more
        time.sleep(0.002)
    for group in groups:
        _signal(os.killpg, group, signal.SIGKILL)
    last = [pid for pid, (state, _) in listing().items() if state not in DEAD]
    return [pid for pid in seen + [p for p in last if p not in seen]
            if _signal(os.kill, pid, signal.SIGKILL)]


def _signal(send, target: int, signum: int) -> bool:
    """send(target, signum); False when the target is gone or not ours."""
    try:
        send(target, signum)
        return True
    except OSError:
        return False


def _pgid(pid: int) -> int | None:
    """The process group of `pid` (/proc/<pid>/stat), None when it is gone."""
    fields = _stat_fields(pid)
    return int(fields[2]) if fields and len(fields) > 2 else None


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


def marked_processes(marker: str) -> dict[int, tuple[str, int]]:
    """Live (non-zombie) processes, other than this one, whose environment carries
    `marker`: {pid: (state, process group)}."""
    if not marker:
        return {}
    needle = f"{RUN_MARKER_VAR}={marker}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    me = os.getpid()
    found = {}
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        pid = int(name)
        if needle in _environ(pid).split(b"\0"):
            fields = _stat_fields(pid)
            if fields and len(fields) > 3 and fields[0] not in (b"Z", b"X"):
                found[pid] = (fields[0].decode(), int(fields[2]))
    return found


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
