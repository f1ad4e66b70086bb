"""The book in the dark (issue 27), in chromium with a dark colour scheme
(`prefers-color-scheme: dark`): at 390 and 1400 px every page has a dark
background, every figure sits on a light plate (figures are drawn black on
white), axe-core finds no serious or critical violation with its
color-contrast rule checking the text, and the search panel, the on-page
search marks, a hover preview and the focus ring stay readable.
Screenshots of every page go to `_bookcheck/screenshots/` beside the light ones
(`<page>-<width>-dark.png`). The text contrast axe-core cannot judge (table
cells over the scroll shadows' gradient, popups) is measured here, in the
light scheme too.

The tests with "planted" in their name plant a fault in a real page (a dark
text colour left on the dark background, a figure without its plate) and
watch it being reported.
"""
from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest

from .test_browser import SCREENSHOTS, browser  # noqa: F401  (fixture)
from .test_reader_browser import BLOCKING, PHONE, WIDE, axe_script, pages_of, site  # noqa: F401

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]   # skipped locally, an error under CI

# WCAG relative luminance and contrast of computed colours ("rgb(…)",
# "rgba(…)" or "color(srgb …)"), and the colour an element is seen on: its
# own background or the first ancestor's that is not transparent.
COLOURS = """
const rgba = c => {
  const n = c.match(/[\\d.]+/g).map(Number);
  return c.startsWith('color(') ? [n[0] * 255, n[1] * 255, n[2] * 255, n.length > 3 ? n[3] : 1]
                                : [n[0], n[1], n[2], n.length > 3 ? n[3] : 1];
};
const luminance = c => {
  const [r, g, b] = rgba(c).slice(0, 3).map(v => v / 255)
      .map(v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
                             return (x + 0.05) / (y + 0.05); };
const seenOn = e => {
  for (let a = e; a; a = a.parentElement) {
    const bg = getComputedStyle(a).backgroundColor;
    if (rgba(bg)[3] > 0) return bg;
  }
  return 'rgb(255, 255, 255)';
};
"""

# In the "dark" scheme the page is dark; in either, figures sit on a light
# plate and every visible text meets WCAG AA against the colour it is seen
# on (4.5:1, 3:1 for large text): axe-core leaves text it cannot judge as
# "incomplete" (every table cell: the scroll shadows are a gradient; a
# preview: it overlaps the text).
SCHEME_PROBLEMS = "scheme => {" + COLOURS + """
  const problems = [];
  const body = getComputedStyle(document.body);
  if (scheme === 'dark' && luminance(seenOn(document.body)) > 0.05)
    problems.push(`light page: ${body.backgroundColor}`);
  for (const img of document.querySelectorAll('main img, .preview img')) {
    const bg = seenOn(img);
    if (luminance(bg) < 0.9) problems.push(`figure on ${bg}: ${(img.currentSrc || img.src).split('/').pop()}`);
  }
  const shown = e => {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility !== 'visible') return false;
    for (let a = e; a; a = a.parentElement) if (getComputedStyle(a).opacity === '0') return false;
    return true;
  };
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg, annotation, script, style, noscript')) continue;
    if (![...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim())) continue;
    if (!shown(e)) continue;
    const s = getComputedStyle(e), size = parseFloat(s.fontSize);
    const need = size >= 24 || (size >= 18.66 && parseInt(s.fontWeight) >= 700) ? 3 : 4.5;
    const bg = seenOn(e), ratio = contrast(s.color, bg);
    if (ratio < need)
      problems.push(`text ${ratio.toFixed(2)}:1 (${s.color} on ${bg}): ${e.tagName.toLowerCase()}` +
                    `.${e.className} "${e.textContent.trim().slice(0, 30)}"`);
  }
  return problems;
}"""

