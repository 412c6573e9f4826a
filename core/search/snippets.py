"""The part of a message that matched: a window of text centred on the query's terms.

A card has room for a line or two; the start of a long answer rarely holds what
the user searched for. The best window covers the most different terms (then the
most matches), starts a little before the first of them on a word boundary, and
marks cuts with "…". Widths are terminal cells: a Chinese or Japanese character
takes two, so a CJK snippet holds half as many characters as a Latin one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from convo_tui.core.search.highlight import match_spans

ELLIPSIS = "…"
LEAD_CELLS = 24  # context shown before the first matched term
SNAP_CHARS = 12  # how far a cut may move to start on a whole word


def cell_width(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _cells(text: str) -> int:
    return sum(cell_width(ch) for ch in text)


def _end_for(text: str, start: int, cells: int) -> int:
    """The index where `cells` terminal cells starting at `start` end."""
    used = 0
    i = start
    while i < len(text):
        width = cell_width(text[i])
        if used + width > cells:
            break
        used += width
        i += 1
    return i


def _back_by(text: str, index: int, cells: int) -> int:
    """The index `cells` terminal cells before `index`."""
    used = 0
    i = index
    while i > 0:
        width = cell_width(text[i - 1])
        if used + width > cells:
            break
        used += width
        i -= 1
    return i


def _word_start(text: str, start: int, limit: int) -> int:
    """Move `start` forward to the start of a word (at most up to `limit`); CJK text has no spaces to find."""
    if start == 0 or text[start - 1] == " " or cell_width(text[start]) == 2:
        return start  # already on a word, or inside CJK text where any character starts one
    space = text.find(" ", start, limit)
    return space + 1 if space != -1 else start


def _word_end(text: str, end: int, floor: int) -> int:
    """Move `end` back to the end of a word (never below `floor`)."""
    if end >= len(text) or text[end] == " ":
        return end
    space = text.rfind(" ", floor, end)
    return space if space > floor else end


def snippet(text: str, terms: Sequence[str], width: int = 160) -> str:
    """At most `width` cells of `text` (whitespace flattened), around the best cluster of `terms`."""
    flat = " ".join(text.split())
    if _cells(flat) <= width:
        return flat
    room = max(1, width - 2 * len(ELLIPSIS))
    spans = match_spans(flat, list(terms))
    if not spans:
        end = _word_end(flat, _end_for(flat, 0, room + len(ELLIPSIS)), 0)
        return flat[:end].rstrip() + ELLIPSIS
    lead = min(LEAD_CELLS, room // 4)
    best: tuple[int, int, int] | None = None
    best_start = 0
    for first, _ in spans:
        start = _back_by(flat, first, lead)
        end = _end_for(flat, start, room)
        inside = [flat[s:e].casefold() for s, e in spans if s >= start and e <= end]
        score = (len(set(inside)), len(inside), -start)
        if best is None or score > best:
            best, best_start = score, start
    start = best_start
    first_match = next(s for s, _ in spans if s >= start)
    start = _word_start(flat, start, min(first_match, start + SNAP_CHARS))
    end = _end_for(flat, start, room)
    if end >= len(flat):  # the window reaches the end: use the room before the start instead
        start = _back_by(flat, len(flat), room + len(ELLIPSIS))
        start = _word_start(flat, start, min(first_match, start + SNAP_CHARS))
        end = len(flat)
    else:
        end = _word_end(flat, end, first_match)
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(flat) else ""
    return prefix + flat[start:end].strip() + suffix
