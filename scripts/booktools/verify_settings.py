"""docs/verify-settings.md's table of the `verify:` keys, written from
scripts/bookcheck/read/verify_schema.json between its two markers (the rest of the page is
prose): `python -m booktools.verify_settings` after changing the schema (a test compares them)."""
from pathlib import Path

from bookcheck.read.options import OWN_SCHEMA, describe

DOC = Path(__file__).resolve().parents[2] / "docs" / "verify-settings.md"
BEGIN = ("<!-- generated from scripts/bookcheck/read/verify_schema.json by "
         "`python -m booktools.verify_settings`: edit the schema, not this table -->\n")
END = "<!-- end of the generated table -->\n"


def table() -> str:
    """The keys of `verify:`, what each takes and what it does, in the schema's order."""
    rows = "".join(f"| `{name}` | {describe(spec)} | {spec['description']} |\n"
                   for name, spec in OWN_SCHEMA["verify"].items())
    return f"| key | value | what it does |\n|---|---|---|\n{rows}"


def updated(text: str) -> str:
    """`text` (the page) with the table between the markers written anew."""
    head, rest = text.split(BEGIN, 1)
    return head + BEGIN + table() + END + rest.split(END, 1)[1]


if __name__ == "__main__":
    DOC.write_text(updated(DOC.read_text(encoding="utf-8")), encoding="utf-8")
