"""Figure options written as lists, `fig-subcap` and `fig-align`, as Quarto 1.7.34 shows them.

What real Quarto 1.7.34 did with CHAPTER (a book of it rendered with `keep-md: true`,
`QUARTO_PYTHON=.venv/bin/python`, six cells drawing 2, 2, 1, 2, 1 and 1 plots):

- its Jupyter engine wrote QUARTO_MD: one figure per plot, each with its own caption,
  alt text and alignment from a `fig-cap`/`fig-alt`/`fig-align` list (item k for
  output k; a string is every output's); a labelled cell with a `fig-cap` list gives
  each figure the cell's label (`#fig-b` twice); `fig-cap` over `fig-subcap` labels
  the cell's div `#fig-d`, its figures `#fig-d-1`, `#fig-d-2` with the sub-captions,
  and writes the caption after them;
- its page showed QUARTO_CAPTIONS (the two `#fig-b` figures numbered 1.1 and 1.2, the
  sub-figures lettered), each `fig-align` as the figure's wrapper
  `<div class="quarto-figure quarto-figure-left">` (`center` on a float's div, the image
  classed too), alt texts from the lists; `See @fig-b, @fig-c, @fig-d` read QUARTO_XREFS.

The built-in page numbers the same, giving the second `#fig-b` the id `fig-b-2` (one id
per page): there `@fig-b` reads "Figure 1.1" and leads to it; Quarto's reads "Figure 1.2"
and its link leads to the first (docs/quarto-compat.md).

Once a list was written whole into every figure: "Figure 1.1: ['First', 'Second']",
alt "['Alt one', 'Alt two']", `data-fig-align="['left', 'right']"`, and the audit
passed it; `fig-align` was ignored by the built-in page. Runs made by hand: no kernel."""
from __future__ import annotations

import base64
import re
import struct
import zlib
from types import SimpleNamespace

import pytest

from bookcheck.model import CellRun, ChapterRun, Output
from bookcheck.read.book import read_book
from bookcheck.render import render_book
from bookcheck.render.engine_md import engine_markdown
from tests import REPO
from tests.bookkit import make_book

from .htmlscan import norm, scan


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


PNG = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)) \
    + _chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff\xff")) + _chunk(b"IEND", b"")    # 1×1, white
