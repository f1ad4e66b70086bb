"""The preview's HTTP server: `_book/` on 127.0.0.1, plus live reload by server-sent events.

    /__preview/events     text/event-stream: `state` events {"version", "findings"}
    /__preview/client.js  the page script: reload on a newer version, show the banner

HTML pages are served with one `<script>` added before `</body>` (the files on
disk stay as rendered). A page knows the version it was served at; when the
stream announces a newer one the page reloads; while the stream carries
findings, a banner lists them over the page. The browser reconnects to the
stream by itself (EventSource); nothing polls.
"""
from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

EVENTS = "/__preview/events"
CLIENT = "/__preview/client.js"
KEEPALIVE_S = 10.0
CLIENT_JS = Path(__file__).with_name("client.js")


class Broadcast:
    """The state every page follows: a version (bumped per good render) and the findings."""

    def __init__(self):
        self._cond = threading.Condition()
        self.version = 0
        self.findings: list[dict] = []
        self.closed = False
        self._serial = 0        # bumped on every publish, reload or not

    def publish(self, *, reload: bool, findings: list[dict]) -> None:
        with self._cond:
            if reload:
                self.version += 1
            self.findings = list(findings)
            self._serial = self._serial + 1
            self._cond.notify_all()

    def snapshot(self) -> tuple[int, dict]:
        with self._cond:
            return self._serial, {"version": self.version, "findings": self.findings}

    def wait(self, seen: int, timeout: float) -> tuple[int, dict] | None:
        """The next state after serial `seen`, or None on timeout or close."""
        with self._cond:
            self._cond.wait_for(lambda: self.closed or self._serial != seen,
                                timeout)
            if self.closed or self._serial == seen:
                return None
            return self._serial, {"version": self.version, "findings": self.findings}

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


class _Handler(SimpleHTTPRequestHandler):
    server: "PreviewServer"

    def log_message(self, *args):       # the terminal is for findings
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == EVENTS:
            return self._events()
        if path == CLIENT:
            return self._send(CLIENT_JS.read_bytes(), "text/javascript; charset=utf-8")
        target = Path(self.translate_path(path))
        if target.is_dir():
            target = target / "index.html"
            if not path.endswith("/"):
                return super().do_GET()         # the redirect to path/
        if target.suffix == ".html" and target.is_file():
            return self._page(target)
        return super().do_GET()

    def _send(self, body: bytes, content_type: str, status=HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _page(self, target: Path) -> None:
        try:
            text = target.read_text(encoding="utf-8")
        except OSError:
            return self.send_error(HTTPStatus.NOT_FOUND)
        version = self.server.broadcast.version
        tag = (f'<script>window.__previewVersion = {version};</script>'
               f'<script src="{CLIENT}" defer></script>')
        at = text.rfind("</body>")
        text = text[:at] + tag + text[at:] if at >= 0 else text + tag
        self._send(text.encode("utf-8"), "text/html; charset=utf-8")

    def _events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "keep-alive")
        self.end_headers()
        broadcast = self.server.broadcast
        serial, state = broadcast.snapshot()
        try:
            self.wfile.write(b"retry: 300\n\n")
            self._state(state)
            while not broadcast.closed:
                nxt = broadcast.wait(serial, KEEPALIVE_S)
                if nxt is None:
                    if broadcast.closed:
                        return
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                serial, state = nxt
                self._state(state)
        except (BrokenPipeError, ConnectionResetError, OSError):
            return
        finally:
            self.close_connection = True

    def _state(self, state: dict) -> None:
        self.wfile.write(b"event: state\ndata: " + json.dumps(state).encode("utf-8") + b"\n\n")
        self.wfile.flush()


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, directory: Path, port: int = 0):
        self.directory = Path(directory)
        self.broadcast = Broadcast()
        handler = lambda *a, **k: _Handler(*a, directory=str(self.directory), **k)  # noqa: E731
        super().__init__(("127.0.0.1", port), handler)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def start(self) -> "PreviewServer":
        self._thread = threading.Thread(target=self.serve_forever, name="preview-http",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """End every event stream, stop serving, close the socket (idempotent)."""
        self.broadcast.close()
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.server_close()
