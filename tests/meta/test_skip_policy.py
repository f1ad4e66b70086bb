"""The skip policy (tests/skip_policy.py): skip locally, fail under CI, naming what is missing."""
from __future__ import annotations

import pytest

from tests import skip_policy


def outcome(call, *args, **kwargs) -> tuple[str, str]:
    """("skip" | "fail" | "ok", message) of a policy call; a skip must not skip this test."""
    try:
        call(*args, **kwargs)
    except pytest.skip.Exception as exc:
        return "skip", str(exc)
    except pytest.fail.Exception as exc:
        return "fail", str(exc)
    return "ok", ""


def test_missing_tool_skips_locally(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    kind, message = outcome(skip_policy.require_tool, "no-such-tool-3f9")
    assert kind == "skip" and message.startswith("no-such-tool-3f9 is not on PATH")


def test_missing_tool_fails_under_ci_naming_it(monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PATH", "/nonexistent")
    kind, message = outcome(skip_policy.require_tool, "chromium")
    assert kind == "fail"
    assert message.startswith("chromium is not on PATH; install it with: apt-get install -y chromium")
    assert "CI is set" in message


def test_present_tool_is_returned(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert skip_policy.require_tool("sh").endswith("/sh")


def test_missing_seeds_fail_under_ci_unless_local_only_is_skipped(monkeypatch, tmp_path):
    gone = tmp_path / "seeds"
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("SKIP_LOCAL_ONLY", raising=False)
    kind, message = outcome(skip_policy.require_path, gone, "the seeds", local_only=True)
    assert (kind, message.split(" (")[0]) == ("fail", f"the seeds not found at {gone}")
    monkeypatch.setenv("SKIP_LOCAL_ONLY", "1")
    kind, message = outcome(skip_policy.require_path, gone, "the seeds", local_only=True)
    assert kind == "skip" and message.startswith("local-only test")
    # only a local-only requirement may be skipped on purpose
    assert outcome(skip_policy.require_path, gone, "the book", local_only=False)[0] == "fail"
    assert skip_policy.require_path(tmp_path, "a folder") == tmp_path
    monkeypatch.delenv("CI")
    monkeypatch.delenv("SKIP_LOCAL_ONLY")
    assert outcome(skip_policy.require_path, gone, "the seeds", local_only=True)[0] == "skip"
