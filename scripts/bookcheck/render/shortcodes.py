"""The built-in renderer's reading of Quarto's shortcodes (`{{< meta title >}}`).

Quarto resolves shortcodes after its engine, from the Markdown text; pandoc alone would
read `{{< var x >}}` as words. Before pandoc reads a chapter, `marked(text)` turns each
shortcode of the prose (read/shortcodes.py finds them) into a raw inline of the format
`shortcode`, which filters/shortcodes.lua resolves (meta, var, env, kbd, pagebreak) or
refuses with the way out. Code blocks and inline code are left as written: the filter
resolves their shortcodes as text. Quarto's escape `{{{< x >}}}` shows `{{< x >}}`.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from bookcheck.read.shortcodes import find

FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
ESCAPED = re.compile(r"\{(\{\{<(?:[^>\n]|>(?!\}\}))*>\}\})\}")


def _mark_prose(text: str) -> str:
    spans = [(m.start(), m.end()) for m in CODE_SPAN.finditer(text)]
    out, pos = [], 0
    for m, _, _ in find(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        ticks = "``" if "`" in m.group(0) else "`"
        pad = " " if ticks == "``" else ""
        out += [text[pos:m.start()], f"{ticks}{pad}{m.group(0)}{pad}{ticks}{{=shortcode}}"]
        pos = m.end()
    out.append(text[pos:])
    return ESCAPED.sub(r"\1", "".join(out))


def marked(text: str) -> str:
    """`text` with every shortcode outside code marked for filters/shortcodes.lua."""
    if "{{<" not in text:
        return text
    lines, out, prose, fence = text.split("\n"), [], [], None
    for line in lines:
        m = FENCE.match(line)
        if fence is None and m:
            out.append(_mark_prose("\n".join(prose)) if prose else None)
            prose, fence = [], m.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
        else:
            prose.append(line)
    out.append(_mark_prose("\n".join(prose)) if prose else None)
    return "\n".join(part for part in out if part is not None)


def context(markdown_file: Path, metadata: dict, variables: dict) -> dict | None:
    """What filters/shortcodes.lua reads for a chapter (None when its Markdown has no
    shortcode, so a change of `_quarto.yml` re-renders only the pages that show it):
    the project's metadata, `_variables.yml`, and the environment variables its
    `{{< env NAME >}}` shortcodes read (a page is rendered again when one changes):
    the renderer's own, as Quarto's shortcode reads Quarto's, not the kernels' (those
    are run/forkserver.py's `kernel_env`: tests/render/test_shortcode_env.py)."""
    try:
        text = Path(markdown_file).read_text(encoding="utf-8")
    except OSError:
        return None
    found = list(find(text))
    if not found:
        return None
    names = {args.split()[0].strip("\"'") for _, name, args in found if name == "env" and args}
    return {"metadata": metadata, "variables": variables,
            "environment": {name: os.environ[name] for name in sorted(names) if name in os.environ}}
