"""Write scripts/read/quarto_schema.json: what Quarto's schema accepts for each option.

    python -m scripts.tools.quarto_schema [QUARTO_SRC]

Reads the real Quarto's option schema (QUARTO_SRC/resources/schema: cell-*.yml, the
Jupyter engine's cell options, and document-execute.yml with every cell option
Quarto also takes under `execute:`) and keeps, per option, the YAML types it accepts
and its enum values: all read/options.py needs to refuse a value as Quarto does.
CI has no Quarto sources, so the result is committed; a local-only test checks that
it is what this generator writes.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "scripts" / "read" / "quarto_schema.json"
DEFAULT_SRC = Path.home() / ".cache" / "real-quarto-1.7.34" / "src"
ENGINE = "jupyter"
PLAIN = {"boolean": "boolean", "string": "string", "path": "string", "number": "number",
         "null": "null", "object": "object"}


def accepted(schema) -> tuple[set[str], list]:
    """(the YAML types, the enum values) a schema accepts; "any" when it cannot be told."""
    if isinstance(schema, str):
        return {PLAIN.get(schema, "any")}, []
    if not isinstance(schema, dict):
        return {"any"}, []
    types, values = set(), []
    for key, sub in schema.items():
        if key == "anyOf":
            for part in sub:
                more, listed = accepted(part)
                types |= more
                values += listed
        elif key == "enum":
            values += sub.get("values", []) if isinstance(sub, dict) else sub
        elif key in ("arrayOf", "maybeArrayOf"):
            types.add("array")
            if key == "maybeArrayOf":
                more, listed = accepted(sub)
                types |= more
                values += listed
        elif key in PLAIN:
            types.add(PLAIN[key])
        elif key == "ref":
            types.add("any")
    return types, values


def _for_engine(entry: dict) -> bool:
    engine = (entry.get("tags") or {}).get("engine")
    return engine is None or ENGINE in (engine if isinstance(engine, list) else [engine])


def _spec(entry: dict) -> dict:
    types, values = accepted(entry.get("schema"))
    return {"types": sorted(types), "enum": values} if values else {"types": sorted(types)}


def distil(src: Path) -> dict:
    """{"cell": name -> spec, "execute": name -> spec}, names sorted."""
    folder = Path(src) / "resources" / "schema"
    cell, execute = {}, {}
    for path in sorted(folder.glob("cell-*.yml")) + [folder / "document-execute.yml"]:
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if not isinstance(entry, dict) or "name" not in entry or not _for_engine(entry):
                continue
            contexts = (entry.get("tags") or {}).get("contexts") or []
            if path.name.startswith("cell-"):
                cell[entry["name"]] = _spec(entry)
            if path.name == "document-execute.yml" or "document-execute" in contexts:
                execute[entry["name"]] = _spec(entry)
    return {"source": "quarto-cli 1.7.34 src/resources/schema (scripts/tools/quarto_schema.py)",
            "cell": dict(sorted(cell.items())), "execute": dict(sorted(execute.items()))}


def render(src: Path) -> str:
    """The JSON text, one option a line."""
    data = distil(src)
    groups = [f'"{group}": {{\n' + ",\n".join(f"  {json.dumps(name)}: {json.dumps(spec)}"
                                                for name, spec in data[group].items()) + "\n}"
              for group in ("cell", "execute")]
    return "{" + f'"source": {json.dumps(data["source"])},\n' + ",\n".join(groups) + "}\n"


def main(argv: list[str]) -> int:
    src = Path(argv[0]) if argv else DEFAULT_SRC
    TARGET.write_text(render(src), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
