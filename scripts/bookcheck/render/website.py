"""The numbering of a project that is not a book (a website): each page on its own.

Quarto 1.7.34 renders each page of a website as a document of its own (checked on a
tiny website): no chapter numbers; tables, figures, equations and callouts counted
per page ("Figure 1", "Table 2", "(1)"); a section is referred to by its number within
the page (crossref/sections.lua: counted from the page's highest heading level, so
`##` headings under a `title:` are "Section 1", "Section 2"; `#` then `##`: "Section
1", "Section 1.1"), shown on the heading only with `number-sections: true` (a
website's default is false); a reference resolves only to a label of its own page.
Its sidebar is the one `website: sidebar:` describes (`sidebar_html`).
"""
from __future__ import annotations

import html

from .numbering import KIND_NAMES, ChapterInfo, Ref, _as_list
from .errors import RenderError

MAX_LEVEL = 7


def number_pages(pages: list[ChapterInfo], numbered: frozenset = frozenset()) -> dict[str, dict[str, Ref]]:
    """Fill each page's title and headers (numbers shown for the paths in `numbered`,
    `number-sections: true`); return each page's labels: path -> label -> Ref."""
    return {info.path: _number_page(info, info.path in numbered) for info in pages}


def _number_page(info: ChapterInfo, shown: bool) -> dict[str, Ref]:
    refs: dict[str, Ref] = {}

    def define(ref: Ref) -> None:
        if ref.id in refs:
            raise RenderError(f"label {ref.id} is defined twice in {info.path}")
        refs[ref.id] = ref

    info.number = None
    info.title = info.collected.get("title") or ""
    headers = _as_list(info.collected.get("headers"))
    body = [h for h in headers if not h.get("title")]            # not the page's title block
    top = min((min(int(h.get("level", 1)), MAX_LEVEL) for h in body), default=MAX_LEVEL)
    section = [0] * (MAX_LEVEL + 1)
    info.headers = []
    for h in headers:
        if h.get("title") or h.get("unnumbered"):
            info.headers.append(None)
            if not h.get("title") and (h.get("id") or "").startswith("sec-"):
                define(Ref(h["id"], "sec", "", h.get("text", h["id"]), info.path))
            continue
        level = min(int(h.get("level", 1)), MAX_LEVEL)
        section[level + 1:] = [0] * (MAX_LEVEL - level)
        section[level] += 1
        number = _section_number(section, level, top)
        info.headers.append(number if shown else None)
        if (h.get("id") or "").startswith("sec-"):
            define(Ref(h["id"], "sec", number, f"{KIND_NAMES['sec']} {number}", info.path))
    counts: dict[str, int] = {}
    for label in _as_list(info.collected.get("labels")):
        kind = label["kind"]
        counts[kind] = counts.get(kind, 0) + 1
        define(Ref(label["id"], kind, str(counts[kind]), f"{KIND_NAMES[kind]} {counts[kind]}",
                   info.path))
    return refs


def _section_number(section: list[int], level: int, top: int) -> str:
    """Quarto's sectionNumber (crossref/format.lua): the level-1 count when the page has
    `#` headings, then the counts of levels 2.. down to the deepest one set."""
    last = next((i for i in range(level, 1, -1) if section[i] > 0), 1)
    parts = [str(section[1])] if top == 1 else []
    return ".".join(parts + [str(section[i]) for i in range(2, last + 1)])


def sidebar_html(bars: list, here: str, titles: dict[str, str], link) -> str:
    """A website's sidebar as its `website: sidebar:` says (read/sidebar.py): the one
    listing page `here` (else the first), its sections, texts and dividers; a page is
    named by its `text:`, else its title (`titles`, path -> title); `link(path)` is the
    URL of a page from `here`."""
    bar = next((b for b in bars if here in _paths(b)), bars[0])

    def items(entries, depth: int) -> list[str]:
        rows = []
        for item in entries:
            if item.divider:
                rows.append('<li class="toc-divider" role="separator"><hr></li>')
                continue
            text = html.escape(item.text or titles.get(item.path, item.path))
            if item.path:
                attrs = ' class="active" aria-current="page"' if item.path == here else ""
                head = f'<a href="{link(item.path)}"{attrs}>{text}</a>'
            elif item.href:
                head = f'<a href="{html.escape(item.href)}">{text}</a>'
            else:
                head = f'<p class="toc-part">{text}</p>' if item.section else f"<span>{text}</span>"
            inner = items(item.contents, depth + 1)
            nested = f'<ol class="toc-sections">{"".join(inner)}</ol>' if inner else ""
            rows.append(f"<li>{head}{nested}</li>")
        return rows

    return '<ol class="toc">\n' + "\n".join(items(bar, 0)) + "\n</ol>"


def _paths(items) -> set[str]:
    return {p for item in items for p in ({item.path} | _paths(item.contents)) if p}


def nav_titles(bars: list) -> dict[str, str]:
    """Each page's name in the sidebars (its `text:`, else its title as Quarto's index
    has it: read/sidebar.py), which its sidebar entry and the pager show."""
    found: dict[str, str] = {}

    def walk(items) -> None:
        for item in items:
            if item.path and item.text:
                found.setdefault(item.path, item.text)
            walk(item.contents)

    for bar in bars:
        walk(bar)
    return found
