"""One fresh Jupyter kernel per chapter, driven through nbclient.

A Kernel is started (forked from the warm `bookcheck.run.forkserver` when there is
one, else launched as `python -m ipykernel_launcher`), receives the helper
modules (`kernel_side.py`, `facts_side.py`, `observe_side.py`, `steps_side.py`:
code that runs in the kernel), runs one chapter (bookcheck.run.steps) and is killed: never reused,
so no state leaks between chapters. Every kernel pid is recorded until it is
reaped, so an interrupted check can still kill them all.

Only public nbclient and jupyter_client calls (NotebookClient's kernel manager,
`async_start_new_kernel` and `async_start_new_kernel_client`, which waits for the
kernel as nbclient itself does; the client's `execute`/`get_shell_msg`; the
manager's `is_alive`/`shutdown_kernel`/`cleanup_resources`), so any release that
requirements.txt allows keeps them (tests/run/test_kernel_api.py). Waiting with
jupyter_client's own `wait_for_ready` instead of a hand loop cost nothing measurable
(issue 32: cold `check --force` of a 21-chapter synthetic book, 3 runs each:
11.9 s wall, 7.3 s CPU either way).
"""
from __future__ import annotations

import atexit
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import nbformat
from jupyter_client.provisioning import LocalProvisioner
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from bookcheck.errors import KernelSetupError
from bookcheck.run.forkserver import SIDE_MODULES, ForeignProcess, kernel_env
from bookcheck.run.signals import held_signals

DEFAULT_TIMEOUT_S = 120.0
STARTUP_TIMEOUT_S = 60.0
OUTPUT_CAP_CHARS = 1_000_000          # per cell and stream, in the kernel
RICH_CAP_CHARS = 20_000_000           # per cell, all outputs together, in the kernel
HELPER, FACTS, OSLOG, PYHOOKS, OBSERVER, STEPS = SIDE_MODULES   # their files: SIDE_MODULES
CHECKER_DIR = str(Path(__file__).resolve().parents[1])    # scripts/: the checker, not an input
LIVE_KERNEL_PIDS: set[int] = set()    # every kernel process we started and not yet reaped


def _module_code(name: str) -> str:
    """Install SIDE_MODULES[name] as module `name`, unless the fork server already has."""
    source = Path(__file__).with_name(SIDE_MODULES[name]).read_text(encoding="utf-8")
    return (f"if {name!r} not in _s.modules:\n"
            f"    _m = _t.ModuleType({name!r})\n"
            f"    exec(compile({source!r}, {name!r}, 'exec'), _m.__dict__)\n"
            f"    _s.modules[{name!r}] = _m\n"
            f"_m = _s.modules[{name!r}]\n")


def _setup_code(figure: dict | None, root: Path | None = None) -> str:
    """Code that installs the side modules (kernel_side.py, facts_side.py, observe_side.py,
    steps_side.py) in the kernel, calls kernel_side's setup and starts observing."""
    root = Path(root or ".").resolve()
    return ("import sys as _s, types as _t\n"
            + _module_code(HELPER)
            + f"_m.setup({OUTPUT_CAP_CHARS}, {figure!r})\n"
            + _module_code(FACTS)
            + _module_code(OSLOG)
            + _module_code(PYHOOKS)
            + _module_code(OBSERVER)
            + f"_m.install({str(root)!r}, {[CHECKER_DIR]!r}, {list(SIDE_MODULES)!r})\n"
            + _module_code(STEPS)
            + "del _s, _t, _m\n")


