"""`make bench` with Quarto on PATH prints make html's figure against the author's
plain `quarto render` (Quarto executing every chapter), issue 33's target beside it."""
from __future__ import annotations

from booktools.bench import Step
from booktools.bench_html import quarto_speedup_line


def _step(name: str, *seconds: float) -> Step:
    step = Step(name)
    step.seconds.extend(seconds)
    return step


def test_speedup_line_compares_with_plain_quarto_executing():
    steps = [_step("cold check", 6.0, 8.0, 7.0), _step("quarto html cold", 30.0, 27.0, 31.0),
             _step("html cold (quarto handoff)", 18.5)]
    assert quarto_speedup_line(steps) == (
        "  make html with Quarto: 18.5 s (check + render of the handed-over runs + audit) vs "
        "30.0 s (plain `quarto render`, executing): 1.62x faster (target >= 1.5x)")


def test_no_line_without_quarto_figures():
    assert quarto_speedup_line([_step("cold check", 6.0), _step("html cold", 5.0)]) == ""
