"""The first screen: a query box, the active filters and mode, and result cards.

The keyboard model is fzf's: every printable key reaches the query wherever the
focus is, and everything else (moving, expanding, opening, card actions) uses
keys that never type (arrows, ctrl, function keys, Enter, Esc).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.history import QueryHistory, ViewState
from convo_tui.core.hits import Hit
from convo_tui.tui.card_actions import CardActions
from convo_tui.tui.messages import SearchFinished, SearchOutcome
from convo_tui.tui.query_line import describe_query, highlight_words
from convo_tui.tui.screens.search_keys import SEARCH_BINDINGS, ResultKeys
from convo_tui.tui.widgets.card import ResultCard
from convo_tui.tui.widgets.index_status import IndexStatus
from convo_tui.tui.widgets.preview import HitPreview
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Static
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp

DENSE_MODES = ("hybrid", "semantic")


class SearchScreen(ResultKeys, CardActions, Screen):
    BINDINGS = SEARCH_BINDINGS

    app: ConvoApp

    def __init__(self) -> None:
        super().__init__()
        self.query_text = ""
        self.hits: list[Hit] = []
        self._timer: Timer | None = None
        self._focus_when_shown = False  # Enter pressed before the results arrived
        self._cards: list[ResultCard] = []  # reused from search to search, the unused ones hidden
        self._generation = 0  # of the latest search started: an older one's results are dropped
        self._limit = 0  # how many results the shown search asked for (grows with "more")
        self._more_pending = False  # the cursor asked past the last card: move on when more arrive
        self.view = ViewState()
        self.init_keys(QueryHistory())

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(
            placeholder="Search…  (filters: project: role: tool: has:tools after: before: session:)",
            id="query",
            select_on_focus=False,  # coming back to the query must never select it: the next key would replace it
        )
        yield Static(id="filter-line")
        with Horizontal(id="result-area"):
            yield VerticalScroll(Static(id="results-note", classes="placeholder"), id="results", can_focus=False)
            yield HitPreview(id="preview")
        yield IndexStatus(id="index-status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.set_class(self.view.compact, "-compact-list")
        self.query_one("#query", Input).focus()
        self._show_filter_line()
        self._show_placeholder()

    @property
    def status(self) -> IndexStatus:
        return self.query_one(IndexStatus)

    @property
    def query_box(self) -> Input:
        return self.query_one("#query", Input)

    # -- typing always reaches the query ------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """A printable key pressed anywhere but in the query goes into the query, at its end."""
        box = self.query_box
        if not event.is_printable or self.focused is box or event.character is None:
            return
        event.stop()
        event.prevent_default()
        self.action_focus_query()
        box.insert_text_at_cursor(event.character)

    # -- searching -------------------------------------------------------------------

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self._focus_when_shown = False
        self.query_edited(event.value)
        self._show_filter_line()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        delay = self.app.settings.debounce_ms / 1000
        if delay <= 0:
            self.refresh_search()
        else:
            self._timer = self.set_timer(delay, self._debounced)

    def _debounced(self) -> None:
        self._timer = None
        self.refresh_search()

    @on(Input.Submitted, "#query")
    def _query_submitted(self) -> None:
        self.remember_query(self.query_text)
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
        box = self.query_box
        box.value = query
        box.focus()
        box.cursor_position = len(query)

    def refresh_search(self, *, limit: int | None = None) -> None:
        """Search again for the current query and mode (new key, new mode, more indexed, more wanted)."""
        self._show_filter_line()
        self._generation += 1
        if limit is None:
            self._more_pending = False
        if not self.query_text.strip():
            self._show_placeholder()
            return
        if self.app.library is None:
            return
        wanted = limit or max(self.app.settings.search_limit, 1)
        self._search(self.query_text, self.app.mode, self._generation, wanted)

    def load_more(self) -> bool:
        """Ask core for a bigger page of the same query; False when everything is shown."""
        if not self.hits or len(self.hits) < self._limit or self._searching():
            return False
        self._more_pending = True
        self.refresh_search(limit=self._limit + max(self.app.settings.search_limit, 1))
        return True

    @work(thread=True, exclusive=True, group="search")
    def _search(self, query: str, mode: str, generation: int, limit: int) -> None:
        app = self.app
        library = app.library
        assert library is not None
        used = mode if (mode not in DENSE_MODES or app.model_ready) else "keyword"
        try:
            hits = library.search(query, limit=limit, mode=used)
            outcome = SearchOutcome(query, mode, hits, generation=generation, limit=limit)
        except ConvoError as exc:
            outcome = SearchOutcome(query, mode, [], error=str(exc), generation=generation, limit=limit)
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
        more = self._more_pending
        self._more_pending = False
        shown_before = len(self.cards()) if more else 0
        self.hits = outcome.hits
        self._limit = outcome.limit
        self._show_filter_line(count=len(outcome.hits))
        await self._show_cards(self.in_view_order(outcome.hits), keep_scroll=more)
        cards = self.cards()
        if more and len(cards) > shown_before:
            self.select_card(cards[shown_before])
        elif self._focus_when_shown and cards:
            self._focus_when_shown = False
            self.action_first_card()

    # -- showing ---------------------------------------------------------------------

    def _show_filter_line(self, *, count: int | None = None, error: str | None = None) -> None:
        note = ""
        if self.app.mode in DENSE_MODES and not self.app.model_ready:
            note = "keyword until the model loads"
        more = count is not None and count >= self._limit > 0
        line = describe_query(self.query_text, self.app.mode, count=count, error=error, note=note, more=more)
        if self.view.sort == "date":
            line.append("   newest first", style="bold")
        self.query_one("#filter-line", Static).update(line, layout=False)  # one row, whatever it says

    def _show_placeholder(self) -> None:
        self._show_note(
            "Type a question to search every indexed conversation.\n"
            "↓ moves through the results · Enter expands · ctrl+o opens · F1 lists every key.\n"
            "F3 browses sessions by project · F2 changes the mode."
        )

    def _show_note(self, text: str) -> None:
        """A line in place of the results (no query, an error, nothing found)."""
        self.hits = []
        self._hide_cards_from(0)
        self.query_one(HitPreview).show(None, [], self.app.redactor)
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

    async def _show_cards(self, hits: list[Hit], *, keep_scroll: bool = False) -> None:
        """Refill the card pool in place; new cards are mounted only when the pool is short."""
        if not hits:
            text = "No matching conversations."
            if self.app.indexing:
                text = "No matching conversations yet: indexing is still running, results refresh when it ends."
            self._show_note(text)
            return
        self.query_one("#results-note", Static).display = False
        terms = highlight_words(self.query_text)
        # Filters alone rank nothing: no bar then, rather than a row of zeros.
        scored = bool(terms) and any(hit.score > 0 for hit in hits)
        compact = self.view.compact
        for card, hit in zip(self._cards, hits, strict=False):
            card.set_compact(compact)
            card.set_hit(hit, terms, scored=scored)
            if not card.display:
                card.display = True
        self._hide_cards_from(len(hits))
        results = self.query_one("#results", VerticalScroll)
        missing = [ResultCard(hit, terms, shown=self.app.redactor, scored=scored) for hit in hits[len(self._cards) :]]
        for card in missing:
            card.compact = compact
        if missing:
            self._cards += missing
            await results.mount_all(missing)
        if not keep_scroll:
            results.scroll_home(animate=False)
            self._selected = 0
        self.show_preview()

    def in_view_order(self, hits: list[Hit]) -> list[Hit]:
        """Core's order (relevance), or the same results newest first when the user sorts by date."""
        if self.view.sort != "date":
            return hits
        return sorted(hits, key=lambda hit: hit.timestamp.timestamp() if hit.timestamp else float("-inf"), reverse=True)

    def show_preview(self) -> None:
        if self.view.compact:
            card = self.current_card()
            hit = card.hit if card is not None else None
            self.query_one(HitPreview).show(hit, highlight_words(self.query_text), self.app.redactor)

    def cards(self) -> list[ResultCard]:
        return [card for card in self._cards if card.display]

    def current_query(self) -> str:
        return self.query_text

    # -- view choices (remembered across runs) --------------------------------------------

    async def action_toggle_compact(self) -> None:
        self.view.compact = not self.view.compact
        self.set_class(self.view.compact, "-compact-list")
        for card in self._cards:
            card.set_compact(self.view.compact)
        self.show_preview()
        self._save_view()
        current = self.card_of(self.focused)
        if current is not None:
            self.call_after_refresh(current.scroll_visible, animate=False)

    async def action_toggle_sort(self) -> None:
        self.view.sort = "relevance" if self.view.sort == "date" else "date"
        self._save_view()
        self._show_filter_line(count=len(self.hits) if self.hits else None)
        if self.hits:
            await self._show_cards(self.in_view_order(self.hits))
        self.app.notify(f"Sorted by {self.view.sort}", timeout=2)

    def _save_view(self) -> None:
        problem = self.view.save()
        if problem:
            self.app.notify(f"Could not remember the view: {problem}", severity="warning")
