"""Document and cell options, resolved and validated once, as Quarto 1.7 does.

Precedence, lowest first: Quarto's defaults; the project (`_quarto.yml`, its
`metadata-files`, the active profiles' `_quarto-<name>.yml`, `_quarto.yml.local`:
merged by read/profiles.py); the `_metadata.yml` files of the chapter's folders; the
front matter; the cell's `#|` lines. Each `execute:` and cell option is checked
against Quarto's own schema (quarto_schema.json, by scripts/booktools/quarto_schema.py): a
value Quarto refuses (`include: "false"`: include is a boolean) is a `yaml` finding at
its line and is dropped, so every stage sees the value below it. This checker's own
`verify:` options are checked the same way against verify_schema.json, which lists
every one: an unknown name is a finding too (docs/verify-settings.md).

What the later stages read is frozen here (docs/architecture.md, "Interfaces"):
`cell.options` holds only what somebody set, so it is part of the chapter's cache
key; after validation a boolean option is a real boolean (`opts["include"] is False`).
The stages read `cell.resolved` (read/cell_options.py: typed, Quarto's defaults applied).
"""
from __future__ import annotations

import difflib
import json
from pathlib import Path
from types import MappingProxyType

from bookcheck.model import Finding, Kind, ParsedChapter
from bookcheck.read import CONFIG
from bookcheck.read.cell_options import cell_options
from bookcheck.read.figures import document_figure_options
from bookcheck.read.profiles import merge_configs


def _schema(name: str) -> dict:
    """A schema file beside this module: group -> option -> {"types", "enum"}."""
    return json.loads(Path(__file__).with_name(name).read_text(encoding="utf-8"))


# This checker's own groups (`verify:`, which Quarto ignores), each name listed: another is
# refused. Quarto's groups list what it checks; it takes names they do not list.
OWN_SCHEMA = _schema("verify_schema.json")
SCHEMA = {**_schema("quarto_schema.json"), **OWN_SCHEMA}
# Execute options that cascade to cells (project -> front matter -> cell).
CELL_DEFAULTS = ("eval", "echo", "output", "warning", "error", "include")
DECLARED_INPUTS = "cache-inputs"    # front matter (ours, Quarto ignores it): what an opaque chapter reads
_TYPES = ((bool, "boolean"), (str, "string"), ((int, float), "number"), (type(None), "null"),
          (list, "array"), (dict, "object"))
_WORDS = {"boolean": ["`true`", "`false`"], "string": ["a string"], "number": ["a number"],
          "null": ["empty"], "array": ["a list"], "object": ["a mapping"]}


def number_sections(layer: dict, name: str, default: bool) -> bool:
    """`number-sections` of a layer (`_quarto.yml`, or the front matter over the folders'
    `_metadata.yml`): its `format: <name>:` value, else its top-level one, else `default`."""
    formats = layer.get("format")
    own = formats.get(name) if isinstance(formats, dict) else None
    for value in ((own or {}).get("number-sections") if isinstance(own, dict) else None,
                  layer.get("number-sections")):
        if isinstance(value, bool):
            return value
    return default


def accepts(spec: dict, value) -> bool:
    """Whether Quarto's schema entry `spec` ({"types", "enum"}) takes `value`."""
    kind = next((name for cls, name in _TYPES if isinstance(value, cls)), "string")
    if "any" in spec["types"] or kind in spec["types"]:
        return True
    return any(value == allowed and type(value) is type(allowed) for allowed in spec.get("enum", []))


def describe(spec: dict) -> str:
    """What `spec` takes, in words: "`true` or `false`", "`true`, `false` or `fenced`"."""
    words = [w for t in spec["types"] for w in _WORDS.get(t, [t])] + [f"`{v}`" for v in spec.get("enum", [])]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


def check(options: dict, group: str, where) -> tuple[dict, list[Finding]]:
    """(the options schema `group` ("cell", "execute", "verify") takes, a finding for each
    it refuses); `where(name)` is the (file, line) option `name` is written at."""
    kept, findings = {}, []
    own = group in OWN_SCHEMA
    for name, value in options.items():
        spec = SCHEMA[group].get(name)
        if spec is None and own:
            close = difflib.get_close_matches(str(name), list(SCHEMA[group]), n=1, cutoff=0.7)
            findings.append(Finding(*where(name), Kind.YAML, f"`{group}:` has no option `{name}`"
                                    + (f"; did you mean `{close[0]}`?" if close else "")
                                    + f" (it takes {', '.join(SCHEMA[group])}; docs/verify-settings.md)"))
            continue
        if spec is None or accepts(spec, value):
            kept[name] = value
            continue
        hint = (f": write `{name}: {value.lower()}`, without quotes" if "boolean" in spec["types"]
                and isinstance(value, str) and value.lower() in ("true", "false") else "")
        findings.append(Finding(*where(name), Kind.YAML,
                                f"option `{name}` has value {json.dumps(value, default=str)}, which "
                                f"{'bookcheck' if own else 'Quarto'} refuses: it must be "
                                f"{describe(spec)}{hint}"))
    return kept, findings


def resolve(project, parsed: ParsedChapter, directory: tuple[dict, list[str]] = ({}, [])) -> None:
    """Quarto's cascade and schema over one chapter, in place. project: read/project.py's
    Project (its `execute:` already checked); directory: the `_metadata.yml` mapping over
    the chapter and its files (read/profiles.py: directory_metadata)."""
    (folder, files), lines = directory, parsed.front_lines
    front = merge_configs(folder, parsed.front_matter)

    def where(*key) -> tuple[str, int]:
        return (parsed.path, lines[key]) if key in lines else (files[-1] if files else parsed.path, 0)
    execute = front.get("execute") if isinstance(front.get("execute"), dict) else {}
    execute, found = check(execute, "execute", lambda name: where("execute", name))
    merged = {**project.execute, **execute}
    parsed.execute = merged.get("enabled", True) is not False
    if parsed.path.endswith(".ipynb"):    # Quarto runs a notebook only when told to
        parsed.execute = merged.get("ipynb", merged.get("enabled")) is True
    defaults = {k: v for k, v in merged.items() if k in CELL_DEFAULTS}
    for cell in parsed.cells:
        own, problems = check(cell.options, "cell", lambda name: (
            parsed.path, cell.option_lines.get(name, cell.first_code_line)))
        found += problems
        # no kernel (`enabled: false`): cells are shown, never run
        cell.options = MappingProxyType({**defaults, **own, **({} if parsed.execute else {"eval": False})})
        cell.resolved = cell_options(cell.options)      # what the later stages read
    parsed.findings += [parsed.relocate(f) for f in found]
    parsed.exec_dir = project.exec_dir(parsed.path)
    parsed.figure = document_figure_options(project.figure, front, project.figure_format)
    parsed.number_sections = number_sections(front, project.figure_format, project.number_sections)
    parsed.freeze = merged.get("freeze", False)
    parsed.search = front.get("search") is not False
    inputs = front.get(DECLARED_INPUTS)
    parsed.cache_inputs = [inputs] if isinstance(inputs, str) else list(map(str, inputs)) \
        if isinstance(inputs, list) else []
    if "jupyter" in front:
        parsed.kernel = (front["jupyter"], *where("jupyter"))
    elif project.jupyter is not None:
        parsed.kernel = (project.jupyter, CONFIG, project.jupyter_line)
