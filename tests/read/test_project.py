"""_quarto.yml: chapter list, parts, appendices, and the findings it can produce."""
from pathlib import Path

from bookcheck.model import Kind
from bookcheck.read.project import load_project
from tests.bookkit import make_book


def write(root: Path, config: str, *chapters: str) -> Path:
    """A book of `config` and one-line `chapters`."""
    return make_book(root, dict.fromkeys(chapters, "# x\n"), config)


def test_chapters_parts_and_appendices_are_flattened(tmp_path):
    config = """
book:
  title: My Book
  chapters:
    - index.qmd
    - part: Part one
      chapters:
        - contents/a.qmd
        - contents/b.qmd
  appendices:
    - contents/z.qmd
bibliography: refs.bib
execute:
  echo: false
  timeout: 30
"""
    write(tmp_path, config, "index.qmd", "contents/a.qmd", "contents/b.qmd", "contents/z.qmd")
    project = load_project(tmp_path)
    assert project.findings == []
    assert project.title == "My Book"
    assert project.chapters == ["index.qmd", "contents/a.qmd", "contents/b.qmd"]
    assert project.appendices == ["contents/z.qmd"]
    assert project.bibliography == ["refs.bib"]
    assert project.execute == {"echo": False, "timeout": 30}
    assert project.timeout_s == 30.0


def test_malformed_yaml_is_located(tmp_path):
    write(tmp_path, "book:\n  chapters:\n    - a.qmd\n  title: [oops\n")
    (finding,) = load_project(tmp_path).findings
    assert finding.path == "_quarto.yml"
    assert finding.kind == Kind.YAML
    assert finding.line == 5      # the end of the stream, one past `  title: [oops` (line 4)
    assert "malformed YAML" in finding.reason


def test_missing_duplicate_and_escaping_chapters(tmp_path):
    config = """book:
  chapters:
    - a.qmd
    - missing.qmd
    - a.qmd
    - ../../etc/passwd
    - /etc/passwd
"""
    write(tmp_path, config, "a.qmd")
    project = load_project(tmp_path)
    assert project.chapters == ["a.qmd"]
    got = [(f.kind, f.line) for f in project.findings]
    assert got == [(Kind.MISSING_CHAPTER, 4), (Kind.DUPLICATE_CHAPTER, 5),
                   (Kind.CHAPTER_PATH, 6), (Kind.CHAPTER_PATH, 7)]
    assert "missing.qmd" in project.findings[0].reason
    assert "../../etc/passwd" in project.findings[2].reason


def test_symlink_escaping_the_project_is_refused(tmp_path):
    outside = tmp_path / "outside.qmd"
    outside.write_text("# secret\n")
    root = tmp_path / "book"
    root.mkdir()
    (root / "link.qmd").symlink_to(outside)
    write(root, "book:\n  chapters:\n    - link.qmd\n")
    project = load_project(root)
    assert project.chapters == []
    assert [(f.kind, f.line) for f in project.findings] == [(Kind.CHAPTER_PATH, 3)]


def test_missing_config(tmp_path):
    (finding,) = load_project(tmp_path).findings
    assert (finding.path, finding.line, finding.kind) == ("_quarto.yml", 0, Kind.YAML)   # no line to point at


MATH_BOOK = "book:\n  chapters:\n    - index.qmd\n"


def test_html_math_method_is_read_from_format_html_then_the_top_level(tmp_path):
    write(tmp_path, MATH_BOOK + "html-math-method: plain\nformat:\n  html:\n"
          "    html-math-method:\n      method: katex\n      url: k/\n", "index.qmd")
    project = load_project(tmp_path)
    assert (project.html_math, project.html_math_url, project.findings) == ("katex", "k/", [])
    write(tmp_path, MATH_BOOK + "html-math-method: mathjax\n", "index.qmd")
    assert load_project(tmp_path).html_math == "mathjax"
    write(tmp_path, MATH_BOOK, "index.qmd")
    assert load_project(tmp_path).html_math == ""          # unset: the renderer's default


def test_an_html_math_method_no_renderer_honours_is_a_finding_at_its_line(tmp_path):
    for method, words in (("gladtex", "raw TeX"), ("mathjx", "not a method Quarto 1.7 knows")):
        write(tmp_path, MATH_BOOK + f"format:\n  html:\n    toc: true\n    html-math-method: {method}\n",
              "index.qmd")
        (finding,) = load_project(tmp_path).findings
        assert (finding.path, finding.line, finding.kind) == ("_quarto.yml", 7, Kind.MATH_METHOD)
        assert words in finding.reason and "mathml" in finding.reason


def test_the_pipelines_own_options_are_off_unless_asked_for(tmp_path):
    """`verify:` holds this pipeline's options (Quarto ignores the key); an author's
    book gets none of them, the Quarto look included, until it sets them."""
    write(tmp_path, MATH_BOOK, "index.qmd")
    plain = load_project(tmp_path)
    assert (plain.literal_numbers, plain.fig_alt, plain.quarto_look) == (False, False, False)
    write(tmp_path, MATH_BOOK + "verify:\n  quarto-look: true\n  fig-alt: true\n", "index.qmd")
    asked = load_project(tmp_path)
    assert (asked.literal_numbers, asked.fig_alt, asked.quarto_look) == (False, True, True)
