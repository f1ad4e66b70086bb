"""The reader's book in chromium (issue 15): search, "On this page",
accessibility (axe-core), keyboard focus and phone widths.

The real book is rendered once (built-in path) and opened in Debian's
chromium through playwright, served from a local HTTP server (Pagefind
search) and from file:// (the fallback index). axe-core is the axe.min.js
shipped by the PyPI package axe-playwright-python, injected into each page.
Screenshots of the index, a chapter and an appendix at 1400 px and 390 px
go to `_bookcheck/screenshots/`.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode, urljoin

import pytest

from bookcheck.render.book import page_for

from tests.render.htmlscan import norm, scan
from .test_browser import CHROMIUM, SCREENSHOTS, browser, serve  # noqa: F401  (fixture)

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]   # skipped locally, an error under CI

WIDE, PHONE = 1400, 390
BLOCKING = {"serious", "critical"}


def axe_script() -> str:
    import axe_playwright_python
    return (Path(axe_playwright_python.__file__).with_name("axe.min.js")).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def site(real_book_html):
    """(result, _book dir, base URL of a local server over it)."""
    result, book = real_book_html
    with serve(book) as base:
        yield result, book, base


def pages_of(result) -> list[str]:
    return [page_for(p) for p in result.project.chapters + result.project.appendices]


@pytest.fixture()
def wide_page(browser):
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert errors == []


# ---- search ----------------------------------------------------------------

def unique_cell_word(book: Path, pages: list[str]) -> tuple[str, str]:
    """A word found in exactly one table cell of the book and nowhere else
    in any page's text: (word, page). Chosen from the rendered pages."""
    counts: dict[str, int] = {}
    cell_words: dict[str, str] = {}
    for rel in pages:
        elements = scan((book / rel).read_text(encoding="utf-8"))
        main = next(e for e in elements if e.tag == "main")
        for word in re.findall(r"[A-Za-z]{6,}", norm(main.text)):
            counts[word.lower()] = counts.get(word.lower(), 0) + 1
        for cell in (e for e in elements if e.tag == "td"):
            for word in re.findall(r"[A-Za-z]{6,}", norm(cell.text)):
                cell_words.setdefault(word.lower(), rel)
    # sorted: the choice does not depend on dict or file-listing order
    for word in sorted(cell_words):
        if counts.get(word) == 1:
            return word, cell_words[word]
    raise AssertionError("no word appears in just one table cell")


SECTION_OF_CELL = """word => {
  const cell = [...document.querySelectorAll('main td')]
      .find(td => td.textContent.toLowerCase().includes(word));
  const heads = [...document.querySelectorAll('main :is(h1,h2,h3,h4,h5,h6)[id]')]
      .filter(h => h.compareDocumentPosition(cell) & Node.DOCUMENT_POSITION_FOLLOWING);
  return heads.length ? heads[heads.length - 1].id : null;
}"""


def search(page, term: str) -> list[str]:
    """The result links for `term`, without the ?q= that marks the words on the page."""
    page.fill("#search-input", term)
    page.wait_for_selector(f"#search-results[data-query='{term}']", state="attached", timeout=15000)
    hrefs = page.eval_on_selector_all("#search-results a", "els => els.map(a => a.href)")
    suffix = "?" + urlencode({"q": term})
    assert all(suffix in h for h in hrefs), hrefs
    return [h.replace(suffix, "") for h in hrefs]


def test_search_finds_a_table_cell_over_http(site, wide_page):
    result, book, base = site
    word, rel = unique_cell_word(book, pages_of(result))
    wide_page.goto(urljoin(base, "index.html"))
    hits = search(wide_page, word)
    assert wide_page.get_attribute("#search-results", "data-engine") == "pagefind"
    wide_page.goto(urljoin(base, rel))
    section = wide_page.evaluate(SECTION_OF_CELL, word)
    assert section
    assert hits and hits[0] == urljoin(base, rel) + "#" + section, (word, hits)
    # the result opens that section
    wide_page.goto(urljoin(base, "index.html"))
    search(wide_page, word)
    wide_page.click("#search-results a >> nth=0")
    wide_page.wait_for_url(re.compile(re.escape(rel) + r"\?q=" + word + "#" + re.escape(section) + "$"))
    # the word is marked on the page it opens
    marks = wide_page.eval_on_selector_all("main mark.search-hit", "els => els.map(m => m.textContent)")
    assert marks and all(m.lower() == word for m in marks), marks


def test_search_works_from_file_urls(site, wide_page):
    result, book, _ = site
    word, rel = unique_cell_word(book, pages_of(result))
    chapter = (book / pages_of(result)[1]).as_uri()
    wide_page.goto(chapter)
    hits = search(wide_page, word)
    assert wide_page.get_attribute("#search-results", "data-engine") == "index"
    wide_page.goto((book / rel).as_uri())
    section = wide_page.evaluate(SECTION_OF_CELL, word)
    assert hits and hits[0] == (book / rel).as_uri() + "#" + section, (word, hits)
    # a word that is nowhere in the book: no result, and the status says so
    assert search(wide_page, "zzqqxx") == []
    assert "No results" in wide_page.inner_text("#search-status")


# ---- on this page ----------------------------------------------------------

def active_entry(page) -> str | None:
    return page.evaluate("() => document.querySelector('.page-toc a.active')?.getAttribute('href') ?? null")


