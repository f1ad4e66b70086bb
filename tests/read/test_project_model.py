"""Quarto's project model beyond `_quarto.yml` (scripts/bookcheck/read/profiles.py, project.py):
metadata-files, profiles (`_quarto-<name>.yml`, QUARTO_PROFILE, `profile: default:`),
`_quarto.yml.local`, and website/default projects whose documents are found as Quarto finds them."""
from __future__ import annotations

import pytest

from bookcheck.model import Kind
from bookcheck.read.profiles import merge_configs
from bookcheck.read.project import load_project
from tests.bookkit import make_book

BOOK = ("project:\n  type: book\nbook:\n  title: Base\n  chapters:\n    - index.qmd\n"
        "execute:\n  echo: false\n")


@pytest.fixture(autouse=True)
def no_profile(monkeypatch):
    monkeypatch.delenv("QUARTO_PROFILE", raising=False)


def test_merge_is_quartos_merge_configs():
    base = {"a": 1, "l": ["x", "y"], "m": {"k": 1, "n": [1]}, "contents": "auto"}
    over = {"a": 2, "l": ["y", "z"], "m": {"n": [2], "j": 3}, "contents": ["p.qmd"]}
    assert merge_configs(base, over) == {
        "a": 2, "l": ["x", "y", "z"], "m": {"k": 1, "n": [1, 2], "j": 3}, "contents": ["p.qmd"]}


def test_a_profile_from_quarto_profile_adds_chapters_and_options(tmp_path, monkeypatch):
    make_book(tmp_path, {"_quarto.yml": BOOK, "index.qmd": "# I\n", "extra.qmd": "# E\n",
                     "_quarto-long.yml": "book:\n  title: Long\n  chapters:\n    - extra.qmd\n"
                                         "execute:\n  echo: true\n"})
    assert load_project(tmp_path).chapters == ["index.qmd"]
    monkeypatch.setenv("QUARTO_PROFILE", "long")
    project = load_project(tmp_path)
    assert (project.title, project.chapters) == ("Long", ["index.qmd", "extra.qmd"])
    assert project.execute == {"echo": True}
    assert project.config_files == ["_quarto-long.yml"]


def test_profile_default_and_the_first_listed_profile_wins(tmp_path, monkeypatch):
    make_book(tmp_path, {"_quarto.yml": BOOK + "profile:\n  default: a\n", "index.qmd": "# I\n",
                     "_quarto-a.yml": "book:\n  title: A\n",
                     "_quarto-b.yml": "book:\n  title: B\n"})
    assert load_project(tmp_path).title == "A"
    monkeypatch.setenv("QUARTO_PROFILE", "b,a")
    project = load_project(tmp_path)
    assert project.title == "B" and project.config_files == ["_quarto-a.yml", "_quarto-b.yml"]


def test_metadata_files_and_local_config_are_merged(tmp_path):
    make_book(tmp_path, {"_quarto.yml": BOOK + "metadata-files:\n  - meta/exec.yml\n",
                     "index.qmd": "# I\n", "meta/exec.yml": "execute:\n  warning: false\n",
                     "_quarto.yml.local": "execute:\n  timeout: 30\n"})
    project = load_project(tmp_path)
    assert project.execute == {"echo": False, "warning": False, "timeout": 30}
    assert project.timeout_s == 30.0
    assert project.config_files == ["meta/exec.yml", "_quarto.yml.local"]


def test_a_broken_profile_is_a_finding_at_its_line(tmp_path, monkeypatch):
    make_book(tmp_path, {"_quarto.yml": BOOK, "index.qmd": "# I\n",
                     "_quarto-bad.yml": "book:\n  title: [unclosed\n"})
    monkeypatch.setenv("QUARTO_PROFILE", "bad")
    found = [(f.path, f.kind) for f in load_project(tmp_path).findings]
    assert found == [("_quarto-bad.yml", Kind.YAML)]


def test_a_website_checks_every_input_file_quarto_renders(tmp_path):
    make_book(tmp_path, {"_quarto.yml": "project:\n  type: website\nwebsite:\n  title: Site\n",
                     "index.qmd": "# Home\n", "about.qmd": "# About\n", "notes.md": "# Notes\n",
                     "posts/one.qmd": "# One\n", "_draft.qmd": "# Draft\n", "README.md": "# R\n",
                     "_site/old.qmd": "# Old\n", ".hidden/x.qmd": "# X\n",
                     "_partials/p.qmd": "# P\n"})
    project = load_project(tmp_path)
    assert project.type == "website" and project.output_dir == "_site"
    assert project.chapters == ["index.qmd", "about.qmd", "notes.md", "posts/one.qmd"]
    assert project.findings == []


def test_project_render_lists_the_documents(tmp_path):
    make_book(tmp_path, {"_quarto.yml": "project:\n  render:\n    - b.qmd\n    - a.qmd\n",
                     "a.qmd": "# A\n", "b.qmd": "# B\n", "c.qmd": "# C\n"})
    project = load_project(tmp_path)
    assert (project.type, project.chapters) == ("default", ["b.qmd", "a.qmd"])


def test_a_folder_of_lone_documents_without_quarto_yml(tmp_path):
    """`quarto render doc.qmd` needs no project: each top-level document is checked alone."""
    make_book(tmp_path, {"doc.qmd": "# D\n", "_skip.qmd": "# S\n", "sub/x.qmd": "# X\n"})
    project = load_project(tmp_path)
    assert (project.type, project.chapters, project.findings) == ("single", ["doc.qmd"], [])


def test_custom_callout_types_of_the_extension(tmp_path):
    """coatless-quarto/custom-callout: its types count only when its filter is listed
    (Quarto ignores the key otherwise); the default title is the name capitalised."""
    types = ("custom-callout:\n  todo:\n    color: '#ff69b4'\n"
             "  callout-quiz:\n    title: Self-check\n  broken: 3\n")
    make_book(tmp_path, {"_quarto.yml": BOOK + types, "index.qmd": "# I\n"})
    assert load_project(tmp_path).custom_callouts == {}
    make_book(tmp_path, {"_quarto.yml": BOOK + types + "filters:\n  - quarto\n  - custom-callout\n"})
    assert load_project(tmp_path).custom_callouts == {
        "todo": {"title": "Todo", "color": "#ff69b4"},
        "callout-quiz": {"title": "Self-check", "color": ""}}


def test_the_title_and_page_footer_of_a_website_and_of_a_book(tmp_path):
    """Quarto's resolvePageFooter: a string is the center; a mapping's sides are Markdown
    or lists of items; a website's title is `website: title:`."""
    make_book(tmp_path, {"index.qmd": "# I\n"}, "project:\n  type: website\nwebsite:\n"
              "  title: Site 2.0\n  page-footer:\n    left: \"CC BY 4.0\"\n"
              "    right:\n      - text: v1\n        href: index.qmd\n    center: 7\n")
    project = load_project(tmp_path)
    assert project.title == "Site 2.0"
    assert project.page_footer == {"left": "CC BY 4.0", "right": [{"text": "v1", "href": "index.qmd"}]}
    book = BOOK.replace("  title: Base\n", "  title: Base\n  page-footer: \"Footer *3.1*\"\n")
    make_book(tmp_path, quarto_yml=book)
    assert load_project(tmp_path).page_footer == {"center": "Footer *3.1*"}
