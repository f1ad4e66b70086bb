"""Checker test fixtures; helpers live in checker_support.py (made importable here)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from checker_support import child_pids  # noqa: E402


@pytest.fixture
def no_leftover_kernels():
    """Fail if a test leaves a kernel (or any child process) running."""
    before = child_pids()
    yield
    from scripts.run import execute
    assert execute.LIVE_KERNEL_PIDS == set()
    assert child_pids() - before == set()
