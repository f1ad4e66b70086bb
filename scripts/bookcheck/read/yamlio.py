"""The one YAML loader (front matter, cell options, _quarto.yml).

libyaml when present (option blocks are parsed for every cell of every
chapter); on an error the pure-Python parser runs again, for its more precise
marks (libyaml often points past the end).

A key set twice in one mapping is an error here, as it is for Quarto (js-yaml):
PyYAML alone would keep the last value without a word. Booleans are YAML 1.2's, as
Quarto's: `true`/`false` only (PyYAML's YAML 1.1 also reads `yes`, `no`, `on`, `off`).

`yaml_problem` turns an error into its location and one line that says, in
plain words, what to fix for the common mistakes (indentation, tabs, a colon
in a value, an unclosed quote or bracket, a repeated key).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

YAMLError = yaml.YAMLError
MERGE_KEY = "<<"


def _no_repeated_keys(loader, node: yaml.MappingNode, deep: bool = False):
    """construct_mapping that raises a ConstructorError on a key set twice."""
    seen: dict[str, yaml.Node] = {}
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value != MERGE_KEY:
            first = seen.setdefault(key_node.value, key_node)
            if first is not key_node:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", first.start_mark,
                    f"found duplicate key '{key_node.value}'", key_node.start_mark)
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


class _SafeLoader(yaml.SafeLoader):
    construct_mapping = _no_repeated_keys


# YAML 1.2 booleans, as Quarto's (js-yaml) reads them: `yes`, `no`, `on`, `off` are strings
_BOOL = "tag:yaml.org,2002:bool"
_SafeLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _BOOL]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_SafeLoader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))

if hasattr(yaml, "CSafeLoader"):
    class _LibyamlLoader(yaml.CSafeLoader):
        construct_mapping = _no_repeated_keys
        yaml_implicit_resolvers = _SafeLoader.yaml_implicit_resolvers
    _LOADER = _LibyamlLoader
else:
    _LOADER = _SafeLoader


def _parsed(parse):
    """parse(loader) with libyaml, again with the pure-Python parser on an error."""
    try:
        return parse(_LOADER)
    except yaml.YAMLError:
        if _LOADER is _SafeLoader:
            raise
        return parse(_SafeLoader)


def load_yaml(text: str):
    """yaml.safe_load of `text` (a repeated key is an error); raises yaml.YAMLError
    with the best marks available."""
    return _parsed(lambda loader: yaml.load(text, Loader=loader))


def compose_yaml(text: str):
    """(node tree with line marks, plain data) of `text`; raises like load_yaml."""
    return _parsed(lambda loader: (yaml.compose(text, Loader=loader), yaml.load(text, Loader=loader)))


def key_lines(node, first_line: int = 1) -> dict[tuple, int]:
    """(key,) and (key, subkey) -> line, for the two top levels of a YAML mapping node."""
    found: dict[tuple, int] = {}
    for key, value in node.value if isinstance(node, yaml.MappingNode) else []:
        found[(key.value,)] = first_line + key.start_mark.line
        for sub, _ in value.value if isinstance(value, yaml.MappingNode) else []:
            found[(key.value, sub.value)] = first_line + sub.start_mark.line
    return found


@dataclass(frozen=True)
class YamlProblem:
    """Where a YAML error is and what it is, in the lines of the file holding the text."""
    line: int | None          # 1-based; None when PyYAML gave no mark
    col: int | None           # 1-based
    reason: str               # PyYAML's words, then the fix in plain words when known


def yaml_problem(exc: yaml.YAMLError, first_line: int = 1, columns: bool = True) -> YamlProblem:
    """The YamlProblem of `exc`, raised on a text whose first line is line
    `first_line` of its file (front matter starts at line 2). columns=False when
    the text's columns are not the file's (cell options, their `#| ` cut off)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    hint = _hint(exc, problem, first_line, columns)
    reason = f"{problem} — {hint}" if hint else problem
    if mark is None:
        return YamlProblem(None, None, reason)
    return YamlProblem(first_line + mark.line, mark.column + 1 if columns else None, reason)


def _hint(exc: yaml.YAMLError, problem: str, first_line: int, columns: bool) -> str:
    """The fix for the common PyYAML errors, in plain words; "" for the others."""
    context = getattr(exc, "context", None) or ""
    start = getattr(exc, "context_mark", None)
    where = f"line {first_line + start.line}" if start else ""
    if where and columns:
        where += f", column {start.column + 1}"
    if problem.startswith("expected <block end>"):
        return ("this line is indented differently from the lines above it; items of one "
                "list or mapping must start in the same column"
                + (f" (the enclosing mapping starts at {where})" if where else ""))
    if "'\\t'" in problem:
        return "a tab: YAML indents with spaces only; replace the tab with spaces"
    if problem.startswith("mapping values are not allowed"):
        return ("a second `: ` on this line: quote a value holding a colon "
                "(`title: \"Part 1: Basics\"`), put a space after a key's colon "
                "(`title: x`, not `title:x`), or indent this key like the one above it")
    if context == "while scanning a quoted scalar":
        return f"the quote opened at {where} is never closed" if where else "a quote is never closed"
    if context.startswith("while parsing a flow"):
        bracket = "[" if "sequence" in context else "{"
        return f"the `{bracket}` opened at {where} is never closed on its line"
    if problem.startswith("could not find expected ':'"):
        return f"the key at {where} has no `:`; write `key: value`"
    if problem.startswith("found duplicate key"):
        return (f"this mapping already sets that key at {where}; Quarto rejects a "
                "repeated key: keep one")
    return ""
