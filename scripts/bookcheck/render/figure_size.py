"""A figure's size as Quarto 1.7 writes it in the engine Markdown (`width=`, `height=`).

From quarto-cli 1.7.34 `src/core/jupyter/jupyter.ts` (mdImageOutput) and
`src/core/png.ts`: the size comes from the output's metadata (IPython's retina
PNGs: half the pixels, floored) or, for a retina PNG whose dpi is twice
fig-dpi, from the PNG itself (half the pixels, rounded).
"""
from __future__ import annotations

import math
import struct


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) in pixels from a PNG's IHDR chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        return 0, 0
    return struct.unpack(">II", data[16:24])


def png_dpi(data: bytes) -> tuple[int, int]:
    """(x, y) dots per inch from a PNG's pHYs chunk, as Quarto's PngImage reads it
    (pixels per metre × 0.0254, rounded); (-1, -1) without one."""
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs" and length >= 9 and data[pos + 16] == 1:
            x, y = struct.unpack(">II", data[pos + 8:pos + 16])
            return _js_round(x * .0254), _js_round(y * .0254)
        if kind == b"IDAT":
            break
        pos += length + 12
    return -1, -1


def _js_round(x: float) -> int:
    """JavaScript's Math.round: halves up."""
    return math.floor(x + 0.5)


def retina_size(data: bytes, figure: dict) -> tuple[int, int]:
    """A retina PNG's size in CSS pixels, (0, 0) for any other image: in `retina`
    mode, a PNG whose dpi is twice fig-dpi (matplotlib's) is shown at half its
    pixels, rounded (what Quarto writes for it)."""
    if figure.get("fig-format") != "retina" or png_dpi(data) != (2 * figure["fig-dpi"],) * 2:
        return 0, 0
    width, height = png_size(data)
    return _js_round(width / 2), _js_round(height / 2)


def image_size(data: bytes, figure: dict) -> tuple[int, int]:
    """The `width`/`height` Quarto 1.7 writes for a PNG output (mdImageOutput):
    only in `retina` mode: retina_size, else half the pixels floored (IPython's
    metadata; Quarto also halves a retina-mode PNG not drawn by matplotlib:
    docs/quarto-compat.md). A `png` or `svg` figure carries no size: (0, 0)."""
    if figure.get("fig-format") != "retina":
        return 0, 0
    size = retina_size(data, figure)
    if size != (0, 0):
        return size
    width, height = png_size(data)
    return width // 2, height // 2
