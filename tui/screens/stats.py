"""F7: how much is in the index: activity over time (charts), then sessions, messages,
tokens and cost per project, source, model and week.

Counted in a worker from the whole session records (core/stats.py) and counted
again when the app says sessions changed (indexing, delete); priced here with
the settings' price table (core/cost/); drawn by tui/stats_view.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo_tui.core.cost.prices import price_table
from convo_tui.core.errors import ConvoError
from convo_tui.core.stats import Stats
from convo_tui.tui.render import plural
from convo_tui.tui.session_messages import SessionsChanged, StatsLoaded
from convo_tui.tui.shown import when_shown
from convo_tui.tui.stats_view import WEEKS_SHOWN, activity_charts, group_table, model_table, stats_summary
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp


class StatsScreen(Screen):
    BINDINGS = [
        Binding("escape", "back", "Back", id="stats.back"),
        Binding("j,down", "scroll_down", "Down", show=False, id="stats.down"),
        Binding("k,up", "scroll_up", "Up", show=False, id="stats.up"),
        Binding("g,home", "top", "Top", show=False, id="stats.top"),
        Binding("G,end", "bottom", "Bottom", show=False, id="stats.bottom"),
    ]

    app: ConvoApp

    def __init__(self) -> None:
        super().__init__()
        self.stats: Stats | None = None
        self.only_archived = 0  # sessions whose files are gone, kept by the archive
        self._loading = False
        self._stale = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Counting the index…", id="stats-summary")
        with VerticalScroll(id="stats-body"):
            yield Static(id="stats-charts", classes="stats-table")
            yield Static(id="stats-projects", classes="stats-table")
            yield Static(id="stats-sources", classes="stats-table")
            yield Static(id="stats-models", classes="stats-table")
            yield Static(id="stats-weeks", classes="stats-table")
        yield Footer(compact=True)

    @when_shown
    def on_mount(self) -> None:
        self.query_one("#stats-body").focus()
        self.reload()

    def reload(self) -> None:
        if self.app.library is None:
            return  # SessionsChanged follows when the index is open
        if self._loading:
            self._stale = True
            return
        self._loading, self._stale = True, False
        self._count()

    @work(thread=True, exclusive=True, group="stats")
    def _count(self) -> None:
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            assert library is not None
            try:
                stats = library.stats()  # the holder's when another process has the index
                message = StatsLoaded(stats, only_archived=library.archive_status().only_here)
            except ConvoError as exc:
                message = StatsLoaded(None, str(exc))
            if not get_current_worker().is_cancelled:
                self.post_message(message)

    def on_stats_loaded(self, event: StatsLoaded) -> None:
        self._loading = False
        if event.stats is None:
            self.query_one("#stats-summary", Static).update(Text(f"⚠ {event.error}"))
        else:
            self.stats, self.only_archived = event.stats, event.only_archived
            self._show(event.stats, event.only_archived)
        if self._stale:
            self.reload()

    def on_sessions_changed(self, _: SessionsChanged) -> None:
        self.reload()

    def on_resize(self) -> None:
        if self.stats is not None:
            self._show(self.stats, self.only_archived)  # the tables are cut to the width

    def _show(self, stats: Stats, only_archived: int = 0) -> None:
        prices = price_table(self.app.settings)
        summary = stats_summary(stats, prices)
        if only_archived:  # their files are gone (a tool deleted them): read from the archive
            summary.append(f" · {plural(only_archived, 'session')} only in the archive")
        if self.app.sessions_may_appear:  # files still being read; not while only vectors are added
            summary.append(" · indexing, counts grow", style="italic")
        self.query_one("#stats-summary", Static).update(summary)
        weeks = stats.weeks()[:WEEKS_SHOWN]
        shown = f"last {len(weeks)} weeks with activity" if len(stats.by_week) > WEEKS_SHOWN else "newest first"
        tokens = stats.total.has_tokens
        width = max(40, self.app.size.width - 6)  # the body's padding and scrollbar
        self.query_one("#stats-charts", Static).update(activity_charts(stats, prices))
        self.query_one("#stats-projects", Static).update(
            group_table("Per project", "Project", stats.projects(), prices, tokens=tokens, width=width)
        )
        self.query_one("#stats-sources", Static).update(
            group_table("Per source", "Source", stats.sources(), prices, tokens=tokens, width=width)
        )
        models = self.query_one("#stats-models", Static)
        models.display = bool(stats.by_model)
        if stats.by_model:
            models.update(model_table(stats, prices))
        self.query_one("#stats-weeks", Static).update(
            group_table(f"Per week ({shown})", "Week", weeks, prices, weeks=True, tokens=tokens, width=width)
        )

    def action_back(self) -> None:
        self.app.pop_screen()

    def _body(self) -> VerticalScroll:
        return self.query_one("#stats-body", VerticalScroll)

    def action_scroll_down(self) -> None:
        self._body().scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        self._body().scroll_up(animate=False)

    def action_top(self) -> None:
        self._body().scroll_home(animate=False)

    def action_bottom(self) -> None:
        self._body().scroll_end(animate=False)
