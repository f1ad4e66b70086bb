"""The real Quarto these tests drive (tests/skip_policy.real_quarto: local-only)."""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.skip_policy import real_quarto


@pytest.fixture(scope="session")
def quarto_exe() -> Path:
    return real_quarto()
