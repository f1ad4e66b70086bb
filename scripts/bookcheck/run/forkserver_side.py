"""Runs inside the fork server process (started by `bookcheck.run.forkserver`).

It imports what kernels need once, then forks one child per request; each
child becomes an ordinary IPython kernel. Protocol: prints {"ready": bool}
once warm, then for each stdin line {"argv", "cwd", "env"} forks and answers
{"pid"}. Exits when stdin closes. Imports nothing from the checker (the kernels'
helper modules arrive as file paths).
"""
from __future__ import annotations

import gc
import json
import os
import signal
import sys

KERNEL_MODULE = "ipykernel_launcher"
# What IPKernelApp.initialize imports (measured): preloading them halves a child's start.
KERNEL_INTERNALS = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell",
                    "ipykernel.debugger", "debugpy", "IPython.core.debugger", "pdb", "pydoc",
                    "sqlite3", "psutil")


def _reap(*_):
    """Collect exited children at once so they never linger as zombies."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


_HELPERS: list = []      # the kernels' helper modules loaded from files (`name=path`)


def _load_file(name: str, path: str) -> None:
    """Import the file at `path` as module `name` (the kernels' helper modules)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    _HELPERS.append(module)


def _preload(modules: list[str]) -> bool:
    """Import what kernels will need (`name=path`: a file as that module); False if
    that resolved matplotlib's backend.

    pyplot itself is safe to preload: it picks its backend lazily, so the
    inline backend still binds to the kernel's shell in the child.
    """
    files = [name.split("=", 1) for name in modules if "=" in name]
    for name, path in files:        # the kernels' helpers first: the observer watches the rest
        _load_file(name, path)
    checker = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for helper in _HELPERS:
        if hasattr(helper, "preload"):      # observe_side: what the imports below read
            helper.preload(os.getcwd(), [checker])
    for name in KERNEL_INTERNALS + tuple(n for n in modules if "=" not in n):
        try:
            __import__(name)
        except BaseException:    # a module that fails here fails again, visibly, in the chapter
            pass
    pyplot = sys.modules.get("matplotlib.pyplot")
    backend_bound = pyplot is not None and getattr(pyplot, "_backend_mod", None) is not None
    ready = not backend_bound and "matplotlib_inline.backend_inline" not in sys.modules
    if ready and pyplot is not None:
        _warm_matplotlib()
    return ready


def _warm_matplotlib() -> None:
    """Draw one small figure off pyplot, on an Agg canvas: imports the Agg backend and
    PIL's PNG writer and fills matplotlib's font caches once, here, instead of in
    every kernel's first figure (about 0.2 s each). pyplot's backend stays unchosen,
    rcParams untouched: the kernel's inline backend still binds in the child."""
    try:
        import io
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        figure = Figure(figsize=(2, 1.5))
        FigureCanvasAgg(figure)
        axes = figure.subplots()
        axes.plot([0, 1], [1, 0], label="warm")
        axes.set_xlabel("x (s)")
        axes.set_title("warm-up")
        axes.legend()
        figure.savefig(io.BytesIO(), format="png", bbox_inches="tight")
    except BaseException:       # a warm-up only: kernels work without it
        pass


def _become_kernel(argv: list[str], cwd: str, env: dict) -> None:
    """In the forked child: detach, then run ipykernel as `python -m ipykernel_launcher` would."""
    try:
        os.setsid()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        # Exit when both this server and the checker are gone (the server exits when
        # the checker does, even if the checker is SIGKILLed: its stdin closes). A
        # kernel outlives the server alone: the checker is a child subreaper and
        # takes it in, so a chapter that kills the server hurts no other chapter.
        # (Not ipykernel's parent poller, which exits when the server goes.)
        os.environ.pop("JPY_PARENT_PID", None)
        _watch_parents(os.getppid(), CHECKER["pid"])
        args = argv[argv.index(KERNEL_MODULE) + 1:]
        args.append("--IPKernelApp.parent_handle=0")
        sys.argv = [KERNEL_MODULE, *args]
        if sys.path and sys.path[0] == "":        # as ipykernel_launcher does
            del sys.path[0]
        from ipykernel import kernelapp
        kernelapp.launch_new_instance(argv=args)
    finally:
        os._exit(0)


CHECKER = {"pid": 0}         # the checker that started this server


def _watch_parents(server: int, checker: int, period_s: float = 0.5) -> None:
    """In a kernel: a daemon thread that ends the process once its parent is neither
    the server nor the checker (both gone: re-parented to init or another reaper)."""
    import threading
    import time

    def watch():
        while True:
            time.sleep(period_s)
            if os.getppid() not in (server, checker):
                os._exit(1)
    threading.Thread(target=watch, name="qmd-parent-watch", daemon=True).start()


def serve(modules: list[str]) -> None:
    CHECKER["pid"] = os.getppid()
    signal.signal(signal.SIGCHLD, _reap)
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the checker decides when we stop
    ready = _preload(modules)
    for helper in _HELPERS:     # work a helper can do once for all kernels
        prefork = getattr(helper, "prefork", None)
        if prefork is not None:
            try:
                prefork()
            except BaseException:
                pass
    # Everything imported so far lives as long as the kernels: keep it out of their
    # garbage collections, which would otherwise walk (and so copy) every page of it.
    gc.freeze()
    print(json.dumps({"ready": ready}), flush=True)
    if not ready:
        os._exit(0)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _become_kernel(request["argv"], request["cwd"], request["env"])
        print(json.dumps({"pid": pid}), flush=True)
    os._exit(0)         # stdin closed: skip tearing down pandas & co.
