"""The search screen's results: a scrolling pool of result cards, refilled in place.

Mounting new cards is the slow part of showing results (each is laid out and
styled anew), so the list keeps every card it has mounted and a new search
refills them; those it does not need are hidden. A note (no query yet, an error,
nothing found) stands in place of the cards.
"""

from __future__ import annotations

from collections.abc import Callable

from convo_tui.core.hits import Hit
from convo_tui.tui.widgets.card import ResultCard
from textual.containers import VerticalScroll
from textual.widgets import Static


class ResultList(VerticalScroll):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Static(id="results-note", classes="placeholder"), id=id, can_focus=False)
        self._pool: list[ResultCard] = []  # every card mounted so far, the unused ones hidden

    def cards(self) -> list[ResultCard]:
        """The cards shown, in order."""
        return [card for card in self._pool if card.display]

    def focus_is_after(self, start: int) -> bool:
        """A shown card from `start` on holds the focus (hiding it would move the focus anywhere)."""
        return any(card.display and card.has_focus_within for card in self._pool[start:])

    def hide_from(self, start: int) -> None:
        """Hide the cards from `start` on, closed (move the focus away first: focus_is_after)."""
        for card in self._pool[start:]:
            if card.display:
                card.collapse()
                card.display = False

    def note(self, text: str | None) -> None:
        """Show `text` where the results go (None: the note goes, the cards show)."""
        note = self.query_one("#results-note", Static)
        if text is not None:
            note.update(text)
        note.display = text is not None

    async def fill_from(
        self,
        start: int,
        hits: list[Hit],
        terms: list[str],
        *,
        scored: bool,
        compact: bool,
        dense: bool,
        shown: Callable[[str], str] | None,
    ) -> None:
        """Show `hits` in the cards from `start` on: pooled ones refilled, new ones mounted.
        `shown` masks what a card displays (the app's redactor)."""
        pooled = self._pool[start : start + len(hits)]
        for card, hit in zip(pooled, hits, strict=False):
            card.set_view(compact, dense)
            card.set_hit(hit, terms, scored=scored)
            if not card.display:
                card.display = True
        missing = [ResultCard(hit, terms, shown=shown, scored=scored) for hit in hits[len(pooled) :]]
        for card in missing:
            card.compact, card.dense = compact, dense
        if missing:
            self._pool += missing
            await self.mount_all(missing)

    def fit(self, compact: bool, dense: bool) -> None:
        """Every card, shown or pooled, to the list's view (compact rows, a short screen)."""
        for card in self._pool:
            card.set_view(compact, dense)
