"""Search and "On this page" details (issue 35), in chromium: a result's
excerpt shows a formula readably over http (Pagefind) and from file:// (the
fallback index), "/" puts the cursor in the search box, a short all-caps
query matches that word only ("FIT", not "fitted"); "On this page" marks no
entry before the first heading is reached and lists References; "Appendix
A — Title" has one gap each side of the dash."""
from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest

from .test_browser import browser  # noqa: F401  (fixture)
from .test_reader_browser import PHONE, WIDE, pages_of, site  # noqa: F401  (fixture)
from .test_reader_browser import search as run_search

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]   # skipped locally, an error under CI

EXCERPTS = "els => els.map(p => p.innerText)"


@pytest.fixture()
def page(browser):  # noqa: F811
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("served", [True, False], ids=["http", "file"])
def test_a_search_excerpt_shows_a_formula_readably(site, page, served):
    """Young's interval τ_opt = √(2δM) (Appendix A): Pagefind's own excerpt
    reads "τopt=2δM", the fallback index's read "τ o p t = 2 δ M"."""
    result, book, base = site
    page.goto(urljoin(base, "index.html") if served else (book / "index.html").as_uri())
    assert run_search(page, "minimising")
    assert page.get_attribute("#search-results", "data-engine") == ("pagefind" if served else "index")
    excerpts = page.eval_on_selector_all("#search-results p", EXCERPTS)
    assert any(re.search(r"τₒₚₜ = √\(2 ?δ ?M\)", e) for e in excerpts), excerpts


@pytest.mark.parametrize("served", [True, False], ids=["http", "file"])
def test_a_short_all_caps_query_matches_that_word_only(site, page, served):
    result, book, base = site
    page.goto(urljoin(base, "index.html") if served else (book / "index.html").as_uri())
    assert run_search(page, "FIT")
    excerpts = page.eval_on_selector_all("#search-results p", EXCERPTS)
    assert excerpts and all(re.search(r"(?<![\w])FITs?(?![\w])", e) for e in excerpts), excerpts
    assert run_search(page, "fit")           # in lower case it is a word like any other
    lower = page.eval_on_selector_all("#search-results p", EXCERPTS)
    assert any(re.search(r"fit(?:ted|s|ting)", e, re.I) for e in lower), lower


@pytest.mark.parametrize("width", [WIDE, PHONE])
def test_slash_puts_the_cursor_in_the_search_box(site, browser, width):  # noqa: F811
    result, _, base = site
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(urljoin(base, pages_of(result)[1]))
    page.keyboard.press("/")
    focused = page.evaluate("() => [document.activeElement.id, document.getElementById('search-input').value]")
    page.keyboard.type("Daly")
    typed = page.input_value("#search-input")
    context.close()
    assert focused == ["search-input", ""] and typed == "Daly"


def test_on_this_page_marks_nothing_before_the_first_heading_and_lists_references(site, page):
    result, _, base = site
    page.goto(urljoin(base, pages_of(result)[1]))
    active = "() => [...document.querySelectorAll('.page-toc a.active')].map(a => a.getAttribute('href'))"
    at_top = page.evaluate(active)
    first = page.get_attribute(".page-toc a >> nth=0", "href")
    page.evaluate(f"() => document.getElementById('{first[1:]}').scrollIntoView()")
    page.wait_for_function(f"() => !!document.querySelector(\".page-toc a.active[href='{first}']\")",
                           timeout=5000)
    last = page.eval_on_selector_all(".page-toc a", "els => els.map(a => [a.getAttribute('href'), a.innerText])")[-1]
    assert at_top == []
    assert last == ["#bibliography", page.inner_text("#bibliography").replace("§", "").strip()]


GAPS = """() => {
  const h = document.querySelector('main h1'), dash = [...h.childNodes].find(n => n.textContent.includes('—'));
  const at = (node, i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                            return r.getBoundingClientRect(); };
  const num = h.querySelector('.chapter-number'), text = num.firstChild;
  const end = at(text, text.length - 1).right;
  const dashNode = dash.nodeType === Node.TEXT_NODE ? dash : dash.firstChild;
  const d = at(dashNode, dashNode.textContent.indexOf('—'));
  const title = h.querySelector('.chapter-title').getBoundingClientRect().left;
  return [d.left - end, title - d.right];
}"""


def test_an_appendix_title_has_one_gap_each_side_of_its_dash(site, page):
    result, _, base = site
    page.goto(urljoin(base, pages_of(result)[-1]))
    before, after = page.evaluate(GAPS)
    assert abs(before - after) <= 1.5, (before, after)
