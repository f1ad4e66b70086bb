"""scripts/run/signals.held_signals: Ctrl-C and SIGTERM wait for a kernel's shutdown."""
from __future__ import annotations

import os
import signal

import pytest

from scripts.run.signals import held_signals


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