AXE_RUN = """() => axe.run(document).then(r => ({
  violations: r.violations.map(v => ({id: v.id, impact: v.impact, n: v.nodes.length,
                                      where: v.nodes.slice(0, 2).map(n => n.target.join(' '))})),
  contrastChecked: r.passes.concat(r.violations).filter(v => v.id === 'color-contrast')
                    .reduce((n, v) => n + v.nodes.length, 0)}))"""


def dark_context(browser, width: int):  # noqa: F811
    return browser.new_context(viewport={"width": width, "height": 900}, color_scheme="dark")


def axe_dark(page, script: str) -> tuple[list[str], int]:
    """axe-core's serious and critical violations, and how many elements its
    color-contrast rule checked (it must not be switched off or miss the page's text:
    at least every paragraph of <main>, however short the chapter)."""
    page.evaluate(script)
    found = page.evaluate(AXE_RUN)
    return ([f"{v['impact']} {v['id']} x{v['n']} at {v['where']}" for v in found["violations"]
             if v["impact"] in BLOCKING], found["contrastChecked"])


@pytest.mark.parametrize("width", [PHONE, WIDE])
def test_every_page_is_dark_readable_and_axe_clean(site, browser, width):  # noqa: F811
    result, _, base = site
    script = axe_script()
    context = dark_context(browser, width)
    page = context.new_page()
    problems = []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for rel in pages_of(result):
        page.goto(urljoin(base, rel))
        page.screenshot(path=str(SCREENSHOTS / f"{rel.replace('/', '__').removesuffix('.html')}-{width}-dark.png"))
        problems += [f"{rel} @{width}: {p}" for p in page.evaluate(SCHEME_PROBLEMS, "dark")]
        if width == PHONE:
            page.click(".nav-button")         # the contents menu too
        violations, checked = axe_dark(page, script)
        problems += [f"{rel} @{width}: {v}" for v in violations]
        paragraphs = page.locator("main p").count()     # each one text the rule must check
        assert checked >= paragraphs > 0, (rel, checked, paragraphs)
    context.close()
    assert not problems, "\n".join(problems[:40])


@pytest.mark.parametrize("width", [PHONE, WIDE])
def test_light_text_meets_contrast_where_axe_cannot_judge(site, browser, width):  # noqa: F811
    """The light scheme's table cells and other text axe-core leaves
    "incomplete" (test_reader_browser runs axe-core on the light pages)."""
    result, _, base = site
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme="light")
    page = context.new_page()
    problems = []
    for rel in pages_of(result):
        page.goto(urljoin(base, rel))
        problems += [f"{rel} @{width}: {p}" for p in page.evaluate(SCHEME_PROBLEMS, "light")]
    context.close()
    assert not problems, "\n".join(problems[:40])


def test_dark_search_panel_marks_preview_and_focus_ring(site, browser):  # noqa: F811
    """What only shows on use: the search results panel, the words a result
    marks on its page, a preview on hover, and the focus ring (3:1 against
    the background it is drawn on)."""
    result, _, base = site
    context = dark_context(browser, WIDE)
    page = context.new_page()
    page.goto(urljoin(base, pages_of(result)[2]) + "?q=Daly")      # chapter 2, words marked
    assert page.eval_on_selector_all("main mark.search-hit", "els => els.length") >= 1
    page.fill("#search-input", "Daly")
    page.wait_for_selector("#search-results[data-query='Daly'] li", timeout=15000)
    page.hover("main a.quarto-xref[href*='#tbl-']")
    page.wait_for_selector(".preview", timeout=10000)
    problems = page.evaluate(SCHEME_PROBLEMS, "dark") + axe_dark(page, axe_script())[0]
    assert not problems, "\n".join(problems[:40])
    page.focus("#search-input")
    ring = page.evaluate("() => {" + COLOURS + """
        const e = document.activeElement, s = getComputedStyle(e);
        return [s.outlineStyle, contrast(s.outlineColor, seenOn(e.parentElement))]; }""")
    context.close()
    assert ring[0] != "none" and ring[1] >= 3, ring


