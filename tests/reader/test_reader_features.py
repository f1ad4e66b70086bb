"""What a reader of a Quarto book expects (issue 27), in chromium: the
landing page's title block, a sidebar of chapters, anchor links on
headings, previews of cross-references and citations, a math font, and
search results without TeX, with the words marked and headings first."""
from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest

from bookcheck.render import search

from .test_browser import browser  # noqa: F401  (fixture)
from .test_reader_browser import PHONE, WIDE, pages_of, site  # noqa: F401  (fixture)
from .test_reader_browser import search as run_search

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]   # skipped locally, an error under CI


@pytest.fixture()
def page(browser):  # noqa: F811
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    yield context.new_page()
    context.close()


def test_landing_page_title_block(site, page):
    result, _, base = site
    page.goto(urljoin(base, "index.html"))
    project = result.project
    block = page.evaluate("() => [...document.querySelectorAll('main .title-block p')]"
                          ".map(p => [p.className, p.innerText])")
    assert block == [["title", project.title], ["subtitle", project.subtitle],
                     ["author", ", ".join(project.authors)]]
    page.goto(urljoin(base, pages_of(result)[1]))
    assert page.query_selector("main .title-block") is None


def test_sidebar_lists_the_chapters_only(site, page):
    result, _, base = site
    page.goto(urljoin(base, pages_of(result)[-2]))
    entries = page.eval_on_selector_all(".sidebar .toc a", "els => els.map(a => a.getAttribute('href'))")
    assert len(entries) == len(pages_of(result))
    assert page.query_selector(".sidebar .toc-sections") is None
    # all of it above the fold at 900 px, appendices included
    bottom = page.evaluate("() => Math.max(...[...document.querySelectorAll('.sidebar .toc a')]"
                           ".map(a => a.getBoundingClientRect().bottom))")
    assert bottom < 900


def test_headings_carry_anchor_links(site, page):
    result, _, base = site
    page.goto(urljoin(base, pages_of(result)[1]))
    pairs = page.evaluate("() => [...document.querySelectorAll('main :is(h2,h3,h4)[id]')]"
                          ".map(h => [h.id, h.querySelector('a.anchor')?.getAttribute('href')])")
    assert len(pairs) >= 4 and all(href == "#" + hid for hid, href in pairs), pairs


def preview_text(page, selector: str) -> str:
    page.hover(selector)
    page.wait_for_selector(".preview", timeout=10000)
    return page.inner_text(".preview")


def test_previews_of_cross_references_and_citations(site, page):
    result, _, base = site
    page.goto(urljoin(base, pages_of(result)[-2]))          # an appendix
    link = "main a.quarto-xref[href*='#tbl-']"
    target = page.get_attribute(link, "href").split("#")[1]
    caption = page.inner_text(f"[id='{target}'] > figcaption")
    assert caption in preview_text(page, link)
    page.mouse.move(0, 0)
    page.wait_for_selector(".preview", state="detached", timeout=5000)
    cite = "main a[role='doc-biblioref']"
    ref = page.get_attribute(cite, "href").split("#")[1]
    entry = page.inner_text(f"[id='{ref}']")
    assert preview_text(page, cite) == entry
    # a reference to another page is fetched from it (served over http)
    page.mouse.move(0, 0)
    page.goto(urljoin(base, "index.html"))
    other = "main a.quarto-xref[href*='.html#sec-']"
    assert re.match(r"\d+ ", preview_text(page, other))


MATH_TOKENS = "main math :is(mi, mo, mn, mtext)"
SHIPPED_MATH_FONT = {"familyName": "Noto Sans Math", "isCustomFont": True}


def math_fonts(page) -> list[dict]:
    """The fonts chromium draws the page's math glyphs with: each distinct
    (familyName, isCustomFont) of CSS.getPlatformFontsForNode over every
    MathML token of the text, once the page's fonts have loaded."""
    page.evaluate("() => document.fonts.load('16px \"Book Math\"', 'x')"
                  ".catch(() => null).then(() => document.fonts.ready)")   # a planted bad url rejects
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": MATH_TOKENS})["nodeIds"]
    assert len(nodes) >= 50, len(nodes)         # the appendix's formulas were seen
    seen = set()
    for node in nodes:
        for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
            seen.add((font["familyName"], font["isCustomFont"]))
    cdp.detach()
    return [{"familyName": name, "isCustomFont": custom} for name, custom in sorted(seen)]


