"""scripts/bookcheck/run/signals.held_signals: Ctrl-C and SIGTERM wait for a kernel's shutdown."""
from __future__ import annotations

import os
import signal

import pytest

from bookcheck.run.signals import held_signals


@pytest.fixture()
def received():
    got = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
    yield got
    signal.signal(signal.SIGTERM, previous)


def test_a_signal_inside_the_block_arrives_when_it_ends(received):
    with held_signals():
        os.kill(os.getpid(), signal.SIGTERM)
        assert received == []
        with held_signals():                     # a nested block: one hold
            os.kill(os.getpid(), signal.SIGTERM)
        assert received == []
    assert received == [signal.SIGTERM]          # once, after the outermost block


def test_ctrl_c_held_is_a_keyboard_interrupt_after_the_block():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    reached_end = False
    with pytest.raises(KeyboardInterrupt):
        with held_signals():
            os.kill(os.getpid(), signal.SIGINT)
            reached_end = True
    assert reached_end                                   # the block was not cut short
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_inside_a_task_ends_the_run_as_ctrl_c_does(capfd, caplog):
    """bookcheck.cli's SIGTERM handler, the signal landing while a task's own code
    runs (not while the loop waits): asyncio.run ends with KeyboardInterrupt, the
    run is marked terminated (exit 143), and no task is left with an exception
    nobody retrieves (asyncio would log it with a traceback)."""
    import asyncio
    import gc
    from bookcheck import cli

    async def book():
        async def chapter():
            os.kill(os.getpid(), signal.SIGTERM)       # handled at the next bytecode, here
            sum(range(100_000))
            await asyncio.sleep(30)
        await asyncio.gather(chapter(), asyncio.sleep(30))

    previous = signal.signal(signal.SIGTERM, cli._on_sigterm)
    cli._TERMINATED.clear()
    try:
        with pytest.raises(KeyboardInterrupt):
            asyncio.run(book())
        gc.collect()
    finally:
        signal.signal(signal.SIGTERM, previous)
        terminated = cli._TERMINATED.is_set()
        cli._TERMINATED.clear()
    assert terminated
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
    assert "Traceback" not in capfd.readouterr().err