def scheme_colours(page, names: list[str]) -> dict[str, str]:
    return page.evaluate("names => { const s = getComputedStyle(document.documentElement);"
                         " return Object.fromEntries(names.map(n => [n, s.getPropertyValue(n).trim()])); }",
                         names)


def test_the_scheme_button_switches_and_is_remembered(site, browser):  # noqa: F811
    """◐ turns a light page dark and a dark one light, the choice outlives a
    reload, and the dark it chooses is the system's dark, value for value."""
    result, book, base = site
    names = sorted(set(re.findall(r"(--[\w-]+):", (book / "book.css").read_text(encoding="utf-8"))))
    rel = urljoin(base, pages_of(result)[1])
    seen = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": WIDE, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        page.goto(rel)
        button = ".sidebar .scheme-button"
        assert page.get_attribute(button, "aria-pressed") == str(scheme == "dark").lower()
        seen[scheme] = scheme_colours(page, names)
        page.click(button)
        other = "dark" if scheme == "light" else "light"
        assert page.get_attribute(button, "aria-pressed") == str(other == "dark").lower()
        seen[f"{scheme}, {other} chosen"] = scheme_colours(page, names)
        page.reload()
        assert page.evaluate("() => document.documentElement.dataset.scheme") == other
        assert scheme_colours(page, names) == seen[f"{scheme}, {other} chosen"]
        context.close()
    assert seen["light"] != seen["dark"]
    assert seen["light, dark chosen"] == seen["dark"]
    assert seen["dark, light chosen"] == seen["light"]
    # on a phone the button is in the top bar
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    page.goto(rel)
    page.click(".topbar .scheme-button")
    assert scheme_colours(page, names) == seen["dark"]
    context.close()


# (script, what is reported, the page: pages_of()'s index; small pages, axe is slow)
PLANTS = {
    "dark text left on the dark page": ("() => document.head.insertAdjacentHTML('beforeend',"
                                        " '<style>main p { color: #1f2328 }</style>')",
                                        "serious color-contrast", 0),
    "a figure without its plate": ("() => document.head.insertAdjacentHTML('beforeend',"
                                   " '<style>img { background: none !important }</style>')",
                                   "figure on ", 2),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_dark_fault_is_reported(site, browser, plant):  # noqa: F811
    result, _, base = site
    script, expected, index = PLANTS[plant]
    context = dark_context(browser, WIDE)
    page = context.new_page()
    page.goto(urljoin(base, pages_of(result)[index]))
    assert page.evaluate(SCHEME_PROBLEMS, "dark") == []
    page.evaluate(script)
    found = page.evaluate(SCHEME_PROBLEMS, "dark") + axe_dark(page, axe_script())[0]
    context.close()
    assert any(expected in p for p in found), found


def test_a_page_printed_from_the_dark_scheme_prints_dark_on_white(site, browser):  # noqa: F811
    """Print CSS forces the light scheme: a chapter printed from the dark
    scheme (the system's or the ◐ button's) has the light scheme's text and
    background, body and table cells alike, not the dark one's light grey."""
    result, _, base = site
    context = dark_context(browser, WIDE)
    page = context.new_page()
    page.goto(urljoin(base, pages_of(result)[1]))
    probe = "() => {" + COLOURS + """
        const cell = document.querySelector('main td');
        return [getComputedStyle(document.body).color, seenOn(document.body),
                contrast(getComputedStyle(cell).color, seenOn(cell)),
                document.documentElement.dataset.scheme]; }"""
    on_screen = page.evaluate(probe)
    page.emulate_media(media="print", color_scheme="dark")
    printed = page.evaluate(probe)
    context.close()
    assert on_screen[3] == "dark" and on_screen[1] != "rgb(255, 255, 255)"   # the screen is dark
    assert printed[:2] == ["rgb(31, 35, 40)", "rgb(255, 255, 255)"]           # the light --text on white
    assert printed[2] >= 4.5 and printed[3] == "dark"
