"""Math spacing in pandoc's typst source.

Pandoc's typst writer (texmath) writes a math space as `#h(Nem)` with the
width floored to a whole em: LaTeX's negative thin space `\\!` (-1/6 em, as in
`\\exp\\!\\left(…\\right)`) comes out as `#h(-1em)`, a full em back, so the
glyphs after it are drawn over the ones before. No other negative math
space survives texmath (`\\negthinspace`, `\\mkern`, `\\kern` are not parsed),
so every `#h(-1em)` it writes is a `\\!` (or a rarer `\\hspace{-1em}`, which
is taken as one too).
"""
from __future__ import annotations

NEGATIVE_THIN = "#h(-0.1667em)"          # TeX's \! : -3 mu = -1/6 em


def negative_thin_spaces(source: str) -> str:
    """The typst `source` with texmath's `#h(-1em)` made a negative thin space."""
    return source.replace("#h(-1em)", NEGATIVE_THIN)
