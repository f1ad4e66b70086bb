"""The phone (issue 35), at 390×844 in chromium, on every page of the real
book: no table sits in a box that scrolls up and down (every row shows in
the page), and a table that still scrolls sideways says so (.scrolls: its
edge shadows and its caption's "scrolls sideways" hint)."""
from __future__ import annotations

from urllib.parse import urljoin

import pytest

from .test_browser import browser  # noqa: F401  (fixture)
from .test_reader_browser import PHONE, pages_of, site  # noqa: F401  (fixture)

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]   # skipped locally, an error under CI

TABLE_PROBLEMS = """() => {
  const problems = [];
  for (const w of document.querySelectorAll('main .table-wrap')) {
    const name = (w.closest('figure') || w).id || 'a table';
    if (w.scrollHeight > w.clientHeight + 1)
      problems.push(`${name}: scrolls up and down (${w.scrollHeight} in ${w.clientHeight} px)`);
    const box = w.getBoundingClientRect();
    const hidden = [...w.querySelectorAll('tr')].filter(r => {
      const b = r.getBoundingClientRect();
      return b.top < box.top - 1 || b.bottom > box.bottom + 1;
    }).length;
    if (hidden) problems.push(`${name}: ${hidden} rows hidden`);
    if (w.scrollWidth > w.clientWidth + 1) {
      const caption = w.closest('figure')?.querySelector(':scope > figcaption');
      const hint = caption ? getComputedStyle(caption, '::after').content : 'none';
      if (!w.classList.contains('scrolls') || !hint.includes('scrolls sideways'))
        problems.push(`${name}: scrolls sideways with no cue`);
    }
  }
  return problems;
}"""


def test_phone_tables_scroll_on_one_axis_with_a_cue(site, browser):  # noqa: F811
    result, _, base = site
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    problems, tables, sideways = [], 0, 0
    for rel in pages_of(result):
        page.goto(urljoin(base, rel))
        problems += [f"{rel}: {p}" for p in page.evaluate(TABLE_PROBLEMS)]
        tables += page.evaluate("() => document.querySelectorAll('main .table-wrap').length")
        sideways += page.evaluate("() => document.querySelectorAll('main .table-wrap.scrolls').length")
    context.close()
    assert tables >= 10 and sideways >= 1       # the check saw the book's tables, some too wide
    assert problems == []