def test_math_is_set_in_the_shipped_math_font(site, page):
    """Every glyph of every formula comes from the web font the book ships
    (fonts/, html.py), not from whatever math font the machine has."""
    result, _, base = site
    page.goto(urljoin(base, pages_of(result)[-2]))
    assert page.evaluate("() => getComputedStyle(document.querySelector('main math')).fontFamily") \
        == '"Book Math", math'
    assert math_fonts(page) == [SHIPPED_MATH_FONT]


FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}")
FONT_PLANTS = {"no @font-face": lambda css: FONT_FACE.sub("", css),
               "a wrong url": lambda css: css.replace("fonts/noto-sans-math", "fonts/missing")}


@pytest.mark.parametrize("plant", sorted(FONT_PLANTS))
def test_planted_missing_math_font_is_caught(site, page, plant):
    """book.css served without its @font-face, or with a url that is not
    there: chromium falls back to another font and the check sees it."""
    result, book, base = site
    css = FONT_PLANTS[plant]((book / "book.css").read_text(encoding="utf-8"))
    page.route("**/book.css", lambda route: route.fulfill(body=css, content_type="text/css"))
    page.goto(urljoin(base, pages_of(result)[-2]))
    assert SHIPPED_MATH_FONT not in math_fonts(page)


def test_search_excerpts_have_no_tex_and_mark_the_words(site, page):
    result, _, base = site
    page.goto(urljoin(base, "index.html"))
    hits = run_search(page, "Daly")
    assert hits
    excerpts = page.eval_on_selector_all("#search-results p", "els => els.map(p => p.innerText)")
    assert excerpts and not [e for e in excerpts if "\\" in e or "mathrm" in e], excerpts
    marks = page.eval_on_selector_all("#search-results p mark", "els => els.map(m => m.innerText)")
    assert marks and {m.lower() for m in marks} == {"daly"}


def test_search_ranks_a_heading_match_first(site, page):
    """"Young": the section titled "… The Young–Daly model" before any
    section that only mentions the name."""
    result, _, base = site
    page.goto(urljoin(base, "index.html"))
    run_search(page, "Young")
    titles = page.eval_on_selector_all("#search-results li > a", "els => els.map(a => a.innerText)")
    assert "young" in titles[0].lower(), titles


def test_tex_annotations_stay_out_of_the_fallback_index():
    """The file:// index: a formula is its MathML text, not its TeX source."""
    html = ('<main data-pagefind-body><h2 id="s">Daly</h2><p>The interval '
            '<math><semantics><mi>τ</mi><annotation data-pagefind-ignore encoding="application/x-tex">'
            '\\tau_\\mathrm{Daly}</annotation></semantics></math> grows.</p></main>')
    [section] = search.page_sections("a.html", "A", html)
    assert section.text == "The interval τ grows."
    unmarked = html.replace(" data-pagefind-ignore", "")     # the annotation tag alone suffices
    assert search.page_sections("a.html", "A", unmarked)[0].text == "The interval τ grows."


def test_a_tap_on_a_citation_shows_its_preview_and_a_second_follows_it(site, browser):  # noqa: F811
    """On a phone (touch, 390 px) the first tap on a citation opens its
    preview and stays where the reader is; a second tap on it follows the
    link; a tap on a cross-reference to another page previews it too."""
    result, _, base = site
    context = browser.new_context(viewport={"width": PHONE, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    url = urljoin(base, pages_of(result)[1])
    page.goto(url)
    cite = page.locator("main a[role='doc-biblioref']").first
    ref = cite.get_attribute("href").split("#")[1]
    entry = page.inner_text(f"[id='{ref}']")
    cite.scroll_into_view_if_needed()
    at = page.evaluate("() => window.scrollY")
    cite.tap()
    page.wait_for_selector(".preview", timeout=10000)
    stayed = (page.url, page.evaluate("() => window.scrollY"), page.inner_text(".preview"))
    cite.tap()
    page.wait_for_url(f"**#{ref}", timeout=10000)
    page.goto(urljoin(base, "index.html"))
    other = page.locator("main a.quarto-xref[href*='.html#sec-']").first
    other.tap()
    page.wait_for_selector(".preview", timeout=10000)
    other_stayed = page.url
    context.close()
    assert stayed == (url, at, entry)
    assert other_stayed == urljoin(base, "index.html")
