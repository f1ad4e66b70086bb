"""The Quarto path, exercised with a stand-in `quarto` executable on PATH.

The stand-in records its arguments and writes what `quarto render` would
into --output-dir (or fails on demand), so the tests check the command line
and the atomic move, not Quarto itself. Its pages are placeholders, so these
renders skip the rendered-page audit (`audited=False`); the audit of real Quarto's
pages is tested in tests/quarto/test_real_book.py.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from bookcheck.render import RenderError, render_book
from bookcheck.render.quarto import quarto_format

from .conftest import quarto_stub_on_path

STUB = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "${{QUARTO_STUB_VERSION:-1.9.12}}"; exit 0; fi
echo "$@" > "{log}"
if [ -n "$QUARTO_STUB_FAIL" ]; then
  echo "ERROR: Stub failure on purpose" >&2
  exit 1
fi
out=""
to=""
while [ $# -gt 0 ]; do
  case "$1" in
    --output-dir) out="$2"; shift ;;
    --to) to="$2"; shift ;;
  esac
  shift
done
mkdir -p "$out"
if [ "$to" = "html" ]; then echo "<html>quarto</html>" > "$out/index.html"; fi
if [ "$to" = "typst" ] || [ "$to" = "pdf" ]; then echo "%PDF-1.7 stub" > "$out/Mini-Book.pdf"; fi
"""


@pytest.fixture()
def stub_quarto(tmp_path, monkeypatch):
    log = tmp_path / "quarto-args.txt"
    quarto_stub_on_path(tmp_path, STUB.format(log=log), monkeypatch)
    return log


def test_quarto_used_when_on_path(stub_quarto, fresh_minibook):
    root, result = fresh_minibook
    index = render_book(result, "html", audited=False)
    assert index == root / "_book" / "index.html"
    assert index.read_text().strip() == "<html>quarto</html>"
    args = stub_quarto.read_text().split()
    assert args[:3] == ["render", "--to", "html"]
    assert args[3] == "--output-dir" and Path(args[4]).parent == root
    pdf = render_book(result, "pdf", audited=False)
    assert stub_quarto.read_text().split()[2] == "typst"      # the fixture defines typst only
    assert pdf == root / "_book" / "Mini-Book.pdf" and index.is_file()


def test_quarto_failure_keeps_previous_book(stub_quarto, fresh_minibook, monkeypatch):
    root, result = fresh_minibook
    render_book(result, "html", audited=False)
    monkeypatch.setenv("QUARTO_STUB_FAIL", "1")
    with pytest.raises(RenderError, match="quarto render --to html failed: ERROR: Stub failure"):
        render_book(result, "html", audited=False)
    assert (root / "_book" / "index.html").read_text().strip() == "<html>quarto</html>"
    assert [p.name for p in root.iterdir() if p.name.startswith("_book.")] == []


def test_a_hung_quarto_is_stopped_at_the_timeout_and_keeps_previous_book(
        stub_quarto, fresh_minibook, tmp_path, monkeypatch):
    from bookcheck.render import quarto
    root, result = fresh_minibook
    render_book(result, "html", audited=False)
    quarto_stub_on_path(tmp_path, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 1.9.12; exit 0; fi\n"
                        f"sleep 600 &\necho $! > {tmp_path}/child\nwait\n", monkeypatch)   # Quarto's pandoc...
    monkeypatch.setattr(quarto, "RENDER_TIMEOUT_S", 0.5)
    with pytest.raises(RenderError, match=r"quarto render --to html did not finish within 0.5 s"):
        render_book(result, "html", audited=False)
    assert (root / "_book" / "index.html").read_text().strip() == "<html>quarto</html>"
    assert [p.name for p in root.iterdir() if p.name.startswith("_book.")] == []
    assert not _lingers(int((tmp_path / "child").read_text()))     # Quarto's children killed too


def _lingers(pid: int, within_s: float = 10.0) -> bool:
    """True if `pid` still runs (not a zombie) after `within_s` (its SIGKILL takes effect)."""
    import time
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return False
        except FileNotFoundError:
            return False
        time.sleep(0.05)
    return True


def test_builtin_path_can_be_forced(stub_quarto, fresh_minibook):
    root, result = fresh_minibook
    render_book(result, "html", use_quarto=False)
    assert not stub_quarto.exists()
    assert "Mini Book" in (root / "_book" / "index.html").read_text()


def test_quarto_format_choice():
    assert quarto_format("pdf", ["typst"]) == "typst"
    assert quarto_format("pdf", ["pdf", "typst"]) == "pdf"
    assert quarto_format("pdf", []) == "pdf"
    assert quarto_format("html", ["typst"]) == "html"


@pytest.mark.parametrize("version", ["1.7.34", "1.8.25"])
def test_old_quarto_makes_pdf_on_the_builtin_path(stub_quarto, fresh_minibook, monkeypatch,
                                                  capsys, version):
    """Quarto < 1.9 does not render `format: typst` for a book: one line, built-in PDF."""
    root, result = fresh_minibook
    monkeypatch.setenv("QUARTO_STUB_VERSION", version)
    pdf = render_book(result, "pdf")
    assert not stub_quarto.exists()                       # quarto render never ran
    assert pdf.read_bytes().startswith(b"%PDF") and b"stub" not in pdf.read_bytes()
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert lines == [f"quarto {version} is older than 1.9, which a book's PDF needs: "
                     "using the built-in PDF path"]


def test_new_quarto_renders_the_pdf_and_old_one_still_renders_html(stub_quarto, fresh_minibook,
                                                                   monkeypatch):
    root, result = fresh_minibook
    monkeypatch.setenv("QUARTO_STUB_VERSION", "1.7.34")
    assert render_book(result, "html", audited=False).read_text().strip() == "<html>quarto</html>"
    monkeypatch.setenv("QUARTO_STUB_VERSION", "1.9.0")
    assert render_book(result, "pdf", audited=False).read_bytes() == b"%PDF-1.7 stub\n"


def test_quarto_version_parsing(stub_quarto, monkeypatch):
    from bookcheck.render.quarto import quarto_version
    monkeypatch.setenv("QUARTO_STUB_VERSION", "1.7.34")
    assert quarto_version() == (1, 7, 34)
    monkeypatch.setenv("QUARTO_STUB_VERSION", "garbage")
    assert quarto_version() is None
