"""The search screen's results follow the index (tui/index_following.py): when
sessions are published or vectors added, the shown search runs again and its
results take the place of the shown ones without losing the reader's place
(selection, an open card, the scroll) while the results shown still lead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from convo_tui.core.hits import Hit
from convo_tui.tui.query_line import highlight_words
from convo_tui.tui.screens.search_view import hit_key

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp
    from convo_tui.tui.messages import SearchOutcome
    from convo_tui.tui.widgets.card import ResultCard
    from textual.widget import Widget


class FollowedResults:
    """Mixed into the SearchScreen, which provides the search, the cards and the view."""

    hits: list[Hit]
    query_text: str
    _limit: int
    _count: int | None
    _selected: int
    _follow_waiting: bool
    _timer: Any

    if TYPE_CHECKING:  # provided by the SearchScreen and its other mixins
        app: ConvoApp
        focused: Widget | None

        def _searching(self) -> bool: ...
        def refresh_search(self, *, limit: int | None = None, follow: bool = False) -> None: ...
        def page_size(self) -> int: ...
        def show_coverage(self) -> None: ...
        def cards(self) -> list[ResultCard]: ...
        def current_card(self) -> ResultCard | None: ...
        def card_of(self, widget: Widget | None) -> ResultCard | None: ...
        def select_card(self, card: ResultCard) -> None: ...
        def mark_selected(self) -> None: ...
        def in_view_order(self, hits: list[Hit]) -> list[Hit]: ...
        def show_preview(self) -> None: ...
        def _show_filter_line(self, *, count: int | None = None, error: str | None = None) -> None: ...
        async def _show_cards(self, hits: list[Hit], *, keep_scroll: bool = False) -> None: ...
        async def _fill_from(self, start: int, hits: list[Hit], terms: list[str], scored: bool) -> None: ...

    def follow_index(self) -> None:
        """The index moved (sessions published, vectors added): run the shown search again.

        The results then shown keep the selection, an open card and the scroll
        position when the results already shown are still the first ones, in order.
        """
        self._follow_waiting = False
        self.show_coverage()
        if not self.query_text.strip() or self.app.library is None or self._timer is not None or self._searching():
            return  # nothing shown, or a search of the current query is already on its way
        self.refresh_search(limit=max(self._limit, self.page_size()), follow=True)

    async def _follow(self, outcome: SearchOutcome) -> bool:
        """Show a re-run's results without losing the reader's place; False: show them as a new search's."""
        shown = self.cards()
        if not shown or not outcome.hits:
            return False
        old = [hit_key(card.hit) for card in shown]
        fresh = self.in_view_order(outcome.hits)
        if [hit_key(hit) for hit in fresh[: len(old)]] != old:
            reading = outcome.follow and self.card_of(self.focused) is not None
            if reading or any(card.expanded for card in shown):
                # Not under the reader's eyes (the list moved by itself while phase 2 added
                # vectors): when the card closes, or the focus is back in the query.
                self._follow_waiting = True
                return True
            await self._show_again(outcome, fresh)
            return True
        # The shown results are still the first ones: new scores in place, more below.
        self.hits = outcome.hits
        self._limit = outcome.limit
        self._count = len(outcome.hits)
        self._show_filter_line(count=self._count)
        terms = highlight_words(self.query_text)
        scored = bool(terms) and any(hit.score > 0 for hit in fresh)
        for card, hit in zip(shown, fresh, strict=False):
            card.set_hit(hit, terms, scored=scored, keep_open=True)
        if len(fresh) > len(old):
            await self._fill_from(len(old), fresh[len(old) :], terms, scored)
        self.show_preview()
        return True

    async def _show_again(self, outcome: SearchOutcome, fresh: list[Hit]) -> None:
        """Other results now lead: show them; the selection stays on its result if it is still there."""
        current = self.current_card()
        chosen = hit_key(current.hit) if current is not None else None
        on_card = self.card_of(self.focused) is not None
        self.hits = outcome.hits
        self._limit = outcome.limit
        self._count = len(outcome.hits)
        self._show_filter_line(count=self._count)
        await self._show_cards(fresh)
        cards = self.cards()
        keys = [hit_key(card.hit) for card in cards]
        if chosen in keys:
            index = keys.index(chosen)
            self._selected = index
            if on_card:
                self.select_card(cards[index])
            self.mark_selected()
            self.show_preview()

    def card_closed(self) -> None:
        """An open card was closed (or the focus left the cards): a change of the index
        it held back shows now."""
        if self._follow_waiting:
            self.follow_index()
