"""When a number from 1900 to 2099 is a year: only where the text says so.

In a book on ML systems "2048 GPUs", "2000 hours" and "2048 tokens" are counts, so a
four-digit number is not a year by its value alone. It is one (and may stay literal,
prose_numbers.ALLOWLIST) where its context makes it a date:

- a date: ``2024-05-03``, a month before it (``May 2024``, ``May 3, 2024``, ``3 May 2024``:
  the day with it);
- a decade: ``1990s``, ``the 2010s``;
- a citation's or a venue's year: alone in parentheses or closing them
  (``GPT-3 (2020)``, ``(Dean et al., 2012)``, ``(1922–2015)``, ``(c. 2024)``), after
  ``et al.``, after a venue's acronym on the same line (``OSDI 2024``, ``NeurIPS
  2023``) unless a plural noun or another acronym follows (``NVIDIA 2048 GPUs``,
  ``TFLOPS 1979 TOPS`` are counts);
- a word that asks for a time before it (``in``, ``since``, ``until``, ``by``, ``from``,
  ``between``, ``around``, ``circa``/``c.``, ``early``/``mid``/``late``, ``year``…)
  *and* nothing after it that it could count: the text ends, punctuation, a function
  word (``in 2010 to describe``, ``by 2030 the``) or a name (``in 2024 Meta``,
  ``in 2024 AI clusters``); ``in 2048 tokens``, ``from 2000 hours``, ``by 2048 GPUs``
  are counts;
- a range of two years after such a word or in parentheses (``from 1950 to 2020``,
  ``between 2012 and 2024``, ``2012--2024.``);
- a noun after it that only a year takes: ``the 2024 edition``, ``its 2023 report``,
  ``2024's``.

`YEAR` is one regular expression; the year itself (or the range) is its group ``n``,
so a caller blanking or exempting the match takes ``m.span("n")``, never the cue
word's digits (``in 2024`` allows ``2024``; a date allows its day too). Stdlib only.
"""
from __future__ import annotations

import re

_Y = r"(?:19|20)\d\d"
#: a year, or a range of two, as one span
_SPAN = _Y + r"(?:\s*(?:–|—|--|-|to|and|through)\s*" + _Y + r")?"
_NOT_IN_NUMBER_BEFORE = r"(?<![\w.,$€£])"
_NOT_IN_NUMBER_AFTER = r"(?![\d,]*\d|\.\d|[A-Za-z%×])"

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_CUE = (r"(?:in|since|until|till|by|from|between|during|around|circa|c\.|ca\.|early|mid|late"
        r"|year|years|spring|summer|autumn|fall|winter|before|after|through|as\s+of)")
_FUNCTION_WORDS = ("the", "a", "an", "and", "or", "but", "nor", "to", "through", "when",
                   "while", "with", "it", "its", "we", "they", "this", "that", "these", "those",
                   "there", "their", "he", "she", "his", "her", "our", "for", "at", "on", "as",
                   "after", "before", "was", "were", "had", "has", "have", "is", "are", "alone",
                   "onward", "onwards", "until", "already", "still", "again", "itself")
#: what may follow a year that a time word introduced: nothing it could count
_FOLLOW = (r"(?=\s*(?:$|[.,;:!?()\[\]'’\"”–—]|-(?!\d)|(?:" + "|".join(_FUNCTION_WORDS) + r")\b"
           r"|[A-Z][a-z]+\b|[A-Z]{2,}\b))")
_YEAR_NOUNS = (r"(?:edition|paper|report|survey|study|release|version|keynote|talk|article"
               r"|roadmap|census|season|conference|workshop|meeting|election|award)\b")

YEAR = re.compile(
    r"(?:"
    # 2024-05-03, 2024/05
    r"(?<![\w.,])(?P<n1>" + _Y + r")(?=[-/](?:0[1-9]|1[0-2])\b)"
    # May 2024, May 3, 2024, 3 May 2024
    r"|\b" + _MONTH + r"\s+(?P<n2>(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?" + _SPAN + r")"
    + _NOT_IN_NUMBER_AFTER +
    r"|(?<![\w.,])(?P<n11>\d{1,2}(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+" + _SPAN + r")"
    + _NOT_IN_NUMBER_AFTER +
    # the 1990s
    r"|" + _NOT_IN_NUMBER_BEFORE + r"(?P<n3>" + _Y[:-4] + r"\d0)(?='?s\b)"
    # (2020), (Dean et al., 2012), (1922–2015), (c. 2024), (OSDI 2024, …)
    r"|(?<=\()(?P<n4>" + _SPAN + r")(?=[a-c]?\s*[),;])"
    r"|(?<=\()[^()\d]{0,60}?\s(?P<n5>" + _SPAN + r")(?=[a-c]?\s*[),;])"
    r"|\bet\s+al\.?,?\s+(?P<n6>" + _SPAN + r")" + _NOT_IN_NUMBER_AFTER +
    # OSDI 2024, NeurIPS 2023 (not NVIDIA 2048 GPUs)
    r"|\b[A-Z][A-Za-z]*[A-Z][A-Za-z]*[ \t]+(?P<n7>" + _SPAN + r")" + _NOT_IN_NUMBER_AFTER
    + r"(?![ \t]+(?:[a-z]+s\b|[A-Z]{2,}|[A-Z]+s\b))"
    # in 2024, since 2019, from 1950 to 2020: then nothing it could count
    r"|(?i:\b" + _CUE + r")\s+(?:the\s+(?:year\s+)?)?(?P<n8>" + _SPAN + r")"
    + _NOT_IN_NUMBER_AFTER + _FOLLOW +
    # 2012--2024. (a bare range of years, nothing counted after it)
    r"|" + _NOT_IN_NUMBER_BEFORE + r"(?P<n9>" + _Y + r"\s*(?:–|—|--)\s*" + _Y + r")"
    + _NOT_IN_NUMBER_AFTER + _FOLLOW +
    # the 2024 edition, 2024's
    r"|" + _NOT_IN_NUMBER_BEFORE + r"(?P<n10>" + _Y + r")(?=\s+" + _YEAR_NOUNS + r"|['’]s\b)"
    r")")


def year_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every year (or range of years) `YEAR` finds in `text`."""
    return [allowed_span(m) for m in YEAR.finditer(text)]


def allowed_span(match: re.Match) -> tuple[int, int]:
    """The span a match of an allowlist pattern allows: its group ``n…`` that matched
    (the year, not the cue word before it), else the whole match."""
    for name, value in match.groupdict().items():
        if name.startswith("n") and value is not None:
            return match.span(name)
    return match.span()
