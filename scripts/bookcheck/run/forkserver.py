"""Start kernels by forking one pre-warmed process instead of `python -m ipykernel_launcher`.

A kernel start costs ~1 s of CPU, most of it importing ipykernel, numpy,
pandas, pint and the book's own package. The fork server pays that once per
check: it imports them, then forks one child per chapter; each child becomes an
ordinary, fresh IPython kernel (own process, own memory: nothing a chapter does
is visible to another chapter, exactly as with separately launched kernels).

Only modules that do not touch matplotlib's backend are preloaded (pyplot and
the inline backend must initialise inside the kernel, or figures would not be
captured); if preloading pulls pyplot in anyway the server refuses to serve and
the checker falls back to launching kernels normally.

Protocol (one JSON object per line): the server prints {"ready": true} once
warm, then for each request {"argv", "cwd", "env"} forks and answers {"pid"}.
It exits when its stdin closes. Children start a new session (their pid is
their process group), so the checker can kill each kernel's whole group.

This module is the client side, ForkServer (the server's code is forkserver_side.py;
ForkProvisioner in bookcheck.run.kernel plugs the children into jupyter_client as
ordinary kernels). It imports nothing heavy: the checker starts the server first.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from bookcheck.errors import ForkServerError


KERNEL_MODULE = "ipykernel_launcher"

# Code that runs inside every kernel: module name there -> file beside this one,
# installed in this order (bookcheck.run.kernel). The fork server imports them once,
# so a forked kernel only has to call their setup.
SIDE_MODULES = {"_qmd_checker": "kernel_side.py", "_qmd_facts": "facts_side.py",
                "_qmd_oslog": "oslog_side.py", "_qmd_pyhooks": "pyhooks_side.py",
                "_qmd_observer": "observe_side.py",
                "_qmd_steps": "steps_side.py"}

# Headless and Agg-based, like Quarto's kernels: figures shown with plt.show()
# become image outputs (plain "Agg" would silently drop them).
MPL_BACKEND = "module://matplotlib_inline.backend_inline"


# A run must produce the same bytes every time, or a cached run could never be told
# from a fresh one (`check --audit`). Left to themselves, matplotlib stamps the current
# time into every SVG (<dc:date>) and PDF, and every forked kernel inherits the fork
# server's random str-hash seed (set and dict-of-set order). An author's own value of
# either variable is kept.
REPRODUCIBLE_ENV = {
    "SOURCE_DATE_EPOCH": "315532800",   # 1980-01-01T00:00:00Z, the reproducible-builds convention
    "PYTHONHASHSEED": "0",
}


def kernel_env(root: Path) -> dict:
    """Environment of every kernel (and of the fork server that makes them)."""
    from bookcheck.run.interpose import environment
    env = {**REPRODUCIBLE_ENV, **os.environ,
           "MPLBACKEND": MPL_BACKEND, "PYDEVD_DISABLE_FILE_VALIDATION": "1",
           **environment(root)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(root).resolve()),
                                                     env.get("PYTHONPATH")) if p)
    return env


def kernel_argv(name: str = "python3") -> list[str]:
    """argv of the installed kernelspec (the one lookup: bookcheck.run.kernelspec)."""
    from bookcheck.run.kernelspec import kernel_spec
    return kernel_spec(name)["argv"]


def package_imports(root: Path, chapters) -> list[str]:
    """Modules imported by the chapters' cells, skipping the book's single-file modules
    (those may print on import: their output belongs to the chapter)."""
    import ast
    names: set[str] = set()
    for parsed in chapters:
        for cell in parsed.cells:
            if "import" not in cell.source:
                continue            # most cells: no parse needed (this runs before the server starts)
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module)
    return sorted(n for n in names if not (Path(root) / f"{n.split('.')[0]}.py").exists())


def start(root: Path, chapters=()) -> "ForkServer | None":
    """A warming server for this book, or None where fork is unavailable or disabled
    (CHECKER_FORK=0)."""
    if not hasattr(os, "fork") or os.environ.get("CHECKER_FORK", "1") == "0":
        return None
    return ForkServer(root, kernel_env(root), kernel_argv(), package_imports(root, chapters))


READY_TIMEOUT_S = 60.0
# Besides forkserver_side.KERNEL_INTERNALS and the chapters' own imports: libraries that code
# imports lazily (a book's table helper may pull in pandas and tabulate on first use).
PRELOAD = ("IPython.display", "numpy", "numpy.random", "pandas", "tabulate", "pint", "matplotlib",
           "matplotlib.pyplot")
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); from bookcheck.run.forkserver_side import serve; "
         "sys.path.pop(0); serve(sys.argv[2:])")


def _side_files() -> list[str]:
    """SIDE_MODULES as the server's `name=path` arguments."""
    here = Path(__file__).resolve().parent
    return [f"{name}={here / filename}" for name, filename in SIDE_MODULES.items()]


class ForkServer:
    """The warm parent process; `spawn` returns the pid of a new kernel child."""

    def __init__(self, root: Path, env: dict, kernel_argv: list[str], modules=()):
        """Start the server with the kernelspec's interpreter and flags (argv before `-m`)."""
        package_parent = str(Path(__file__).resolve().parents[2])
        python = kernel_argv[:kernel_argv.index("-m")] if "-m" in kernel_argv else [sys.executable]
        self.process = subprocess.Popen(
            [*python, "-c", _BOOT, package_parent, *PRELOAD, *modules, *_side_files()],
            cwd=str(root), env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, start_new_session=True)
        self._ready: bool | None = None
        import asyncio      # here: a fully cached check imports this module, not asyncio
        self._lock = asyncio.Lock()

    async def _read(self) -> dict:
        import asyncio
        line = await asyncio.get_running_loop().run_in_executor(None, self.process.stdout.readline)
        if not line:
            raise ForkServerError("the kernel fork server exited")
        return json.loads(line)

    async def ready(self) -> bool:
        """Wait until warm; False when the server cannot serve (use normal kernels).

        A preload that hangs (an import waiting on the network…) must not hang the
        check: after READY_TIMEOUT_S the server is killed and kernels are launched
        normally, where the same import runs inside a cell, under the cell timeout.
        """
        import asyncio
        async with self._lock:
            if self._ready is None:
                try:
                    reply = await asyncio.wait_for(self._read(), READY_TIMEOUT_S)
                    self._ready = bool(reply.get("ready"))
                except (ForkServerError, ValueError, asyncio.TimeoutError):
                    self._ready = False
                if not self._ready:
                    self.close()
            return self._ready

    async def spawn(self, argv: list[str], cwd: str, env: dict) -> int:
        if KERNEL_MODULE not in argv:
            raise ForkServerError("kernelspec does not run ipykernel_launcher")
        async with self._lock:
            self.process.stdin.write(json.dumps({"argv": argv, "cwd": cwd, "env": env}) + "\n")
            self.process.stdin.flush()
            return int((await self._read())["pid"])

    def close(self) -> None:
        """Stop the server at once (it holds nothing worth a graceful exit; its kernels
        live in their own sessions and are shut down by their owners)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:
                pass


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie awaiting its parent's wait() counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return not os.path.isdir("/proc/self")     # no procfs (macOS): trust kill(0)
    except OSError:
        return True


class ForeignProcess:
    """The Popen surface LocalProvisioner uses, for a process that is not our child."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """None while alive. The exit status is not ours to collect (the server reaps
        its children), so a dead kernel reports -SIGKILL."""
        if self.returncode is None and not _alive(self.pid):
            self.returncode = -signal.SIGKILL
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        import time
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

