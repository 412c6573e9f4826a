"""The search screen's view choices, remembered across runs: the compact list
with its preview pane (F4) and the order of the results (F6, relevance or date).

They change how results are shown: the same hits are re-shown in place (newest
first also asks for a deeper page, DATE_POOL), and the choice is saved
(core/history.py ViewState) for the next run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from convo_tui.core.history import ViewState
from convo_tui.core.hits import Hit
from convo_tui.tui.widgets.result_list import ResultList

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp
    from convo_tui.tui.widgets.card import ResultCard
    from textual.widget import Widget


DATE_POOL = 50
"""Newest first orders the best DATE_POOL results at least: a page of ten ordered
by date showed the newest of those ten, not the newest of the answers. The
searches gate what they return (a point only meaning found must be close), so a
deeper page holds answers, not noise to float to the top. 50, not more: each key
typed searches this deep (hybrid at 100k: about 80 ms for 50, 140-190 for 100,
50-65 for 10; BENCHMARKS.md, thirtieth session)."""


def hit_key(hit: Hit) -> tuple[str, int, str, tuple[str, ...]]:
    """What makes a result the same result after a re-run (its score may change)."""
    return (hit.session_id, hit.turn_index, hit.kind, tuple(hit.message_ids))


def first_unseen(shown: list[Hit], hits: list[Hit]) -> int | None:
    """Where the cursor goes after ↓ past the last card: the first of `hits` that is
    no result already shown. A deeper search can return a result shown before with
    other parts matched (other message ids) or as its whole turn, not as one of its
    messages: the same place in the same session is the same result to the reader."""
    keys = {hit_key(hit) for hit in shown}
    places = {_place(hit) for hit in shown}
    return next((i for i, hit in enumerate(hits) if hit_key(hit) not in keys and _place(hit) not in places), None)


def _place(hit: Hit) -> tuple[str, int, str]:
    """A turn of a session; a message outside any turn by its own id."""
    if hit.turn_index >= 0:
        return (hit.session_id, hit.turn_index, "")
    return (hit.session_id, hit.turn_index, hit.message_ids[0] if hit.message_ids else "")


def shown_then_new(shown: list[Hit], fresh: list[Hit]) -> list[Hit]:
    """A bigger page after the cards already read: those first, where they were (with
    their fresh scores), then the page's other results in its order. A deeper search
    may rank a result it reached only now above ones on screen; the cards read must
    not move under the cursor for it (it is still in the list, after them)."""
    by_key = {hit_key(hit): hit for hit in fresh}
    kept = [by_key.get(hit_key(hit), hit) for hit in shown]
    seen = {hit_key(hit) for hit in shown}
    return kept + [hit for hit in fresh if hit_key(hit) not in seen]


class ViewChoices:
    """Mixed into the SearchScreen (which provides the cards, the filter line and the preview)."""

    view: ViewState
    hits: list[Hit]
    _limit: int
    date_shown: int  # sorting by date: how many of the pool have cards (a page, more with ↓)

    if TYPE_CHECKING:  # provided by the SearchScreen
        app: ConvoApp
        focused: Widget | None

        query: Any  # DOMNode's
        set_class: Any

        def card_of(self, widget: Widget | None) -> ResultCard | None: ...
        def call_after_refresh(self, callback: object, *args: object, **kwargs: object) -> bool: ...
        def show_preview(self) -> None: ...
        def cards(self) -> list[ResultCard]: ...
        def select_card(self, card: ResultCard) -> None: ...
        def _show_filter_line(self, *, count: int | None = None, error: str | None = None) -> None: ...
        def refresh_search(self, *, limit: int | None = None, follow: bool = False) -> None: ...
        def _searching(self) -> bool: ...
        async def _show_cards(self, hits: list[Hit], *, keep_scroll: bool = False) -> None: ...

    def fit_cards(self) -> None:
        """Cards as the view and the screen's height want them (the app calls it on a resize)."""
        for results in self.query(ResultList):  # none before the screen is composed (the app's first resize)
            results.fit(self.view.compact, self.app.short)

    def page_size(self) -> int:
        """How many results a search asks for at first, and how many more ↓ asks for."""
        size = max(self.app.settings.search_limit, 1)
        return max(size, DATE_POOL) if self.view.sort == "date" else size

    def in_view_order(self, hits: list[Hit]) -> list[Hit]:
        """Core's order (relevance); or, sorting by date, the newest `date_shown` of the
        results: the pool is searched DATE_POOL deep, but cards for all of it on
        every key doubled a keystroke's time (Textual lays out every card)."""
        if self.view.sort != "date":
            return hits
        newest = sorted(hits, key=lambda hit: hit.timestamp.timestamp() if hit.timestamp else float("-inf"), reverse=True)
        return newest[: self.date_shown]

    def show_a_page_more(self) -> bool:
        """Sorting by date, one page more of the pool gets cards (↓ past the last);
        True when the pool held them, so no search is needed."""
        if self.view.sort != "date":
            return False
        held = len(self.hits) > self.date_shown
        self.date_shown += max(self.app.settings.search_limit, 1)
        return held

    async def action_toggle_compact(self) -> None:
        self.view.compact = not self.view.compact
        self.set_class(self.view.compact, "-compact-list")
        self.fit_cards()
        self.show_preview()
        self._save_view()
        current = self.card_of(self.focused)
        if current is not None:
            self.call_after_refresh(current.scroll_visible, animate=False)

    async def action_toggle_sort(self) -> None:
        self.view.sort = "relevance" if self.view.sort == "date" else "date"
        self.date_shown = max(self.app.settings.search_limit, 1)
        self._save_view()
        self._show_filter_line(count=len(self.hits) if self.hits else None)
        deeper = self._limit < self.page_size()
        if deeper and (self._searching() or (self.hits and len(self.hits) >= self._limit)):
            self.refresh_search(limit=self.page_size())  # more answers than shown (or on their way): the newest of them all
        elif self.hits:
            current = self.card_of(self.focused)
            chosen = hit_key(current.hit) if current is not None else None
            await self._show_cards(self.in_view_order(self.hits))
            again = next((card for card in self.cards() if chosen is not None and hit_key(card.hit) == chosen), None)
            if again is not None:  # the result read stays the one under the cursor, where the new order put it
                self.select_card(again)
        self.app.notify(f"Sorted by {self.view.sort}", timeout=2)

    def _save_view(self) -> None:
        problem = self.view.save()
        if problem:
            self.app.notify(f"Could not remember the view: {problem}", severity="warning")
