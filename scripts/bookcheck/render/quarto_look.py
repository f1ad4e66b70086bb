"""Quarto's pages get the built-in pages' math font and dark scheme.

The handoff passes `quarto render --metadata-file <file>` (quarto-cli 1.7.34
src/command/render/flags.ts: the file's mapping is merged over every document's
metadata with Quarto's mergeConfigs, the same as a profile), so `_quarto.yml`
stays as the author wrote it. The file sets `format: html: theme:`:

- no theme of the author's: `{light: [default, math.scss], dark: [darkly,
  dark.scss, math.scss]}` and `respect-user-color-scheme: true`: the page
  follows the reader's `prefers-color-scheme` until Quarto's toggle chooses;
  dark.scss gives the built-in dark colours (book.css);
- one light theme (a name or a file): the same, with it as the light theme;
- a dark Bootstrap theme alone (darkly, cyborg, …), or a list of themes: left
  as the author set it, math.scss appended (Quarto concatenates lists);
- `{light, dark}` already: math.scss appended to each, the scheme left alone.

math.scss draws `<math>` in Noto Sans Math, the font built into the stylesheet
as a data: URL: Quarto resolves a theme's other url()s against the project
folder and copies them beside the compiled stylesheet (quarto-cli 1.7.34
src/command/render/pandoc-html.ts, core/css.ts kCssUrlRegex), and fails when the
file is not there; data: URLs it leaves alone. The font (270 KB, 360 KB in
base64) is in the light and the dark stylesheet, each loaded once per site.
copy_licence puts the font's OFL licence under `<output>/fonts/`, where the
built-in pages ship it (the OFL asks the licence to travel with the font). An author's `css:` is not touched.
"""
from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

QUARTO_ASSETS = Path(__file__).parent / "assets" / "quarto"
MATH_SCSS = QUARTO_ASSETS / "math.scss"          # a template: FONT_PLACEHOLDER
DARK_SCSS = QUARTO_ASSETS / "dark.scss"
FONT_PLACEHOLDER = "@MATH_FONT_URL@"
DARK_BASE = "darkly"                 # Bootstrap theme under dark.scss's colours
LIGHT_BASE = "default"               # Quarto's theme when none is named

# Bootswatch themes that are dark on their own (Quarto 1.7's resources/formats/html/bootstrap/themes).
DARK_THEMES = frozenset({"darkly", "cyborg", "slate", "solar", "superhero", "vapor"})


def _theme_file(theme: str, root: Path) -> str:
    """A theme as Quarto resolves it from the metadata file: a built-in name as
    it is, a file (`custom.scss`, project-relative in `_quarto.yml`) absolute,
    since Quarto reads a relative one against each document's folder."""
    return str((root / theme).resolve()) if theme.endswith((".scss", ".css")) else theme


def author_theme(metadata: dict):
    """The author's `theme:` for HTML (`format: html: theme:` over the top level), or None."""
    formats = metadata.get("format")                     # `format: html` names it only
    html = formats.get("html") if isinstance(formats, dict) else None
    html = html if isinstance(html, dict) else {}
    return html.get("theme", metadata.get("theme"))


def html_options(metadata: dict, root: Path, math: str) -> dict:
    """What the metadata file sets under `format: html:` for this configuration;
    `math`: the path of the written math.scss (write_math_scss)."""
    theme = author_theme(metadata)
    if isinstance(theme, dict):                          # the author's own light and dark
        return {"theme": {key: [math] for key in ("light", "dark") if key in theme}}
    if isinstance(theme, list) or (isinstance(theme, str) and theme in DARK_THEMES):
        return {"theme": [math]}                         # appended by Quarto's merge
    light = _theme_file(str(theme), root) if theme else LIGHT_BASE
    return {"theme": {"light": [light, math], "dark": [DARK_BASE, str(DARK_SCSS), math]},
            "respect-user-color-scheme": True}


def write_math_scss(path: Path) -> Path:
    """math.scss with the math font as a data: URL."""
    from .html import FONTS, MATH_FONT
    data = base64.b64encode((FONTS / MATH_FONT).read_bytes()).decode("ascii")
    text = MATH_SCSS.read_text(encoding="utf-8")
    path.write_text(text.replace(FONT_PLACEHOLDER, f"data:font/woff2;base64,{data}"),
                    encoding="utf-8")
    return path


def write_metadata_file(metadata: dict, root: Path, work: Path) -> Path:
    """`work`/look.json, the `--metadata-file` for this project's HTML render (JSON,
    which is YAML), and the math.scss it names; both live as long as `work`."""
    math = write_math_scss(work / "math.scss")
    path = work / "look.json"
    path.write_text(json.dumps({"format": {"html": html_options(metadata, root, str(math))}},
                               indent=2), encoding="utf-8")
    return path


LICENCE = "OFL.txt"


def copy_licence(dest: Path) -> None:
    """The math font's licence into `dest/fonts/` (the font is in the stylesheets)."""
    from .html import FONTS
    (dest / "fonts").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FONTS / LICENCE, dest / "fonts" / LICENCE)
