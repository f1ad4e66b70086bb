"""Options of `_quarto.yml` that shape the page around the text: the page footer and
the callout types an extension adds (read by read/project.py into the Project)."""
from __future__ import annotations


def as_mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value) -> list:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list) else [value]


def page_footer(value) -> dict:
    """Quarto's resolvePageFooter (src/project/types/website/website-shared.ts): a string
    is the footer's center; a mapping's `left`, `center`, `right` each Markdown text or a
    list of navigation items (`text`, `href`, `icon`)."""
    if isinstance(value, str):
        return {"center": value}
    sides = as_mapping(value)
    return {side: sides[side] for side in ("left", "center", "right")
            if isinstance(sides.get(side), (str, list)) and sides[side]}


def custom_callouts(config: dict) -> dict:
    """Callout types an extension adds (coatless-quarto/custom-callout: `filters:` lists
    `custom-callout` and `custom-callout: {todo: {title: ..., color: ...}}` defines them).

    class -> {"title", "color"}: a div with that class is a callout; its default title is
    the type's `title`, else its name capitalised (the extension's rule). Without the
    filter listed Quarto ignores the key, and so does this.
    """
    filters = [str(f.get("path", "")) if isinstance(f, dict) else str(f)
               for f in as_list(config.get("filters"))]
    if not any("custom-callout" in f for f in filters):
        return {}
    found = {}
    for name, spec in as_mapping(config.get("custom-callout")).items():
        if isinstance(spec, dict):
            title = spec.get("title") or str(name)[:1].upper() + str(name)[1:]
            found[str(name)] = {"title": str(title), "color": str(spec.get("color") or "")}
    return found
