"""The audit of what every page shows from `_quarto.yml`: its title and its page footer.

The text of a chapter's page is its `<main>` (audit_html.py); around it the renderer
prints the project's own text: the title (Quarto's `.sidebar-title`/`.navbar-title`,
the built-in `.book-title`/`.sidebar-title`), the `page-footer:` (`<footer>`: a
licence, a version) and the title block of the project (title, subtitle, authors:
the built-in `header.title-block`; Quarto's `header#title-block-header` on a book's
first page, where it is the book's). That text
is written in `_quarto.yml`, not in the chapter: `split_chrome` takes it out of the
chapter's page, and `audit_chrome` audits it once, on the first page, against
`_quarto.yml` (a number typed there is the author's unless `verify: literal-numbers`;
a leak, or a shortcode left as written (`{{< var x >}}`), is a finding at its line there).
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

import lxml.etree
import lxml.html

from bookcheck.model import Finding, Kind, ParsedChapter
from bookcheck.read import CONFIG
from bookcheck.verify.html_tables import html_tree

TITLE_CLASSES = {"book-title", "sidebar-title", "navbar-title"}
SHORTCODE = re.compile(r"\{\{<.*?>\}\}")
PART = "\n<!-- chrome -->\n"      # between the chrome's elements (split_chrome)


def _is_chrome(element, book_index: bool) -> bool:
    """A title, a footer or the project's title block (`book_index`: a book's first page's)."""
    classes = set((element.get("class") or "").split())
    return element.tag == "footer" or bool(classes & TITLE_CLASSES) or element.tag == "header" and (
        "title-block" in classes or book_index and element.get("id") == "title-block-header")


def split_chrome(html: str, book_index: bool = False) -> tuple[str, str]:
    """(the page without its chrome, the chrome's elements); `book_index`: the page
    is a book's first page, whose title block is the book's."""
    tree = html_tree(html)
    chrome = [e for e in tree.iter(lxml.etree.Element) if _is_chrome(e, book_index)
              and not any(_is_chrome(a, book_index) for a in e.iterancestors())]
    parts = [lxml.html.tostring(e, encoding="unicode", with_tail=False) for e in chrome]
    for element in chrome:
        element.drop_tree()             # its tail stays
    return lxml.html.tostring(tree, encoding="unicode"), PART.join(parts)


def audit_chrome(result, out_dir: Path, page_of=None) -> list[Finding]:
    """The title and page footer of the first page, audited against `_quarto.yml`."""
    from bookcheck.verify.audit import account, leak_findings
    from bookcheck.verify.audit_html import reader_text
    project = result.project
    documents = list(project.chapters) + list(project.appendices)
    try:
        config = (Path(project.root) / CONFIG).read_text(encoding="utf-8")
    except OSError:
        return []
    page = (page_of or (lambda p: posixpath.splitext(p)[0] + ".html"))(documents[0]) if documents else ""
    try:
        html = (Path(out_dir) / page).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []                       # a missing page is the page audit's finding
    _, chrome = split_chrome(html, book_index=getattr(project, "type", "book") == "book")
    source = ParsedChapter(path=CONFIG, text=config, authored=config)
    typed_ok = not getattr(project, "literal_numbers", False)
    found = []
    for part in chrome.split(PART):
        # what nothing nearer locates names the key that wrote the element: the footer's or the title's
        key = "page-footer" if part.lstrip().startswith("<footer") else "title"
        default = next((i for i, ln in enumerate(config.splitlines(), 1)
                        if re.match(rf"\s*{key}\s*:", ln)), 1)
        reader = reader_text(part, whole_page=True)
        found += [Finding(CONFIG, next((i for i, ln in enumerate(config.splitlines(), 1)
                                        if code in ln), default),
                          Kind.LEAK, f"{page} shows {code!r}: a shortcode left as written (this "
                          "renderer does not expand it in the title or the page footer: write "
                          "the text itself)")
                  for code in dict.fromkeys(SHORTCODE.findall(reader.text))]
        found += (account(source, page, reader.text, [], reader.exempt, reader.soft,
                          typed_ok=typed_ok, default_line=default)
                  + leak_findings(source, page, reader.text, default_line=default))
    return list({(f.line, f.kind, f.reason.split(" (")[0]): f for f in found}.values())  # the title, once
