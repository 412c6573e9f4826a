"""The part of a message that matched: a window of text centred on the query's terms.

A card has room for a line or two; the start of a long answer rarely holds what
the user searched for. The best window covers the most different terms (then the
most matches), starts a little before the first of them on a word boundary, and
marks cuts with "…". Widths are terminal cells: a Chinese or Japanese character
takes two, so a CJK snippet holds half as many characters as a Latin one.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate

from convo_tui.core.search.highlight import match_spans

ELLIPSIS = "…"
LEAD_CELLS = 24  # context shown before the first matched term
SNAP_CHARS = 12  # how far a cut may move to start on a whole word
# With `cut_after`, a match that starts past this many cells is brought to the
# front: the narrowest card (80 columns) shows about 70 cells of a text line.
VISIBLE_CELLS = 40
# With `cut_after`, windows are compared by what this many cells of them hold: the
# part a card shows. Compared over the whole width (240), a card showed one term
# of a cluster that came 100 cells later (`Kubernetes deployment is configured`).
SHOWN_CELLS = 70


def cell_width(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


class _Cells:
    """The terminal cells of one text, summed once: where a window of so many
    cells ends or starts is then a bisection, not a walk over its characters
    (a window was sought from every match, and each walk looked up every
    character's width: most of a search's printing time)."""

    def __init__(self, text: str):
        self.length = len(text)
        # ASCII: one cell a character, nothing to sum.
        self.sums = None if text.isascii() else [0, *accumulate(cell_width(ch) for ch in text)]

    def total(self) -> int:
        return self.length if self.sums is None else self.sums[-1]

    def end_for(self, start: int, cells: int) -> int:
        """The index where `cells` terminal cells starting at `start` end."""
        if self.sums is None:
            return min(self.length, start + cells)
        return bisect_right(self.sums, self.sums[start] + cells) - 1

    def before(self, index: int) -> int:
        """The cells of the text before `index`."""
        return index if self.sums is None else self.sums[index]

    def back_by(self, index: int, cells: int) -> int:
        """The index `cells` terminal cells before `index`."""
        if self.sums is None:
            return max(0, index - cells)
        return bisect_left(self.sums, self.sums[index] - cells)


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


def snippet(text: str, terms: Sequence[str], width: int = 160, *, cut_after: bool = False) -> str:
    """At most `width` cells of `text` (whitespace flattened), around the best cluster of `terms`.
    `cut_after`: the caller shows only the start of it (a card cuts it at its edge), so
    the window starts just before the match even where it then ends with the text,
    rather than taking the room before it and leaving the match at the far end."""
    flat = " ".join(text.split())
    cells = _Cells(flat)
    spans = match_spans(flat, list(terms)) if cut_after or cells.total() > width else []
    # A text that fits is shown whole, unless the caller cuts it and its first match is far in.
    if cells.total() <= width and not (cut_after and spans and cells.before(spans[0][0]) > VISIBLE_CELLS):
        return flat
    room = max(1, width - 2 * len(ELLIPSIS))
    if not spans:
        end = _word_end(flat, cells.end_for(0, room + len(ELLIPSIS)), 0)
        return flat[:end].rstrip() + ELLIPSIS
    lead = min(LEAD_CELLS, room // 4)
    best: tuple[int, int, int] | None = None
    best_start = 0
    # Spans are sorted and apart, so those inside a window are a run of them.
    starts, ends = [s for s, _ in spans], [e for _, e in spans]
    found = [flat[s:e].casefold() for s, e in spans]
    compared = min(room, SHOWN_CELLS) if cut_after else room
    for first, _ in spans:
        start = cells.back_by(first, lead)
        end = cells.end_for(start, compared)
        inside = found[bisect_left(starts, start) : bisect_right(ends, end)]
        score = (len(set(inside)), len(inside), -start)
        if best is None or score > best:
            best, best_start = score, start
    start = best_start
    first_match = next(s for s, _ in spans if s >= start)
    start = _word_start(flat, start, min(first_match, start + SNAP_CHARS))
    end = cells.end_for(start, room)
    if end >= len(flat) and not cut_after:  # the window reaches the end: use the room before the start instead
        start = cells.back_by(len(flat), room + len(ELLIPSIS))
        start = _word_start(flat, start, min(first_match, start + SNAP_CHARS))
        end = len(flat)
    else:
        end = _word_end(flat, end, first_match)
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(flat) else ""
    return prefix + flat[start:end].strip() + suffix
