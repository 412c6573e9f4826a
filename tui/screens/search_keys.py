"""The search screen's keys: moving through results, Esc one step back, card actions.

None of these keys types a character, so they work the same whether the focus
is in the query or on a card; the card actions act on the current card (the
focused one, or the one last selected while the query has the focus).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from convo_tui.core.cost.prices import price_table
from convo_tui.core.history import QueryHistory
from convo_tui.tui.card_messages import CardClosed, CardExpand
from convo_tui.tui.render import session_cost
from convo_tui.tui.session_actions import SESSION_BINDINGS, SessionTarget
from convo_tui.tui.widgets.card import ResultCard
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget

if TYPE_CHECKING:
    from convo_tui.core.model import Session
    from textual.widgets import Input

SEARCH_BINDINGS: list[BindingType] = [
    *SESSION_BINDINGS,
    Binding("down,ctrl+n,ctrl+j", "cursor_down", "Next", priority=True, id="search.next"),
    Binding("up,ctrl+k", "cursor_up", "Previous", show=False, priority=True, id="search.previous"),
    Binding("pagedown", "page_down", "Page down", show=False, priority=True, id="search.page_down"),
    Binding("pageup", "page_up", "Page up", show=False, priority=True, id="search.page_up"),
    Binding("escape", "escape", "Back", show=False, priority=True, id="search.escape"),
    Binding("ctrl+z", "restore_query", "Restore query", show=False, priority=True, id="search.restore"),
    Binding("f4", "toggle_compact", "Compact", priority=True, id="search.compact"),
    Binding("f6", "toggle_sort", "Sort", show=False, priority=True, id="search.sort"),
]

# F1 lists these first: what the bindings table cannot say (tui/screens/help.py).
SEARCH_HELP_KEYS = [
    ("type", "Edit the query, from anywhere", ""),
    ("enter", "First result, or open/close it", "card.expand"),
    ("tab", "Open result: its tool calls", ""),
    ("↓↑ pgdn pgup", "Open result: read on, then next", ""),
]
SEARCH_HELP_NOTE = (
    "Filters in the query: project:NAME session:ID role:user|ai tool:NAME has:tools source:NAME tag:NAME machine:NAME "
    'after:DATE before:DATE "exact phrase"; DATE: YYYY-MM-DD, today, yesterday, 7d 2w 3m 1y.'
)


class ResultKeys:
    """Mixed into the SearchScreen (which provides cards(), query_box, load_more() and the card actions)."""

    focused: Widget | None
    _selected: int
    _cleared: str | None
    _history_at: int | None

    if TYPE_CHECKING:  # provided by the SearchScreen

        @property
        def query_box(self) -> Input: ...

        def cards(self) -> list[ResultCard]: ...

        def load_more(self) -> bool: ...

    def init_keys(self, history: QueryHistory) -> None:
        self._selected = 0  # the current card while the query has the focus
        self._cleared = None  # what the last Esc on the query erased: ctrl+z brings it back
        self.history = history  # earlier queries, oldest first, kept across runs
        self._history_at = None  # the history entry shown in the box (up on an empty query)

    @property
    def _history(self) -> list[str]:
        return self.history.queries

    # -- the current card ----------------------------------------------------------------

    @staticmethod
    def card_of(widget: Any) -> ResultCard | None:
        while widget is not None and not isinstance(widget, ResultCard):
            widget = widget.parent
        return widget

    def current_card(self) -> ResultCard | None:
        card = self.card_of(self.focused)
        if card is not None:
            return card
        cards = self.cards()
        if not cards:
            return None
        return cards[min(self._selected, len(cards) - 1)]

    def select_card(self, card: ResultCard) -> None:
        cards = self.cards()
        self._selected = cards.index(card) if card in cards else 0
        self.mark_selected()
        card.focus()
        card.scroll_visible(animate=False)

    def mark_selected(self) -> None:
        """The card the card keys act on carries `-selected`, also while the query has the focus."""
        current = self.current_card()
        for card in self.cards():
            card.set_class(card is current, "-selected")

    def on_descendant_focus(self, event: Any) -> None:
        card = self.card_of(event.widget)
        if card is not None and card in self.cards():
            self._selected = self.cards().index(card)
            self.show_preview()  # type: ignore[attr-defined]
        elif event.widget is self.query_box:
            self.card_closed()  # type: ignore[attr-defined]  # back from the cards: what the index held back
        self.mark_selected()

    # -- moving --------------------------------------------------------------------------

    def action_first_card(self) -> None:
        cards = self.cards()
        if cards:
            self.select_card(cards[0])

    def action_focus_query(self) -> None:
        box = self.query_box
        box.focus()
        box.cursor_position = len(box.value)  # at the end, nothing selected: typing adds to the query

    # -- reading an open card ----------------------------------------------------------------

    def _results(self) -> VerticalScroll:
        return self.query_one("#results", VerticalScroll)  # type: ignore[attr-defined]

    def _offset_in_results(self, widget: Widget) -> int:
        """`widget`'s top row in the results' scrollable space (its regions are each relative to the parent)."""
        results = self._results()
        offset = 0
        node: Any = widget
        while node is not None and node is not results:
            offset += node.virtual_region.y
            node = node.parent
        return offset

    def card_expanded(self, card: ResultCard) -> None:
        """An opened card starts at its first matched line (a long message's match may be far down)."""
        self.call_after_refresh(self._scroll_to_match, card)  # type: ignore[attr-defined]

    def _scroll_to_match(self, card: ResultCard) -> None:
        if not card.expanded:
            return
        widget, row = card.first_match()
        results = self._results()
        top = self._offset_in_results(card)
        target = self._offset_in_results(widget) + row
        height = results.scrollable_content_region.height
        # The card's top when the match fits under it; else the match two rows below the top.
        wanted = top if target - top < height - 2 else target - 2
        results.scroll_to(y=wanted, animate=False, immediate=True)

    def _scroll_within(self, card: ResultCard, lines: int) -> bool:
        """Scroll an open card by `lines` (up when negative); False at its end (or start)."""
        results = self._results()
        top = self._offset_in_results(card)
        bottom = top + card.outer_size.height
        height = results.scrollable_content_region.height
        at = round(results.scroll_y)
        if lines > 0 and bottom > at + height:
            results.scroll_to(y=min(at + lines, bottom - height), animate=False, immediate=True)
            return True
        if lines < 0 and top < at:
            results.scroll_to(y=max(at + lines, top), animate=False, immediate=True)
            return True
        return False

    def _leave_open_card(self, step: int, lines: int) -> bool:
        """↓/↑ (a line) and pgdn/pgup (a page) read through an open card first; past its
        end the card closes and the move goes on to the next card. True when the key was spent."""
        card = self.card_of(self.focused)
        if card is None or not card.expanded:
            return False
        if self._scroll_within(card, lines * step):
            return True
        card.collapse()
        card.focus()
        self.card_closed()  # type: ignore[attr-defined]
        return False

    def _step(self, step: int) -> None:
        if self._leave_open_card(1 if step > 0 else -1, 1):
            return
        cards = self.cards()
        card = self.card_of(self.focused)
        if card is None or card not in cards:
            if step > 0 and cards:
                self.select_card(cards[0])
            return
        index = cards.index(card) + step
        if index < 0:
            self.action_focus_query()
        elif index < len(cards):
            self.select_card(cards[index])
        elif not self.load_more():
            card.scroll_visible(animate=False)

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        if self.focused is self.query_box:
            self._history_back()
            return
        self._step(-1)

    def _page(self) -> int:
        cards = self.cards()
        results = self.query_one("#results", VerticalScroll)  # type: ignore[attr-defined]
        tallest = max((c.outer_size.height for c in cards), default=1)
        return max(1, results.size.height // max(tallest, 1))

    def _page_rows(self) -> int:
        return max(1, self._results().scrollable_content_region.height - 2)

    def action_page_down(self) -> None:
        if self._leave_open_card(1, self._page_rows()):
            return
        self._step(self._page())

    def action_page_up(self) -> None:
        if self._leave_open_card(-1, self._page_rows()):
            return
        card = self.card_of(self.focused)
        cards = self.cards()
        if card is None or card not in cards:
            return
        self.select_card(cards[max(0, cards.index(card) - self._page())])

    # -- Esc: one step back --------------------------------------------------------------

    def action_escape(self) -> None:
        box = self.query_box
        if self.focused is not box:
            card = self.card_of(self.focused)
            if card is not None and card.expanded:
                card.collapse()  # from a tool call inside it too: back to the card, not the query
                card.focus()
                self.card_closed()  # type: ignore[attr-defined]
                return
            self.action_focus_query()
        elif box.value:
            self._cleared = box.value
            self.remember_query(box.value)
            box.value = ""
            self.app.notify("Query cleared: ctrl+z brings it back", timeout=3)  # type: ignore[attr-defined]

    def action_restore_query(self) -> None:
        if self._cleared is not None and not self.query_box.value:
            self.set_query(self._cleared)  # type: ignore[attr-defined]
            self._cleared = None
        elif self.focused is not self.query_box:
            self.action_focus_query()

    # -- history -------------------------------------------------------------------------

    def remember_query(self, query: str) -> None:
        if self.history.add(query):
            self._history_at = None
            problem = self.history.save()
            if problem:
                self.app.notify(f"Could not save the query history: {problem}", severity="warning")  # type: ignore[attr-defined]

    def query_edited(self, value: str) -> None:
        """Typing (not browsing) ends the walk through the history."""
        at = self._history_at
        if at is not None and not (0 <= at < len(self._history) and self._history[at] == value):
            self._history_at = None

    def _history_back(self) -> None:
        box = self.query_box
        if not self._history or (box.value and self._history_at is None):
            return  # up on a query being typed does nothing (the results are below)
        at = len(self._history) if self._history_at is None else self._history_at
        if at == 0:
            return
        self._history_at = at - 1
        self.set_query(self._history[at - 1])  # type: ignore[attr-defined]

    # -- the session the card keys act on (tui/session_actions.py) --------------------------

    NO_TARGET = "No result to act on: type a query first"

    def session_target(self) -> SessionTarget | None:
        card = self.current_card()
        if card is None:
            return None
        self.remember_query(self.query_box.value)
        hit = card.hit
        return SessionTarget(hit.session_id, title=hit.session_title, path=hit.path, turn_index=hit.turn_index, hit=hit)

    # -- what the cards ask (tui/card_messages.py) -------------------------------------------

    def on_card_expand(self, event: CardExpand) -> None:
        event.stop()
        card = event.card
        target = SessionTarget(event.hit.session_id, title=event.hit.session_title, path=event.hit.path)

        async def expand(session: Session) -> None:
            # The results may have been replaced while the session was read (an index run publishing).
            if not card.is_attached:
                return
            mounting = card.expand_with(session, session_cost(session, price_table(self.app.settings)))  # type: ignore[attr-defined]
            if mounting is not None:
                await mounting  # its messages composed: their rows can be found
                self.card_expanded(card)

        self.with_session(target, expand)  # type: ignore[attr-defined]  # read in a worker (tui/session_actions.py)

    def on_card_closed(self, event: CardClosed) -> None:
        event.stop()
        self.card_closed()  # type: ignore[attr-defined]