def test_on_this_page_follows_scrolling(site, wide_page):
    result, _, base = site
    rel = page_for(result.project.chapters[1])
    wide_page.goto(urljoin(base, rel))
    assert wide_page.evaluate("() => document.querySelector('.page-toc').open") is True
    assert wide_page.is_visible(".page-toc nav")
    hrefs = wide_page.eval_on_selector_all(".page-toc a", "els => els.map(a => a.getAttribute('href'))")
    assert len(hrefs) >= 4
    assert active_entry(wide_page) is None        # the text before the first heading is no entry's
    for href in (hrefs[0], hrefs[2], hrefs[-1], hrefs[1]):
        wide_page.evaluate("id => document.getElementById(id).scrollIntoView()", href[1:])
        wide_page.wait_for_function("h => document.querySelector('.page-toc a.active')"
                                    "?.getAttribute('href') === h", arg=href, timeout=5000)
        assert wide_page.get_attribute(f".page-toc a[href='{href}']", "aria-current") == "location"
        assert len(wide_page.query_selector_all(".page-toc a.active")) == 1
    wide_page.evaluate("() => window.scrollTo(0, 0)")
    wide_page.wait_for_function("() => !document.querySelector('.page-toc a.active')", timeout=5000)


# ---- accessibility ---------------------------------------------------------

def axe_violations(page, script: str) -> list[str]:
    page.evaluate(script)
    found = page.evaluate("() => axe.run(document).then(r => r.violations.map("
                          "v => ({id: v.id, impact: v.impact, n: v.nodes.length,"
                          " where: v.nodes.slice(0, 2).map(n => n.target.join(' '))})))")
    return [f"{v['impact']} {v['id']} x{v['n']} at {v['where']}" for v in found
            if v["impact"] in BLOCKING]


def test_axe_zero_serious_or_critical_on_every_page(site, browser):
    """Every page at 1400 px and at 390 px (phone layout, with the contents
    menu open)."""
    result, _, base = site
    script = axe_script()
    problems = []
    for width, rels in ((WIDE, pages_of(result)), (PHONE, pages_of(result))):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        for rel in rels:
            page.goto(urljoin(base, rel))
            if width == PHONE:
                page.click(".nav-button")
            problems += [f"{rel} @{width}px: {v}" for v in axe_violations(page, script)]
        context.close()
    assert problems == []


def test_axe_detects_a_planted_violation(site, wide_page):
    """The check bites: an image without alt text is a critical violation."""
    result, _, base = site
    wide_page.goto(urljoin(base, pages_of(result)[1]))
    wide_page.evaluate("() => document.querySelector('main img')?.removeAttribute('alt')"
                       " ?? document.querySelector('main').append(document.createElement('img'))")
    found = axe_violations(wide_page, axe_script())
    assert any("image-alt" in v for v in found), found


def test_every_figure_has_alt_text(site):
    result, book, _ = site
    for rel in pages_of(result):
        for el in scan((book / rel).read_text(encoding="utf-8")):
            if el.tag == "img":
                assert len(el.attrs.get("alt", "").strip()) >= 20, (rel, el.attrs.get("src"))


def test_keyboard_focus_is_visible(site, wide_page):
    result, _, base = site
    wide_page.goto(urljoin(base, pages_of(result)[1]))
    wide_page.keyboard.press("Tab")
    focused = wide_page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e),
        r = e.getBoundingClientRect();
        return {cls: e.className, outline: s.outlineStyle, width: parseFloat(s.outlineWidth),
                top: r.top, height: r.height}; }""")
    assert focused["cls"] == "skip-link" and focused["top"] >= 0 and focused["height"] > 0
    assert focused["outline"] != "none" and focused["width"] >= 2
    for _ in range(3):   # the next stops: links and the search box, each outlined
        wide_page.keyboard.press("Tab")
        style = wide_page.evaluate("() => { const s = getComputedStyle(document.activeElement);"
                                   " return [s.outlineStyle, parseFloat(s.outlineWidth)]; }")
        assert style[0] != "none" and style[1] >= 2, style


# ---- phones ----------------------------------------------------------------

def test_phone_width_nothing_overflows(site, browser):
    result, _, base = site
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    stacked_tables = 0
    for rel in pages_of(result):
        page.goto(urljoin(base, rel))
        assert not page.is_visible(".sidebar"), rel
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE, rel
        wide = page.evaluate("() => [...document.querySelectorAll('main *')]"
                             ".filter(e => e.getBoundingClientRect().right > innerWidth + 0.5"
                             " && !e.closest('.table-wrap:not(.stacked), .figure-scroll, pre, .equation, .math-scroll'))"
                             ".map(e => e.tagName)")
        assert wide == [], (rel, wide[:5])
        # a table wider than a phone is stacked into cards (book.js), nothing of it sticks out
        stacked_tables += page.evaluate("() => document.querySelectorAll('.table-wrap.stacked').length")
        assert page.evaluate("() => document.querySelector('.page-toc')?.open ?? false") is False
        # the menu button opens the table of contents
        page.click(".nav-button")
        assert page.is_visible(".sidebar") and page.get_attribute(".nav-button", "aria-expanded") == "true"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE, rel
    assert stacked_tables >= 1, "no wide table is stacked on a phone"
    context.close()
