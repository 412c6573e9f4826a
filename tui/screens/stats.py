"""F4: how much is in the index: sessions, messages and tokens per project, source and week.

Counted in a worker from the whole session records (core/stats.py) and counted
again when the app says sessions changed (indexing, delete).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.stats import Count, Stats
from convo_tui.tui.render import plural
from convo_tui.tui.session_messages import SessionsChanged, StatsLoaded
from rich.table import Table
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

WEEKS_SHOWN = 12
BAR_WIDTH = 16


def tokens_cell(count: Count) -> Text:
    if not count.has_tokens:
        return Text("—", style="dim")
    return Text(f"{short_number(count.tokens.input)} in / {short_number(count.tokens.output)} out")


def short_number(value: int) -> str:
    """12345 -> 12.3k: token counts are large and only their size matters here."""
    for limit, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if value >= limit:
            return f"{value / limit:.1f}{suffix}"
    return str(value)


def week_label(week: str) -> str:
    """ "2026-W10" -> "2026-W10  Mar 02" (its Monday): a week number alone says little."""
    try:
        year, number = week.split("-W")
        return f"{week}  {date.fromisocalendar(int(year), int(number), 1):%b %d}"
    except ValueError:
        return week


def bar(value: int, most: int, width: int = BAR_WIDTH) -> str:
    filled = round(width * value / most) if most else 0
    return "█" * filled + "·" * (width - filled)


def group_table(
    title: str, column: str, rows: list[tuple[str, Count]], *, with_bar: bool = False, tokens: bool = True, width: int = 100
) -> Table:
    """One row per group; the Tokens column only when some source recorded usage."""
    table = Table(title=title, title_justify="left", title_style="bold", box=None, padding=(0, 1))
    # In `width` cells the names give way; the headers and the numbers never do ("Sessi…").
    numbers = max(len("Messages"), *(len(str(count.messages)) for _, count in rows)) if rows else len("Messages")
    widest = max((tokens_cell(count).cell_len for _, count in rows), default=0)
    token_width = max(len("Tokens"), widest) if tokens else 0
    bar_width = BAR_WIDTH if width >= 90 else BAR_WIDTH // 2
    others = 2 * numbers + (bar_width if with_bar else 0) + token_width + 2 * (3 + with_bar + tokens)
    table.add_column(column, width=max(8, min(40, width - others)), overflow="ellipsis", no_wrap=True)
    table.add_column("Sessions", justify="right", no_wrap=True, width=numbers)
    table.add_column("Messages", justify="right", no_wrap=True, width=numbers)
    if with_bar:
        table.add_column("", width=bar_width, no_wrap=True)
    if tokens:
        table.add_column("Tokens", justify="right", no_wrap=True, width=token_width)
    most = max((count.messages for _, count in rows), default=0)
    for name, count in rows:
        cells: list[str | Text] = [week_label(name) if with_bar else name, str(count.sessions), str(count.messages)]
        if with_bar:
            cells.append(Text(bar(count.messages, most, bar_width), style="bold"))
        if tokens:
            cells.append(tokens_cell(count))
        table.add_row(*cells)
    return table


def stats_summary(stats: Stats) -> Text:
    total = stats.total
    line = Text()
    line.append(plural(total.sessions, "session"), style="bold")
    line.append(f" · {plural(total.messages, 'message')} · {plural(len(stats.by_project), 'project')}")
    line.append(f" · {plural(len(stats.by_source), 'source')}")
    if total.has_tokens:
        recorded = [name for name, count in stats.sources() if count.has_tokens]
        line.append(f" · {short_number(total.tokens.total)} tokens (recorded by {', '.join(recorded)} only)")
    else:
        line.append(" · no source recorded token usage")
    return line


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
        self._loading = False
        self._stale = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Counting the index…", id="stats-summary")
        with VerticalScroll(id="stats-body"):
            yield Static(id="stats-projects", classes="stats-table")
            yield Static(id="stats-sources", classes="stats-table")
            yield Static(id="stats-weeks", classes="stats-table")
        yield Footer(compact=True)

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
                message = StatsLoaded(library.stats())  # the holder's when another process has the index
            except ConvoError as exc:
                message = StatsLoaded(None, str(exc))
            if not get_current_worker().is_cancelled:
                self.post_message(message)

    def on_stats_loaded(self, event: StatsLoaded) -> None:
        self._loading = False
        if event.stats is None:
            self.query_one("#stats-summary", Static).update(Text(f"⚠ {event.error}"))
        else:
            self.stats = event.stats
            self._show(event.stats)
        if self._stale:
            self.reload()

    def on_sessions_changed(self, _: SessionsChanged) -> None:
        self.reload()

    def on_resize(self) -> None:
        if self.stats is not None:
            self._show(self.stats)  # the tables are cut to the width

    def _show(self, stats: Stats) -> None:
        summary = stats_summary(stats)
        if self.app.sessions_may_appear:
            summary.append(" · indexing, counts grow", style="italic")
        self.query_one("#stats-summary", Static).update(summary)
        weeks = stats.weeks()[:WEEKS_SHOWN]
        shown = f"last {len(weeks)} weeks with activity" if len(stats.by_week) > WEEKS_SHOWN else "per week"
        tokens = stats.total.has_tokens
        width = max(40, self.app.size.width - 6)  # the body's padding and scrollbar
        projects = group_table("Per project", "Project", stats.projects(), tokens=tokens, width=width)
        self.query_one("#stats-projects", Static).update(projects)
        sources = group_table("Per source", "Source", stats.sources(), tokens=tokens, width=width)
        self.query_one("#stats-sources", Static).update(sources)
        self.query_one("#stats-weeks", Static).update(
            group_table(f"Messages {shown}", "Week", weeks, with_bar=True, tokens=tokens, width=width)
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
