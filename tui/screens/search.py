"""The first screen: a query box, the active filters and mode, and result cards.

The keyboard model is fzf's: every printable key reaches the query wherever the
focus is, and everything else (moving, expanding, opening, card actions) uses
keys that never type (arrows, ctrl, function keys, Enter, Esc).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo_tui.core.history import QueryHistory, ViewState
from convo_tui.core.hits import Hit
from convo_tui.tui.index_state import coverage_note
from convo_tui.tui.messages import SearchFinished
from convo_tui.tui.query_line import describe_query, highlight_words
from convo_tui.tui.screens.search_empty import nothing_found
from convo_tui.tui.screens.search_follow import FollowedResults
from convo_tui.tui.screens.search_keys import SEARCH_BINDINGS, SEARCH_HELP_KEYS, SEARCH_HELP_NOTE, ResultKeys
from convo_tui.tui.screens.search_run import HybridPace, search_passes
from convo_tui.tui.screens.search_view import ViewChoices, first_unseen, shown_then_new
from convo_tui.tui.session_actions import SessionActions
from convo_tui.tui.shown import when_shown
from convo_tui.tui.widgets.card import ResultCard
from convo_tui.tui.widgets.index_status import IndexStatus
from convo_tui.tui.widgets.preview import HitPreview
from convo_tui.tui.widgets.result_list import ResultList
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Static
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp


# The query box's erasing keys (Textual's Input actions), which reach it from a card too.
_ERASING = {"backspace": "delete_left", "ctrl+w": "delete_left_word", "ctrl+u": "delete_left_all"}


class SearchScreen(FollowedResults, ResultKeys, ViewChoices, SessionActions, Screen):
    BINDINGS = SEARCH_BINDINGS
    HELP_KEYS = SEARCH_HELP_KEYS
    HELP_NOTE = SEARCH_HELP_NOTE

    app: ConvoApp

    def __init__(self) -> None:
        super().__init__()
        self.query_text = ""
        self.hits: list[Hit] = []
        self._timer: Timer | None = None
        self._focus_when_shown = False  # Enter pressed before the results arrived
        self._open_for: str | None = None  # ctrl+o pressed before this query's results were shown
        self._generation = 0  # of the latest search started: an older one's results are dropped
        self._limit = 0  # how many results the shown search asked for (grows with "more")
        self.date_shown = 10  # set from the settings by each new query (refresh_search)
        self._more_pending = False  # the cursor asked past the last card: move on when more arrive
        self._count: int | None = None  # results the filter line counts (None: no search shown)
        self._follow_waiting = False  # the index moved while a card was open: follow when it closes
        self._early_shown: int | None = None  # the search whose keyword pass is shown, its hybrid one to come
        self._settled = True  # the shown results are the last the current search will give
        self.pace = HybridPace()  # whether a new hybrid query shows its keyword pass first (search_run.py)
        self.view = ViewState()
        self.init_keys(QueryHistory())

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(
            placeholder="Search…  (filters: project: source: role: tool: has:tools after: before: session: machine: tag:)",
            id="query",
            compact=True,  # one row: at 80x24 the results need every row they can get
            select_on_focus=False,  # coming back to the query must never select it: the next key would replace it
        )
        yield Static(id="filter-line")
        with Horizontal(id="result-area"):
            yield ResultList(id="results")
            yield HitPreview(id="preview")
        yield IndexStatus(id="index-status")
        yield Footer(compact=True)

    @when_shown
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
        """A printable key pressed anywhere but in the query goes into the query, at its
        end; so do the query box's erasing keys (what was typed on a card can be taken
        back there: Backspace, ctrl+w a word, ctrl+u all)."""
        box = self.query_box
        if self.focused is box:
            return
        erase = _ERASING.get(event.key)
        if erase is not None and event.key not in self.app.active_bindings:
            event.stop()
            event.prevent_default()
            self.action_focus_query()
            getattr(box, f"action_{erase}")()
            return
        if not event.is_printable or event.character is None:
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
        opening = self._open_for == event.value  # ctrl+o came before this change was handled
        if not opening:
            self._open_for = None
        self.query_edited(event.value)
        self._show_filter_line()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        delay = self.app.settings.debounce_ms / 1000
        if delay <= 0 or opening:
            self.refresh_search()
        else:
            self._timer = self.set_timer(delay, self._debounced)

    def _debounced(self) -> None:
        self._timer = None
        self.refresh_search()

    @on(Input.Submitted, "#query")
    def _query_submitted(self) -> None:
        self.remember_query(self.query_text)
        shown_are_current = not self._searching() or self._early_shown == self._generation
        if self.cards() and self._timer is None and shown_are_current:
            self.action_first_card()
        else:  # typed fast: go to the results as soon as they are shown
            self._focus_when_shown = True

    @property
    def generation(self) -> int:
        """Number of the latest search started; results of an older one are dropped."""
        return self._generation

    @property
    def settled(self) -> bool:
        """No search of the current query is on its way, nor its hybrid pass after the keyword one."""
        return self._settled and self._timer is None

    def _searching(self) -> bool:
        return any(w.group == "search" and not w.is_finished for w in self.workers)

    def set_query(self, query: str) -> None:
        box = self.query_box
        box.value = query
        box.focus()
        box.cursor_position = len(query)

    def refresh_search(self, *, limit: int | None = None, follow: bool = False) -> None:
        """Search again for the current query and mode (new key, new mode, more wanted);
        `follow`: the same search again because the index moved (see follow_index)."""
        if not follow:
            self._count = None
        self._show_filter_line(count=self._count)
        self._generation += 1
        if limit is None:
            self._more_pending = False
            self.date_shown = max(self.app.settings.search_limit, 1)  # a new query: one page of its pool
        if not self.query_text.strip():
            self._show_placeholder()
            return
        if self.app.library is None:
            return
        wanted = limit or self.page_size()
        self._settled = False
        self._search(self.query_text, self.app.mode, self._generation, wanted, follow, early=limit is None and not follow)

    def show_coverage(self) -> None:
        """The filter line again, with what search by meaning covers now."""
        self._show_filter_line(count=self._count)

    def load_more(self) -> bool:
        """Ask core for a bigger page of the same query; False when everything is shown."""
        if self._searching():
            return False
        if not self.hits or (len(self.hits) < self._limit and len(self.hits) <= self.date_shown):
            return False  # everything is shown
        if self.show_a_page_more():  # sorting by date: the next page of what was searched, no search
            shown = [card.hit for card in self.cards()]
            self.call_later(self._show_more, shown, self.in_view_order(self.hits))
            return True
        if len(self.hits) < self._limit:
            return False
        self._more_pending = True
        self.refresh_search(limit=self._limit + self.page_size())
        return True

    @work(thread=True, exclusive=True, group="search")
    def _search(self, query: str, mode: str, generation: int, limit: int, follow: bool = False, *, early: bool = False) -> None:
        """`early`: a new hybrid query may show its keyword pass first (search_run.py)."""
        app = self.app
        assert app.library is not None
        worker = get_current_worker()
        with app.background.running():  # the index stays open until this returns
            passes = search_passes(
                app.library,
                query,
                mode,
                model_ready=app.model_ready,
                generation=generation,
                limit=limit,
                follow=follow,
                early=early,
                pace=self.pace,
                cancelled=lambda: worker.is_cancelled,
            )
            for outcome in passes:
                if worker.is_cancelled:
                    return
                self.post_message(SearchFinished(outcome))

    async def on_search_finished(self, event: SearchFinished) -> None:
        outcome = event.outcome
        if outcome.generation != self._generation or outcome.query != self.query_text or outcome.mode != self.app.mode:
            return  # a newer search is on its way (or has already been shown)
        if outcome.error:
            self._settled, self._early_shown = True, None
            self._count = None
            self._show_filter_line(error=outcome.error)
            self._show_note(f"⚠ {outcome.error}\nFix the query to see results.")
            self._open_for = None
            return
        self._settled = not outcome.early
        refines = self._early_shown == outcome.generation
        self._early_shown = outcome.generation if outcome.early else None
        if (outcome.follow or refines) and await self._follow(outcome):
            self._focus_if_asked(final=not outcome.early)
            return
        more = self._more_pending
        self._more_pending = False
        shown = [card.hit for card in self.cards()] if more else []
        self.hits = outcome.hits  # ranked (the view orders what it shows: F6)
        self._limit = outcome.limit
        self._count = len(outcome.hits)
        self._show_filter_line(count=self._count)
        if not outcome.hits:
            known = (name for name, _ in self.app.projects)
            machines = (remote.name for remote in self.app.settings.remotes)
            waiting = self.app.sessions_may_appear
            tags = (name for name, _ in self.app.tags)
            note = nothing_found(outcome, self.app.index_state, waiting=waiting, projects=known, machines=machines, tags=tags)
            self._show_note(note)
            self._open_for = None
            return
        if more:
            await self._show_more(shown, self.in_view_order(outcome.hits))
            return
        await self._show_cards(self.in_view_order(outcome.hits))
        self._focus_if_asked(final=not outcome.early)

    async def _show_more(self, shown: list[Hit], ordered: list[Hit]) -> None:
        """A longer list after ↓ past the last card: the cursor to the first result not
        shown before. By date the list stays newest first (new cards go where their
        dates put them); by relevance the cards read stay first (shown_then_new)."""
        dated = self.view.sort == "date"
        await self._show_cards(ordered if dated else shown_then_new(shown, ordered), keep_scroll=True)
        cards = self.cards()
        if len(cards) > len(shown):
            new = first_unseen(shown, [card.hit for card in cards])
            self.select_card(cards[new if new is not None else len(shown)])

    def _focus_if_asked(self, *, final: bool = True) -> None:
        """Enter (or ctrl+o) was pressed before this query's results were shown: to
        the first one now; ctrl+o opens it once the query's last pass is shown (a
        hybrid query's keyword cards come first), while this screen is the one shown."""
        if self._focus_when_shown and self.cards():
            self._focus_when_shown = False
            self.action_first_card()
        if self._open_for is not None and self._open_for == self.query_text and final and self.cards():
            self._open_for = None
            if self.is_current:
                self.action_open()

    def action_open(self) -> None:
        """ctrl+o typed before the query's results are shown (the cards are an older
        query's, or none yet): the top result opens once they are."""
        typed = self.query_box.value
        stale = typed != self.query_text or self._timer is not None  # its search has not started
        waiting = not self.cards() and self._searching()
        if typed.strip() and (stale or waiting):
            self._open_for = typed
            if typed == self.query_text and self._timer is not None:  # the typing is over: no debounce
                self._timer.stop()
                self._debounced()
            return
        super().action_open()

    def on_screen_suspend(self) -> None:
        self._open_for = None  # another screen is shown: a late ctrl+o must not open over it

    # -- showing ---------------------------------------------------------------------

    def _show_filter_line(self, *, count: int | None = None, error: str | None = None) -> None:
        app = self.app
        note = coverage_note(app.mode, app.model_ready, app.index_state.meaning_share) if app.library is not None else ""
        more = count is not None and count >= self._limit > 0
        newest = self.view.sort == "date"
        line = describe_query(self.query_text, self.app.mode, count=count, error=error, note=note, more=more, newest_first=newest)
        self.query_one("#filter-line", Static).update(line, layout=False)  # one row, whatever it says

    def _show_placeholder(self) -> None:
        self._show_note(
            "Type a question to search every indexed conversation.\n"
            "↓ moves through the results · Enter expands · ctrl+o opens · F1 lists every key.\n"
            "F3 browses sessions by project · F2 changes the mode."
        )

    @property
    def results(self) -> ResultList:
        return self.query_one(ResultList)

    def _show_note(self, text: str) -> None:
        """A line in place of the results (no query, an error, nothing found)."""
        self.hits = []
        self._hide_cards_from(0)
        self.query_one(HitPreview).show(None, [], self.app.redactor)
        self.results.note(text)

    def _hide_cards_from(self, start: int) -> None:
        if self.results.focus_is_after(start):
            self.action_focus_query()
        self.results.hide_from(start)

    async def _show_cards(self, hits: list[Hit], *, keep_scroll: bool = False) -> None:
        """Refill the card pool in place; new cards are mounted only when the pool is short."""
        if not hits:
            self._show_note("No matching conversations.")
            return
        self.results.note(None)
        terms = highlight_words(self.query_text)
        # Filters alone rank nothing: no bar then, rather than a row of zeros.
        scored = bool(terms) and any(hit.score > 0 for hit in hits)
        self._hide_cards_from(len(hits))
        await self._fill_from(0, hits, terms, scored)
        if not keep_scroll:
            self.results.scroll_home(animate=False)
            self._selected = 0
        self.mark_selected()
        self.show_preview()

    async def _fill_from(self, start: int, hits: list[Hit], terms: list[str], scored: bool) -> None:
        await self.results.fill_from(
            start, hits, terms, scored=scored, compact=self.view.compact, dense=self.app.short, shown=self.app.redactor
        )

    def show_preview(self) -> None:
        if self.view.compact:
            card = self.current_card()
            hit = card.hit if card is not None else None
            self.query_one(HitPreview).show(hit, highlight_words(self.query_text), self.app.redactor)

    def cards(self) -> list[ResultCard]:
        return [card for results in self.query(ResultList) for card in results.cards()]

    def current_query(self) -> str:
        return self.query_text
