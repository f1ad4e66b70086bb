"""What Quarto 1.7 inserts for an inline `{python} expr` value, and when that
mangles the value. Pure functions over the value's MIME bundle; no kernel.

Quarto's rule (conformance cases 01, 02):

* the first of text/html, text/markdown, text/plain the value offers;
* text/html goes in as raw inline HTML: `` `<html>`{=html} ``;
* text/markdown goes in verbatim (an IPython `Markdown(...)`);
* text/plain goes in verbatim, except a quoted repr (a `str`): the quotes
  are dropped, every `\\` is doubled, then each of ``\\ ` * _ { } [ ] ( ) > # + , - . !``
  gets a backslash, so the reader sees the repr's characters literally;
* an empty result (`""`) is left as inline code, unevaluated-looking.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

#: what Quarto 1.7.34 does at an inline expression that raises (a SyntaxError included):
#: `SyntaxError: invalid syntax (<string>, line 1)`, the render of the whole book stops
QUARTO_ABORTS = "Quarto stops the whole render at this error and writes no page"
MD_PUNCT = set("\\`*_{}[]()>#+,-.!")
MARKUP = (
    (re.compile(r"\\"), "a backslash (LaTeX?)"),
    (re.compile(r"\$[^$]+\$"), "$…$ math"),
    (re.compile(r"(\*\*?|__?)\S(?:.*?\S)?\1"), "emphasis markup"),
    (re.compile(r"\[[^\]]*\]\([^)]*\)"), "a Markdown link"),
    (re.compile(r"`"), "a backtick"),
    (re.compile(r"<[A-Za-z/][^>]*>"), "an HTML tag"),
    (re.compile(r"\n"), "a line break"),
)


@dataclass(frozen=True)
class Inserted:
    """kind: html | markdown | text | code (left as the inline code span)."""
    kind: str
    markdown: str       # what stands in the page's Markdown ("" for code: keep the span)


def markdown_escape(text: str) -> str:
    """Quarto's escape of a str repr: `\\` doubled, then Markdown punctuation backslashed."""
    doubled = text.replace("\\", "\\\\")
    return "".join("\\" + ch if ch in MD_PUNCT else ch for ch in doubled)


def unquote(plain: str) -> str | None:
    """The body of a quoted str repr ('…' or "…"), None when `plain` is not one."""
    if len(plain) >= 2 and plain[0] == plain[-1] and plain[0] in "'\"":
        return plain[1:-1]
    return None


def inserted(bundle: dict) -> Inserted:
    """What Quarto puts in the Markdown for a value with this MIME bundle."""
    if "text/html" in bundle:
        return Inserted("html", f"`{bundle['text/html']}`{{=html}}")
    if "text/markdown" in bundle:
        return Inserted("markdown", str(bundle["text/markdown"]))
    plain = str(bundle.get("text/plain", ""))
    body = unquote(plain)
    if body is None:
        return Inserted("text", plain) if plain else Inserted("code", "")
    if not body:
        return Inserted("code", "")
    return Inserted("text", markdown_escape(body))


def str_value(plain: str) -> str | None:
    """The str a quoted repr stands for (None when it is not a str repr)."""
    if unquote(plain) is None:
        return None
    try:
        value = ast.literal_eval(plain)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


REPR = re.compile(r"^<.*>$|\bobject at 0x[0-9a-f]+", re.S)


def mangled(bundle: dict) -> str | None:
    """Why Quarto would show this value other than meant (naming the fix), or None.

    One text per value: a value shown as HTML (a pint Quantity: `_repr_html_`) reaches
    the HTML page only (a PDF drops raw HTML), and a value whose only text is its repr
    (`<Quantity(…)>`, `<__main__.A at 0x…>`) is no text for a reader: both are findings
    naming `fmt(...)`.
    """
    plain = str(bundle.get("text/plain", ""))
    if "text/html" in bundle:
        html = str(bundle["text/html"])
        if "\n" in html:
            return ("its HTML spans several lines (a DataFrame?); Quarto shows a stray backtick "
                    "and `{=html}`: insert text, or a table from a cell")
        return (f"its display is HTML ({html[:40]!r}; a pint Quantity?): the HTML page would show "
                f"that, the PDF nothing and the ledger {plain[:40]!r}: format it as text with "
                "fmt(...) (fmt(value, unit, precision=...))")
    if "text/markdown" in bundle:
        return None
    if REPR.search(plain) and str_value(plain) is None:
        return (f"it has no text but its repr ({plain[:40]!r}): format it with fmt(...) "
                "(fmt(value, unit, precision=...)) or return a str")
    value = str_value(plain)
    if value is None:
        return None
    if value == "":
        return "it is an empty string; Quarto leaves the inline code in the page"
    for pattern, what in MARKUP:
        if pattern.search(value):
            return (f"it is a str holding {what}; Quarto escapes a str (backslashes doubled, "
                    f"Markdown punctuation escaped) so readers see raw markup: "
                    f"return Markdown(...) (or use md_math for LaTeX)")
    return None


def left_as_code(inline: str) -> str:
    """Why Quarto leaves the inline code span `inline` (`` `{python} …` ``, not substituted)
    in the page, and the fix: a finding of the run stage, made once it evaluated (an
    expression that raises is an inline-error instead: Quarto aborts the render there)."""
    body = inline[len("`{python}"):-1]
    why = ("the expression spans lines" if "\n" in body.strip() else
           "a space before the closing backtick" if body != body.rstrip() else
           "more than one space or tab after `{python}`")
    return (f"Quarto evaluates this inline expression but leaves its code in the page ({why}): "
            "write `{python} expr` with exactly one space, on one line")
