"""Figures without alt text: a `fig-` cell or image with no `fig-alt`.

Pure function for the checker: `missing_fig_alt(parsed)` returns one
Finding (kind "fig-alt") per figure whose alt text is missing or blank:
a `#| label: fig-…` cell without `#| fig-alt:` (at its label line), an
image `![cap](file){#fig-…}` without `fig-alt="…"` (at the image), a div
figure `::: {#fig-…}` whose image has no `fig-alt` (at the div), so
`make check` can report e.g.

    contents/x.qmd:205:1: fig-alt: figure fig-waste has no alt text (add `#| fig-alt: "..."`)
"""
from __future__ import annotations

import re

from bookcheck.model import Finding, Kind

# ![caption](file){#fig-x ...} in the markdown
IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)\{([^}]*)\}")
ATTR_ID = re.compile(r"#(fig-[\w:.-]+)")
ATTR_ALT = re.compile(r"""fig-alt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s}]+))""")
# ::: {#fig-x} … ::: : a div figure; its image carries fig-alt
DIV_OPEN = re.compile(r"^(:{3,})\s*\{[^}]*#(fig-[\w:.-]+)")


def _alt_value(attrs: str) -> str:
    alt = ATTR_ALT.search(attrs)
    return next((g for g in alt.groups() if g is not None), "") if alt else ""


def _div_figures(text: str):
    """(label, line, body) of each `::: {#fig-…}` div figure."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = DIV_OPEN.match(line)
        if not match:
            continue
        fence = match.group(1)
        body = []
        for inner in lines[i + 1:]:
            if re.fullmatch(r":{%d,}\s*" % len(fence), inner):
                break
            body.append(inner)
        yield match.group(2), i + 1, "\n".join(body)


def missing_fig_alt(parsed) -> list[Finding]:
    """Findings for the figures of one ParsedChapter that lack `fig-alt`."""
    found = []
    for cell in parsed.cells:
        label = cell.label
        if not label or not label.startswith("fig-"):
            continue
        alt = cell.resolved.fig_alt          # a list: one alt text per figure, each needed
        if not alt or not all(text.strip() for text in (alt if isinstance(alt, tuple) else (alt,))):
            found.append(Finding(parsed.path, cell.option_lines.get("label", cell.fence_line), Kind.FIG_ALT,
                                 f"figure {label} has no alt text (add `#| fig-alt: \"...\"`)",
                                 col=1, label=label))
    for match in IMAGE.finditer(parsed.text):
        attrs = match.group(1)
        ident = ATTR_ID.search(attrs)
        if not ident:
            continue
        if not _alt_value(attrs).strip():
            line = parsed.text.count("\n", 0, match.start()) + 1
            col = match.start() - (parsed.text.rfind("\n", 0, match.start()) + 1) + 1
            found.append(Finding(parsed.path, line, Kind.FIG_ALT,
                                 f"figure {ident.group(1)} has no alt text (add fig-alt=\"...\")",
                                 col=col, label=ident.group(1)))
    for label, line, body in _div_figures(parsed.text):
        images = [m.group(1) for m in IMAGE.finditer(body)]
        if not any(_alt_value(attrs).strip() for attrs in images):
            found.append(Finding(parsed.path, line, Kind.FIG_ALT,
                                 f"figure {label} has no alt text (give its image fig-alt=\"...\")",
                                 col=1, label=label))
    return sorted(found, key=lambda f: (f.line, f.col or 0))
