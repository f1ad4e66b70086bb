"""The skip policy (tests/skip_policy.py): skip locally, fail under CI, naming what is missing."""
from __future__ import annotations

import pytest

import skip_policy


def test_missing_tool_skips_locally(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no-such-tool-3f9 is not on PATH"):
        skip_policy.require_tool("no-such-tool-3f9")


def test_missing_tool_fails_under_ci_naming_it(monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(pytest.fail.Exception, match=r"chromium is not on PATH.*apt-get install -y chromium.*CI is set"):
        skip_policy.require_tool("chromium")


def test_present_tool_is_returned(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert skip_policy.require_tool("sh").endswith("/sh")


def test_missing_seeds_fail_under_ci_unless_local_only_is_skipped(monkeypatch, tmp_path):
    gone = tmp_path / "seeds"
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("SKIP_LOCAL_ONLY", raising=False)
    with pytest.raises(pytest.fail.Exception, match=f"the seeds not found at {gone}"):
        skip_policy.require_path(gone, "the seeds", local_only=True)
    monkeypatch.setenv("SKIP_LOCAL_ONLY", "1")
    with pytest.raises(pytest.skip.Exception, match="local-only test"):
        skip_policy.require_path(gone, "the seeds", local_only=True)
    with pytest.raises(pytest.fail.Exception):          # only local-only paths may be skipped
        skip_policy.require_path(gone, "the book", local_only=False)
    assert skip_policy.require_path(tmp_path, "a folder") == tmp_path
