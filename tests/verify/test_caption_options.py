"""The caption options are one list (read/cell_options.py's CAPTION_OPTIONS): the check
of inline values in captions (verify/generated.py) and of numbers typed into them
(verify/prose_numbers.py) cover exactly it, so a second list that drops or adds one fails."""
from __future__ import annotations

import pytest

from bookcheck.read.cell_options import CAPTION_OPTIONS
from bookcheck.read.qmd import parse_chapter
from bookcheck.verify.generated import caption_inlines
from bookcheck.verify.prose_numbers import find_prose_numbers


def chapter(option: str) -> str:
    return f'# T\n\n```{{python}}\n#| {option}: "Loss on 42 GPUs: `{{python}} x`"\nx = 1\n```\n'


def both(option: str) -> tuple[list, list]:
    """(lines of caption_inlines' findings, numbers find_prose_numbers reports) of a
    cell whose `option` holds a typed number and an inline value."""
    text = chapter(option)
    return ([f.line for f in caption_inlines(parse_chapter("c.qmd", text))],
            [f.text for f in find_prose_numbers(text)])


@pytest.mark.parametrize("option", CAPTION_OPTIONS)
def test_every_caption_option_is_checked_by_both(option):
    assert both(option) == ([4], ["42"])


@pytest.mark.parametrize("option", ["fig-align", "fig-env", "lst-label"])
def test_other_options_are_no_captions_for_either(option):
    assert both(option) == ([], [])
