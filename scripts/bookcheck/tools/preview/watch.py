"""Watch the book's sources with watchfiles; yield batches of changed project paths.

Two watchers feed one queue: the project root itself (not recursive: _quarto.yml,
index.qmd, references.bib, …) and every top-level folder that can hold sources
(recursive: contents/, the book's package, images/, …). Folders that never change the book
(.venv, _book, _bookcheck, tests, scripts, …; see session.IGNORED_DIRS) are not
watched at all, so the tool and the test suite writing there cost nothing.
"""
from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Iterator

from bookcheck.tools.preview.session import IGNORED_DIRS, relevant

class WatcherMissing(RuntimeError):
    """watchfiles is not installed: the preview cannot follow saves."""


DEBOUNCE_MS = 400       # longest wait to group a burst of changes
STEP_MS = 30            # quiet time that ends a burst


def source_dirs(root: Path) -> list[Path]:
    return sorted(p for p in Path(root).iterdir()
                  if p.is_dir() and p.name not in IGNORED_DIRS and not p.name.startswith("."))


class Watcher:
    """Start watching at construction (so a save during the first build is not lost);
    `batches()` then yields the changed, relevant project-relative paths until `close()`."""

    def __init__(self, root: Path, stop: threading.Event | None = None):
        try:
            import watchfiles  # noqa: F401 (here, so a missing package stops the preview at once)
        except ImportError as exc:
            raise WatcherMissing("bookcheck preview needs the watchfiles package, a dependency of "
                               "bookcheck: reinstall it (`pip install bookcheck`)") from exc
        self.root = Path(root).resolve()
        self.stop = stop or threading.Event()
        self.queue: queue.Queue = queue.Queue()
        self.threads = [threading.Thread(target=self._follow, args=([self.root], False),
                                         daemon=True, name="preview-watch-root")]
        dirs = source_dirs(self.root)
        if dirs:
            self.threads.append(threading.Thread(target=self._follow, args=(dirs, True),
                                                 daemon=True, name="preview-watch-sources"))
        for thread in self.threads:
            thread.start()

    def _follow(self, paths: list[Path], recursive: bool) -> None:
        import watchfiles
        try:
            for batch in watchfiles.watch(*paths, stop_event=self.stop, recursive=recursive,
                                          debounce=DEBOUNCE_MS, step=STEP_MS,
                                          raise_interrupt=False, rust_timeout=500):
                self.queue.put([path for _, path in batch])
        except Exception as exc:        # noqa: BLE001 (handed to batches(), which raises it)
            self.queue.put(exc)

    def _next(self, block: bool) -> list[str] | None:
        item = self.queue.get(timeout=0.2) if block else self.queue.get_nowait()
        if isinstance(item, Exception):
            raise item
        return item

    def batches(self) -> Iterator[list[str]]:
        while not self.stop.is_set():
            try:
                paths = set(self._next(block=True))
            except queue.Empty:
                continue
            while True:                  # fold in whatever else is already waiting
                try:
                    paths |= set(self._next(block=False))
                except queue.Empty:
                    break
            changed = relevant(self.root, paths)
            if changed:
                yield changed

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=2)
