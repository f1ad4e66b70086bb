"""Math spacing in the PDF: the TeX spaces pandoc's typst writer gets wrong.

Pandoc's typst writer (texmath) writes a math space it has no name for as
`#h(Nem)` with the width floored to a whole em: LaTeX's negative thin space
`\\!` (-1/6 em, as in `\\exp\\!\\left(…\\right)`) comes out as `#h(-1em)`, a full
em back, so the glyphs after it are drawn over the ones before; the thick
space `\\;` (5/18 em), `\\enspace` and `\\hspace{0.5em}` come out as `#h(0em)`,
nothing at all; `\\hspace` in any unit but em, and `\\mkern`, are not parsed
(the formula is left as TeX). `\\,`, `\\:` and `\\quad` come out right (typst's
`thin`, `med`, `quad`) and are left alone.

So, before the writer, each such space in a Math node is replaced by a
sentinel `\\hspace{<9000 + i>em}`, one per distinct width, which texmath writes
unchanged as `#h(<9000 + i>em)`; after it, each sentinel becomes the exact
typst space (`#h(-0.1667em)`, `#h(0.2778em)`, `#h(2mm)`).
"""
from __future__ import annotations

import re

SENTINEL_BASE = 9000         # em: no real formula spaces nine thousand em
MU_PER_EM = 18

# TeX's named math spaces texmath mangles, as a typst length.
NAMED = {"!": "-0.1667em", ";": "0.2778em", "enspace": "0.5em",
         "negthinspace": "-0.1667em", "thinspace": "0.1667em", "thickspace": "0.2778em",
         "negmedspace": "-0.2222em", "negthickspace": "-0.2778em"}
TYPST_UNITS = ("em", "pt", "mm", "cm", "in")

_SPACE = re.compile(
    r"\\\\"                                                          # a TeX line break: kept
    r"|\\(?P<named>[!;]|(?:enspace|negthinspace|thinspace|thickspace|negmedspace|negthickspace)(?![A-Za-z]))"
    r"|\\hspace\*?\s*\{\s*(?P<hsize>[-+]?(?:\d+\.?\d*|\.\d+))\s*(?P<hunit>em|pt|mm|cm|in)\s*\}"
    r"|\\mkern\s*\{?\s*(?P<mu>[-+]?(?:\d+\.?\d*|\.\d+))\s*mu\s*\}?")


def _length(match: re.Match) -> str | None:
    """The typst length of one matched TeX space (None: a line break, kept)."""
    if match.group("named"):
        return NAMED[match.group("named")]
    if match.group("hsize"):
        return f"{float(match.group('hsize')):g}{match.group('hunit')}"
    if match.group("mu"):
        return f"{float(match.group('mu')) / MU_PER_EM:.4g}em"
    return None


def mark_spaces(tex: str, widths: list[str]) -> str:
    """`tex` with each space texmath would mangle replaced by its sentinel;
    `widths` (shared by the whole document) gains each new typst length."""
    def sentinel(match: re.Match) -> str:
        length = _length(match)
        if length is None:
            return match.group(0)
        if length not in widths:
            widths.append(length)
        return f"\\hspace{{{SENTINEL_BASE + widths.index(length)}em}}"
    return _SPACE.sub(sentinel, tex)


def mark_math(node, widths: list[str]) -> None:
    """Mark the spaces of every Math node of a pandoc JSON AST, in place."""
    if isinstance(node, dict):
        if node.get("t") == "Math":
            node["c"][1] = mark_spaces(node["c"][1], widths)
            return
        for value in node.values():
            mark_math(value, widths)
    elif isinstance(node, list):
        for item in node:
            mark_math(item, widths)


def restore_spaces(source: str, widths: list[str]) -> str:
    """The typst `source` with each sentinel `#h(<9000 + i>em)` made its true length."""
    def length(match: re.Match) -> str:
        i = int(match.group(1)) - SENTINEL_BASE
        return f"#h({widths[i]})" if 0 <= i < len(widths) else match.group(0)
    return re.sub(r"#h\((\d+)em\)", length, source)
