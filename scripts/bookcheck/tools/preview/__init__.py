"""`make preview`: serve the book, rebuild what a save changes, reload the browser.

    bookcheck preview [--root DIR] [--port N] [--jobs N]

What it does on a save, on a failing check and on Ctrl-C: the README's "Live
preview". Here: the watch loop (watch.py), the check and render of each batch
(session.py, pages.py) and the server telling every open page to reload over
server-sent events (server.py).
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from bookcheck.tools.preview.session import Outcome, Session, finding_json
from bookcheck.tools.preview.watch import WatcherMissing


PLACEHOLDER = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Preview</title></head>"
               "<body><p>No good render yet: fix the findings below.</p></body></html>\n")


class PortUnavailable(OSError):
    """The --port asked for cannot be bound (in use, privileged)."""


class _Stop(KeyboardInterrupt):
    """SIGTERM: stop exactly as for Ctrl-C."""


def _on_sigterm(signum, frame):
    raise _Stop()


def _say(text: str) -> None:
    print(text, flush=True)


def announce(outcome: Outcome) -> None:
    """The terminal's account of one build."""
    from bookcheck.verify.report import format_finding
    if outcome.findings:
        for f in outcome.findings:
            _say(format_finding(f))
        _say(f"check FAILED ({len(outcome.findings)} finding"
             f"{'s' * (len(outcome.findings) != 1)}): the browser keeps the last good render "
             f"[{outcome.check_s:.2f} s]")
        return
    from bookcheck.verify.report import moved_numbers, new_values_line, split_new_values
    moved, new = split_new_values(outcome.moved)
    if moved:
        n = len(moved)
        _say(f"{moved_numbers(n)} (`bookcheck numbers` accepts {'it' if n == 1 else 'them'}):")
        for f in moved[:20]:
            _say(f"  {f.reason}")
    if new:
        _say(new_values_line(len(new)))
    pages = len(outcome.pages)
    _say(f"ok: {pages} page{'s' * (pages != 1)} rewritten, {outcome.executed} chapter"
         f"{'s' * (outcome.executed != 1)} executed "
         f"[check {outcome.check_s:.2f} s, render {outcome.render_s:.2f} s]")


def publish(server, outcome: Outcome) -> None:
    server.broadcast.publish(reload=outcome.ok and bool(outcome.pages),
                             findings=[finding_json(f) for f in outcome.findings])


def serve(root: Path, port: int = 0, jobs: int | None = None,
          ready: threading.Event | None = None, stop: threading.Event | None = None) -> int:
    """Build, serve and watch until Ctrl-C/SIGTERM (or `stop` is set); returns an exit status."""
    from bookcheck.tools.preview import watch
    from bookcheck.tools.preview.server import PreviewServer
    root = Path(root).resolve()
    session = Session(root, jobs)
    output = session.output
    try:        # the port first: a taken one must not cost a whole build
        server = PreviewServer(output, port)
    except OSError as exc:
        session.close()
        raise PortUnavailable(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc} "
                              f"(another preview?); pass another --port, or none for a "
                              f"free one") from None
    try:
        watcher = watch.Watcher(root, stop)
    except BaseException:
        server.stop()
        session.close()
        raise
    try:
        first = session.build()
        announce(first)
        output.mkdir(parents=True, exist_ok=True)
        if not (output / "index.html").exists():        # nothing good rendered yet
            (output / "index.html").write_text(PLACEHOLDER, encoding="utf-8")
        server.start()
        publish(server, first)
        _say(f"preview: {server.url} (Ctrl-C stops)")
        if ready is not None:
            ready.set()
        for changed in watcher.batches():
            _say(f"changed: {', '.join(changed)}")
            outcome = session.build()
            announce(outcome)
            publish(server, outcome)
        return 0
    except KeyboardInterrupt:
        _say("preview stopped")
        return 0
    finally:
        watcher.close()
        if server is not None:
            server.stop()
        session.close()             # run_chapters has already stopped every kernel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bookcheck preview",
                                     description="Serve the book and rebuild it on every save.")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project root")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--jobs", type=int, default=None, help="chapters run in parallel")
    args = parser.parse_args(argv)
    if not (args.root / "_quarto.yml").is_file():
        print(f"error: no _quarto.yml in {args.root}", file=sys.stderr)
        return 2
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:
        previous = None
    try:
        return serve(args.root, args.port, args.jobs)
    except (WatcherMissing, PortUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
