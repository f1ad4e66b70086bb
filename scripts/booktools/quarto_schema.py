"""`python -m booktools.quarto_schema [QUARTO_SRC]`: write scripts/bookcheck/read/quarto_schema.json,
per option the YAML types and enum values Quarto's schema accepts (QUARTO_SRC/resources/
schema: cell-*.yml for the Jupyter engine; document-execute.yml with the cell options Quarto
takes under `execute:`), and the names of the shortcodes Quarto itself provides (its
directives `include`/`embed`, the handlers of its shortcode filter, the shortcodes of the
extensions it ships). CI has no Quarto sources: the result is committed, and a local-only
test checks it is what this writes."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

TARGET = Path(__file__).resolve().parents[1] / "bookcheck" / "read" / "quarto_schema.json"
DEFAULT_SRC = Path.home() / ".cache" / "real-quarto-1.7.34" / "src"
PLAIN = {"boolean": "boolean", "string": "string", "path": "string", "number": "number",
         "null": "null", "object": "object", "arrayOf": "array", "maybeArrayOf": "array"}


def accepted(schema) -> tuple[set[str], list]:
    """(the YAML types, the enum values) a schema takes; "any" when it cannot be told."""
    if not isinstance(schema, dict):
        return {PLAIN.get(schema, "any") if isinstance(schema, str) else "any"}, []
    types, values = {PLAIN[k] for k in schema if k in PLAIN} | ({"any"} if "ref" in schema else set()), []
    values += schema.get("enum", {}).get("values", []) if isinstance(schema.get("enum"), dict) \
        else schema.get("enum", [])
    for part in schema.get("anyOf", []) + ([schema["maybeArrayOf"]] if "maybeArrayOf" in schema else []):
        more, listed = accepted(part)
        types, values = types | more, values + listed
    return types, values


def distil(src: Path) -> dict:
    """{"cell": name -> {"types", "enum"?}, "execute": ...}, names sorted."""
    groups: dict[str, dict] = {"cell": {}, "execute": {}}
    folder = Path(src) / "resources" / "schema"
    for path in sorted(folder.glob("cell-*.yml")) + [folder / "document-execute.yml"]:
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            tags = entry.get("tags") or {}
            if "jupyter" not in (tags.get("engine") or "jupyter"):
                continue                          # knitr's: not validated for Python cells
            types, values = accepted(entry.get("schema"))
            spec = {"types": sorted(types), **({"enum": values} if values else {})}
            if path.name.startswith("cell-"):
                groups["cell"][entry["name"]] = spec
            if path.name.startswith("document") or "document-execute" in tags.get("contexts", []):
                groups["execute"][entry["name"]] = spec
    return {group: dict(sorted(options.items())) for group, options in groups.items()}


def shortcodes(src: Path) -> dict:
    """name -> {"from": where Quarto defines it}, for every shortcode Quarto 1.7 ships."""
    src, found = Path(src), {}
    for path in sorted((src / "core" / "handlers").glob("*.ts")):
        text = path.read_text(encoding="utf-8")
        if 'type: "directive"' in text:
            found.update({name: {"from": path.relative_to(src).as_posix()}
                          for name in re.findall(r'languageName: "(\w+)"', text)})
    handlers = src / "resources" / "filters" / "quarto-pre" / "shortcodes-handlers.lua"
    found.update({name: {"from": handlers.relative_to(src).as_posix()} for name in
                  re.findall(r"handlers\['(\w+)'\]", handlers.read_text(encoding="utf-8"))})
    for ext in sorted((src / "resources" / "extensions" / "quarto").glob("*/_extension.yml")):
        for lua in (yaml.safe_load(ext.read_text(encoding="utf-8")).get("contributes") or {}).get(
                "shortcodes") or []:
            text = (ext.parent / lua).read_text(encoding="utf-8")
            found.update({name: {"from": (ext.parent / lua).relative_to(src).as_posix()} for name in
                          re.findall(r"""^\s*\[["'](\w+)["']\]\s*=\s*function""", text, re.M)})
    return dict(sorted(found.items()))


def render(src: Path) -> str:
    """The JSON text, one option a line."""
    groups = {**distil(src), "shortcodes": shortcodes(src)}
    return "{" + ",\n".join(f'"{group}": {{\n' + ",\n".join(
        f"  {json.dumps(name)}: {json.dumps(spec)}" for name, spec in options.items()) + "\n}"
        for group, options in groups.items()) + "}\n"


if __name__ == "__main__":
    TARGET.write_text(render(Path(sys.argv[1]) if sys.argv[1:] else DEFAULT_SRC), encoding="utf-8")
