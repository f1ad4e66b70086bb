"""A website's pages in sidebar order and its navigation (scripts/bookcheck/read/sidebar.py), as
Quarto 1.7.34 resolves `website: sidebar:` (checked on a tiny website: sections, nested
lists, `auto: dir`, a divider, a text; an auto folder's pages by file name, not title)."""
from __future__ import annotations

from bookcheck.read.project import load_project
from bookcheck.read.sidebar import NavItem
from tests.bookkit import make_book

SITE = """project:
  type: website
website:
  title: Site
  sidebar:
    contents:
      - index.qmd
      - text: "---"
      - section: "Part"
        contents:
          - zeta.qmd
          - href: alpha.qmd
            text: First
      - auto: notes
      - Plain words
"""
PAGES = {"index.qmd": "---\ntitle: Home\n---\n", "alpha.qmd": "# A\n", "beta.qmd": "# B\n",
         "zeta.qmd": "---\ntitle: Zed\n---\n# Z\n",
         "notes/b-two.qmd": "---\ntitle: Aaa\n---\n", "notes/a-one.qmd": "---\ntitle: Zzz\n---\n",
         "notes/deep/x.qmd": "Text.\n\n# X {#sec-x}\n", "notes/late.qmd": "---\ntitle: Late\norder: 1\n---\n"}


def test_a_websites_pages_are_in_sidebar_order_then_the_others(tmp_path):
    project = load_project(make_book(tmp_path, {**PAGES, "_quarto.yml": SITE}))
    assert project.chapters == ["index.qmd", "zeta.qmd", "alpha.qmd", "notes/late.qmd",
                                "notes/a-one.qmd", "notes/b-two.qmd", "notes/deep/x.qmd",
                                "beta.qmd"]


def test_the_sidebar_items_as_quarto_shows_them(tmp_path):
    project = load_project(make_book(tmp_path, {**PAGES, "_quarto.yml": SITE}))
    assert project.sidebars == [(
        NavItem("Home", "index.qmd"),
        NavItem(divider=True),
        NavItem("Part", section=True, contents=(NavItem("Zed", "zeta.qmd"),
                                                NavItem("First", "alpha.qmd"))),
        NavItem("Notes", section=True, contents=(
            NavItem("Late", "notes/late.qmd"),          # `order:` first
            NavItem("Zzz", "notes/a-one.qmd"),           # then by file name, not title
            NavItem("Aaa", "notes/b-two.qmd"),
            NavItem("Deep", section=True, contents=(NavItem("X", "notes/deep/x.qmd"),)))),  # its `#`
        NavItem("Plain words"))]


def test_contents_auto_and_a_section_page(tmp_path):
    site = ("project:\n  type: website\nwebsite:\n  sidebar:\n    contents: auto\n")
    project = load_project(make_book(tmp_path, {"_quarto.yml": site, "index.qmd": "# I\n",
                                                "b.qmd": "# B\n", "a.qmd": "# A\n",
                                                "part/index.qmd": "---\ntitle: P\n---\n",
                                                "part/c.qmd": "# C\n"}))
    assert project.chapters == ["index.qmd", "a.qmd", "b.qmd", "part/index.qmd", "part/c.qmd"]
    assert project.sidebars[0][2] == NavItem("P", "part/index.qmd", section=True,
                                             contents=(NavItem("C", "part/c.qmd"),))


def test_a_website_without_sidebar_keeps_quartos_file_order(tmp_path):
    project = load_project(make_book(tmp_path, {"_quarto.yml": "project:\n  type: website\n",
                                                "index.qmd": "# I\n", "b.qmd": "# B\n",
                                                "a.qmd": "# A\n"}))
    assert (project.chapters, project.sidebars) == (["index.qmd", "a.qmd", "b.qmd"], [])
