"""Quarto's pages get the built-in pages' math font and dark scheme (issue 35),
through the pipeline's Quarto path (render/quarto_look.py: a `--metadata-file`,
`_quarto.yml` as written), seen in chromium: a formula on a chapter one folder
down is drawn in the shipped Noto Sans Math ("Book Math", built into Quarto's
stylesheets; its licence in `_book/fonts/`), the page is dark under
`prefers-color-scheme: dark` (the built-in dark background) and light
otherwise, and Quarto's toggle turns a light page dark. One render, shared by the tests.
"""
from __future__ import annotations

import contextlib
import shutil

import pytest

from tests.bookkit import check, make_book
from tests.reader.test_browser import serve

from .quartokit import quarto_on_path

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]

BOOK = {
    "_quarto.yml": (
        "project:\n  type: book\nbook:\n  title: \"Look\"\n  chapters:\n"
        "    - index.qmd\n    - contents/ch.qmd\n"
        "format:\n  html:\n    html-math-method: mathml\n"
        "verify:\n  quarto-look: true\n"),
    "index.qmd": "# Preface {.unnumbered}\n\nPreface text.\n",
    "contents/ch.qmd": "# Math {#sec-math}\n\n$$\n\\sqrt{\\frac{a}{b}}\n$$\n",
}
DARK_BG = "rgb(15, 18, 22)"           # book.css's dark --bg, #0f1216 (assets/quarto/dark.scss)
LIGHT_BG = "rgb(255, 255, 255)"

# The faces the page's stylesheets declare for "Book Math" and whether the
# formula's font loaded (after document.fonts.ready), the formula's family.
MATH_FONT = """async () => {
  await document.fonts.ready;
  const faces = [...document.fonts].filter(f => f.family.replace(/"/g, '') === 'Book Math');
  const math = document.querySelector('math');
  return {faces: faces.map(f => f.status), family: math ? getComputedStyle(math).fontFamily : null};
}"""
BACKGROUND = "() => getComputedStyle(document.body).backgroundColor"


@pytest.fixture(scope="module")
def book(quarto_exe, tmp_path_factory):
    from bookcheck.render import render_book
    root = make_book(tmp_path_factory.mktemp("look") / "book", BOOK)
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings]
    with quarto_on_path(quarto_exe):
        render_book(result, "html")
    return root / "_book"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), headless=True)
        yield b
        b.close()


@contextlib.contextmanager
def open_page(browser, base: str, scheme: str):
    """The chapter's page in a context of its own, closed afterwards (a page left open
    while the next test's server starts made the toggle test fail)."""
    context = browser.new_context(color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(base + "contents/ch.html", wait_until="load")
        yield page
    finally:
        context.close()


def test_math_is_drawn_in_the_shipped_font(book, browser):
    assert (book / "fonts" / "OFL.txt").is_file()            # the font's licence travels with it
    with serve(book) as base, open_page(browser, base, "light") as page:
        seen = page.evaluate(MATH_FONT)
    assert seen["family"].startswith('"Book Math"'), seen
    assert seen["faces"] and set(seen["faces"]) == {"loaded"}, seen   # the font was read


def test_the_page_follows_a_dark_system_and_stays_light_otherwise(book, browser):
    with serve(book) as base:
        for scheme, background in (("dark", DARK_BG), ("light", LIGHT_BG)):
            with open_page(browser, base, scheme) as page:
                assert page.evaluate(BACKGROUND) == background


def test_quartos_toggle_turns_a_light_page_dark(book, browser):
    with serve(book) as base, open_page(browser, base, "light") as page:
        # the toggle's onclick calls Quarto's function, defined by a script of the page:
        # a click before it exists does nothing (a race a loaded machine lost)
        page.wait_for_function("typeof window.quartoToggleColorScheme === 'function'", timeout=15000)
        page.locator(".quarto-color-scheme-toggle:visible").first.click(timeout=5000)
        page.wait_for_function(f"getComputedStyle(document.body).backgroundColor === '{DARK_BG}'",
                               timeout=5000)
        assert page.evaluate(BACKGROUND) == DARK_BG


def test_the_authors_quarto_yml_is_as_written(book):
    assert (book.parent / "_quarto.yml").read_text(encoding="utf-8") == BOOK["_quarto.yml"]
