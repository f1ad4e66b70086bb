"""Figures without alt text: a `fig-` cell or image with no `fig-alt`.

Pure function for the checker: `missing_fig_alt(parsed)` returns one
Finding (kind "fig-alt") per figure whose alt text is missing or blank, at
the cell's `#| label:` line (or the image's line), so `make check` can
report e.g.

    contents/x.qmd:205:1: fig-alt: figure fig-waste has no alt text (add `#| fig-alt: "..."`)
"""
from __future__ import annotations

import re

from scripts.model import Finding

# ![caption](file){#fig-x ...} in the markdown
IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)\{([^}]*)\}")
ATTR_ID = re.compile(r"#(fig-[\w:.-]+)")
ATTR_ALT = re.compile(r"""fig-alt\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")


def _label_line(cell) -> int:
    """The 1-based line of the cell's `#| label:` option (its fence if none)."""
    for offset, line in enumerate(cell.source.splitlines()):
        if re.match(r"\s*#\|\s*label\s*:", line):
            return cell.first_code_line + offset
    return cell.fence_line


def missing_fig_alt(parsed) -> list[Finding]:
    """Findings for the figures of one ParsedChapter that lack `fig-alt`."""
    found = []
    for cell in parsed.cells:
        label = cell.label
        if not label or not label.startswith("fig-"):
            continue
        alt = cell.options.get("fig-alt")
        if alt is None or not str(alt).strip():
            found.append(Finding(parsed.path, _label_line(cell), "fig-alt",
                                 f"figure {label} has no alt text (add `#| fig-alt: \"...\"`)",
                                 col=1, label=label))
    for match in IMAGE.finditer(parsed.text):
        attrs = match.group(1)
        ident = ATTR_ID.search(attrs)
        if not ident:
            continue
        alt = ATTR_ALT.search(attrs)
        value = next((g for g in alt.groups() if g is not None), "") if alt else ""
        if not value.strip():
            line = parsed.text.count("\n", 0, match.start()) + 1
            col = match.start() - (parsed.text.rfind("\n", 0, match.start()) + 1) + 1
            found.append(Finding(parsed.path, line, "fig-alt",
                                 f"figure {ident.group(1)} has no alt text (add fig-alt=\"...\")",
                                 col=col, label=ident.group(1)))
    return found
