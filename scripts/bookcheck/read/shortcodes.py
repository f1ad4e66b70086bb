"""Quarto's shortcodes (`{{< name args >}}`) as Quarto 1.7 resolves them, checked before rendering.

Quarto knows the shortcodes it ships (their names are distilled from its sources into
quarto_schema.json: `include`, `embed`, `meta`, `var`, `env`, `pagebreak`, `kbd`,
`video`, …) and those of the project's extensions (`_extensions/**/_extension.yml`,
`contributes: shortcodes:`) and of `shortcodes:` files. Anything else, and a `var`
key `_variables.yml` does not have, Quarto leaves as written or prints as `?var:key`,
with a warning, and publishes: here each is a `shortcode` finding at its line. Quarto
resolves shortcodes in code blocks and inline code too, so those are checked as well.
`{{{< name >}}}` is Quarto's escape (shown as written, never resolved).

`find(text)` is the one reading of the syntax (the built-in renderer's
render/shortcodes.py marks the same spans for filters/shortcodes.lua).
"""
from __future__ import annotations

import re
from pathlib import Path

from bookcheck.model import Finding, Kind, ParsedChapter
from bookcheck.read.options import SCHEMA
from bookcheck.read.profiles import read_mapping
from bookcheck.read.yamlio import load_yaml

SHORTCODE = re.compile(r"(?<!\{)\{\{<\s*([\w-]+)((?:[^>\n]|>(?!\}\}))*)>\}\}(?!\})")
VARIABLES = "_variables.yml"
LUA_NAMES = re.compile(r"""^\s*\[["']([\w-]+)["']\]\s*=\s*function|^function\s+([\w-]+)\s*\(""", re.M)


def find(text: str):
    """Each unescaped shortcode of `text`: (match, name, the arguments as written)."""
    for m in SHORTCODE.finditer(text):
        yield m, m.group(1), m.group(2).strip()


def variables(root: Path) -> tuple[dict, list[Finding]]:
    """`_variables.yml` of the project ({} without one), and a finding if it is malformed."""
    if not (Path(root) / VARIABLES).is_file():
        return {}, []
    _, data, problem = read_mapping(root, VARIABLES, empty={})
    return data or {}, [problem] if problem else []


def provided(root: Path, config: dict) -> list[str]:
    """Names of the shortcodes the project adds: its extensions' and its `shortcodes:` files'."""
    root = Path(root)
    listed = config.get("shortcodes") if isinstance(config, dict) else None
    paths = [root / str(f) for f in (listed if isinstance(listed, list) else [listed] if listed else [])]
    for ext in sorted(root.glob("_extensions/**/_extension.y*ml")):
        try:
            meta = load_yaml(ext.read_text(encoding="utf-8"))
        except Exception:  # noqa: BLE001 (an unreadable extension provides nothing)
            continue
        contributes = meta.get("contributes") if isinstance(meta, dict) else None
        files = contributes.get("shortcodes") if isinstance(contributes, dict) else None
        paths += [ext.parent / str(f) for f in (files if isinstance(files, list) else [])]
    names = set()
    for path in paths:
        try:
            names.update(a or b for a, b in LUA_NAMES.findall(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return sorted(names)


def lookup(mapping, key: str):
    """`a.b.c` in nested mappings, or None."""
    for part in key.split("."):
        if not isinstance(mapping, dict) or part not in mapping:
            return None
        mapping = mapping[part]
    return mapping


def _first_arg(args: str) -> str:
    words = args.split()
    return words[0].strip("\"'") if words else ""


def check(project, parsed: ParsedChapter) -> list[Finding]:
    """A `shortcode` finding for each shortcode of the chapter's text (cells blanked)
    that Quarto cannot resolve: an unknown name, a `var` key `_variables.yml` lacks."""
    known = set(SCHEMA.get("shortcodes", {})) | set(project.shortcodes)
    text = re.sub(r"<!--.*?-->", lambda m: re.sub(r"[^\n]", " ", m.group(0)), parsed.authored, flags=re.S)
    findings = []
    for m, name, args in find(text):
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - text.rfind("\n", 0, m.start())
        if name not in known:
            reason = (f"`{m.group(0)}`: Quarto 1.7 has no shortcode `{name}` (it warns and "
                      f"publishes the text as written): fix the name, or install the extension "
                      f"that provides it under `_extensions/`")
        elif name == "var" and lookup(project.variables, key := _first_arg(args)) is None:
            reason = (f"`{m.group(0)}`: `{VARIABLES}` has no `{key}` (Quarto prints `?var:{key}` "
                      f"and publishes): add it to `{VARIABLES}` or fix the key")
        else:
            continue
        findings.append(parsed.relocate(Finding(parsed.path, line, Kind.SHORTCODE, reason, col=col)))
    return findings
