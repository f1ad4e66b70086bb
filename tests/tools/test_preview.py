"""`make preview` in a real browser (Debian chromium via playwright, never downloaded).

On a temporary copy of the book: the page reloads with an edited value; a
failing check() puts a banner with its path:line over the last good render;
the fix clears it; Ctrl-C leaves no process, port or temporary file behind.
"""
from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bookcheck.tools.preview.server import Broadcast
from bookcheck.tools.preview.watch import Watcher, WatcherMissing
from tests.bookkit import copy_book

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
CHAPTER = "contents/appendix-constants.qmd"
PAGE = "contents/appendix-constants.html"
WAIT_MS = 240_000          # a generous bound for a loaded 2-core machine; not a timing test

PROBE_CELL = "```{{python}}\n{code}\n```\n\nPreview probe: `{{python}} preview_probe`.\n"


def test_broadcast_wakes_waiters_and_closes():
    b = Broadcast()
    serial, state = b.snapshot()
    assert state == {"version": 0, "findings": []}
    assert b.wait(serial, 0.01) is None
    b.publish(reload=False, findings=[{"kind": "x"}])
    serial, state = b.wait(serial, 1)
    assert state == {"version": 0, "findings": [{"kind": "x"}]}
    b.publish(reload=True, findings=[])
    assert b.wait(serial, 1)[1] == {"version": 1, "findings": []}
    b.close()
    assert b.wait(serial + 1, 5) is None


def copy_warm_book(dest: Path) -> Path:
    copy_book(dest)
    cache = ROOT / "_bookcheck" / "cache"       # a warm start when the repository was checked
    if cache.is_dir():
        shutil.copytree(cache, dest / "_bookcheck" / "cache")
    return dest


def set_probe(book: Path, code: str) -> int:
    """Replace (or append) the probe cell; return the line of its last code line."""
    path = book / CHAPTER
    text = path.read_text(encoding="utf-8")
    marker = "\n<!-- preview probe -->\n"
    text = text.split(marker)[0] + marker + PROBE_CELL.format(code=code)
    path.write_text(text, encoding="utf-8")
    head = text.split(marker)[0] + marker + "```{python}\n"
    return head.count("\n") + code.count("\n") + 1


def processes_in(folder: Path) -> list[int]:
    """Processes (other than this one) whose working directory or command line names `folder`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(proc / "cwd")
            cmd = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if cwd == str(folder) or cwd.startswith(str(folder) + "/") or str(folder) in cmd:
            found.append(int(proc.name))
    return found


class Preview:
    """`bookcheck preview` in a subprocess, its output read line by line."""

    def __init__(self, book: Path, tmpdir: Path):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmpdir),
               "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "bookcheck.tools.preview",
                                      "--root", str(book)], cwd=book, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.log.append(line)
            self.lines.put(line)

    def wait_for(self, pattern: str, timeout_s: float = WAIT_MS / 1000) -> re.Match:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            match = re.search(pattern, line)
            if match:
                return match
        raise AssertionError(f"no line matching {pattern!r}; output:\n{''.join(self.log)}")


@pytest.mark.slow
@pytest.mark.browser        # CHROMIUM is found at import: no fixture or needs_tool marks it
@pytest.mark.kernel         # the preview checks the edited chapter
@pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed")
def test_preview_reloads_shows_and_clears_the_banner(tmp_path):
    from playwright.sync_api import sync_playwright
    book = copy_warm_book(tmp_path / "book")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    set_probe(book, "preview_probe = 41")
    preview = Preview(book, tmpdir)
    try:
        url = preview.wait_for(r"preview: (http://127\.0\.0\.1:\d+/)").group(1)
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
            page = browser.new_page()
            page.goto(url + PAGE)
            assert "Preview probe: 41" in page.inner_text("main")

            # 1. edit a value: the page reloads by itself with the new value
            page.evaluate("window.__beforeEdit = true")
            set_probe(book, "preview_probe = 42")
            page.wait_for_function("document.body.innerText.includes('Preview probe: 42')",
                                   timeout=WAIT_MS)
            assert page.evaluate("window.__beforeEdit === undefined")     # a real reload
            assert page.locator("#preview-findings").count() == 0

            # 2. a failing check(): banner with path:line over the last good render
            line = set_probe(book, "from mlsys.formatting import check\npreview_probe = 43\n"
                                   "check(preview_probe > 100, 'the probe exceeds 100')")
            banner = page.locator("#preview-findings")
            banner.wait_for(state="visible", timeout=WAIT_MS)
            where = banner.locator(".preview-location").first.inner_text()
            assert where.startswith(f"{CHAPTER}:{line}"), (where, line)
            assert "invariant" in banner.inner_text()
            assert "Preview probe: 42" in page.inner_text("main")      # the last good render
            preview.wait_for(re.escape(f"{CHAPTER}:{line}"))          # and in the terminal

            # 3. the fix clears the banner and shows the new value
            set_probe(book, "preview_probe = 44")
            page.wait_for_function("document.body.innerText.includes('Preview probe: 44')",
                                   timeout=WAIT_MS)
            banner.wait_for(state="detached", timeout=WAIT_MS)
            browser.close()
    finally:
        if preview.proc.poll() is None:
            preview.proc.send_signal(signal.SIGINT)        # what Ctrl-C sends
        try:
            code = preview.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            preview.proc.kill()
            raise
    assert code == 0, "".join(preview.log)
    assert processes_in(book) == []
    assert list(tmpdir.iterdir()) == []
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0        # the server is gone


def test_preview_without_watchfiles_stops_at_once_with_a_clear_error(tmp_path, monkeypatch, capsys):
    """A missing watchfiles used to kill only the watcher threads: the preview then
    served forever and never reloaded. It must refuse to start, exit 2, say why."""
    from bookcheck.tools import preview
    (tmp_path / "_quarto.yml").write_text("project:\n  type: book\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "watchfiles", None)     # import watchfiles -> ImportError
    with pytest.raises(WatcherMissing):
        Watcher(tmp_path).close()
    assert preview.main(["--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "watchfiles" in err and "pip install bookcheck" in err
