"""A website's `website: sidebar:` as Quarto 1.7 resolves it: the navigation and the
order of its pages.

`sidebars(root, config, inputs)` -> one tuple of NavItem per sidebar (a mapping is one
sidebar, a list several). Quarto's rules (src/project/project-config.ts
normalizeSidebarItem, website/website-sidebar-auto.ts):

- an item is a path (a string naming a file; any other string is a text), or a mapping
  with `href` (or `file`, `url`) and `text`; `section:` (a file: the section's own page,
  else its title) with `contents:`; `text: "---"` is a divider;
- `contents: auto` (or `auto: true`) is every page, `auto: dir` the pages of a folder,
  `auto: glob` the pages it matches (a string `contents:` is an `auto:`): a folder
  becomes a section (its `index` page its link, its title the folder name
  capitalised), entries sorted by their front matter's `order:`, then pages before
  folders, then name (case-insensitive); the root `index` page is left out.

`page_order(sidebars, inputs)`: the pages in sidebar order, then the others (the home
page first when no sidebar lists it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bookcheck.read.jupyter_title import HEADING, heading_text
from bookcheck.read.yamlio import YAMLError, load_yaml

DIVIDER = re.compile(r"^-{3}[-\s]*$")
PAGE_SUFFIXES = (".qmd", ".md", ".ipynb")


@dataclass(frozen=True)
class NavItem:
    """One sidebar entry: a page, a link, a section (with `contents`), a text or a divider."""
    text: str = ""          # as shown; "" for a page: its title (the renderer's)
    path: str = ""          # a page of the project (project-relative), or ""
    href: str = ""          # any other link
    contents: tuple = ()    # a section's entries (NavItem)
    section: bool = False
    divider: bool = False


def sidebars(root: Path, config: dict, inputs: list[str]) -> list[tuple[NavItem, ...]]:
    """Every sidebar of `config` (the `website:` mapping), its items resolved."""
    raw = config.get("sidebar") if isinstance(config, dict) else None
    found = raw if isinstance(raw, list) else [raw] if isinstance(raw, dict) else []
    return [tuple(_items(Path(root), bar.get("contents"), inputs)) for bar in found
            if isinstance(bar, dict)]


def page_order(bars: list[tuple[NavItem, ...]], inputs: list[str]) -> list[str]:
    """The pages `inputs` in the order the sidebars show them, then every other one; the
    home page (`index`, which the sidebar's title links to) first when no sidebar lists it."""
    listed: list[str] = []

    def walk(items) -> None:
        for item in items:
            if item.path in inputs and item.path not in listed:
                listed.append(item.path)
            walk(item.contents)

    for bar in bars:
        walk(bar)
    home = [rel for rel in inputs if re.fullmatch(r"index\.\w+", rel) and rel not in listed]
    return home + listed + [rel for rel in inputs if rel not in listed + home]


def _items(root: Path, contents, inputs: list[str]) -> list[NavItem]:
    if contents is None:
        return []
    if isinstance(contents, str):                       # `contents: auto`, `contents: dir/*`
        contents = [{"auto": True if contents == "auto" else contents}]
    elif not isinstance(contents, list):
        contents = [contents]
    found: list[NavItem] = []
    for item in contents:
        if isinstance(item, dict) and "auto" in item:
            found += _auto(root, item["auto"], inputs)
        elif item is not None:
            found.append(_item(root, item, inputs))
    return found


def _item(root: Path, item, inputs: list[str]) -> NavItem:
    if not isinstance(item, dict):
        text = str(item)
        return _link(root, text, "", inputs) if (root / text).exists() else _text(text)
    href = str(item.get("href") or item.get("file") or item.get("url") or "")
    text = str(item.get("text") or "")
    if "section" in item or "contents" in item:
        section = str(item.get("section") or "")
        if section and (root / section).is_file():
            href = href or section
        else:
            text = text or section
        link = _link(root, href, text, inputs) if href else NavItem(text=text)
        return NavItem(link.text, link.path, link.href, tuple(_items(root, item.get("contents"), inputs)),
                       section=True)
    return _link(root, href, text, inputs) if href else _text(text)


def _text(text: str) -> NavItem:
    return NavItem(divider=True) if DIVIDER.match(text) else NavItem(text=text)


def _link(root: Path, href: str, text: str, inputs: list[str]) -> NavItem:
    rel = PurePosixPath(href.split("#")[0].lstrip("/")).as_posix()
    if rel in inputs:
        return NavItem(text=text or _title(root, rel), path=rel)
    return NavItem(text=text or href, href=href)


def _auto(root: Path, auto, inputs: list[str]) -> list[NavItem]:
    """`auto:` entries (Quarto's sidebarItemsFromAuto)."""
    globs = ["*"] if auto is True else [] if auto is False else \
        [str(g) for g in (auto if isinstance(auto, list) else [auto])]
    items: list[NavItem] = []
    for glob in globs:
        folder = glob.strip("/") if (root / glob).is_dir() else ""
        prefix = re.match(r"(.*?)/\*", glob)               # `dir/*`: the entries of dir
        base = (PurePosixPath(folder).parent.as_posix() if folder
                else prefix.group(1) if prefix and (root / prefix.group(1)).is_dir() else "")
        base = "" if base == "." else base
        tree: dict = {}
        for rel in inputs:
            if _matches(rel, glob, folder, base) and not re.fullmatch(r"index\.\w+", rel):
                node = tree
                for part in PurePosixPath(rel).relative_to(base or ".").parts:
                    node = node.setdefault(part, {})
        items += _entries(root, base, tree)
    return items


def _matches(rel: str, glob: str, folder: str, base: str) -> bool:
    """Whether page `rel` is one of `auto: glob` (a folder: every page below it)."""
    if folder:
        return rel.startswith(folder + "/")
    return (not base or rel.startswith(base + "/")) and PurePosixPath(rel).match(glob)


def _entries(root: Path, base: str, tree: dict) -> list[NavItem]:
    """The entries of one folder level, in Quarto's order."""
    entries = []
    for name, children in tree.items():
        rel = f"{base}/{name}" if base else name
        if not children:
            if not re.fullmatch(r"index\.\w+", name):
                entries.append((_order(root, rel), 0, PurePosixPath(name).stem.upper(),
                                NavItem(text=_title(root, rel), path=rel)))
            continue
        index = next((n for n in children if re.fullmatch(r"index\.\w+", n) and not children[n]), "")
        inner = tuple(_entries(root, rel, children))
        head = (NavItem(text=_title(root, f"{rel}/{index}"), path=f"{rel}/{index}") if index
                else NavItem(text=_folder_title(name)))
        entries.append((_order(root, f"{rel}/{index}") if index else None, 1, name.upper(),
                        NavItem(head.text, head.path, contents=inner, section=True)))
    entries.sort(key=lambda e: (e[0] is None, e[0] if e[0] is not None else 0, e[1], e[2]))
    return [e[3] for e in entries]


def _folder_title(name: str) -> str:
    """Quarto's titleFromPath: dashes and underscores to spaces, words capitalised."""
    if " " in name:
        return name
    return " ".join(w[:1].upper() + w[1:] for w in re.split(r"[_\-]+", name) if w)


def _front_matter(root: Path, rel: str) -> tuple[dict, str]:
    """(a page's front matter, the text after it)."""
    try:
        text = (root / rel).read_text("utf-8", errors="replace")
    except OSError:
        return {}, ""
    match = re.match(r"---[ \t]*\n(.*?\n)---[ \t]*(\n|$)", text, re.S)
    try:
        data = load_yaml(match.group(1)) if match else None
    except YAMLError:
        data = None
    return (data if isinstance(data, dict) else {}), text[match.end():] if match else text


def _title(root: Path, rel: str) -> str:
    """A page's title as its sidebar entry shows it (Quarto's project index): its
    `title:`, else its first `#` line (pandoc-partition.ts), else "" (the renderer's)."""
    data, body = _front_matter(root, rel)
    if data.get("title"):
        return str(data["title"])
    first = next((ln for ln in body.splitlines() if HEADING.match(ln)), "")
    return heading_text(first) if first else ""


def _order(root: Path, rel: str):
    value = _front_matter(root, rel)[0].get("order")
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
