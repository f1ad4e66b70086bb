"""Shared helpers for the pipeline tests (ledger, cache, synthetic book, bench)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:          # `pytest` (not `python -m pytest`) from anywhere
    sys.path.insert(0, str(ROOT))


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs the checker or the benchmark in subprocesses")


@pytest.fixture
def project_root() -> Path:
    return ROOT
