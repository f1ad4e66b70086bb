"""Watch the book's sources with watchfiles; yield batches of changed project paths.

Two watchers feed one queue: the project root itself (not recursive: _quarto.yml,
index.qmd, references.bib, …) and every top-level folder that can hold sources
(recursive: contents/, mlsys/, images/, …). Folders that never change the book
(.venv, _book, _build, tests, scripts, …; see session.IGNORED_DIRS) are not
watched at all, so the tool and the test suite writing there cost nothing.
"""
from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Iterator

from scripts.tools.preview.session import IGNORED_DIRS, relevant

DEBOUNCE_MS = 400       # longest wait to group a burst of changes
STEP_MS = 30            # quiet time that ends a burst


def source_dirs(root: Path) -> list[Path]:
    return sorted(p for p in Path(root).iterdir()
                  if p.is_dir() and p.name not in IGNORED_DIRS and not p.name.startswith("."))


def changes(root: Path, stop: threading.Event) -> Iterator[list[str]]:
    """Batches of changed, relevant project-relative paths until `stop` is set.

    Raises KeyboardInterrupt through to the caller as usual (the watcher
    threads are daemons and end with `stop`).
    """
    import watchfiles
    root = Path(root).resolve()
    batches: queue.Queue = queue.Queue()

    def follow(paths: list[Path], recursive: bool) -> None:
        try:
            for batch in watchfiles.watch(*paths, stop_event=stop, recursive=recursive,
                                          debounce=DEBOUNCE_MS, step=STEP_MS,
                                          raise_interrupt=False, rust_timeout=500):
                batches.put([path for _, path in batch])
        except Exception as exc:        # noqa: BLE001 (reported, then the preview stops)
            batches.put(exc)

    threads = [threading.Thread(target=follow, args=([root], False), daemon=True,
                                name="preview-watch-root")]
    dirs = source_dirs(root)
    if dirs:
        threads.append(threading.Thread(target=follow, args=(dirs, True), daemon=True,
                                        name="preview-watch-sources"))
    for thread in threads:
        thread.start()
    try:
        while not stop.is_set():
            try:
                item = batches.get(timeout=0.2)
            except queue.Empty:
                continue
            if isinstance(item, Exception):
                raise item
            paths = set(item)
            while True:                  # fold in whatever else is already waiting
                try:
                    more = batches.get_nowait()
                except queue.Empty:
                    break
                if isinstance(more, Exception):
                    raise more
                paths |= set(more)
            changed = relevant(root, paths)
            if changed:
                yield changed
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=2)
