"""The whole session, turn by turn, scrolled to the hit; n/N walk the query's hits.

The index is read and written in workers (star, display settings, rename,
delete); they report back with messages, and a change is announced to the app
(SessionEdited) so that every list showing the session reloads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo_tui.core.cost.prices import price_table
from convo_tui.core.errors import ConvoError
from convo_tui.core.model import Session
from convo_tui.core.redact import display
from convo_tui.tui.card_actions import CardActions
from convo_tui.tui.query_line import highlight_words
from convo_tui.tui.render import session_cost
from convo_tui.tui.screens.dialogs import ConfirmScreen, PromptScreen
from convo_tui.tui.session_messages import SessionEdited
from convo_tui.tui.widgets.session_view import TurnView, build_turn_views, session_head
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp


class SessionNotes(Message):
    """What the index keeps about the session beside its text: the star and display settings."""

    def __init__(self, starred: bool, settings: dict[str, bool]) -> None:
        super().__init__()
        self.starred = starred
        self.settings = settings


class SessionStored(Message):
    """A worker wrote a change of the session to the index (or could not: `error`)."""

    def __init__(self, what: str, done: str, *, title: str | None = None, error: str | None = None) -> None:
        super().__init__()
        self.what = what
        self.done = done
        self.title = title
        self.error = error


class ReaderScreen(CardActions, Screen):
    # Shown in the footer: what fits 80 columns beside the app's keys and Quit; F1 lists them all.
    BINDINGS = [
        Binding("escape", "back", "Back", id="reader.back"),
        Binding("n", "next_hit", "Next hit", id="reader.next_hit"),
        Binding("N", "previous_hit", "Prev hit", show=False, id="reader.previous_hit"),
        Binding("t", "toggle_thinking", "Thinking", show=False, id="reader.thinking"),
        Binding("w", "toggle_tools", "Tools", show=False, id="reader.tools"),
        Binding("s", "search_here", "Search here", id="reader.search_here"),
        Binding("c", "copy", "Copy", show=False, id="reader.copy"),
        Binding("x", "export", "Export", show=False, id="reader.export"),
        Binding("ctrl+s", "export_page", "Save page", show=False, id="reader.export_page"),
        Binding("e", "edit", "Editor", show=False, id="reader.edit"),
        Binding("v", "reveal", "Reveal secret", show=False, id="reader.reveal"),
        Binding("r", "rename", "Rename", show=False, id="reader.rename"),
        Binding("asterisk", "star", "Star", show=False, id="reader.star"),
        Binding("d", "delete", "Delete", show=False, id="reader.delete"),
        Binding("j", "scroll_down", "Down", show=False, id="reader.down"),
        Binding("k", "scroll_up", "Up", show=False, id="reader.up"),
        Binding("g", "top", "Top", show=False, id="reader.top"),
        Binding("G", "bottom", "Bottom", show=False, id="reader.bottom"),
    ]

    app: ConvoApp

    def __init__(self, session: Session, turn_index: int | None, query: str) -> None:
        super().__init__()
        self.session = session
        self.current_turn = turn_index
        self.query_text = query
        self.hit_turns: list[int] = [turn_index] if turn_index is not None else []
        self.starred = False
        self._cost: str = ""  # the session's tokens and cost, computed once on mount

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="reader-head")
        yield VerticalScroll(id="reader-body")
        yield Footer(compact=True)

    async def on_mount(self) -> None:
        self._cost = session_cost(self.session, price_table(self.app.settings))
        self._show_head()
        await self._fill_body()
        if self.app.library is not None:
            self._read_notes()
            if self.query_text.strip():
                self._find_hits(self.query_text, self.app.mode)

    @work(thread=True, exclusive=True, group="reader-notes")
    def _read_notes(self) -> None:
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            assert library is not None
            try:
                notes = SessionNotes(library.session_summary(self.session.id).starred, library.session_settings(self.session.id))
            except ConvoError:
                return  # shown without star and with the default settings
            self.post_message(notes)

    def on_session_notes(self, event: SessionNotes) -> None:
        self.starred = event.starred
        self.set_class(bool(event.settings.get("hide_thinking")), "-hide-thinking")
        self.set_class(bool(event.settings.get("hide_tools")), "-hide-tools")
        self._show_head()

    async def _fill_body(self) -> None:
        body = self.query_one("#reader-body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(build_turn_views(self.session, highlight_words(self.query_text), self.app.redactor))
        self._mark_hits()
        body.focus()
        if self.current_turn is not None:
            self.call_after_refresh(self._scroll_to_turn, self.current_turn)

    def _session_texts(self) -> list[str]:
        return [
            t
            for m in self.session.messages
            for t in (m.text, m.thinking, *(str(a) for tool in m.tools for a in tool.args.values()))
        ]

    def _show_head(self) -> None:
        masked = self.app.redactor.masked_count(self._session_texts())
        head = session_head(self.session, starred=self.starred, masked=masked, cost=self._cost)
        self.query_one("#reader-head", Static).update(head)

    def turn_view(self, index: int) -> TurnView | None:
        found = self.query(f"#turn-{index}")
        return found.first(TurnView) if found else None

    def _mark_hits(self) -> None:
        for view in self.query(TurnView):
            view.set_class(view.index in self.hit_turns, "-hit")
            view.set_class(view.index == self.current_turn, "-current")

    def _scroll_to_turn(self, index: int) -> None:
        view = self.turn_view(index)
        if view is not None:
            self.query_one("#reader-body", VerticalScroll).scroll_to_widget(view, top=True, animate=False)

    @work(thread=True, exclusive=True, group="reader-hits")
    def _find_hits(self, query: str, mode: str) -> None:
        app = self.app
        assert app.library is not None  # the reader opens from an open index
        used = mode if (mode not in ("hybrid", "semantic") or app.model_ready) else "keyword"
        try:
            hits = app.library.hits_in_session(query, self.session.id, mode=used)
        except ConvoError as exc:
            app.call_from_thread(app.notify, str(exc), severity="warning")
            return
        turns = sorted({hit.turn_index for hit in hits})
        app.call_from_thread(self._set_hits, turns)

    def _set_hits(self, turns: list[int]) -> None:
        if self.current_turn is not None and self.current_turn not in turns:
            turns = sorted({*turns, self.current_turn})
        self.hit_turns = turns
        self._mark_hits()

    # -- keys --------------------------------------------------------------------------

    def _jump(self, step: int) -> None:
        if not self.hit_turns:
            self.notify("No hits of the query in this session", timeout=2)
            return
        if self.current_turn is None:
            target = self.hit_turns[0 if step > 0 else -1]
        else:
            after = [t for t in self.hit_turns if (t > self.current_turn if step > 0 else t < self.current_turn)]
            ahead = (after[0] if step > 0 else after[-1]) if after else None
            target = ahead if ahead is not None else self.hit_turns[0 if step > 0 else -1]  # else wrap around
        self.current_turn = target
        self._mark_hits()
        self._scroll_to_turn(target)

    def action_next_hit(self) -> None:
        self._jump(1)

    def action_previous_hit(self) -> None:
        self._jump(-1)

    @work(thread=True, group="reader-store")
    def _store(self, what: str, value: object) -> None:
        """Write a change of the session to the index, off the UI thread."""
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            if library is None:
                return
            sid = self.session.id
            title = None
            try:
                if what == "settings":
                    wanted = dict(value) if isinstance(value, dict) else {}
                    library.set_session_settings(
                        sid, hide_thinking=wanted.get("hide_thinking"), hide_tools=wanted.get("hide_tools")
                    )
                    done = ""
                elif what == "star":
                    library.star_session(sid, bool(value))
                    done = "Starred" if value else "Unstarred"
                elif what == "rename":
                    title = library.rename_session(sid, str(value)).title
                    done = f"Renamed to {title}"
                else:
                    library.delete_session(sid)
                    done = "Deleted from the index (the source file is untouched)"
            except ConvoError as exc:
                self.post_message(SessionStored(what, "", error=str(exc)))
                return
            self.post_message(SessionStored(what, done, title=title))

    def on_session_stored(self, event: SessionStored) -> None:
        if event.error is not None:
            self.notify(event.error, severity="warning" if event.what == "settings" else "error")
            if event.what == "star":
                self.starred = not self.starred
                self._show_head()
            return
        if event.what == "settings":
            return
        if event.title is not None:
            self.session.title = event.title
            self._show_head()
        self.app.post_message(SessionEdited(self.session.id, deleted=event.what == "delete"))
        if event.what == "delete" and self.is_current:
            self.app.pop_screen()
        self.notify(event.done, timeout=4 if event.what == "delete" else 2)

    def _remember(self, **values: bool) -> None:
        """Per-session display settings live in the index's annotations."""
        self._store("settings", values)

    def action_toggle_thinking(self) -> None:
        hidden = not self.has_class("-hide-thinking")
        self.set_class(hidden, "-hide-thinking")
        self._remember(hide_thinking=hidden)
        self.notify("Thinking hidden for this session" if hidden else "Thinking shown", timeout=2)

    def action_toggle_tools(self) -> None:
        hidden = not self.has_class("-hide-tools")
        self.set_class(hidden, "-hide-tools")
        self._remember(hide_tools=hidden)
        self.notify("Tool calls hidden for this session" if hidden else "Tool calls shown", timeout=2)

    def action_rename(self) -> None:
        def renamed(title: str | None) -> None:
            if title is not None:
                self._store("rename", title)

        self.app.push_screen(PromptScreen("New title (empty restores the source's):", self.session.title), renamed)

    def action_star(self) -> None:
        self.starred = not self.starred  # shown at once; put back if the write fails
        self._show_head()
        self._store("star", self.starred)

    def action_delete(self) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._store("delete", None)

        question = f"Delete “{display(self.session.title)}” from the index?\nThe source file is not touched."
        self.app.push_screen(ConfirmScreen(question), answered)

    def action_search_here(self) -> None:
        from convo_tui.core.search.query import session_filter

        self.app.set_query(f"{session_filter(self.session.id)} ")

    def action_copy(self) -> None:
        self.copy_session(self.session)

    def action_export(self) -> None:
        self.export_context(self.session.id, self.query_text)

    def action_export_page(self) -> None:
        self.export_page(self.session.id, "html")

    def action_export_markdown(self) -> None:
        self.export_page(self.session.id, "md")

    def action_edit(self) -> None:
        self.edit_source(self.session.path)

    async def action_reveal(self) -> None:
        kind = self.app.redactor.reveal_next(self._session_texts())
        if kind is None:
            self.notify("No masked secret left in this session", timeout=2)
            return
        self.notify(f"Revealed one {kind}", timeout=3)
        self._show_head()
        await self._fill_body()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_scroll_down(self) -> None:
        self.query_one("#reader-body", VerticalScroll).scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        self.query_one("#reader-body", VerticalScroll).scroll_up(animate=False)

    def action_top(self) -> None:
        self.query_one("#reader-body", VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one("#reader-body", VerticalScroll).scroll_end(animate=False)
