"""docs/findings.md, every finding kind and its meaning, written from bookcheck.model.Kind:
`python -m booktools.kinds` after adding or changing a member (a test compares them)."""
from pathlib import Path

from bookcheck.model import Kind

DOC = Path(__file__).resolve().parents[2] / "docs" / "findings.md"


def markdown() -> str:
    rows = "".join("| `%s` | %s |\n" % (kind, kind.meaning.replace("|", r"\|")) for kind in Kind)
    return ("# Finding kinds\n\nEach `make check` (or render) finding is `path:line[:col] kind: message`; "
            "the kinds, in pipeline order.\nGenerated from `bookcheck.model.Kind` by "
            "`python -m booktools.kinds`: edit the enum, not this page.\n\n"
            f"| kind | meaning |\n|---|---|\n{rows}")


if __name__ == "__main__":
    DOC.write_text(markdown(), encoding="utf-8")
