"""Ctrl-C and SIGTERM held back while a kernel shuts down.

The CLI turns SIGTERM into an exception raised wherever the main thread is
(as Python does with Ctrl-C). Raised inside jupyter_client's channel shutdown
(a thread join), it leaves half-closed sockets whose threads then print
tracebacks. Inside `held_signals()` both signals are only recorded; when the
outermost block ends, the previous handlers are back and the first signal held
is raised again, so it takes effect just after the shutdown, at most its
duration late. Only the main thread can set handlers: elsewhere it does nothing.
"""
from __future__ import annotations

import contextlib
import signal
import threading

HELD = (signal.SIGINT, signal.SIGTERM)
_state = {"depth": 0, "saved": {}, "pending": []}


def _hold(signum, _frame) -> None:
    _state["pending"].append(signum)


@contextlib.contextmanager
def held_signals():
    """Within the block, SIGINT and SIGTERM wait; nested blocks share one hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _state["depth"] == 0:
        _state["saved"] = {s: signal.signal(s, _hold) for s in HELD}
    _state["depth"] += 1
    try:
        yield
    finally:
        _state["depth"] -= 1
        if _state["depth"] == 0:
            for signum, handler in _state["saved"].items():
                signal.signal(signum, handler)
            pending, _state["pending"] = _state["pending"], []
            if pending:
                signal.raise_signal(pending[0])     # to the handler just restored
