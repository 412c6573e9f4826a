"""Every indexed session, grouped by project, newest first, with a fuzzy filter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.hits import SessionSummary
from convo_tui.core.redact import display
from convo_tui.tui.card_actions import CardActions
from convo_tui.tui.render import format_date, plural
from convo_tui.tui.session_filter import fuzzy_filter, group_by_project
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp


def session_line(summary: SessionSummary, *, with_project: bool = False) -> Table:
    """Star column, then title over details: wrapped title lines and the details line up."""
    grid = Table.grid()
    grid.add_column(width=2, no_wrap=True)
    grid.add_column(ratio=1)
    meta = Text(style="dim", overflow="fold")
    if with_project:
        meta.append(f"{summary.project or '—'} · ", style="italic")
    meta.append(
        f"{format_date(summary.updated_at or summary.started_at)} · {summary.source}"
        f" · {plural(summary.turn_count, 'turn')} · {plural(summary.message_count, 'message')}"
    )
    if summary.orphaned:
        meta.append(" · source gone", style="italic")
    title = Text(display(summary.title) or "(untitled)", style="bold", overflow="fold")
    grid.add_row(Text("★" if summary.starred else "", style="bold"), Text("\n").join([title, meta]))
    return grid


class SessionsScreen(CardActions, Screen):
    BINDINGS = [
        Binding("escape", "back", "Back", id="sessions.back"),
        Binding("slash", "focus_filter", "Filter", id="sessions.filter"),
        Binding("down", "focus_list", "List", show=False, id="sessions.list"),
    ]

    app: ConvoApp

    def __init__(self) -> None:
        super().__init__()
        self.summaries: list[SessionSummary] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Filter sessions by title or project…", id="session-filter")
        yield Static(id="sessions-count")
        yield OptionList(id="session-list")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        library = self.app.library
        if library is not None:
            try:
                self.summaries = library.sessions()
            except ConvoError as exc:
                self.notify(str(exc), severity="error")
        self._show("")
        self.query_one("#session-filter", Input).focus()

    @on(Input.Changed, "#session-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._show(event.value)

    @on(Input.Submitted, "#session-filter")
    def _submitted(self) -> None:
        self.action_focus_list()

    def _show(self, text: str) -> None:
        shown = fuzzy_filter(self.summaries, text)
        options: list[Option | None] = []
        if text.strip():
            options = [Option(session_line(s, with_project=True), id=s.id) for s in shown]
        else:
            for project, members in group_by_project(shown):
                header = Text(f"{project}  ({len(members)})", style="bold reverse")
                options.append(Option(header, disabled=True))
                options.extend(Option(session_line(s), id=s.id) for s in members)
        listing = self.query_one("#session-list", OptionList)
        listing.clear_options()
        listing.add_options(options)
        total = len(self.summaries)
        count = f"{len(shown)} of {total} sessions" if text.strip() else f"{total} sessions"
        self.query_one("#sessions-count", Static).update(count)

    @on(OptionList.OptionSelected, "#session-list")
    def _open(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.open_reader(event.option.id, None, "")

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_focus_filter(self) -> None:
        self.query_one("#session-filter", Input).focus()

    def action_focus_list(self) -> None:
        listing = self.query_one("#session-list", OptionList)
        listing.focus()
        if listing.highlighted is None and listing.option_count:
            listing.action_first()