class Kernel:
    """One fresh kernel for one chapter (isolation: never reused)."""

    def __init__(self, root: Path, timeout_s: float = DEFAULT_TIMEOUT_S, figure: dict | None = None):
        self.root = Path(root)
        self.figure = figure      # Quarto's figure options (bookcheck.read.figures), None: the kernel's
        self.pid: int | None = None
        self.client = self._new_client(timeout_s)

    def _new_client(self, timeout_s: float) -> NotebookClient:
        """nbclient's client owns the kernel manager and channels; cells are not sent
        through it (bookcheck.run.steps sends a chapter in one request: why, there)."""
        return NotebookClient(
            nbformat.v4.new_notebook(), kernel_name="python3", timeout=timeout_s,
            allow_errors=True, shell_timeout_interval=1, iopub_timeout=10,
            startup_timeout=STARTUP_TIMEOUT_S, record_timing=False, shutdown_kernel="immediate",
            resources={"metadata": {"path": str(self.root)}})

    async def start(self, server=None) -> "Kernel":
        """Start the kernel: forked from `server` (a warm ForkServer) when it can serve,
        else (or if forking fails) launched as a fresh process."""
        try:
            if server is not None and await server.ready():
                try:
                    await self._launch(server)
                    return self
                except Exception:
                    await self.shutdown()
                    self.client = self._new_client(self.client.timeout)
            await self._launch(None)
        except BaseException:
            await self.shutdown()
            raise
        return self

    async def _launch(self, server) -> None:
        client = self.client
        client.km = client.create_kernel_manager()
        if server is not None:
            client.km.kernel_id = str(uuid.uuid4())
            provisioner = ForkProvisioner(kernel_id=client.km.kernel_id,
                                          kernel_spec=client.km.kernel_spec, parent=client.km)
            provisioner.server = server
            client.km.provisioner = provisioner
        await client.async_start_new_kernel(cwd=str(self.root), env=kernel_env(self.root),
                                            stderr=subprocess.DEVNULL)
        process = getattr(client.km.provisioner, "process", None)
        self.pid = getattr(process, "pid", None)
        if self.pid:
            LIVE_KERNEL_PIDS.add(self.pid)
        await client.async_start_new_kernel_client()   # channels; waits for kernel_info
        reply = await self.request(_setup_code(self.figure, self.root), {}, STARTUP_TIMEOUT_S)
        if reply["status"] != "ok":
            raise KernelSetupError(f"the checker's setup failed in the kernel: "
                                   f"{reply.get('ename')}: {reply.get('evalue')}")

    async def shell_reply(self, msg_id: str, deadline: float) -> dict:
        """The shell reply to `msg_id`; DeadKernelError / CellTimeoutError otherwise."""
        kc = self.client.kc
        while True:
            try:
                msg = await kc.get_shell_msg(timeout=min(1.0, max(0.01, deadline - time.monotonic())))
            except Exception:           # queue.Empty: check the kernel, then the clock
                if not await self.client.km.is_alive():
                    raise DeadKernelError("Kernel died")
                if time.monotonic() > deadline:
                    raise CellTimeoutError("no reply in time")
                continue
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg

    async def request(self, code: str, expressions: dict, timeout_s: float) -> dict:
        """Silent execute_request; returns the reply content. Raises on timeout/death."""
        msg_id = self.client.kc.execute(code, silent=True, store_history=False,
                                        user_expressions=expressions, stop_on_error=False)
        reply = await self.shell_reply(msg_id, time.monotonic() + timeout_s)
        return reply["content"]

    async def shutdown(self) -> None:
        """Kill the kernel now and remove its connection file; idempotent."""
        client = self.client
        with held_signals():        # a signal mid-shutdown would leave its sockets half-closed
            try:
                await _stop(client.km, client.kc)
            except Exception:
                pass
            finally:
                client.km = client.kc = None
                _reap(self.pid)
                self.pid = None


class ForkProvisioner(LocalProvisioner):
    """LocalProvisioner whose launch forks the warm server instead of exec'ing Python."""

    server = None                           # the bookcheck.run.forkserver.ForkServer to ask

    async def launch_kernel(self, cmd: list[str], **kwargs):
        pid = await self.server.spawn(list(cmd), str(kwargs.get("cwd") or os.getcwd()),
                                      dict(kwargs.get("env") or os.environ))
        self.process = ForeignProcess(pid)
        self.pid, self.pgid = pid, pid          # the child called setsid()
        self.cwd = kwargs.get("cwd")
        return self.connection_info


async def _stop(km, kc) -> None:
    """What nbclient's own cleanup does, through jupyter_client's public calls: kill the
    kernel now, release its connection file and sockets, close the channels."""
    try:
        if km is not None and await km.is_alive():
            await km.shutdown_kernel(now=True)
    finally:
        if km is not None:
            await km.cleanup_resources()
        if kc is not None:
            kc.stop_channels()


def _reap(pid: int | None) -> None:
    """Make sure the kernel's process group is gone."""
    if not pid:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    LIVE_KERNEL_PIDS.discard(pid)


def kill_all_kernels() -> None:
    """Last resort (Ctrl-C, interpreter exit): kill every kernel still recorded."""
    for pid in list(LIVE_KERNEL_PIDS):
        _reap(pid)


async def start_kernel(root: Path, timeout_s: float = DEFAULT_TIMEOUT_S,
                       figure: dict | None = None, server=None) -> Kernel:
    return await Kernel(root, timeout_s, figure).start(server)


atexit.register(kill_all_kernels)
