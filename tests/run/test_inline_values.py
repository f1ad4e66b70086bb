"""Quarto's insertion of inline values (scripts/inline_values.py), against
the exact texts Quarto 1.7.34 kept in conformance cases 01 and 02."""
from __future__ import annotations

import pytest

from bookcheck.run.inline_values import inserted, mangled, markdown_escape


def plain(value) -> dict:
    return {"text/plain": repr(value)}


@pytest.mark.parametrize("value, expected", [
    ("plain text", "plain text"),
    (f"{1234567:,}", "1\\,234\\,567"),
    ("0.3", "0\\.3"),
    ("a-b", "a\\-b"),
    ("$\\mathrm{pass}^{1}$ = 75%", "$\\\\\\\\\\\\\\\\mathrm\\{pass\\}^\\{1\\}$ = 75%"),
    ("line1\nline2", "line1\\\\\\\\nline2"),
    ("*bold* | <b>tag</b> _u_ [x](y) #h a-b 1.5! {c} (p) `t` ~s~ ^e^ 50%",
     "\\*bold\\* | <b\\>tag</b\\> \\_u\\_ \\[x\\]\\(y\\) \\#h a\\-b 1\\.5\\! \\{c\\} \\(p\\) \\`t\\` ~s~ ^e^ 50%"),
])
def test_str_is_unquoted_and_escaped_as_quarto_does(value, expected):
    assert inserted(plain(value)).markdown == expected


@pytest.mark.parametrize("bundle, kind, text", [
    ({"text/plain": "42"}, "text", "42"),
    ({"text/plain": "0.30000000000000004"}, "text", "0.30000000000000004"),
    ({"text/plain": "np.float64(0.30000000000000004)"}, "text", "np.float64(0.30000000000000004)"),
    ({"text/plain": "[1, 'a']"}, "text", "[1, 'a']"),
    ({"text/plain": "None"}, "text", "None"),
    ({"text/plain": "<Markdown>", "text/markdown": "**x**"}, "markdown", "**x**"),
    ({"text/plain": "<HTML>", "text/html": "<i>h</i>"}, "html", "`<i>h</i>`{=html}"),
    ({"text/plain": "o", "text/markdown": "**from-md**", "text/html": "<b>from-html</b>"},
     "html", "`<b>from-html</b>`{=html}"),
    ({"text/plain": "''"}, "code", ""),
])
def test_mime_preference_and_reprs(bundle, kind, text):
    got = inserted(bundle)
    assert (got.kind, got.markdown) == (kind, text)


def test_escape_leaves_quartos_exceptions_alone():
    assert markdown_escape("| < ~ ^ $ %") == "| < ~ ^ $ %"


@pytest.mark.parametrize("bundle, word", [
    (plain("$\\mathrm{pass}^{1}$"), "Markdown(...)"),
    (plain("*bold*"), "Markdown(...)"),
    (plain(""), "empty string"),
    ({"text/plain": "df", "text/html": "<div>\n<table></table>\n</div>"}, "several lines"),
    ({"text/plain": "h", "text/html": "<i>h</i>"}, "the PDF nothing"),
    ({"text/plain": "<Quantity(5172.41379, 'hour')>", "text/html": "5172.41 hour"}, "fmt(...)"),
    ({"text/plain": "<__main__.A at 0x7f3d959c29d0>"}, "fmt(...)"),
])
def test_mangled_values_are_named_with_the_fix(bundle, word):
    reason = mangled(bundle)
    assert reason is not None and word in reason


@pytest.mark.parametrize("bundle", [
    plain("1,234,567"), plain("a-b 1.5!"), plain("50 %"), {"text/plain": "42"},
    {"text/plain": "m", "text/markdown": "$\\mathrm{x}$"}, {"text/plain": "a < b"},
])
def test_harmless_values_are_not_flagged(bundle):
    assert mangled(bundle) is None