CONFIG = "project:\n  type: book\nbook:\n  title: T\n  chapters:\n    - index.qmd\n    - ch.qmd\n"
CHAPTER = """\
# Figures

## A: list fig-cap, no label

```{python}
#| fig-cap:
#|   - First
#|   - Second
#| fig-alt:
#|   - Alt one
#|   - Alt two
#| fig-align:
#|   - left
#|   - right
import matplotlib.pyplot as plt
plt.plot([1, 2]); plt.show()
plt.plot([2, 1]); plt.show()
```

## B: list fig-cap, fig label

```{python}
#| label: fig-b
#| fig-cap:
#|   - B first
#|   - B second
import matplotlib.pyplot as plt
plt.plot([1, 2]); plt.show()
plt.plot([2, 1]); plt.show()
```

## C: single fig-cap, align center

```{python}
#| label: fig-c
#| fig-cap: C caption
#| fig-align: center
#| fig-alt: C alt
plt.plot([1, 3]); plt.show()
```

## D: fig-subcap

```{python}
#| label: fig-d
#| fig-cap: D overall
#| fig-subcap:
#|   - D sub one
#|   - D sub two
plt.plot([1, 2]); plt.show()
plt.plot([2, 1]); plt.show()
```

## E: no label, single cap, align right

```{python}
#| fig-cap: E caption
#| fig-align: right
plt.plot([1, 3]); plt.show()
```

## F: no caption, align right

```{python}
#| fig-align: right
plt.plot([1, 3]); plt.show()
```

See @fig-b, @fig-c, @fig-d.
"""
QUARTO_MD = """\
# Figures

## A: list fig-cap, no label

::: {#8e51adc0 .cell execution_count=1}
``` {.python .cell-code}
import matplotlib.pyplot as plt
plt.plot([1, 2]); plt.show()
plt.plot([2, 1]); plt.show()
```

::: {.cell-output .cell-output-display}
![First](ch_files/figure-html/cell-2-output-1.png){width=571 height=411 fig-align='left' fig-alt='Alt one'}
:::

::: {.cell-output .cell-output-display}
![Second](ch_files/figure-html/cell-2-output-2.png){width=571 height=411 fig-align='right' fig-alt='Alt two'}
:::
:::


## B: list fig-cap, fig label

::: {#cell-fig-b .cell execution_count=2}
``` {.python .cell-code}
import matplotlib.pyplot as plt
plt.plot([1, 2]); plt.show()
plt.plot([2, 1]); plt.show()
```

::: {.cell-output .cell-output-display}
![B first](ch_files/figure-html/fig-b-output-1.png){#fig-b width=571 height=411}
:::

::: {.cell-output .cell-output-display}
![B second](ch_files/figure-html/fig-b-output-2.png){#fig-b width=571 height=411}
:::
:::


## C: single fig-cap, align center

::: {#cell-fig-c .cell execution_count=3}
``` {.python .cell-code}
plt.plot([1, 3]); plt.show()
```

::: {.cell-output .cell-output-display}
![C caption](ch_files/figure-html/fig-c-output-1.png){#fig-c width=579 height=411 fig-align='center' fig-alt='C alt'}
:::
:::


## D: fig-subcap

::: {#fig-d .cell execution_count=4}
``` {.python .cell-code}
plt.plot([1, 2]); plt.show()
plt.plot([2, 1]); plt.show()
```

::: {.cell-output .cell-output-display}
![D sub one](ch_files/figure-html/fig-d-output-1.png){#fig-d-1 width=571 height=411}
:::

::: {.cell-output .cell-output-display}
![D sub two](ch_files/figure-html/fig-d-output-2.png){#fig-d-2 width=571 height=411}
:::

D overall
:::


## E: no label, single cap, align right

::: {#66c414d4 .cell execution_count=5}
``` {.python .cell-code}
plt.plot([1, 3]); plt.show()
```

::: {.cell-output .cell-output-display}
![E caption](ch_files/figure-html/cell-6-output-1.png){width=579 height=411 fig-align='right'}
:::
:::


## F: no caption, align right

::: {#2d61ec5a .cell execution_count=6}
``` {.python .cell-code}
plt.plot([1, 3]); plt.show()
```

::: {.cell-output .cell-output-display}
![](ch_files/figure-html/cell-7-output-1.png){width=579 height=411 fig-align='right'}
:::
:::


See @fig-b, @fig-c, @fig-d.

"""
QUARTO_CAPTIONS = ["First", "Second", "Figure 1.1: B first", "Figure 1.2: B second",
                   "Figure 1.3: C caption", "(a) D sub one", "(b) D sub two",
                   "Figure 1.4: D overall", "E caption"]
QUARTO_XREFS = ["Figure 1.2", "Figure 1.3", "Figure 1.4"]
QUARTO_ALTS = {"cell-2-output-1.png": "Alt one", "cell-2-output-2.png": "Alt two",
               "fig-c-output-1.png": "C alt"}
PLOTS = [2, 2, 1, 2, 1, 1]          # the figures each cell draws


def same_text(markdown: str) -> str:
    """Markdown without what differs by run: Quarto's random cell ids, the figures' size
    (these runs draw a 1×1 PNG) and an unlabelled cell's file number (engine_md numbers
    it by notebook cell, Quarto by code cell: left alone here)."""
    markdown = re.sub(r"::: \{#[0-9a-f]{8} ", "::: {#ID ", markdown)
    markdown = re.sub(r"(?<=[{ ])width=\d+ height=\d+ ?", "", markdown)
    markdown = markdown.replace(" }", "}").replace("{}", "")
    return re.sub(r"cell-\d+-output", "cell-N-output", markdown)


