"""Every line the app draws, without control characters (a last guard).

Texts from transcripts lose their terminal control where they are read
(core/sources/controls.py) and where an older index's results are made
(core/search/merge.py), but a value can still reach a widget another way: a
session list's title from the catalogue, a project or path quoted by a
notification. An escape drawn as it is acts on the terminal (a title change, a
screen clear, a clipboard write: it did, in tmux). Control characters are zero
cells wide to Rich, so removing them here moves nothing on screen; the letters of
a sequence they started are left as plain text.
"""

from __future__ import annotations

from convo_tui.core.unicode import CONTROL_CHARACTER as _CONTROL
from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter


class NoControlCharacters(LineFilter):
    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not _CONTROL.search("".join(segment.text for segment in segments)):  # one scan a line
            return segments
        return [
            Segment(_CONTROL.sub("", segment.text), segment.style, segment.control) if _CONTROL.search(segment.text) else segment
            for segment in segments
        ]
