"""What the Quarto handoff adds to the author's `theme:` (render/quarto_look.py):
the math font always, the dark scheme unless the author chose the scheme."""
from __future__ import annotations

import base64
import json
from pathlib import Path

from bookcheck.render.quarto_look import DARK_SCSS, html_options, write_metadata_file

MATH, DARK = "/work/math.scss", str(DARK_SCSS)
ROOT = Path("/book")
FOLLOW = {"light": ["default", MATH], "dark": ["darkly", DARK, MATH]}


def test_no_theme_gets_light_and_dark_following_the_reader():
    assert html_options({}, ROOT, MATH) == {"theme": FOLLOW, "respect-user-color-scheme": True}
    assert html_options({"format": {"html": "default"}}, ROOT, MATH)["theme"] == FOLLOW


def test_a_light_theme_keeps_its_place_as_the_light_one():
    cosmo = {"format": {"html": {"theme": "cosmo"}}}
    assert html_options(cosmo, ROOT, MATH)["theme"] == {**FOLLOW, "light": ["cosmo", MATH]}
    top = {"theme": "flatly", "format": {"html": {"toc": True}}}   # the top level's, for HTML too
    assert html_options(top, ROOT, MATH)["theme"]["light"] == ["flatly", MATH]


def test_a_theme_file_is_made_absolute_from_the_project():
    """Quarto reads a metadata file's theme path against each document's folder."""
    own = {"format": {"html": {"theme": "styles/own.scss"}}}
    assert html_options(own, ROOT, MATH)["theme"]["light"] == [str(ROOT / "styles" / "own.scss"), MATH]


def test_the_authors_scheme_is_left_alone():
    for theme in ("darkly", ["cosmo", "own.scss"]):         # dark on its own; a list: appended
        assert html_options({"format": {"html": {"theme": theme}}}, ROOT, MATH) == {"theme": [MATH]}
    both = {"format": {"html": {"theme": {"light": "cosmo", "dark": "slate"}}}}
    assert html_options(both, ROOT, MATH) == {"theme": {"light": [MATH], "dark": [MATH]}}


def test_the_metadata_file_sets_format_html_and_builds_the_font_in(tmp_path):
    from bookcheck.render.html import FONTS, MATH_FONT
    path = write_metadata_file({}, ROOT, tmp_path)
    math = tmp_path / "math.scss"
    assert json.loads(path.read_text()) == {"format": {"html": html_options({}, ROOT, str(math))}}
    font = base64.b64encode((FONTS / MATH_FONT).read_bytes()).decode("ascii")
    assert f'src: url("data:font/woff2;base64,{font}") format("woff2");' in math.read_text()


def test_a_format_named_as_a_plain_string_has_no_theme_of_its_own():
    from bookcheck.render.quarto_look import author_theme
    assert author_theme({"format": "html"}) is None
    assert author_theme({"format": "html", "theme": "cosmo"}) == "cosmo"
