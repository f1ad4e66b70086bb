"""The real book in a real browser.

Checks and renders a copy of the project's own book (built-in path), serves
`_book/` from a local HTTP server and opens every page in Debian's chromium
driven by playwright: no console error, no request leaving localhost, no
broken internal link, anchor or image, the expected numbered tables and
figures, MathML for equations. A screenshot of each page is saved under
`_bookcheck/screenshots/` of the repository.
"""
from __future__ import annotations

import contextlib
import functools
import re
import shutil
import threading
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

from bookcheck.render import render_book
from bookcheck.render.book import page_for

from tests import REPO

CHROMIUM = shutil.which("chromium")
SCREENSHOTS = REPO / "_bookcheck" / "screenshots"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]   # skipped locally, an error under CI


@pytest.fixture(scope="module")
def real_book(real_book_html):
    """The real book rendered to HTML: (result, _book dir)."""
    return real_book_html


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """Serve `directory` on a free localhost port; yield its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        yield b
        b.close()


def expected_pages(result) -> list[tuple[str, str]]:
    return [(path, page_for(path)) for path in result.project.chapters + result.project.appendices]


def labels(parsed, prefix: str) -> list[str]:
    return [label for label, _ in parsed.labels if label.startswith(prefix)]


@functools.lru_cache(maxsize=None)
def fetch_status(url: str) -> int:
    """HTTP status of a GET (cached: pages share most of their links)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


def test_real_book_in_chromium(real_book, browser):
    result, book = real_book
    with serve(book) as server:
        browse_every_page(result, server, browser, SCREENSHOTS)


def test_fixture_book_in_chromium(minibook, browser):
    root, result = minibook
    render_book(result, "html", use_quarto=False)
    with serve(root / "_book") as server:
        browse_every_page(result, server, browser, SCREENSHOTS / "fixture")


def browse_every_page(result, server: str, browser, shots: Path) -> None:
    """Open each chapter page and assert it is whole; screenshot it."""
    shots.mkdir(parents=True, exist_ok=True)
    pages = expected_pages(result)
    assert len(pages) >= 3
    ids_cache: dict[str, set[str]] = {}
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    outside: list[str] = []
    context.route(re.compile(r"^(?!http://127\.0\.0\.1:).*"),
                  lambda route: (outside.append(route.request.url), route.abort()))
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}")
            if r.status >= 400 else None)

    def ids_of(url: str) -> set[str]:
        if url not in ids_cache:
            page.goto(url)
            ids_cache[url] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
        return ids_cache[url]

    for source, rel in pages:
        url = urljoin(server, rel)
        response = page.goto(url)
        assert response is not None and response.status == 200, rel
        page.wait_for_load_state("load")
        where = f"{rel}:"
        parsed = result.parsed[source]

        # numbered tables and figures, as many as the chapter labels
        tables = page.eval_on_selector_all(
            "figure.table-float[id^='tbl-']",
            "els => els.map(e => e.querySelector(':scope > figcaption')?.innerText ?? '')")
        assert len(tables) == len(labels(parsed, "tbl-")), where
        for caption in tables:
            assert re.match(r"^Table\s([0-9]+|[A-Z])\.[0-9]+: \S", caption), (where, caption)
        figures = page.eval_on_selector_all(
            "figure[id^='fig-']", "els => els.map(e => e.querySelector('figcaption')?.innerText ?? '')")
        assert len(figures) == len(labels(parsed, "fig-")), where
        for caption in figures:
            assert re.match(r"^Figure\s([0-9]+|[A-Z])\.[0-9]+: \S", caption), (where, caption)
        equations = page.eval_on_selector_all("span.equation", "els => els.length")
        assert equations == len(labels(parsed, "eq-")), where
        if equations:
            assert page.eval_on_selector_all("span.equation math", "els => els.length") == equations

        # images decoded by the browser
        broken = page.eval_on_selector_all(
            "img", "els => els.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
        assert broken == [], (where, broken)

        text = page.inner_text("main")
        for marker in ("{python}", "?@", "??"):
            assert marker not in text, (where, marker)
        assert re.search(r"@(sec|tbl|fig|eq)-", text) is None, where

        shot = shots / (rel.replace("/", "__").removesuffix(".html") + ".png")
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 0

        # every internal link and image answers, every anchor exists
        targets = page.eval_on_selector_all(
            "a[href], img[src], link[href]", "els => els.map(e => e.href || e.src)")
        for target in targets:
            if urlparse(target).netloc != urlparse(server).netloc:
                continue
            base, anchor = urldefrag(target)
            assert fetch_status(base) == 200, (where, target)
            if anchor and base.endswith(".html"):
                assert anchor in ids_of(base), (where, target)
    # a phone-sized view of the first chapter
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    small = phone.new_page()
    small.goto(urljoin(server, pages[1][1] if len(pages) > 1 else pages[0][1]))
    small.screenshot(path=str(shots / "phone.png"))
    width = small.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the page scrolls sideways on a phone"
    phone.close()
    context.close()
    assert problems == []
    assert outside == []
