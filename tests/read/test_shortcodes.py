"""Shortcodes Quarto 1.7 cannot resolve are `shortcode` findings at path:line:col
(read/shortcodes.py): an unknown name (Quarto warns and publishes it as written), a `var`
key `_variables.yml` lacks (Quarto prints `?var:key`). The names Quarto ships come from
its sources (quarto_schema.json); a project's extensions add theirs."""
from __future__ import annotations

from bookcheck.model import Kind
from bookcheck.read.book import read_book
from tests.bookkit import write_book

CHAPTER = """\
# One

{{< meta title >}} {{< var version >}} {{< kbd Ctrl-C >}} {{< video x.mp4 >}}

An unknown {{< metta title >}} and a missing {{< var nope >}}.

Escaped {{{< metta >}}} and <!-- {{< commented >}} -->.

```
{{< var nope.deeper >}}
```

{{< mine x >}}
"""


def findings(root):
    book = read_book(root)
    return [(f.path, f.line, f.col, f.kind, f.reason.split(":")[0])
            for p in book.parsed.values() for f in p.findings]


def test_unknown_shortcodes_and_var_keys_at_their_lines(tmp_path):
    root = write_book(tmp_path, {"ch.qmd": CHAPTER})
    (root / "_variables.yml").write_text("version: 1.0\n")
    assert findings(root) == [
        ("ch.qmd", 5, 12, Kind.SHORTCODE, "`{{< metta title >}}`"),
        ("ch.qmd", 5, 46, Kind.SHORTCODE, "`{{< var nope >}}`"),
        ("ch.qmd", 10, 1, Kind.SHORTCODE, "`{{< var nope.deeper >}}`"),
        ("ch.qmd", 13, 1, Kind.SHORTCODE, "`{{< mine x >}}`")]


def test_a_project_extension_provides_its_shortcodes(tmp_path):
    root = write_book(tmp_path, {"ch.qmd": "# One\n\n{{< mine x >}} and {{< theirs >}}\n"})
    ext = root / "_extensions" / "me" / "mine"
    ext.mkdir(parents=True)
    (ext / "_extension.yml").write_text("title: Mine\ncontributes:\n  shortcodes:\n    - mine.lua\n")
    (ext / "mine.lua").write_text('return {\n  ["mine"] = function(args) return "x" end,\n}\n')
    assert findings(root) == [("ch.qmd", 3, 20, Kind.SHORTCODE, "`{{< theirs >}}`")]


def test_a_malformed_variables_file_is_a_yaml_finding(tmp_path):
    root = write_book(tmp_path, {"ch.qmd": "# One\n\n{{< var a >}}\n"})
    (root / "_variables.yml").write_text("a: [1\n")
    book = read_book(root)
    assert [(f.path, f.kind) for f in book.findings if f.path == "_variables.yml"] == [
        ("_variables.yml", Kind.YAML)]
