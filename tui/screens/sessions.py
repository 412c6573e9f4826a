"""Every indexed session: sorted by date, title or project, a fuzzy filter, a starred filter.

The list is read in a worker (the store is never asked on the UI thread) and
read again whenever the app says sessions changed: while indexing runs, and
after a rename, star or delete here or in the reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.hits import SessionSummary
from convo_tui.core.redact import display
from convo_tui.tui.card_actions import CardActions
from convo_tui.tui.render import format_date, plural
from convo_tui.tui.screens.dialogs import ConfirmScreen, PromptScreen
from convo_tui.tui.session_filter import SORTS, fuzzy_filter, group_by_project, only_starred, sort_sessions
from convo_tui.tui.session_messages import SessionEdited, SessionLoaded, SessionsChanged, SessionsLoaded
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp


def session_line(summary: SessionSummary, *, with_project: bool = False) -> Table:
    """Star column, then title over details: wrapped title lines and the details line up."""
    grid = Table.grid()
    grid.add_column(width=2, no_wrap=True)
    grid.add_column(ratio=1)
    meta = Text(overflow="fold")  # not dim: below 4.5:1 on textual-light; the bold title stands out enough
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
        Binding("slash", "focus_filter", "Filter", show=False, id="sessions.filter"),
        Binding("s", "cycle_sort", "Sort", id="sessions.sort"),
        Binding("f", "toggle_starred", "Starred", id="sessions.starred"),
        Binding("asterisk", "star", "Star", show=False, id="sessions.star"),
        Binding("r", "rename", "Rename", show=False, id="sessions.rename"),
        Binding("d", "delete", "Delete", show=False, id="sessions.delete"),
        Binding("ctrl+s", "export_page", "Save page", show=False, id="sessions.export_page"),
        Binding("j", "cursor_down", "Down", show=False, id="sessions.down"),
        Binding("k", "cursor_up", "Up", show=False, id="sessions.up"),
        Binding("g", "first", "First", show=False, id="sessions.first"),
        Binding("G", "last", "Last", show=False, id="sessions.last"),
        Binding("down", "focus_list", "List", show=False, id="sessions.list"),
    ]

    app: ConvoApp

    def __init__(self) -> None:
        super().__init__()
        self.summaries: list[SessionSummary] | None = None  # None until the first load arrives
        self.error: str | None = None
        self._loading = False
        self._stale = False  # sessions changed while a load ran: load once more when it ends

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Filter sessions by title or project…", id="session-filter")
        yield Static("Loading sessions…", id="sessions-count")
        yield OptionList(id="session-list")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#session-filter", Input).focus()
        self.reload()

    # -- loading ---------------------------------------------------------------------

    def reload(self) -> None:
        """Read the list again in a worker (at most one at a time, then once more if asked meanwhile)."""
        if self.app.library is None:
            self._show()  # the index is still opening; SessionsChanged follows when it is open
            return
        if self._loading:
            self._stale = True
            return
        self._loading = True
        self._stale = False
        self._load()

    @work(thread=True, exclusive=True, group="sessions-load")
    def _load(self) -> None:
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            assert library is not None
            try:
                message = SessionsLoaded(library.sessions())
            except ConvoError as exc:
                message = SessionsLoaded(None, str(exc))
            if not get_current_worker().is_cancelled:
                self.post_message(message)

    def on_sessions_loaded(self, event: SessionsLoaded) -> None:
        self._loading = False
        if event.error is not None:
            self.error = event.error
        else:
            self.summaries, self.error = event.summaries, None
        self._show()
        if self._stale:
            self.reload()

    def on_sessions_changed(self, _: SessionsChanged) -> None:
        self.reload()

    # -- showing ---------------------------------------------------------------------

    @property
    def filter_text(self) -> str:
        return self.query_one("#session-filter", Input).value

    @on(Input.Changed, "#session-filter")
    def _filter(self) -> None:
        self._show()

    @on(Input.Submitted, "#session-filter")
    def _submitted(self) -> None:
        self.action_focus_list()

    def shown(self) -> list[SessionSummary]:
        """The sessions the list shows, in its order (headers left out)."""
        listing = self.query_one("#session-list", OptionList)
        by_id = {s.id: s for s in self.summaries or []}
        ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        return [by_id[i] for i in ids if i in by_id]

    def _options(self, text: str) -> list[Option | None]:
        prefs = self.app.browser
        chosen = only_starred(self.summaries or [], prefs.starred_only)
        if text.strip():  # best match first, whatever the sort
            return [Option(session_line(s, with_project=True), id=s.id) for s in fuzzy_filter(chosen, text)]
        if prefs.sort != "project":
            return [Option(session_line(s, with_project=True), id=s.id) for s in sort_sessions(chosen, prefs.sort)]
        options: list[Option | None] = []
        for project, members in group_by_project(chosen):
            options.append(Option(Text(f"▍{project}  ({len(members)})"), disabled=True))
            options.extend(Option(session_line(s), id=s.id) for s in members)
        return options

    def _show(self) -> None:
        listing = self.query_one("#session-list", OptionList)
        keep = self._highlighted_id()
        options = self._options(self.filter_text) if self.summaries is not None else []
        listing.clear_options()
        listing.add_options(options)
        ids = [option.id if option else None for option in options]
        if keep in ids:
            listing.highlighted = ids.index(keep)
        elif listing.has_focus and listing.option_count:
            listing.action_first()
        self.query_one("#sessions-count", Static).update(self._count_line(sum(1 for i in ids if i)))

    def _count_line(self, shown: int) -> Text:
        prefs = self.app.browser
        line = Text()
        if self.error is not None:
            line.append(f"⚠ {self.error}", style="bold")
            return line
        if self.summaries is None:
            line.append("Loading sessions…")
            return line
        total = len(self.summaries)
        if self.filter_text.strip() or prefs.starred_only:
            line.append(f"{shown} of {plural(total, 'session')}")
        else:
            line.append(plural(total, "session"))
        line.append(f" · by {prefs.sort}" if not self.filter_text.strip() else " · best match first")
        if prefs.starred_only:
            line.append(" · ★ starred only")
        coming = self.app.indexing or (self.app.index_on_start and not self.app.model_ready)
        if coming:
            line.append(" · indexing, more may appear")
        elif not total:
            line.append("  (F5 indexes)")
        elif not shown and prefs.starred_only and not self.filter_text.strip():
            line.append("  (* stars the highlighted session)")
        return line

    def _highlighted_id(self) -> str | None:
        listing = self.query_one("#session-list", OptionList)
        if listing.highlighted is None or listing.highlighted >= listing.option_count:
            return None
        return listing.get_option_at_index(listing.highlighted).id

    def _highlighted(self) -> SessionSummary | None:
        ident = self._highlighted_id()
        return next((s for s in self.summaries or [] if s.id == ident), None)

    # -- opening -----------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#session-list")
    def _open(self, event: OptionList.OptionSelected) -> None:
        if event.option.id and self.app.library is not None:
            self._read_session(event.option.id)

    @work(thread=True, exclusive=True, group="sessions-open")
    def _read_session(self, session_id: str) -> None:
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            assert library is not None
            try:
                message = SessionLoaded(library.session(session_id))
            except ConvoError as exc:
                message = SessionLoaded(None, str(exc))
            self.post_message(message)

    def on_session_loaded(self, event: SessionLoaded) -> None:
        from convo_tui.tui.screens.reader import ReaderScreen

        if event.session is None:
            self.notify(event.error or "Could not read the session", severity="error", markup=False)
        elif self.is_current:
            self.app.push_screen(ReaderScreen(event.session, None, ""))

    # -- keys --------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_focus_filter(self) -> None:
        self.query_one("#session-filter", Input).focus()

    def action_focus_list(self) -> None:
        listing = self.query_one("#session-list", OptionList)
        listing.focus()
        if listing.highlighted is None and listing.option_count:
            listing.action_first()

    def _on_list(self, action: str) -> None:
        listing = self.query_one("#session-list", OptionList)
        if not listing.has_focus:
            self.action_focus_list()
            if action in ("cursor_down", "cursor_up"):
                return  # the first key lands on the first row
        getattr(listing, f"action_{action}")()

    def action_cursor_down(self) -> None:
        self._on_list("cursor_down")

    def action_cursor_up(self) -> None:
        self._on_list("cursor_up")

    def action_first(self) -> None:
        self._on_list("first")

    def action_last(self) -> None:
        self._on_list("last")

    def action_cycle_sort(self) -> None:
        prefs = self.app.browser
        prefs.sort = SORTS[(SORTS.index(prefs.sort) + 1) % len(SORTS)]
        self._show()

    def action_toggle_starred(self) -> None:
        prefs = self.app.browser
        prefs.starred_only = not prefs.starred_only
        self._show()

    def action_star(self) -> None:
        summary = self._highlighted()
        if summary is not None:
            self._edit(summary.id, "star", not summary.starred)

    def action_rename(self) -> None:
        summary = self._highlighted()
        if summary is None:
            return

        def renamed(title: str | None) -> None:
            if title is not None:
                self._edit(summary.id, "rename", title)

        self.app.push_screen(PromptScreen("New title (empty restores the source's):", summary.title), renamed)

    def action_export_page(self) -> None:
        self._export_highlighted("html")

    def action_export_markdown(self) -> None:
        self._export_highlighted("md")

    def _export_highlighted(self, fmt: str) -> None:
        summary = self._highlighted()
        if summary is None:
            self.notify("No session highlighted", severity="warning", timeout=3)
        else:
            self.export_page(summary.id, fmt)

    def action_delete(self) -> None:
        summary = self._highlighted()
        if summary is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._edit(summary.id, "delete", None)

        question = f"Delete “{summary.title}” from the index?\nThe source file is not touched."
        self.app.push_screen(ConfirmScreen(question), answered)

    @work(thread=True, group="sessions-edit")
    def _edit(self, session_id: str, what: str, value: object) -> None:
        """Store writes run here; the app then tells every screen (this one reloads)."""
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            assert library is not None
            try:
                if what == "star":
                    library.star_session(session_id, bool(value))
                    done = "Starred" if value else "Unstarred"
                elif what == "rename":
                    done = f"Renamed to {library.rename_session(session_id, str(value)).title}"
                else:
                    library.delete_session(session_id)
                    done = "Deleted from the index (the source file is untouched)"
            except ConvoError as exc:
                self.app.call_from_thread(self.notify, str(exc), severity="error")
                return
            self.app.post_message(SessionEdited(session_id, deleted=what == "delete"))
            self.app.call_from_thread(self.notify, done, timeout=2)
