"""The book's notation rule, as pure functions over text: one meaning per symbol.

The rule (tested by tests/book/test_notation.py on the real book and on small
counter-examples):

1. Every symbol the chapters' math uses is in the notation table of
   appendix-foundations.qmd (the ``symbols`` list of its ``rf-notation`` cell).
   A symbol is a Latin letter or a Greek command (``\\tau``); a subscript of
   plain letters and digits is an index (``N_i``, ``E_1``, ``E_{i-1}``,
   ``\\lambda_J``): it keeps the symbol the same, and its letters count as used; a
   ``\\mathrm`` subscript (``M_\\mathrm{node}``) makes a qualified form, which the
   table must list in the row of its base letter. ``\\mathrm{…}`` words (MTTF, FIT, units) are names,
   not symbols; their subscripts qualify the name. ``e`` is Euler's number.
2. Every letter has one row: all forms of one base letter sit in the same row.
3. A meaning names no equation or section: a symbol whose meaning depends on
   where it is used ("in @eq-x, …") has two.
"""
from __future__ import annotations

import ast
import re
from typing import NamedTuple

GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
         "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi",
         "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi",
         "Psi", "Omega", "varepsilon", "vartheta", "varphi"}
NAME_COMMANDS = {"mathrm", "text", "operatorname", "mathit", "mathbf", "textrm"}
_INDEX = re.compile(r"^[A-Za-z0-9+\- ]+$")      # n_i, S_1, S_{i-1}, \lambda_J: an index
NOT_SYMBOLS = {"e"}      # Euler's number

_FENCE = re.compile(r"^\s*(```+|~~~+)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]+?)(?<!\\)\$")


class Use(NamedTuple):
    """One symbol in a chapter's math: where, its base letter and its full (qualified) form."""

    line: int
    base: str
    form: str


def _blank_code(text: str) -> str:
    """The text with code fences and inline code replaced by spaces (offsets and lines kept)."""
    out, fence = [], None
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            out.append("\n")
        elif fence is not None:
            if line.strip().startswith(fence) and line.strip().strip("`~") == "":
                fence = None
            out.append("\n")
        else:
            out.append(_INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line))
    return "".join(out)


def math_spans(text: str) -> list[tuple[int, str]]:
    """(line, content) of every $…$ and $$…$$ outside code."""
    clean = _blank_code(text)
    spans = []
    for match in _DISPLAY.finditer(clean):
        spans.append((clean.count("\n", 0, match.start()) + 1, match.group(1)))
    rest = _DISPLAY.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), clean)
    for match in _INLINE.finditer(rest):
        spans.append((rest.count("\n", 0, match.start()) + 1, match.group(1)))
    return sorted(spans)


def _group(tex: str, pos: int) -> tuple[str, int]:
    """The argument at ``pos``: a braced group (without braces), a command, or one character."""
    while pos < len(tex) and tex[pos] == " ":
        pos += 1
    if pos >= len(tex):
        return "", pos
    if tex[pos] == "{":
        depth, start = 0, pos
        while pos < len(tex):
            depth += {"{": 1, "}": -1}.get(tex[pos], 0)
            pos += 1
            if depth == 0:
                return tex[start + 1:pos - 1], pos
        return tex[start + 1:], pos
    if tex[pos] == "\\":
        match = re.match(r"\\[A-Za-z]+", tex[pos:])
        if match:
            name = match.group(0)
            if name[1:] in NAME_COMMANDS:
                arg, end = _group(tex, pos + len(name))
                return f"{name}{{{arg}}}", end
            return name, pos + len(name)
        return tex[pos:pos + 2], pos + 2
    return tex[pos], pos + 1


def symbols_in(tex: str, indices: bool = True) -> list[tuple[str, str]]:
    """(base, form) of each symbol in one math string; index subscripts too unless ``indices`` is false."""
    found, pos = [], 0
    while pos < len(tex):
        ch = tex[pos]
        base = None
        if ch == "\\":
            match = re.match(r"\\([A-Za-z]+)", tex[pos:])
            if not match:
                pos += 2
                continue
            name, pos = match.group(1), pos + len(match.group(0))
            if name in NAME_COMMANDS:
                word, pos = _group(tex, pos)
                base = f"\\mathrm{{{word}}}" if word.isupper() else None
            elif name in GREEK:
                base = "\\" + name
            if base is None:
                continue
        elif ch.isalpha():
            base, pos = ch, pos + 1
            if base in NOT_SYMBOLS:
                continue
        else:
            pos += 1
            continue
        form = base
        if pos < len(tex) and tex[pos] == "_":
            sub, pos = _group(tex, pos + 1)
            plain = sub.strip()
            if _INDEX.match(plain):
                if indices:
                    found.extend((c, c) for c in plain if c.isalpha() and c not in NOT_SYMBOLS)
            elif not base.startswith("\\mathrm"):
                form = f"{base}_{plain}"
        found.append((base, form))
    return found


def uses(text: str) -> list[Use]:
    """Every symbol used in the math of a chapter's text."""
    return [Use(line, base, form) for line, tex in math_spans(text) for base, form in symbols_in(tex)]


def notation_rows(chapter_text: str) -> list[tuple[str, str, str, str]]:
    """The ``symbols`` list of the ``rf-notation`` cell: (symbols, meaning, unit, introduced in)."""
    cell = re.search(r"```\{python\}\n#\| label: rf-notation\n(.*?)```", chapter_text, re.S)
    if cell is None:
        raise LookupError("no rf-notation cell in the text")
    for node in ast.walk(ast.parse(cell.group(1))):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "symbols" for t in node.targets):
            return [tuple(row) for row in ast.literal_eval(node.value)]
    raise LookupError("the rf-notation cell assigns no `symbols` list")


def table_forms(rows) -> dict[str, list[int]]:
    """Each symbol form the table lists, with the rows (0-based) that list it."""
    forms: dict[str, list[int]] = {}
    for i, (cell, *_rest) in enumerate(rows):
        for _line, tex in math_spans(cell):
            for base, form in symbols_in(tex, indices=False):
                rows_of = forms.setdefault(form, [])
                if i not in rows_of:
                    rows_of.append(i)
    return forms


def problems(rows, chapters: dict[str, str]) -> list[str]:
    """Every breach of the notation rule (module docstring), each naming where."""
    out = []
    forms = table_forms(rows)
    base_rows: dict[str, set[int]] = {}
    for form, rows_of in forms.items():
        base = form.split("_", 1)[0] if not form.startswith("\\mathrm") else form.split("}_", 1)[0] + "}"
        base_rows.setdefault(base, set()).update(rows_of)
    for base, rows_of in sorted(base_rows.items()):
        if len(rows_of) > 1:
            out.append(f"notation table: {base} appears in {len(rows_of)} rows "
                       f"({', '.join(repr(rows[i][0]) for i in sorted(rows_of))}): one meaning per symbol")
    for i, (cell, meaning, *_rest) in enumerate(rows):
        if re.search(r"@(?:eq|sec|tbl|fig)-", meaning):
            out.append(f"notation table: the meaning of {cell} depends on where it is used "
                       f"({meaning!r}); give the other use a symbol of its own")
    for rel, text in chapters.items():
        for use in uses(text):
            if use.base.startswith("\\mathrm") and use.base not in forms:
                continue                          # a name the table does not define (FIT, units)
            if use.form not in forms:
                what = ("is not in the notation table" if use.base not in base_rows
                        else f"is a form of {use.base} that its row does not list"
                        if use.form != use.base else "is not in the notation table (only "
                        "qualified forms of it are)")
                out.append(f"{rel}:{use.line}: {use.form} {what}")
    return out
