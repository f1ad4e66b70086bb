"""The books of tests/render/test_quarto_markdown.py rendered by real Quarto 1.7.34
and by the built-in renderer: the same captions, reference texts, headings, sidebar
entries and resolved shortcodes (local-only; the render tests pin the same values)."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.render.htmlscan import norm, scan
from tests.render.test_quarto_markdown import FLOATS, OFF, SECTIONS, SHORTCODES, THEOREMS, render, write

from .quartokit import quarto_environ

pytestmark = pytest.mark.slow


def text_of(el) -> str:
    """An element's text without what only screen readers get (Quarto's kbd)."""
    hidden = "".join(c.text for c in descendants(el) if "visually-hidden" in c.classes)
    return norm(el.text.replace(hidden, "", 1) if hidden else el.text)


def descendants(el):
    for child in el.children:
        yield child
        yield from descendants(child)


def facts(html: str) -> dict:
    els = scan(html)
    main = list(descendants(next(e for e in els if e.tag == "main")))
    sidebar = [norm(e.text) for e in els if "sidebar-item-text" in e.classes
               and e.attrs.get("href")] or [norm(li.text) for ol in els if ol.tag == "ol"
                                            and "toc" in ol.classes for li in ol.children]
    return {"xrefs": [norm(e.text) for e in main if "quarto-xref" in e.classes],
            "captions": [norm(e.text) for e in main if e.tag == "figcaption"
                         or "listing-caption" in e.classes],
            "headings": [norm(e.text) for e in main if e.tag in ("h1", "h2")],
            "sidebar": sidebar,
            "paragraphs": [text_of(e) for e in main if e.tag == "p" and norm(e.text)]
            + [norm(e.text) for e in main if e.tag == "pre"]}


def quarto_pages(quarto_exe, root) -> dict:
    done = subprocess.run([str(quarto_exe), "render", "--to", "html"], cwd=root,
                          env=quarto_environ(quarto_exe), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return {p.name: facts(p.read_text(encoding="utf-8")) for p in (root / "_book").glob("*.html")}


CASES = {
    "floats": (FLOATS, "", ("a.qmd", "b.qmd"), ()),
    "project-off": (SECTIONS, OFF, ("a.qmd", "b.qmd"), ("c.qmd",)),
    "chapter-off": ({**SECTIONS, "b.qmd": "---\nnumber-sections: false\n---\n\n" + SECTIONS["b.qmd"]},
                    "", ("a.qmd", "b.qmd"), ("c.qmd",)),
    "shortcodes": (SHORTCODES, "", ("a.qmd",), ()),
    "theorems": (THEOREMS, "", ("a.qmd",), ()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_built_in_page_is_quartos(case, quarto_exe, tmp_path, monkeypatch):
    monkeypatch.setenv("BUILTIN_TEST_ENV", "from-env")
    monkeypatch.delenv("BUILTIN_UNSET_ENV", raising=False)
    files, extra, chapters, appendices = CASES[case]
    theirs = quarto_pages(quarto_exe, write(tmp_path / "quarto", files, extra, chapters, appendices))
    ours = {name: facts(html) for name, (html, _) in
            render(tmp_path / "builtin", files, extra, chapters, appendices).items()}
    assert set(ours) == set(theirs)
    for name in sorted(set(ours) - {"index.html"}):      # the landing page's title block differs
        assert ours[name] == theirs[name], name
    shutil.rmtree(tmp_path / "quarto" / ".quarto", ignore_errors=True)
