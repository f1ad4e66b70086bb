"""What a person used to check by eye on every page (issue 27), at 390 and
1400 px in chromium: no element sticks out of the text column except
inside a box that scrolls, every caption is fully visible (and never inside
a scrolling box), every image is vector or has at least twice the pixels it
is shown at, and a figure's smallest text stays readable on a phone.

LAYOUT_PROBLEMS runs in the page and returns what it finds; the tests with
"planted" in their name plant each fault in a real page (a fixed-width
table, a caption moved into the scroll box, a 1x raster image, a figure
shrunk too far) and watch it being reported.
"""
from __future__ import annotations

from urllib.parse import urljoin

import pytest

from mlsys.plotting import TEXT_PT_MIN

from .test_browser import SCREENSHOTS, browser  # noqa: F401  (fixture)
from .test_reader_browser import PHONE, WIDE, pages_of, site  # noqa: F401  (fixture)

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]   # skipped locally, an error under CI

MIN_TEXT_PX = 11     # the smallest figure text a phone may show (issue 35)

LAYOUT_PROBLEMS = """([minTextPt, minTextPx]) => {
  const problems = [];
  const main = document.querySelector('main');
  const box = main.getBoundingClientRect();
  const style = getComputedStyle(main);
  const left = box.left + parseFloat(style.paddingLeft) - 0.5;
  const right = box.right - parseFloat(style.paddingRight) + 0.5;
  const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
      (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : '');
  const scroller = e => {
    for (let a = e.parentElement; a && a !== main; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return a;
    }
    return null;
  };
  if (document.documentElement.scrollWidth > innerWidth) problems.push('page scrolls sideways');
  for (const e of main.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if ((r.right > right || r.left < left) && !scroller(e))
      problems.push(`overflow: ${name(e)} spans ${Math.round(r.left)}-${Math.round(r.right)}` +
                    ` of ${Math.round(left)}-${Math.round(right)}`);
  }
  for (const c of main.querySelectorAll('caption, figcaption')) {
    const r = c.getBoundingClientRect();
    const label = (c.innerText || '').slice(0, 30);
    if (scroller(c)) problems.push(`caption in a scroll box: ${label}`);
    if (r.left < left || r.right > right) problems.push(`caption outside the column: ${label}`);
    if (c.scrollWidth > c.clientWidth + 1 || c.scrollHeight > c.clientHeight + 1)
      problems.push(`caption clipped: ${label}`);
  }
  for (const img of main.querySelectorAll('img')) {
    const r = img.getBoundingClientRect();
    const src = img.currentSrc || img.src;
    if (/\\.svg([?#]|$)/i.test(src)) {
      const px = minTextPt * 4 / 3 * r.width / img.naturalWidth;
      if (px < minTextPx) problems.push(`figure text ${px.toFixed(1)} px: ${src.split('/').pop()}`);
    } else if (img.naturalWidth < 2 * r.width - 0.5) {
      problems.push(`image ${img.naturalWidth} px shown at ${Math.round(r.width)} px: ${src.split('/').pop()}`);
    }
  }
  return problems;
}"""


def layout_problems(page) -> list[str]:
    return page.evaluate(LAYOUT_PROBLEMS, [TEXT_PT_MIN, MIN_TEXT_PX])


@pytest.mark.parametrize("width", [PHONE, WIDE])
def test_every_page_lays_out_cleanly(site, browser, width):  # noqa: F811
    result, _, base = site
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems, figures, tables = [], 0, 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for rel in pages_of(result):
        page.goto(urljoin(base, rel))
        problems += [f"{rel} @{width}: {p}" for p in layout_problems(page)]
        shot = SCREENSHOTS / f"{rel.replace('/', '__').removesuffix('.html')}-{width}.png"
        page.screenshot(path=str(shot))          # every page at both widths, for review
        assert shot.stat().st_size > 0
        figures += page.evaluate("() => document.querySelectorAll('main img').length")
        tables += page.evaluate("() => document.querySelectorAll('main figure.table-float').length")
    context.close()
    assert figures >= 5 and tables >= 10      # the checks saw the book's figures and tables
    assert problems == []


def test_table_b1_fits_at_1400_and_is_stacked_at_390(site, browser):  # noqa: F811
    """Table B.1 (89 rows, five columns): no sideways scrolling in the wide
    column; on a phone each row is a card of "header value" lines (.stacked),
    so its Meaning gets the column's width (it had ~110 px in a sideways
    scroller), nothing scrolls sideways, and the caption wraps above it."""
    result, _, base = site
    rel = pages_of(result)[-1]
    probe = """() => { const f = document.getElementById('tbl-constants-all'),
        w = f.querySelector('.table-wrap'), c = f.querySelector(':scope > figcaption');
        const meaning = [...w.querySelectorAll('tbody td')].filter(td => td.dataset.label === 'Meaning')
            .map(td => td.clientWidth - parseFloat(getComputedStyle(td).paddingLeft));
        return {scrolls: w.scrollWidth > w.clientWidth, stacked: w.classList.contains('stacked'),
                hint: getComputedStyle(c, '::after').content, captionInside: !!c.closest('.table-wrap'),
                meaningCells: meaning.length, narrowestMeaning: Math.round(Math.min(...meaning)),
                column: w.clientWidth, rows: w.querySelectorAll('tbody tr').length}; }"""
    seen = {}
    for width in (WIDE, PHONE):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.goto(urljoin(base, rel))
        seen[width] = page.evaluate(probe)
        context.close()
    wide, phone = seen[WIDE], seen[PHONE]
    assert (wide["scrolls"], wide["stacked"], wide["hint"], wide["captionInside"]) == (False, False, "none", False)
    assert wide["meaningCells"] == 0                   # a plain table there: no labels
    assert (phone["scrolls"], phone["stacked"], phone["hint"], phone["captionInside"]) == (False, True, "none", False)
    assert phone["meaningCells"] == phone["rows"] >= 80
    assert phone["narrowestMeaning"] >= 0.6 * phone["column"], phone


PLANTS = {
    "fixed-width table": ("() => { const t = document.createElement('table');"
                          " t.innerHTML = '<tr><td>wide</td></tr>'; t.style.width = '1600px';"
                          " document.querySelector('main').append(t); }", "overflow: table"),
    "caption in the scroll box": ("() => { const f = document.querySelector('figure.table-float:not(:has(.stacked))');"
                                  " f.querySelector('.table-wrap').prepend(f.querySelector('figcaption')); }",
                                  "caption in a scroll box"),
    "1x raster image": ("() => { const c = document.createElement('canvas'); c.width = 300; c.height = 100;"
                        " const i = new Image(); i.src = c.toDataURL(); i.style.width = '300px';"
                        " i.alt = 'planted'; document.querySelector('main').append(i);"
                        " return i.decode(); }", "image 300 px shown at 300 px"),
    "figure shrunk too far": ("() => { const i = document.querySelector('main figure img');"
                              " i.style.width = (i.naturalWidth * 0.3) + 'px'; }", "figure text"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_layout_fault_is_reported(site, browser, plant):  # noqa: F811
    result, _, base = site
    script, expected = PLANTS[plant]
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    page.goto(urljoin(base, pages_of(result)[-2]))       # an appendix with tables and figures
    assert layout_problems(page) == []
    page.evaluate(script)
    found = layout_problems(page)
    context.close()
    assert any(expected in p for p in found), found
