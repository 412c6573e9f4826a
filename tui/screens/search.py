"""The first screen: a query box, the active filters and mode, and result cards."""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.hits import Hit
from convo_tui.tui.card_actions import CardActions
from convo_tui.tui.messages import SearchFinished, SearchOutcome
from convo_tui.tui.query_line import describe_query, highlight_words
from convo_tui.tui.widgets.card import ResultCard
from convo_tui.tui.widgets.index_status import IndexStatus
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Static
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp

DENSE_MODES = ("hybrid", "semantic")


class SearchScreen(CardActions, Screen):
    BINDINGS = [
        Binding("slash", "focus_query", "Query", id="search.focus_query"),
        Binding("escape", "escape", "Clear", id="search.escape"),
        Binding("down", "first_card", "Results", show=False, id="search.results"),
    ]

    app: ConvoApp

    def __init__(self) -> None:
        super().__init__()
        self.query_text = ""
        self.hits: list[Hit] = []
        self._timer: Timer | None = None
        self._shown_key: tuple[str, str] | None = None
        self._focus_when_shown = False  # Enter pressed before the results arrived
        self._cards: list[ResultCard] = []  # reused from search to search, the unused ones hidden
        self._generation = 0  # of the latest search started: an older one's results are dropped

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Search…  (filters: project: role: tool: has:tools after: before: session:)", id="query")
        yield Static(id="filter-line")
        yield VerticalScroll(Static(id="results-note", classes="placeholder"), id="results")
        yield IndexStatus(id="index-status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#query", Input).focus()
        self._show_filter_line()
        self._show_placeholder()

    @property
    def status(self) -> IndexStatus:
        return self.query_one(IndexStatus)

    # -- searching -------------------------------------------------------------------

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self._focus_when_shown = False
        self._show_filter_line()
        if self._timer is not None:
            self._timer.stop()
        delay = self.app.settings.debounce_ms / 1000
        if delay:
            self._timer = self.set_timer(delay, self._debounced)
        else:  # debounce_ms = 0: search on every key, no timer (the tests use this)
            self._debounced()

    def _debounced(self) -> None:
        self._timer = None
        self.refresh_search()

    @on(Input.Submitted, "#query")
    def _query_submitted(self) -> None:
        if self.cards() and self._timer is None and not self._searching():
            self.action_first_card()
        else:  # typed fast: go to the results as soon as they are shown
            self._focus_when_shown = True

    @property
    def generation(self) -> int:
        """Number of the latest search started; results of an older one are dropped."""
        return self._generation

    def _searching(self) -> bool:
        return any(w.group == "search" and not w.is_finished for w in self.workers)

    def set_query(self, query: str) -> None:
        box = self.query_one("#query", Input)
        box.value = query
        box.cursor_position = len(query)
        box.focus()

    def refresh_search(self) -> None:
        """Search again for the current query and mode (new key, new mode, more indexed)."""
        self._show_filter_line()
        self._generation += 1
        if not self.query_text.strip():
            self._show_placeholder()
            return
        if self.app.library is None:
            return
        self._search(self.query_text, self.app.mode, self._generation)

    @work(thread=True, exclusive=True, group="search")
    def _search(self, query: str, mode: str, generation: int) -> None:
        app = self.app
        library = app.library
        assert library is not None
        used = mode if (mode not in DENSE_MODES or app.model_ready) else "keyword"
        try:
            hits = library.search(query, limit=app.settings.search_limit, mode=used)
            outcome = SearchOutcome(query, mode, hits, generation=generation)
        except ConvoError as exc:
            outcome = SearchOutcome(query, mode, [], error=str(exc), generation=generation)
        if not get_current_worker().is_cancelled:
            self.post_message(SearchFinished(outcome))

    async def on_search_finished(self, event: SearchFinished) -> None:
        outcome = event.outcome
        if outcome.generation != self._generation or outcome.query != self.query_text or outcome.mode != self.app.mode:
            return  # a newer search is on its way (or has already been shown)
        if outcome.error:
            self._show_filter_line(error=outcome.error)
            self._show_note(f"⚠ {outcome.error}\nFix the query to see results.")
            return
        self.hits = outcome.hits
        self._show_filter_line(count=len(outcome.hits))
        await self._show_cards(outcome.hits)
        if self._focus_when_shown and self.cards():
            self._focus_when_shown = False
            self.action_first_card()

    # -- showing ---------------------------------------------------------------------

    def _show_filter_line(self, *, count: int | None = None, error: str | None = None) -> None:
        note = ""
        if self.app.mode in DENSE_MODES and not self.app.model_ready:
            note = "keyword until the model loads"
        line = describe_query(self.query_text, self.app.mode, count=count, error=error, note=note)
        self.query_one("#filter-line", Static).update(line, layout=False)  # one row, whatever it says

    def _show_placeholder(self) -> None:
        self._show_note(
            "Type a question to search every indexed conversation.\n"
            "F3 browses sessions by project · F2 changes the mode · F1 lists the keys."
        )

    def _show_note(self, text: str) -> None:
        """A line in place of the results (no query, an error, nothing found)."""
        self.hits = []
        self._hide_cards_from(0)
        note = self.query_one("#results-note", Static)
        note.update(text)
        note.display = True

    def _hide_cards_from(self, start: int) -> None:
        for card in self._cards[start:]:
            if card.display:
                if card.has_focus_within:
                    self.action_focus_query()
                card.collapse()
                card.display = False

    async def _show_cards(self, hits: list[Hit]) -> None:
        """Refill the card pool in place; new cards are mounted only when the pool is short."""
        if not hits:
            text = "No matching conversations."
            if self.app.indexing:
                text = "No matching conversations yet: indexing is still running, results refresh when it ends."
            self._show_note(text)
            return
        self.query_one("#results-note", Static).display = False
        terms = highlight_words(self.query_text)
        scored = bool(terms)  # filters alone rank nothing: no similarity to show
        for card, hit in zip(self._cards, hits, strict=False):
            card.set_hit(hit, terms, scored=scored)
            if not card.display:
                card.display = True
        self._hide_cards_from(len(hits))
        results = self.query_one("#results", VerticalScroll)
        missing = [ResultCard(hit, terms, shown=self.app.redactor, scored=scored) for hit in hits[len(self._cards) :]]
        if missing:
            self._cards += missing
            await results.mount_all(missing)
        results.scroll_home(animate=False)

    # -- keys ------------------------------------------------------------------------

    def cards(self) -> list[ResultCard]:
        return [card for card in self._cards if card.display]

    def action_first_card(self) -> None:
        cards = self.cards()
        if cards:
            cards[0].focus()

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_escape(self) -> None:
        box = self.query_one("#query", Input)
        if self.focused is not box:
            card = self._card_of(self.focused)
            if card is not None and card.expanded:
                card.collapse()  # from a tool call inside it too: back to the card, not the query
                card.focus()
                return
            box.focus()
        elif box.value:
            box.value = ""

    @staticmethod
    def _card_of(widget) -> ResultCard | None:
        while widget is not None and not isinstance(widget, ResultCard):
            widget = widget.parent
        return widget

    def move_focus(self, card: ResultCard, step: int) -> None:
        cards = self.cards()
        index = cards.index(card) + step
        if index < 0:
            self.action_focus_query()
        elif index < len(cards):
            cards[index].focus()
            cards[index].scroll_visible(animate=False)

    def current_query(self) -> str:
        return self.query_text