@pytest.fixture()
def checked(tmp_path):
    """The chapter Quarto rendered, read, with a run drawing each cell's plots."""
    make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n", "ch.qmd": CHAPTER}, CONFIG)
    read = read_book(tmp_path)
    png = base64.b64encode(PNG).decode()
    run = ChapterRun(path="ch.qmd", cells=[CellRun(i, [Output("image/png", png)] * n)
                                           for i, n in enumerate(PLOTS)])
    return SimpleNamespace(project=read.project, parsed=read.parsed, runs={"ch.qmd": run},
                           findings=[], ok=True)


def test_the_engine_markdown_is_quartos(checked, tmp_path):
    markdown = engine_markdown(checked.parsed["ch.qmd"], checked.runs["ch.qmd"], tmp_path).markdown
    assert same_text(markdown) == same_text(QUARTO_MD)


def _descendants(element):
    for child in element.children:
        yield child
        yield from _descendants(child)


def test_the_built_in_page_shows_each_figure_with_its_own_caption_alt_and_alignment(checked, tmp_path):
    render_book(checked, "html", use_quarto=False)                 # audited
    html = (tmp_path / "_book" / "ch.html").read_text(encoding="utf-8")
    page = scan(html)
    assert [norm(e.text) for e in page if e.tag == "figcaption"] == QUARTO_CAPTIONS
    xrefs = [norm(e.text) for e in page if "quarto-xref" in e.classes]
    assert xrefs == ["Figure 1.1"] + QUARTO_XREFS[1:]          # the departure (see above)
    assert [e.attrs["id"] for e in page if e.tag == "figure" and e.attrs.get("id")] == [
        "fig-b", "fig-b-2", "fig-c", "fig-d"]
    alts = {e.attrs["src"].rsplit("/", 1)[1]: e.attrs.get("alt") for e in page if e.tag == "img"}
    assert {name: alts[name] for name in QUARTO_ALTS} == QUARTO_ALTS
    aligned = [(cls, [i.attrs["src"].rsplit("/", 1)[1] for i in _descendants(e) if i.tag == "img"])
               for e in page for cls in e.classes if cls.startswith("quarto-figure-")]
    assert [(cls, len(imgs)) for cls, imgs in aligned] == [
        ("quarto-figure-left", 1), ("quarto-figure-right", 1), ("quarto-figure-center", 1),
        ("quarto-figure-right", 1), ("quarto-figure-right", 1)]
    assert [imgs[0] for _, imgs in aligned][:3] == ["cell-2-output-1.png", "cell-2-output-2.png",
                                                    "fig-c-output-1.png"]
    for leak in ("['", "[\u2018", "&#39;", "data-fig-align"):
        assert leak not in html, leak
    css = (REPO / "scripts" / "bookcheck" / "render" / "assets" / "book.css").read_text()
    assert ".quarto-figure-left img" in css and ".quarto-figure-right img" in css


@pytest.mark.slow
def test_the_pdf_shows_each_figure_with_its_own_caption(checked, tmp_path):
    pdf = render_book(checked, "pdf", use_quarto=False)            # audited
    from pypdf import PdfReader
    text = norm(" ".join(page.extract_text() for page in PdfReader(pdf).pages))
    shown = [caption for caption in QUARTO_CAPTIONS if caption in text]
    assert shown == QUARTO_CAPTIONS and "['" not in text and "[\u2018" not in text


def test_a_fig_alt_list_needs_an_alt_text_for_every_figure():
    """verify/figalt.py reads the resolved list: a blank item is a figure without alt
    text (once the list's text, "['Alt one', '']", passed for one)."""
    from bookcheck.read.qmd import parse_chapter
    from bookcheck.verify.figalt import missing_fig_alt
    cell = "```{python}\n#| label: fig-x\n#| fig-cap: [One, Two]\n#| fig-alt: %s\nplot()\n```\n"
    assert missing_fig_alt(parse_chapter("c.qmd", cell % "[Alt one, Alt two]")) == []
    assert [f.kind for f in missing_fig_alt(parse_chapter("c.qmd", cell % "[Alt one, '']"))] == ["fig-alt"]
