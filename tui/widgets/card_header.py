"""A card's first line: the title, where and when (in the compact list and on short
screens), and the score right-aligned after it. The title gives way first: the
place and the score are never cut."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

SCORE_WIDTH = 14


class CardHeader(Widget):
    """One widget drawing what a Horizontal of two Statics drew.

    The search screen refills and lays out every card on each keystroke: two
    widgets fewer per card is less styling, layout and compositing.
    """

    COMPONENT_CLASSES = {"card-header--score", "card-header--place"}

    def __init__(self, title: Text, score: Text, *, scored: bool = True, place: str = "", classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._title = title
        self._score = score
        self._scored = scored
        self._place = place

    def show(self, title: Text, score: Text, scored: bool, place: str = "") -> None:
        """Redraw with new parts; the size stays one line, so no layout."""
        if (title, score, scored, place) != (self._title, self._score, self._scored, self._place):
            self._title, self._score, self._scored, self._place = title, score, scored, place
            self.refresh()

    def render(self) -> Text:
        width = self.size.width
        score_width = self._score.cell_len + 1  # SCORE_WIDTH with the bar, less in the compact list
        room = max(0, width - score_width) if self._scored else width
        place = Text(f"  {self._place}" if self._place else "")
        place.truncate(max(0, room - 12), overflow="ellipsis")  # a title keeps a dozen cells at least
        place.stylize(self.get_component_rich_style("card-header--place", partial=True))
        title = self._title.copy()
        title.truncate(max(0, room - place.cell_len), overflow="ellipsis")
        line = Text(no_wrap=True, overflow="crop")
        line.append_text(title)  # the title's own style (bold) stays on its span only
        line.append_text(place)
        line.append(" " * (room - title.cell_len - place.cell_len))  # plain padding, as the title widget's blank cells
        if self._scored and width > room:
            score = self._score.copy()
            score.truncate(width - room)
            score.stylize(self.get_component_rich_style("card-header--score", partial=True))
            line.append(" " * (width - room - score.cell_len))
            line.append_text(score)
        return line
